# Sourced by the bench scripts: what every comparison shares.
#   record CASE CONDITIONS METRIC TOOL RUN VALUE   one measurement, into $RESULTS
#   summarize                                     median and spread per tool, ratios (bench/summary.py)
#   json FILE EXPR                                a value out of a JSON file (EXPR sees it as d)
#   settle                                        empty the page cache, with no writeback in flight,
#                                                 and wait for what emptying it sets off to end
# settle waits 6 s past sync: the journal commits (every 5 s) and, on a file system mounted with
# discard, the deleted files' blocks are discarded then, which stalls writes; and a virtual machine
# hands freed memory back to its host within seconds, after which a write into the page cache runs at
# the speed the host returns pages (about 500 MiB/s here, 4,500 MiB/s when they are still there). Both
# happen to every tool alike only if every tool waits alike.
# RUNS (default 3) is how many times each case runs; the tools take turns within each run.
RUNS=${RUNS:-3}
RESULTS=$(mktemp "${TMPDIR:-/tmp}/storebench-bench.XXXXXX")
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"; }
summarize() { python3 bench/summary.py "$RESULTS"; rm -f "$RESULTS"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
settle() {
  sync
  [ -w /proc/sys/vm/drop_caches ] && echo 3 >/proc/sys/vm/drop_caches
  sleep 6
  sync
}
