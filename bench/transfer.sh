#!/usr/bin/env bash
# HADOOP-3164 on this machine: 1 GiB from the page cache to a loopback socket with read-write (4 KiB to
# 1 MiB buffers), sendfile, splice, mmap and io_uring; prints the CPU per GiB of each against
# read-write with 4 KiB buffers (the seed found sendfile ~5x cheaper). Then with --drop-cache.
#   bench/transfer.sh [SIZE [RUNS]]     default 1g 3
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
target/release/storebench transfer --size "${1:-1g}" --runs "${2:-3}" --verify
echo
target/release/storebench transfer --size "${1:-1g}" --runs 1 --drop-cache --method read-write,sendfile,splice --buffer 4k,128k -q
