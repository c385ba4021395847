#!/usr/bin/env bash
# storebench vs fio on the same file, size and block, side by side on this machine, and storebench's
# memory:// store vs a plain memcpy of the same blocks. Prints each tool's median and spread over RUNS
# runs (the tools take turns) and the ratios.
#   RUNS=5 bench/local.sh [SIZE_MIB] [DIR]     (defaults: 1024 MiB in a fresh directory under ./target)
# Like for like, case by case (the summary repeats it):
# - both write a new file with plain pwrite(2) of 1 MiB (fio --fallocate=none: its default preallocates
#   first, a different operation), from a page-aligned anonymous-mmap buffer (fio --iomem=mmap: its
#   default malloc buffer made its page-cache reads 2.5-3x slower here, 5,000 against 16,000 MiB/s,
#   while dd and fio --iomem=mmap read at storebench's speed), one job, queue depth 1 (psync);
# - "page cache": each reads back the file it has just written, all of it cached (fio --invalidate=0:
#   its default drops the file's cache before the job); the cache is emptied before each write;
# - "O_DIRECT": both --direct, the cache emptied before each write;
# - every write starts after bench/lib.sh's settle, and which tool goes first alternates run by run.
# Targets: storebench/fio >= 1.0 with the same engine; memory:// >= 0.8 x memcpy.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-1024}
DIR=${2:-$(mktemp -d "$PWD/target/bench-local.XXXXXX")}
. bench/lib.sh

if ! command -v fio >/dev/null; then
  echo "installing fio from Debian"
  (apt-get update -qq && apt-get install -y -qq fio) >/dev/null
fi
cargo build --release -q
SB=$PWD/target/release/storebench
cc -O2 -o target/bench-memcpy bench/memcpy.c
# On virtual disks cached by the host, O_DIRECT figures vary run to run by up to 3x for both tools:
# read the spread before the ratio.

fio_bw() { # rw direct -> MiB/s
  fio --name=b --filename="$DIR/fio.dat" --rw="$1" --bs=1m --size="${SIZE_MIB}m" --ioengine=psync --iodepth=1 \
    --iomem=mmap --direct="$2" --invalidate=0 --end_fsync=0 --fallocate=none --output-format=json \
    --output="$DIR/fio.json" >/dev/null
  json "$DIR/fio.json" "d['jobs'][0]['$1']['bw_bytes']/1048576"
}

fs=$(df -T "$DIR" | awk 'NR==2{print $2}')
echo "size ${SIZE_MIB} MiB, block 1 MiB, $RUNS runs, in $DIR ($fs)"
for run in $(seq "$RUNS"); do
  for direct in 0 1; do
    flag=""; label="page cache"; state="read back right after the write, the whole file in the page cache"
    [ "$direct" = 1 ] && { flag="--direct"; label="O_DIRECT"; state="O_DIRECT both ways"; }
    cond="a new ${SIZE_MIB} MiB file on $fs, pwrite/pread of 1 MiB, queue depth 1, page-aligned mmap buffer, cache emptied before the write; $state"
    sb_case() {
      settle
      "$SB" bandwidth "${SIZE_MIB}m" "$DIR" --block 1m --policy sequential $flag -q --json "$DIR/sb.json" >/dev/null
      record "seq write 1 MiB, $label" "$cond" "MiB/s (higher)" storebench "$run" "$(json "$DIR/sb.json" "d['phases'][0]['mbyte_per_s']")"
      record "seq read 1 MiB, $label" "$cond" "MiB/s (higher)" storebench "$run" "$(json "$DIR/sb.json" "d['phases'][1]['mbyte_per_s']")"
    }
    fio_case() {
      rm -f "$DIR/fio.dat"
      settle
      record "seq write 1 MiB, $label" "$cond" "MiB/s (higher)" fio "$run" "$(fio_bw write "$direct")"
      record "seq read 1 MiB, $label" "$cond" "MiB/s (higher)" fio "$run" "$(fio_bw read "$direct")"
      rm -f "$DIR/fio.dat"
    }
    # Who goes first alternates from run to run.
    if [ $((run % 2)) = 1 ]; then sb_case; fio_case; else fio_case; sb_case; fi
  done
  cond="${SIZE_MIB} MiB in 1 MiB copies; the block buffer page-aligned, the object from malloc"
  "$SB" bandwidth "${SIZE_MIB}m" memory://bench/ --block 1m --policy sequential -q --json "$DIR/mem.json" >/dev/null
  record "memory:// write 1 MiB blocks (memcpy into a new object)" "$cond" "MiB/s (higher)" storebench "$run" "$(json "$DIR/mem.json" "d['phases'][0]['mbyte_per_s']")"
  record "memory:// read 1 MiB blocks (memcpy out of the object)" "$cond" "MiB/s (higher)" storebench "$run" "$(json "$DIR/mem.json" "d['phases'][1]['mbyte_per_s']")"
  target/bench-memcpy $((SIZE_MIB << 20)) $((1 << 20)) >"$DIR/memcpy.json"
  record "memory:// write 1 MiB blocks (memcpy into a new object)" "$cond" "MiB/s (higher)" memcpy "$run" "$(json "$DIR/memcpy.json" "d['write_mib_s']")"
  record "memory:// read 1 MiB blocks (memcpy out of the object)" "$cond" "MiB/s (higher)" memcpy "$run" "$(json "$DIR/memcpy.json" "d['read_mib_s']")"
done
rm -f "$DIR"/*.json
rmdir "$DIR" 2>/dev/null || true
summarize
