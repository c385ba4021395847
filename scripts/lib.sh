# Shell helpers the server scripts share; sourced, not run.

# stop_pids FILE: stops the processes whose PIDs FILE lists: TERM, up to 10 s for them to go, then KILL.
stop_pids() {
  [ -f "$1" ] || return 0
  local pids alive p
  pids=$(cat "$1")
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null || true
  for _ in $(seq 100); do
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null || true
}
