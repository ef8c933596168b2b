# Building the Kubernetes binaries from the Go module proxy (sourced, never run; after lib.sh),
# once each, into the cache outside the repository: kube:up's control plane (etcd, kube-apiserver,
# helm) and the node cluster:up adds (kubelet, kube-controller-manager, kube-scheduler). No
# registry ships them for this platform's needs; each builds in a wrapper module of its own, so
# the build never touches the repository.
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
