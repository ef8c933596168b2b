# Shared by the infra scripts (sourced, never run): where builds are cached and servers run,
# and how a script logs, checks a recorded PID, waits for readiness and stops what it started.
# The sourcing script sets LOG_TAG first.
CACHE="${ERRATA_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/errata-infra}"
RUN="${ERRATA_INFRA_RUN:-/tmp/errata-infra}"
PIDS="$RUN/pids"

log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
alive() { [ -f "$PIDS/$1.pid" ] && kill -0 "$(cat "$PIDS/$1.pid")" 2>/dev/null; }
wait_for() { # name, seconds, command...
  local name=$1 seconds=$2; shift 2
  for _ in $(seq 1 $((seconds * 4))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  log "$name did not become ready within ${seconds}s; its log is in $RUN/$name"; return 1
}

# Stops the process recorded as $1 with signal $2 (default TERM), waits up to 30 s for it to
# exit (then kills it), and forgets its PID.
stop_recorded() {
  local name=$1 signal=${2:-TERM} file="$PIDS/$1.pid"
  [ -f "$file" ] || return 0
  local pid
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill "-$signal" "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    log "stopped $name (pid $pid)"
  fi
  rm -f "$file"
}
