#!/usr/bin/env bash
# `npm run kube:down`: stops exactly what `npm run kube:up` started (by their recorded PIDs) and
# keeps the built binaries for the next run.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOG_TAG=kube
. test/infra/lib.sh
for name in kube-apiserver etcd; do stop_recorded "$name"; done
rm -f .errata-kube.env
