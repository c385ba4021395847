#!/usr/bin/env bash
# storebench vs the S3 clients users reach for, on the same local servers (MinIO and versitygw), same
# object sizes (4 MiB and 64 MiB), same concurrency (8) and the same number of objects, PUT then GET:
#   storebench ops --op create_write / open_read --threads 8
#   boto3 with the AWS Common Runtime (s3transfer's CRT transfer manager; pip install boto3 awscrt)
#   boto3 alone (put_object / get_object)
#   rclone copy --transfers 8 (Debian package), from and to /dev/shm
# Prints MiB/s and CPU-seconds per GiB for each, and storebench's ratios against the fastest peer:
# targets >= 1.0x its throughput and <= 0.7x its CPU per GiB.
#   bench/s3.sh [TOTAL_MIB_PER_CASE]   (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL_MIB=${1:-1024}
CONC=8
cargo build --release --quiet
SB=target/release/storebench
command -v rclone >/dev/null || { echo "rclone is needed: apt-get install rclone" >&2; exit 1; }
python3 -c 'import boto3, awscrt' 2>/dev/null || { echo "boto3 and awscrt are needed: pip install boto3 awscrt" >&2; exit 1; }
SHM=$(mktemp -d /dev/shm/storebench-bench.XXXXXX)
. bench/servers.sh
cleanup() {
  rm -rf "$SHM"
  stop_servers
}
trap cleanup EXIT

# Wall and CPU seconds (the command and its children) of a command: "wall cpu".
measure() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall} {r.ru_utime + r.ru_stime}")
PY
}

# rate MIB WALL CPU -> "MiB/s CPU-s/GiB"
rate() { python3 -c "import sys; m,w,c=map(float,sys.argv[1:]); print(f'{m/w:.1f} {c/(m/1024):.3f}')" "$@"; }

row() { printf '%-10s %-6s %-4s %-12s %10s %12s\n' "$@"; }

results=()
run_case() { # SERVER ENDPOINT BUCKET SIZE_MIB OP
  local server=$1 ep=$2 bucket=$3 mib=$4 op=$5
  local count=$((TOTAL_MIB / mib)); [ $count -lt $CONC ] && count=$CONC
  local per=$((count / CONC)); count=$((per * CONC))
  local total=$((count * mib)) prefix="bench-$$-$RANDOM"
  local sbop=create_write; [ "$op" = get ] && sbop=open_read
  # storebench: 8 threads, each on its own object, PUT with 8 MiB parts like the CRT.
  local json="$SHM/sb.json"
  "$SB" ops --op $sbop --threads $CONC --iterations $per --repeats 1 --file-size "${mib}m" --buffer-size 1m -q --prepare \
    --endpoint "$ep" -D fs.s3a.multipart.size=8m --json "$json" "s3://$bucket/$prefix/" >/dev/null
  local sb
  sb=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['ops_run']['repeats'][0]['summary']; print(f\"{s['mib_per_s']:.1f} {s['cpu']['s_per_gib']:.3f}\")" "$json")
  results+=("$server ${mib}MiB $op storebench $sb")
  for c in crt boto3; do
    local out
    out=$(python3 bench/s3_peer.py $c $op "$ep" "$bucket" "$prefix-$c" $((mib << 20)) $count $CONC)
    results+=("$server ${mib}MiB $op boto3-$c $(python3 -c "import json,sys; r=json.loads(sys.argv[1]); m=r['bytes']/2**20; print(f\"{m/r['wall_s']:.1f} {r['cpu_s']/(m/1024):.3f}\")" "$out")")
  done
  # rclone: the same objects from and to /dev/shm.
  export RCLONE_CONFIG_BENCH_TYPE=s3 RCLONE_CONFIG_BENCH_PROVIDER=Other RCLONE_CONFIG_BENCH_ENDPOINT=$ep
  export RCLONE_CONFIG_BENCH_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
  rm -rf "$SHM/src" "$SHM/dst"; mkdir -p "$SHM/src" "$SHM/dst"
  for i in $(seq $count); do head -c $((mib << 20)) /dev/urandom >"$SHM/src/obj_$i"; done
  # rclone refuses a CA bundle (AWS_CA_BUNDLE) on plain-http endpoints.
  local rc=(env -u AWS_CA_BUNDLE rclone --transfers $CONC --s3-chunk-size 8M --s3-upload-cutoff 8M -q)
  local wc
  if [ "$op" = put ]; then
    wc=$(measure "${rc[@]}" copy "$SHM/src" "bench:$bucket/$prefix-rclone")
  else
    "${rc[@]}" copy "$SHM/src" "bench:$bucket/$prefix-rclone"
    wc=$(measure "${rc[@]}" copy "bench:$bucket/$prefix-rclone" "$SHM/dst")
  fi
  # shellcheck disable=SC2086
  results+=("$server ${mib}MiB $op rclone $(rate $total $wc)")
  "${rc[@]}" purge "bench:$bucket/$prefix-rclone"
  rm -rf "$SHM/src" "$SHM/dst"
}

for server in minio versitygw; do
  start_s3 "$server"
  for mib in 4 64; do
    for op in put get; do run_case $server "$EP" "$BUCKET" $mib $op; done
  done
done

echo
row server size op tool "MiB/s" "CPU-s/GiB"
for r in "${results[@]}"; do
  # shellcheck disable=SC2086
  row $r
done
echo
echo "storebench / fastest peer (throughput: higher is better, target >= 1.0; CPU per GiB: lower is better, target <= 0.7)"
printf '%s\n' "${results[@]}" | python3 -c '
import sys, collections
cases = collections.defaultdict(dict)
for line in sys.stdin:
    server, size, op, tool, mibs, cpu = line.split()
    cases[(server, size, op)][tool] = (float(mibs), float(cpu))
for (server, size, op), tools in cases.items():
    sb = tools.pop("storebench")
    best, (bm, bc) = max(tools.items(), key=lambda kv: kv[1][0])
    print(f"{server:10} {size:6} {op:4} vs {best:12} throughput {sb[0]/bm:5.2f}x   CPU/GiB {sb[1]/bc:5.2f}x")
'
