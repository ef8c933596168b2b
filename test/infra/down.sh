#!/usr/bin/env bash
# `npm run infra:down`: stops exactly the processes `npm run infra:up` started (by their
# recorded PIDs), waits for each to exit, and keeps the installed cache for the next run.
# With --wipe, also deletes their data.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOG_TAG=infra
. test/infra/lib.sh
for name in minio kafka clickhouse; do stop_recorded "$name"; done
# Postgres takes SIGINT as "fast shutdown".
stop_recorded postgres INT
if [ "${1:-}" = "--wipe" ]; then rm -rf "$RUN"; fi
rm -f .errata-infra.env
