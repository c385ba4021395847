#!/usr/bin/env bash
# storebench's memory against the number of operations: max RSS of ops (stat on memory://) and of
# bandwidth (1 KiB blocks to a local directory) at growing operation counts, and the slope of max RSS
# per million operations. Target: about zero (docs/metrics.md, "Memory"): per-operation data is kept
# only in constant-size structures (histograms, timelines, a capped and sampled event list).
#   bench/memory.sh [DIR]         ops at 10^6, 10^7, 10^8 operations; bandwidth at 10^5, 10^6 blocks
#   LONG=1 bench/memory.sh [DIR]  also ops at 10^9 (minutes) and bandwidth at 10^7 blocks (10 GiB on DIR)
# Max RSS includes the 32 MiB of the memory probe storebench runs before every command (freed before
# the run, but a high-water mark stays).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-$(mktemp -d "$PWD/target/bench-memory.XXXXXX")}
cargo build --release -q
SB=$PWD/target/release/storebench

OPS="1000000 10000000 100000000"
BLOCKS="100000 1000000"
if [ "${LONG:-0}" = 1 ]; then
  OPS="$OPS 1000000000"
  BLOCKS="$BLOCKS 10000000"
fi

python3 - "$SB" "$DIR" "$OPS" "$BLOCKS" <<'EOF'
import json, os, resource, subprocess, sys, time

sb, d, ops_counts, block_counts = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()


def run(args):
    """Runs one command in a fresh child; returns (max RSS MiB, seconds, report)."""
    out = os.path.join(d, "r.json")
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(sb, [sb] + args + ["--json", out, "-q"])
    t = time.time()
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"storebench {' '.join(args)} failed ({status})")
    return ru.ru_maxrss / 1024, time.time() - t, json.load(open(out))


def slope(points):
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx if sxx else 0.0


print(f"{'case':<44} {'operations':>14} {'max RSS MiB':>12} {'seconds':>8}")
rows = []
for n in ops_counts:
    per_thread = int(n) // 2
    rss, secs, r = run(["ops", "--op", "stat", "--threads", "2", "--iterations", str(per_thread), "--repeats", "1",
                        "--prepare", "memory://bench-memory/"])
    done = r["ops_run"]["repeats"][0]["summary"]["ops"]
    rows.append((done / 1e6, rss))
    print(f"{'ops stat, 2 threads, memory://':<44} {done:>14,} {rss:>12.1f} {secs:>8.1f}")
print(f"ops: max RSS slope {slope(rows):+.4f} MiB per million operations (target: about 0)")

rows = []
for n in block_counts:
    size = int(n) * 1024
    rss, secs, r = run(["bandwidth", str(size), "--block", "1k", d])
    blocks = r["phases"][0]["blocks"]["count"] + r["phases"][1]["blocks"]["count"]
    s = r.get("event_sampling") or {}
    rows.append((blocks / 1e6, rss))
    note = f"(report keeps {s.get('kept', 0):,} events, 1 in {s.get('stride', 1)})"
    print(f"{'bandwidth 1 KiB blocks, ' + os.path.basename(d):<44} {blocks:>14,} {rss:>12.1f} {secs:>8.1f} {note}")
print(f"bandwidth: max RSS slope {slope(rows):+.4f} MiB per million blocks (target: about 0)")
EOF
