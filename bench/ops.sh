#!/usr/bin/env bash
# storebench ops against peers making the same calls, side by side on this machine, as each tool's
# median and spread over RUNS runs (the tools take turns, the first changing from run to run):
#  1. single_read of 4 KiB at random offsets (with replacement) of a 256 MiB file held in the page
#     cache, 1 thread, pread(2) into a page-aligned mmap buffer, queue depth 1, vs fio --rw=randread
#     --bs=4k --ioengine=psync --iomem=mmap --norandommap --invalidate=0 on the same file: IOPS.
#  2. On local S3 servers (versitygw; MinIO with --minio): exists (HEAD of the worker's object), list
#     (ListObjectsV2 of the prefix) and single_read (ranged 4 KiB GETs at random offsets of a 64 MiB
#     object), 8 threads, vs boto3 making the same calls with 8 threads (bench/ops_peer.py): ops/s.
# Target: >= 1.0x. rclone is left out: as scripts use it (a process per call) it is not the same engine.
#   RUNS=5 bench/ops.sh [SECONDS] [--minio]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
cargo build --release --quiet
SB=target/release/storebench
. bench/lib.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/storebench-opsbench.XXXXXX")
. bench/servers.sh
cleanup() {
  rm -rf "$WORK"
  stop_servers
}
trap cleanup EXIT
sbops() { json "$1" "d['ops_run']['repeats'][0]['summary']['ops_per_s']"; }

# 1. Local 4 KiB random reads of a cached file.
if command -v fio >/dev/null; then
  head -c $((256 << 20)) /dev/urandom >"$WORK/data.bin"
  cat "$WORK/data.bin" >/dev/null
  case="file 4 KiB random reads, 1 thread"
  cond="the same 256 MiB file, all of it in the page cache; pread of 4 KiB at random 4 KiB-aligned offsets, with replacement; queue depth 1; page-aligned mmap buffer; ${SECS} s"
  local_sb() {
    "$SB" ops --op single_read --random --file-size 4k --buffer-size 4k --threads 1 --duration "${SECS}s" \
      --repeats 1 -q --file-path "$WORK/data.bin" --json "$WORK/sb.json" "$WORK" >/dev/null
    record "$case" "$cond" "ops/s (higher)" storebench "$run" "$(sbops "$WORK/sb.json")"
  }
  local_fio() {
    fio --name=randread --filename="$WORK/data.bin" --rw=randread --bs=4k --ioengine=psync --iodepth=1 --iomem=mmap \
      --norandommap --invalidate=0 --runtime="$SECS" --time_based --output-format=json --output="$WORK/fio.json" >/dev/null
    record "$case" "$cond" "ops/s (higher)" fio "$run" "$(json "$WORK/fio.json" "d['jobs'][0]['read']['iops']")"
  }
  for run in $(seq "$RUNS"); do
    if [ $((run % 2)) = 1 ]; then local_sb; local_fio; else local_fio; local_sb; fi
  done
else
  echo "fio not installed (apt-get install fio): the local case is skipped"
fi

# 2. S3 metadata and small reads vs boto3.
python3 -c 'import boto3' 2>/dev/null || { echo "boto3 is needed: pip install boto3" >&2; exit 1; }
servers=(versitygw)
[ "${2:-}" = --minio ] && servers+=(minio)
for server in "${servers[@]}"; do
  start_s3 "$server"
  for op in exists list single_read; do
    case="$server $op, 8 threads"
    cond="the same server; 8 threads for ${SECS} s; $(case $op in
      exists) echo "HEAD of the thread's own 1 KiB object" ;;
      list) echo "ListObjectsV2 of a prefix holding 8 objects" ;;
      single_read) echo "ranged GETs of 4 KiB at random 4 KiB-aligned offsets of one 64 MiB object" ;;
    esac)"
    s3_sb() {
      local prefix="opsbench-$$-$RANDOM" extra=(--prepare --file-size 1k)
      [ $op = single_read ] && extra=(--prepare --random --file-size 4k --buffer-size 4k)
      if [ $op = list ]; then
        # The 8 objects boto3's list finds too (list prepares none); removed after.
        "$SB" ops --op create_write --threads 8 --file-size 1k --repeats 1 -q --keep --endpoint "$EP" \
          "s3://$BUCKET/$prefix/" >/dev/null
        extra=()
      fi
      "$SB" ops --op $op --threads 8 --duration "${SECS}s" --repeats 1 -q "${extra[@]}" \
        --endpoint "$EP" --json "$WORK/sb.json" "s3://$BUCKET/$prefix/" >/dev/null
      record "$case" "$cond" "ops/s (higher)" storebench "$run" "$(sbops "$WORK/sb.json")"
      [ $op = list ] && python3 - "$EP" "$BUCKET" "$prefix" <<'PY'
import sys, boto3
ep, bucket, prefix = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=ep, region_name="us-east-1")
for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix + "/").get("Contents", []):
    s3.delete_object(Bucket=bucket, Key=o["Key"])
PY
      true
    }
    s3_boto3() {
      python3 bench/ops_peer.py $op "$EP" "$BUCKET" "opsbench-$$-$RANDOM" 8 "$SECS" >"$WORK/peer.json"
      record "$case" "$cond" "ops/s (higher)" boto3 "$run" "$(json "$WORK/peer.json" "d['ops_per_s']")"
    }
    for run in $(seq "$RUNS"); do
      if [ $((run % 2)) = 1 ]; then s3_sb; s3_boto3; else s3_boto3; s3_sb; fi
    done
  done
done
summarize
