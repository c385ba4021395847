#!/usr/bin/env bash
# storebench dfsio vs Hadoop's own TestDFSIO (the same Hadoop 3.4.1 jars, local MapReduce mode:
# -D mapreduce.framework.name=local) on the same HDFS mini-cluster (scripts/hdfs-cluster.sh, 1 DataNode,
# replication 1): the same nrFiles and fileSize, TestDFSIO's default 1,000,000-byte buffer for both,
# write then read, the DataNode's blocks on local disk. Prints each tool's wall seconds per mode, the
# median and spread over RUNS runs (who goes first alternates), and the ratio storebench / TestDFSIO
# (target <= 0.3: TestDFSIO's time includes its JVM and local MapReduce job, which users pay too).
#   RUNS=5 bench/hdfs.sh [NR_FILES [FILE_SIZE]]      default 4 128MB
set -euo pipefail
cd "$(dirname "$0")/.."
NR=${1:-4}
SIZE=${2:-128MB}
cargo build --release -q
SB=target/release/storebench
. bench/lib.sh
eval "$(scripts/hdfs-cluster.sh start)"
trap 'scripts/hdfs-cluster.sh stop "$STOREBENCH_HDFS_ROOT"' EXIT
URL=$STOREBENCH_HDFS_URL
OUT=$(mktemp -d)
now() { date +%s.%N; }

testdfsio() { # MODE
  java -Xmx2g -Dlog4j.configuration="file:$STOREBENCH_HDFS_LOG4J" -cp "$STOREBENCH_HDFS_CLASSPATH" \
    org.apache.hadoop.fs.TestDFSIO -D mapreduce.framework.name=local -D fs.defaultFS="$URL" \
    -D test.build.data=/benchmarks/TestDFSIO "-$1" -nrFiles "$NR" -fileSize "$SIZE" -bufferSize 1000000 \
    -resFile "$OUT/hadoop.txt" >"$OUT/hadoop.out" 2>&1
}
storebench() { # MODE
  "$SB" dfsio "-$1" -nrFiles "$NR" -fileSize "$SIZE" -bufferSize 1000000 -rootDir "$URL/benchmarks/storebench" -q \
    -resFile "$OUT/storebench.txt" >"$OUT/storebench.out"
}
timed() { # TOOL MODE RUN
  local t0 t1
  t0=$(now)
  "$1" "$2"
  t1=$(now)
  record "dfsio -$2, $NR files of $SIZE" "the same mini-cluster (1 DataNode, replication 1), $NR files of $SIZE, 1,000,000-byte buffer, blocks on local disk" \
    "wall s (lower)" "$([ "$1" = testdfsio ] && echo TestDFSIO || echo storebench)" "$3" "$(echo "$t1 - $t0" | bc -l)"
}

echo "HDFS mini-cluster at $URL (1 DataNode); $NR files of $SIZE; $RUNS runs"
for run in $(seq "$RUNS"); do
  # Each tool writes then reads its own files; who goes first alternates.
  first=storebench second=testdfsio
  [ $((run % 2)) = 0 ] && { first=testdfsio; second=storebench; }
  for tool in $first $second; do
    timed $tool write "$run"
    timed $tool read "$run"
  done
done
summarize
echo
echo "== TestDFSIO's last result file block"; tail -10 "$OUT/hadoop.txt"
echo "== storebench's last run"; cat "$OUT/storebench.out"
"$SB" dfsio -clean -rootDir "$URL/benchmarks/storebench" -q >/dev/null
rm -rf "$OUT"
