#!/usr/bin/env bash
# `npm run cluster:up`: a real single-node Kubernetes cluster on this machine, without Docker or
# a registry, for the cluster suite (test/cluster): Debian's containerd and runc with the CNI
# bridge plugin; etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubelet
# 1.35 built from the Go module proxy (test/infra/kube-binaries.sh); Errata's image built with
# buildah from the Dockerfile's final stage (the same files and production-only install) and
# imported into containerd. The backing servers (npm run infra:up) stay on loopback; pods reach
# them at the bridge's gateway address through a forwarder (test/infra/pod-gateway.ts).
# Needs root. Writes .errata-cluster.env at the repository root and each PID to
# $ERRATA_INFRA_RUN/pids; `npm run cluster:down` stops exactly those and removes what they left
# on the host (pods, mounts, iptables chains, the bridge). Running it again while the cluster
# answers changes nothing but the image, which is rebuilt from the current dist/.
# Obstacles of this machine and their workarounds (no CAP_SYS_RESOURCE, cgroup v1, no systemd,
# no registry) are noted where they are handled.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
LOG_TAG=cluster
. test/infra/lib.sh
. test/infra/kube-binaries.sh
[ "$(id -u)" = 0 ] || { log "cluster:up needs root (containerd, kubelet, a bridge)"; exit 1; }

CL="$RUN/cluster"
ETCD_PORT=22379 ETCD_PEER_PORT=22380 APISERVER_PORT=26443 SCHEDULER_PORT=26459 CONTROLLER_PORT=26457
TOKEN=errata-cluster-test-token
NODE=errata-node
BRIDGE=errata0 GATEWAY=10.88.0.1 SUBNET=10.88.0.0/16
CONTAINERD_ROOT=/var/lib/errata-containerd CONTAINERD_STATE=/run/errata-containerd
SOCK=$CONTAINERD_STATE/containerd.sock
KUBELET_ROOT=/var/lib/errata-kubelet
VERSION=$(node -p "require('./package.json').version")
IMAGE=errata.test/errata:$VERSION
PAUSE_IMAGE=errata.test/pause:1
mkdir -p "$CL" "$PIDS"
started=$(date +%s)

# ---- packages and binaries --------------------------------------------------------------------
need_apt=()
command -v containerd >/dev/null || need_apt+=(containerd)
command -v runc >/dev/null || need_apt+=(runc)
[ -x /usr/lib/cni/bridge ] || need_apt+=(containernetworking-plugins)
command -v buildah >/dev/null || need_apt+=(buildah)
command -v iptables >/dev/null || need_apt+=(iptables)
command -v conntrack >/dev/null || need_apt+=(conntrack)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
build_node
bash test/infra/up.sh

# ---- the pods' bridge, first, so the gateway forwarder can listen on it ---------------------
if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
  ip link add "$BRIDGE" type bridge
  ip addr add "$GATEWAY/16" dev "$BRIDGE"
fi
ip link set "$BRIDGE" up
mkdir -p "$CL/cni"
cat >"$CL/cni/10-errata.conflist" <<JSON
{ "cniVersion": "0.4.0", "name": "errata-pods", "plugins": [
  { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
    "ipam": { "type": "host-local", "dataDir": "$CL/ipam", "ranges": [[{ "subnet": "$SUBNET", "gateway": "$GATEWAY" }]],
              "routes": [{ "dst": "0.0.0.0/0" }] } } ] }
JSON

if ! alive cluster-gateway; then
  log "forwarding the backing servers to $GATEWAY for the pods"
  nohup node bin/run-ts.js test/infra/pod-gateway.ts "$GATEWAY" >"$CL/gateway.log" 2>&1 &
  echo $! >"$PIDS/cluster-gateway.pid"
  wait_for cluster-gateway 30 grep -q listening "$CL/gateway.log"
fi

# ---- containerd -----------------------------------------------------------------------------
# restrict_oom_score_adj: this VM lacks CAP_SYS_RESOURCE, and runc fails every sandbox when the
# kubelet asks for a lower oom_score_adj. SystemdCgroup=false: no systemd here (cgroupfs).
if ! alive cluster-containerd; then
  log "starting containerd"
  cat >"$CL/containerd.toml" <<TOML
version = 2
root = "$CONTAINERD_ROOT"
state = "$CONTAINERD_STATE"
[grpc]
  address = "$SOCK"
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$PAUSE_IMAGE"
    restrict_oom_score_adj = true
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
      conf_dir = "$CL/cni"
TOML
  nohup containerd --config "$CL/containerd.toml" >"$CL/containerd.log" 2>&1 &
  echo $! >"$PIDS/cluster-containerd.pid"
  wait_for cluster-containerd 30 ctr -a "$SOCK" version
fi
CTR=(ctr -a "$SOCK" -n k8s.io)

# ---- images (buildah, vfs storage, no registry) ------------------------------------------------
# Fully qualified names on a reserved domain: a short name would be read as the public hub's.
B=(buildah --storage-driver vfs)
if ! "${CTR[@]}" images ls -q | grep -qx "$PAUSE_IMAGE"; then
  log "building the pod sandbox image $PAUSE_IMAGE"
  cat >"$CL/pause.c" <<'C'
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
static void quit(int sig) { (void)sig; _exit(0); }
static void reap(int sig) { (void)sig; while (waitpid(-1, 0, WNOHANG) > 0) {} }
int main(void) {
  struct sigaction q = {.sa_handler = quit}, r = {.sa_handler = reap};
  sigaction(SIGINT, &q, 0); sigaction(SIGTERM, &q, 0); sigaction(SIGCHLD, &r, 0);
  for (;;) pause();
}
C
  gcc -static -Os -o "$CL/pause" "$CL/pause.c" && strip "$CL/pause"
  c=$("${B[@]}" from scratch)
  "${B[@]}" copy "$c" "$CL/pause" /pause >/dev/null
  "${B[@]}" config --entrypoint '["/pause"]' "$c"
  "${B[@]}" commit -q "$c" "$PAUSE_IMAGE" >/dev/null && "${B[@]}" rm "$c" >/dev/null
  "${B[@]}" push -q "$PAUSE_IMAGE" "oci-archive:$CL/pause.tar:$PAUSE_IMAGE"
  "${CTR[@]}" images import "$CL/pause.tar" >/dev/null
fi

log "building $IMAGE from dist/ (the Dockerfile's final stage)"
bash test/infra/image-root.sh "$CL/image-root"
c=$("${B[@]}" from scratch)
"${B[@]}" copy "$c" "$CL/image-root/" / >/dev/null
# As the Dockerfile's final stage declares it.
"${B[@]}" config --env NODE_ENV=production --env MALLOC_ARENA_MAX=2 --env ERRATA_HOST=0.0.0.0 --env ERRATA_PORT=8000 \
  --env PATH=/usr/local/bin:/usr/bin:/bin --workingdir /app --user 1000:1000 --port 8000 \
  --entrypoint '["node","/app/bin/errata.js"]' --cmd '["--help"]' "$c"
"${B[@]}" commit -q --rm "$c" "$IMAGE" >/dev/null
rm -f "$CL/errata.tar"
"${B[@]}" push -q "$IMAGE" "oci-archive:$CL/errata.tar:$IMAGE"
"${B[@]}" rmi -f "$IMAGE" >/dev/null
"${CTR[@]}" images import "$CL/errata.tar" >/dev/null
rm -f "$CL/errata.tar"
# The same build under a second tag, for a version change that must roll every role.
"${CTR[@]}" images tag --force "$IMAGE" "$IMAGE-again" >/dev/null
# A version whose migration fails: its entrypoint says so and exits 1, whatever it is asked.
if ! "${CTR[@]}" images ls -q | grep -qx "errata.test/errata:broken"; then
  printf '#include <stdio.h>\nint main(void) { fputs("error: this build cannot migrate (a deliberately broken test image)\\n", stderr); return 1; }\n' >"$CL/broken.c"
  gcc -static -Os -o "$CL/broken" "$CL/broken.c" && strip "$CL/broken"
  c=$("${B[@]}" from scratch)
  "${B[@]}" copy "$c" "$CL/broken" /broken >/dev/null
  "${B[@]}" config --user 1000:1000 --entrypoint '["/broken"]' "$c"
  "${B[@]}" commit -q --rm "$c" errata.test/errata:broken >/dev/null
  "${B[@]}" push -q errata.test/errata:broken "oci-archive:$CL/broken.tar:errata.test/errata:broken"
  "${B[@]}" rmi -f errata.test/errata:broken >/dev/null
  "${CTR[@]}" images import "$CL/broken.tar" >/dev/null
fi

# ---- control plane --------------------------------------------------------------------------
start_etcd cluster-etcd "$CL/etcd" "$ETCD_PORT" "$ETCD_PEER_PORT"
API="https://127.0.0.1:$APISERVER_PORT"
start_apiserver cluster-apiserver "$CL/apiserver" "$ETCD_PORT" "$APISERVER_PORT" "$TOKEN" \
  --service-cluster-ip-range=10.96.0.0/24 --authorization-mode=Node,RBAC --allow-privileged=false
cat >"$CL/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{ name: errata, cluster: { server: "$API", insecure-skip-tls-verify: true } }]
users: [{ name: admin, user: { token: "$TOKEN" } }]
contexts: [{ name: errata, context: { cluster: errata, user: admin } }]
current-context: errata
YAML
KC="$CL/kubeconfig"

if ! alive cluster-scheduler; then
  log "starting kube-scheduler"
  nohup "$CACHE/bin/kube-scheduler-$KUBE_VERSION" --kubeconfig="$KC" --authentication-kubeconfig="$KC" \
    --authorization-kubeconfig="$KC" --leader-elect=false --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" \
    >"$CL/scheduler.log" 2>&1 &
  echo $! >"$PIDS/cluster-scheduler.pid"
fi
if ! alive cluster-controller-manager; then
  log "starting kube-controller-manager"
  nohup "$CACHE/bin/kube-controller-manager-$KUBE_VERSION" --kubeconfig="$KC" --authentication-kubeconfig="$KC" \
    --authorization-kubeconfig="$KC" --leader-elect=false --bind-address=127.0.0.1 --secure-port="$CONTROLLER_PORT" \
    --service-account-private-key-file="$CL/apiserver/sa.key" --root-ca-file="$CL/apiserver/certs/apiserver.crt" \
    --use-service-account-credentials=false \
    --controllers='*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller' \
    >"$CL/controller-manager.log" 2>&1 &
  echo $! >"$PIDS/cluster-controller-manager.pid"
fi

# failCgroupV1: this host has cgroup v1, which 1.35 refuses by default. cgroupfs: no systemd.
# The image GC thresholds keep the imported images, which no registry could bring back.
if ! alive cluster-kubelet; then
  log "starting kubelet"
  cat >"$CL/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$SOCK
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
authentication: { anonymous: { enabled: true }, webhook: { enabled: false } }
authorization: { mode: AlwaysAllow }
readOnlyPort: 0
address: 127.0.0.1
port: 20250
healthzPort: 20248
resolvConf: /etc/resolv.conf
evictionHard: { memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%" }
imageGCHighThresholdPercent: 100
imageMinimumGCAge: 87600h
YAML
  mkdir -p "$KUBELET_ROOT"
  nohup "$CACHE/bin/kubelet-$KUBE_VERSION" --config="$CL/kubelet.yaml" --kubeconfig="$KC" --root-dir="$KUBELET_ROOT" \
    --hostname-override="$NODE" >"$CL/kubelet.log" 2>&1 &
  echo $! >"$PIDS/cluster-kubelet.pid"
fi
node_ready() {
  curl -sfk -H "Authorization: Bearer $TOKEN" "$API/api/v1/nodes/$NODE" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.exit(JSON.parse(s).status.conditions.some(c=>c.type==="Ready"&&c.status==="True")?0:1))'
}
wait_for cluster-kubelet 120 node_ready

cat >"$REPO/.errata-cluster.env" <<ENV
# Written by npm run cluster:up: a real single-node cluster; pods reach the backing servers at $GATEWAY.
ERRATA_CLUSTER_URL=$API
ERRATA_CLUSTER_TOKEN=$TOKEN
ERRATA_CLUSTER_KUBECONFIG=$KC
ERRATA_CLUSTER_NODE=$NODE
ERRATA_CLUSTER_IMAGE=$IMAGE
ERRATA_CLUSTER_GATEWAY=$GATEWAY
ERRATA_CLUSTER_CTR=ctr -a $SOCK -n k8s.io
ERRATA_CLUSTER_HELM=$CACHE/bin/helm-$HELM_VERSION
ENV
log "ready in $(($(date +%s) - started)) s; settings in .errata-cluster.env"
