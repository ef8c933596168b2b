#!/usr/bin/env bash
# `npm run kube:down`: stops exactly what `npm run kube:up` started (by their recorded PIDs) and
# keeps the built binaries for the next run.
set -uo pipefail
RUN="${ERRATA_INFRA_RUN:-/tmp/errata-infra}"
PIDS="$RUN/pids"
for name in kube-apiserver etcd; do
  file="$PIDS/$name.pid"
  [ -f "$file" ] || continue
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    printf '[kube] stopped %s (pid %s)\n' "$name" "$pid" >&2
  fi
  rm -f "$file"
done
rm -f "$(dirname "$0")/../../.errata-kube.env"
