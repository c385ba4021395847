#!/usr/bin/env bash
# storebench vs the S3 clients users reach for, on the same local servers (MinIO and versitygw): PUT
# then GET of 4 MiB and 64 MiB objects, 8 workers, through
#   storebench ops --op create_write / open_read --threads 8
#   boto3 with the AWS Common Runtime (s3transfer's CRT transfer manager; pip install boto3 awscrt)
#   plain boto3 (upload_fileobj / get_object)
#   and for GETs a bare socket (bench/s3_peer.py): no client anyone would pick but the floor under all
#   of them, what the kernel alone charges a process that reads the bodies on this machine
# Each tool's MiB/s and CPU-seconds per GiB: the median and spread over RUNS runs (the tools take
# turns, the first one changing from run to run), and storebench's ratios to each.
# Targets: >= 1.0x the CRT's throughput, CPU per GiB <= 0.7x.
#   RUNS=5 bench/s3.sh [TOTAL_MIB_PER_CASE]   (default 1024; SERVERS=versitygw for one server)
# Like for like (the summary states it per case): the same server, bucket and data sizes; worker k
# works on its own key test_k, PUT overwrites it and GET reads it, TOTAL/SIZE/8 times each; random
# (incompressible) data; 8 MiB parts above 8 MiB with 4 parts of one object in flight (storebench's
# fs.s3a.fast.upload.active.blocks, the CRT's connection cap 8 x 4, boto3's max_concurrency 4); a GET's
# body is read and dropped, 8 requests in flight (the CRT reads in ranged GETs of 8 MiB, its design,
# over at most 8 connections; the others in one GET per object); the server's data on its local disk,
# in the page cache after the first run. rclone is left out: it moves files, not objects from memory.
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL_MIB=${1:-1024}
CONC=8
ACTIVE=4
PART_MIB=8
cargo build --release --quiet
SB=target/release/storebench
python3 -c 'import boto3, awscrt' 2>/dev/null || { echo "boto3 and awscrt are needed: pip install boto3 awscrt" >&2; exit 1; }
. bench/lib.sh
WORK=$(mktemp -d)
. bench/servers.sh
cleanup() {
  rm -rf "$WORK"
  stop_servers
}
trap cleanup EXIT

tool_run() { # TOOL SERVER ENDPOINT BUCKET SIZE_MIB OP PER RUN CASE COND
  local tool=$1 ep=$3 bucket=$4 mib=$5 op=$6 per=$7 run=$8 case=$9 cond=${10}
  local prefix="bench-$$-$RANDOM" mibs cpu
  if [ "$tool" = storebench ]; then
    local sbop=create_write; [ "$op" = get ] && sbop=open_read
    "$SB" ops --op $sbop --threads $CONC --iterations "$per" --repeats 1 --file-size "${mib}m" --buffer-size 1m -q \
      --prepare --endpoint "$ep" -D fs.s3a.multipart.size=${PART_MIB}m -D fs.s3a.fast.upload.active.blocks=$ACTIVE \
      --json "$WORK/sb.json" "s3://$bucket/$prefix/" >/dev/null
    read -r mibs cpu < <(json "$WORK/sb.json" "(lambda s: f\"{s['mib_per_s']} {s['cpu']['s_per_gib']}\")(d['ops_run']['repeats'][0]['summary'])")
  else
    local kind=${tool#boto3-}
    python3 bench/s3_peer.py "${kind#bare-}" "$op" "$ep" "$bucket" "$prefix" $((mib << 20)) "$per" $CONC \
      $((PART_MIB << 20)) $ACTIVE >"$WORK/peer.json"
    read -r mibs cpu < <(json "$WORK/peer.json" "(lambda m: f\"{m / d['wall_s']} {d['cpu_s'] / (m / 1024)}\")(d['bytes'] / 2**20)")
  fi
  record "$case" "$cond" "MiB/s (higher)" "$tool" "$run" "$mibs"
  record "$case" "$cond" "CPU-s/GiB (lower)" "$tool" "$run" "$cpu"
}

for server in ${SERVERS:-minio versitygw}; do
  case $server in minio | versitygw) ;; *) echo "SERVERS: '$server' is not a server here; use minio or versitygw" >&2; exit 2 ;; esac
  start_s3 "$server"
  for mib in 4 64; do
    per=$((TOTAL_MIB / mib / CONC)); [ $per -lt 1 ] && per=1
    for op in put get; do
      case="$server, $op ${mib} MiB objects"
      cond="$CONC workers x $per ${mib} MiB objects on their own keys, random data; $([ "$op" = put ] &&
        echo "multipart above ${PART_MIB} MiB in ${PART_MIB} MiB parts, $ACTIVE parts of an object in flight" ||
        echo "bodies read and dropped, $CONC GETs in flight (boto3-crt: ranged GETs of ${PART_MIB} MiB; bare-socket: one presigned GET per object, recv_into a reused 1 MiB buffer; storebench: a HEAD, then a ranged GET of the whole object, as Hadoop's S3A opens)"); the server's data on local disk"
      tools=(storebench boto3-crt boto3)
      [ "$op" = get ] && tools+=(bare-socket)
      for run in $(seq "$RUNS"); do
        # The tools take turns; who goes first rotates from run to run.
        for i in "${!tools[@]}"; do
          tool_run "${tools[$(((i + run) % ${#tools[@]}))]}" "$server" "$EP" "$BUCKET" "$mib" "$op" "$per" "$run" "$case" "$cond"
        done
      done
    done
  done
  stop_servers
  ROOTS=()
done
summarize
