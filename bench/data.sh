#!/usr/bin/env bash
# The cost of --data: storebench's memory:// ceiling (bandwidth upload and download, 1 MiB blocks) with
# each data pattern against random, the default. Target: no pattern more than 5 % below random
# (patterns are made once per run; only the 8-byte stamps per 4 KiB change per block): a ratio
# "random / PATTERN" above 1.05 is a miss. Each pattern's
# median and spread over RUNS runs, the patterns taking turns.
#   RUNS=5 bench/data.sh [SIZE_MIB]     (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-1024}
cargo build --release -q
SB=$PWD/target/release/storebench
. bench/lib.sh
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
patterns=(random zeros compressible:50 dedupe:50)
cond="bandwidth ${SIZE_MIB}m memory://, 1 MiB blocks, whole-file read; only --data differs"
for run in $(seq "$RUNS"); do
  for i in 0 1 2 3; do
    p=${patterns[$(((i + run) % 4))]}
    "$SB" bandwidth "${SIZE_MIB}m" memory://bench/ --block 1m -q --data "$p" --json "$WORK/d.json" >/dev/null
    for ph in 0 1; do
      name=$([ $ph = 0 ] && echo upload || echo download)
      # The reference tool of the summary is random: every pattern's ratio is against it.
      record "memory:// $name, 1 MiB blocks" "$cond" "MiB/s (higher)" "$p" "$run" "$(json "$WORK/d.json" "d['phases'][$ph]['mbyte_per_s']")"
    done
  done
done
python3 bench/summary.py "$RESULTS" random
rm -f "$RESULTS"
