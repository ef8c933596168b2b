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

if ! alive etcd; then
  log "starting etcd on 127.0.0.1:$ETCD_PORT"
  rm -rf "$RUN/etcd" && mkdir -p "$RUN/etcd"
  nohup "$CACHE/bin/etcd-$ETCD_VERSION" --name errata --data-dir "$RUN/etcd/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "errata=http://127.0.0.1:$ETCD_PEER_PORT" --log-level warn >"$RUN/etcd/etcd.log" 2>&1 &
  echo $! >"$PIDS/etcd.pid"
  wait_for etcd 60 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
fi

if ! alive kube-apiserver; then
  log "starting kube-apiserver $KUBE_VERSION on 127.0.0.1:$APISERVER_PORT"
  dir="$RUN/kube-apiserver" && rm -rf "$dir" && mkdir -p "$dir/certs"
  openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
  echo "$TOKEN,errata-test-admin,errata-test-admin,\"system:masters\"" >"$dir/tokens.csv"
  nohup "$CACHE/bin/kube-apiserver-$KUBE_VERSION" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" --cert-dir="$dir/certs" \
    --service-cluster-ip-range=10.0.0.0/24 --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$dir/sa.pub" --service-account-signing-key-file="$dir/sa.key" \
    --token-auth-file="$dir/tokens.csv" --authorization-mode=RBAC --disable-admission-plugins=ServiceAccount \
    >"$dir/kube-apiserver.log" 2>&1 &
  echo $! >"$PIDS/kube-apiserver.pid"
  wait_for kube-apiserver 120 curl -sfk -H "Authorization: Bearer $TOKEN" "https://127.0.0.1:$APISERVER_PORT/readyz"
fi

cat >"$REPO/.errata-kube.env" <<ENV
ERRATA_KUBE_URL=https://127.0.0.1:$APISERVER_PORT
ERRATA_KUBE_TOKEN=$TOKEN
ERRATA_HELM=$CACHE/bin/helm-$HELM_VERSION
ENV
log "ready; settings in .errata-kube.env"
