#!/usr/bin/env bash
# `npm run kube:up`: builds (once, into a cache outside the repository) and starts on loopback the
# real control plane the operator suite talks to: etcd 3.5 and kube-apiserver, both built from the
# Go module proxy (no registry ships kube-apiserver; etcd >= 3.5.13 is needed for the watch
# features kube-apiserver 1.31+ turns on). Writes ERRATA_KUBE_URL and ERRATA_KUBE_TOKEN to
# .errata-kube.env at the repository root and each PID to $ERRATA_INFRA_RUN/pids; `npm run
# kube:down` stops exactly those. Running it again while they answer changes nothing. Also builds
# helm (for the chart test) and writes its path as ERRATA_HELM.
# No controllers run: owner references are recorded, not garbage-collected; no pod is scheduled.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
LOG_TAG=kube
. test/infra/lib.sh
ETCD_PORT=12379 ETCD_PEER_PORT=12380 APISERVER_PORT=16443
TOKEN=errata-operator-test-token
mkdir -p "$CACHE/bin" "$RUN" "$PIDS"


. test/infra/kube-binaries.sh
build_control_plane

start_etcd etcd "$RUN/etcd" "$ETCD_PORT" "$ETCD_PEER_PORT"
# No controller manager mints ServiceAccount tokens here, so its admission plugin is off.
start_apiserver kube-apiserver "$RUN/kube-apiserver" "$ETCD_PORT" "$APISERVER_PORT" "$TOKEN" \
  --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=RBAC --disable-admission-plugins=ServiceAccount

cat >"$REPO/.errata-kube.env" <<ENV
ERRATA_KUBE_URL=https://127.0.0.1:$APISERVER_PORT
ERRATA_KUBE_TOKEN=$TOKEN
ERRATA_HELM=$CACHE/bin/helm-$HELM_VERSION
ENV
log "ready; settings in .errata-kube.env"
