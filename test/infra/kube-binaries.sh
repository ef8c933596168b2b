# The Kubernetes binaries, built from the Go module proxy (sourced, never run; after lib.sh),
# once each, into the cache outside the repository: kube:up's control plane (etcd, kube-apiserver,
# helm) and the node cluster:up adds (kubelet, kube-controller-manager, kube-scheduler). No
# registry ships them for this platform's needs; each builds in a wrapper module of its own, so
# the build never touches the repository. Also how kube:up and cluster:up start the control
# plane on loopback, each on its own ports and directories.
ETCD_VERSION=v3.5.21
KUBE_VERSION=1.35.4
HELM_VERSION=v3.22.0

build_control_plane() {
  if [ ! -x "$CACHE/bin/etcd-$ETCD_VERSION" ]; then
    log "building etcd $ETCD_VERSION from the Go module proxy"
    src="$CACHE/src/etcd" && rm -rf "$src" && mkdir -p "$src"
    (cd "$src" && go mod init local/etcd >/dev/null 2>&1 && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null 2>&1 \
      && CGO_ENABLED=0 go build -o "$CACHE/bin/etcd-$ETCD_VERSION" go.etcd.io/etcd/server/v3)
  fi

  if [ ! -x "$CACHE/bin/kube-apiserver-$KUBE_VERSION" ]; then
    log "building kube-apiserver $KUBE_VERSION from the Go module proxy (10-20 minutes the first time)"
    src="$CACHE/src/kube-apiserver" && rm -rf "$src" && mkdir -p "$src"
    (
      cd "$src"
      go mod init local/kas >/dev/null 2>&1
      cat >main.go <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
GO
      # k8s.io/kubernetes requires its staging modules at v0.0.0 with replaces into its own tree;
      # map each to its published v0.<minor>.<patch> (the list is read from the real go.mod).
      gomod=$(go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
      staging="0.${KUBE_VERSION#1.}"
      for module in $(awk '$1 ~ /^k8s.io\// && $2 == "v0.0.0" {print $1}' "$gomod"); do
        go mod edit -replace="$module=$module@v$staging"
      done
      go mod edit -require="k8s.io/kubernetes@v$KUBE_VERSION"
      go mod tidy >/dev/null 2>&1
      CGO_ENABLED=0 GOMAXPROCS="${GOMAXPROCS:-2}" go build -o "$CACHE/bin/kube-apiserver-$KUBE_VERSION" .
    )
  fi

  if [ ! -x "$CACHE/bin/helm-$HELM_VERSION" ]; then
    log "building helm $HELM_VERSION from the Go module proxy (for the chart test)"
    GOBIN="$CACHE/src/helm-bin" GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    mv "$CACHE/src/helm-bin/helm" "$CACHE/bin/helm-$HELM_VERSION"
  fi
}

# kubelet, kube-controller-manager and kube-scheduler: their main.go files verbatim from
# k8s.io/kubernetes in the module cache, in one module that reuses kube-apiserver's go.mod (it
# already maps the staging modules). About 2 minutes with kube-apiserver's build cache warm.
build_node() {
  build_control_plane
  local b missing=()
  for b in kubelet kube-controller-manager kube-scheduler; do
    [ -x "$CACHE/bin/$b-$KUBE_VERSION" ] || missing+=("$b")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "building ${missing[*]} $KUBE_VERSION from the Go module proxy"
  local src="$CACHE/src/kube-node"
  rm -rf "$src" && mkdir -p "$src/cmd/kubelet" "$src/cmd/kube-controller-manager" "$src/cmd/kube-scheduler"
  (
    cd "$src"
    cp ../kube-apiserver/go.mod ../kube-apiserver/go.sum .
    sed -i 's#^module local/kas#module local/kubenode#' go.mod
    local k
    k="$(go env GOMODCACHE)/k8s.io/kubernetes@v$KUBE_VERSION"
    cp "$k/cmd/kubelet/kubelet.go" cmd/kubelet/main.go
    cp "$k/cmd/kube-controller-manager/controller-manager.go" cmd/kube-controller-manager/main.go
    cp "$k/cmd/kube-scheduler/scheduler.go" cmd/kube-scheduler/main.go
    chmod u+w cmd/*/main.go
    go mod tidy >/dev/null 2>&1
    for b in "${missing[@]}"; do
      CGO_ENABLED=0 GOMAXPROCS="${GOMAXPROCS:-2}" go build -o "$CACHE/bin/$b-$KUBE_VERSION" "./cmd/$b"
    done
  )
}

# etcd on loopback, unless the process recorded as <pid name> answers.
# Usage: start_etcd <pid name> <dir> <client port> <peer port>
start_etcd() {
  local name=$1 dir=$2 port=$3 peer=$4
  alive "$name" && return 0
  log "starting etcd on 127.0.0.1:$port"
  rm -rf "$dir" && mkdir -p "$dir"
  nohup "$CACHE/bin/etcd-$ETCD_VERSION" --name "$name" --data-dir "$dir/data" \
    --listen-client-urls "http://127.0.0.1:$port" --advertise-client-urls "http://127.0.0.1:$port" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "$name=http://127.0.0.1:$peer" --log-level warn >"$dir/etcd.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
  wait_for "$name" 60 curl -sf "http://127.0.0.1:$port/health"
}

# kube-apiserver on loopback over that etcd, with a static token in system:masters and its own
# service-account keys, unless the process recorded as <pid name> answers. The rest of the
# arguments are its flags that differ between the two (service range, authorization, admission).
# Usage: start_apiserver <pid name> <dir> <etcd port> <port> <token> <flag>...
start_apiserver() {
  local name=$1 dir=$2 etcd_port=$3 port=$4 token=$5
  shift 5
  alive "$name" && return 0
  log "starting kube-apiserver $KUBE_VERSION on 127.0.0.1:$port"
  rm -rf "$dir" && mkdir -p "$dir/certs"
  openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
  echo "$token,errata-test-admin,errata-test-admin,\"system:masters\"" >"$dir/tokens.csv"
  nohup "$CACHE/bin/kube-apiserver-$KUBE_VERSION" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" --cert-dir="$dir/certs" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$dir/sa.pub" --service-account-signing-key-file="$dir/sa.key" \
    --token-auth-file="$dir/tokens.csv" "$@" >"$dir/kube-apiserver.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
  wait_for "$name" 120 curl -sfk -H "Authorization: Bearer $token" "https://127.0.0.1:$port/readyz"
}
