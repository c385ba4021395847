#!/usr/bin/env bash
# storebench ops against peers doing the same calls, side by side on this machine:
#  1. single_read of 4 KiB at random offsets of a cached 256 MiB file, 1 thread, vs
#     fio --rw=randread --bs=4k --ioengine=psync --invalidate=0 on the same file: IOPS ratio (>= 1.0x).
#  2. On local S3 servers (versitygw; MinIO with --minio): exists, list and single_read (4 KiB ranged
#     GETs) with 8 threads vs boto3 making the same calls with 8 threads, and rclone with 8 loops of
#     one process per call: ops/s ratio (>= 1.0x the best of them).
#   bench/ops.sh [SECONDS] [--minio]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
cargo build --release --quiet
SB=target/release/storebench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/storebench-opsbench.XXXXXX")
. bench/servers.sh
cleanup() {
  rm -rf "$WORK"
  stop_servers
}
trap cleanup EXIT
sbops() { # JSON -> ops/s of the first repeat
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ops_run']['repeats'][0]['summary']['ops_per_s'])" "$1"
}
ratio() { python3 -c "import sys; a,b=map(float,sys.argv[1:]); print(f'{a:12.0f} {b:12.0f} {a/b:6.2f}x')" "$1" "$2"; }
printf '%-34s %12s %12s %7s\n' case storebench peer ratio

# 1. Local 4 KiB random reads of a cached file.
head -c $((256 << 20)) /dev/urandom >"$WORK/data.bin"
cat "$WORK/data.bin" >/dev/null
"$SB" ops --op single_read --random --file-size 4k --buffer-size 4k --threads 1 --duration "${SECS}s" \
  --repeats 1 -q --file-path "$WORK/data.bin" --json "$WORK/sb.json" "$WORK" >/dev/null
sb=$(sbops "$WORK/sb.json")
if command -v fio >/dev/null; then
  fio=$(fio --name=randread --filename="$WORK/data.bin" --rw=randread --bs=4k --ioengine=psync --invalidate=0 \
    --runtime="$SECS" --time_based --output-format=json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['jobs'][0]['read']['iops'])")
  printf '%-34s %s\n' "file 4k randread, 1 thread (fio)" "$(ratio "$sb" "$fio")"
else
  echo "fio not installed (apt-get install fio): local case skipped"
fi

# rclone doing the same calls, one process per call (how scripts use it), 8 loops in parallel for SECS:
# exists = lsf of the object, list = lsf of the prefix, single_read = cat --offset --count 4096.
rclone_ops() { # OP ENDPOINT BUCKET PREFIX -> ops/s
  local op=$1 ep=$2 bucket=$3 prefix=$4
  export RCLONE_CONFIG_BENCH_TYPE=s3 RCLONE_CONFIG_BENCH_PROVIDER=Other RCLONE_CONFIG_BENCH_ENDPOINT=$ep
  export RCLONE_CONFIG_BENCH_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
  local rc=(env -u AWS_CA_BUNDLE rclone -q)
  # The objects are written by storebench (rclone's uploads stall on versitygw here); rclone only reads.
  "$SB" ops --op create_write --threads 8 --file-size 1k --repeats 1 -q --keep --endpoint "$ep" "s3://$bucket/$prefix/" >/dev/null
  "$SB" bandwidth 64m -q --keep --endpoint "$ep" "s3://$bucket/$prefix/big" >/dev/null
  local end=$(($(date +%s) + SECS))
  for k in $(seq 0 7); do
    (
      n=0
      while [ "$(date +%s)" -lt $end ]; do
        case $op in
          exists) "${rc[@]}" lsf "bench:$bucket/$prefix/test_$k" >/dev/null ;;
          list) "${rc[@]}" lsf "bench:$bucket/$prefix/" >/dev/null ;;
          single_read) "${rc[@]}" cat --offset $((RANDOM * 2048 / 4096 * 4096)) --count 4096 "bench:$bucket/$prefix/big" >/dev/null ;;
        esac
        n=$((n + 1))
      done
      echo $n >"$WORK/rclone.$k"
    ) &
  done
  wait
  python3 - "$ep" "$bucket" "$prefix" <<'PY'
import sys, boto3
ep, bucket, prefix = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=ep, region_name="us-east-1")
for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix + "/").get("Contents", []):
    s3.delete_object(Bucket=bucket, Key=o["Key"])
PY
  python3 -c "import sys; print(sum(int(open(f).read()) for f in sys.argv[2:]) / float(sys.argv[1]))" "$SECS" "$WORK"/rclone.*
}

# 2. S3 metadata and small reads vs boto3 and rclone.
python3 -c 'import boto3' 2>/dev/null || { echo "boto3 is needed: pip install boto3" >&2; exit 1; }
servers=(versitygw)
[ "${2:-}" = --minio ] && servers+=(minio)
for server in "${servers[@]}"; do
  start_s3 "$server"
  for op in exists list single_read; do
    prefix="opsbench-$$-$op"
    extra=(--prepare --file-size 1k)
    [ $op = single_read ] && extra=(--prepare --random --file-size 4k --buffer-size 4k)
    "$SB" ops --op $op --threads 8 --duration "${SECS}s" --repeats 1 -q "${extra[@]}" \
      --endpoint "$EP" --json "$WORK/sb.json" "s3://$BUCKET/$prefix/" >/dev/null
    sb=$(sbops "$WORK/sb.json")
    peer=$(python3 bench/ops_peer.py $op "$EP" "$BUCKET" "$prefix-boto3" 8 "$SECS" |
      python3 -c "import json,sys; print(json.load(sys.stdin)['ops_per_s'])")
    printf '%-34s %s\n' "$server $op, 8 threads (boto3)" "$(ratio "$sb" "$peer")"
    if command -v rclone >/dev/null; then
      peer=$(rclone_ops $op "$EP" "$BUCKET" "$prefix-rclone")
      printf '%-34s %s\n' "$server $op, 8 threads (rclone)" "$(ratio "$sb" "$peer")"
    fi
  done
done
