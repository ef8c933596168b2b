#!/usr/bin/env bash
# `npm run infra:down`: stops exactly the processes `npm run infra:up` started (by their
# recorded PIDs), waits for each to exit, and keeps the installed cache for the next run.
# With --wipe, also deletes their data.
set -uo pipefail
RUN="${ERRATA_INFRA_RUN:-/tmp/errata-infra}"
PIDS="$RUN/pids"
for name in minio kafka clickhouse postgres; do
  file="$PIDS/$name.pid"
  [ -f "$file" ] || continue
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    # Postgres takes SIGINT as "fast shutdown"; the others stop cleanly on SIGTERM.
    if [ "$name" = postgres ]; then kill -INT "$pid"; else kill -TERM "$pid"; fi
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    printf '[infra] stopped %s (pid %s)\n' "$name" "$pid" >&2
  fi
  rm -f "$file"
done
if [ "${1:-}" = "--wipe" ]; then rm -rf "$RUN"; fi
rm -f "$(dirname "$0")/../../.errata-infra.env"
