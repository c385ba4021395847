#!/usr/bin/env bash
# storebench dfsio vs Hadoop's own TestDFSIO (the same Hadoop 3.4.1 jars, local MapReduce mode:
# -D mapreduce.framework.name=local) on the same HDFS mini-cluster (scripts/hdfs-cluster.sh, 1 DataNode,
# replication 1), same nrFiles and fileSize, write then read. Prints both tools' figures and the ratio
# of wall times (storebench / TestDFSIO; the target is <= 0.3 for the same bytes).
#   bench/hdfs.sh [NR_FILES [FILE_SIZE [RUNS]]]      default 4 128MB 3
set -euo pipefail
cd "$(dirname "$0")/.."
NR=${1:-4}
SIZE=${2:-128MB}
RUNS=${3:-3}
cargo build --release -q
SB=target/release/storebench
eval "$(scripts/hdfs-cluster.sh start)"
trap 'scripts/hdfs-cluster.sh stop "$STOREBENCH_HDFS_ROOT"' EXIT
URL=$STOREBENCH_HDFS_URL
OUT=$(mktemp -d)
now() { date +%s.%N; }

testdfsio() { # MODE
  java -Xmx2g -Dlog4j.configuration="file:$STOREBENCH_HDFS_LOG4J" -cp "$STOREBENCH_HDFS_CLASSPATH" \
    org.apache.hadoop.fs.TestDFSIO -D mapreduce.framework.name=local -D fs.defaultFS="$URL" \
    -D test.build.data=/benchmarks/TestDFSIO "-$1" -nrFiles "$NR" -fileSize "$SIZE" -resFile "$OUT/hadoop.txt" \
    >"$OUT/hadoop.out" 2>&1
}
storebench() { # MODE
  "$SB" dfsio "-$1" -nrFiles "$NR" -fileSize "$SIZE" -rootDir "$URL/benchmarks/storebench" -q \
    -resFile "$OUT/storebench.txt" >"$OUT/storebench.out"
}

echo "HDFS mini-cluster at $URL (1 DataNode); $NR files of $SIZE; $RUNS runs; wall seconds per run"
printf '%-6s %-4s %12s %12s %8s\n' mode run TestDFSIO storebench ratio
for run in $(seq "$RUNS"); do
  for mode in write read; do
    t0=$(now); testdfsio $mode; t1=$(now)
    storebench $mode; t2=$(now)
    h=$(echo "$t1 - $t0" | bc -l); s=$(echo "$t2 - $t1" | bc -l)
    printf '%-6s %-4s %12.2f %12.2f %7.2fx\n' "$mode" "$run" "$h" "$s" "$(echo "$s / $h" | bc -l)"
  done
done
echo
echo "== TestDFSIO's last result file block"; tail -10 "$OUT/hadoop.txt"
echo "== storebench's last run"; cat "$OUT/storebench.out"
"$SB" dfsio -clean -rootDir "$URL/benchmarks/storebench" -q >/dev/null
rm -rf "$OUT"
