#!/usr/bin/env bash
# `npm run cluster:down`: stops exactly what `npm run cluster:up` started (by their recorded PIDs)
# and removes what they leave on the host: the pods and their sandboxes (torn down through CNI by
# the kubelet while it still runs), containerd's tasks and shims, the kubelet's bind mounts and
# iptables chains, the bridge and its address leases. Keeps the built binaries, containerd's
# images and the backing servers (npm run infra:down stops those). Safe to run twice.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOG_TAG=cluster
. test/infra/lib.sh
CL="$RUN/cluster"
BRIDGE=errata0
SOCK=/run/errata-containerd/containerd.sock
KUBELET_ROOT=/var/lib/errata-kubelet

# 1. Every namespace the suite made, and every pod: the kubelet tears the sandboxes down.
if alive cluster-apiserver && alive cluster-kubelet && [ -f "$CL/kubeconfig" ]; then
  API=$(sed -n 's/.*server: "\(.*\)".*/\1/p' "$CL/kubeconfig")
  TOKEN=$(sed -n 's/.*token: "\(.*\)".*/\1/p' "$CL/kubeconfig")
  k() { curl -sk -H "Authorization: Bearer $TOKEN" "$@"; }
  for ns in $(k "$API/api/v1/namespaces" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).items.map(n=>n.metadata.name).filter(n=>!/^(default|kube-)/.test(n)).join(" ")))'); do
    k -X DELETE "$API/api/v1/namespaces/$ns" >/dev/null
  done
  k -X DELETE "$API/api/v1/namespaces/default/pods" >/dev/null
  log "waiting for the kubelet to remove every pod"
  for _ in $(seq 1 120); do
    count=$(k "$API/api/v1/pods" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).items.length))')
    [ "$count" = 0 ] && break
    sleep 1
  done
fi

# 2. The node and the control plane.
for name in cluster-kubelet cluster-controller-manager cluster-scheduler cluster-apiserver cluster-etcd cluster-gateway; do
  stop_recorded "$name"
done

# 3. containerd: whatever task is left, then containerd, then any shim of this containerd.
if alive cluster-containerd; then
  for task in $(ctr -a "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$SOCK" -n k8s.io tasks kill -s KILL "$task" >/dev/null 2>&1
    ctr -a "$SOCK" -n k8s.io tasks delete -f "$task" >/dev/null 2>&1
  done
  for container in $(ctr -a "$SOCK" -n k8s.io containers ls -q 2>/dev/null); do
    ctr -a "$SOCK" -n k8s.io containers delete "$container" >/dev/null 2>&1
  done
fi
stop_recorded cluster-containerd
for proc in /proc/[0-9]*; do
  if tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -q "containerd-shim.*-address $SOCK"; then
    pid=${proc#/proc/}
    kill -KILL "$pid" 2>/dev/null && log "stopped a leftover shim (pid $pid)"
  fi
done

# 4. What the kubelet leaves on the host: mounts under its root (deepest first), its chains,
#    its cgroups.
grep " $KUBELET_ROOT" /proc/mounts | awk '{print $2}' | sort -r | while read -r mount; do umount -l "$mount" 2>/dev/null; done
rm -rf "$KUBELET_ROOT"
for cmd in iptables ip6tables; do
  command -v "$cmd" >/dev/null || continue
  for table in filter nat mangle; do
    "$cmd" -t "$table" -S 2>/dev/null | grep -E -- '^-A .* -j KUBE-' | sed 's/^-A /-D /' | while read -r rule; do
      eval "$cmd -t $table $rule" 2>/dev/null
    done
    for chain in $("$cmd" -t "$table" -S 2>/dev/null | awk '/^-N KUBE-/{print $2}'); do
      "$cmd" -t "$table" -F "$chain" 2>/dev/null
      "$cmd" -t "$table" -X "$chain" 2>/dev/null
    done
  done
done

# The kubelet's cgroups (cgroup v1: one tree per controller), empty once its pods are gone.
for tree in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/unified/kubepods; do
  [ -d "$tree" ] && find "$tree" -depth -type d -exec rmdir {} + 2>/dev/null
done

# 5. The bridge, the address leases and the cluster's state.
ip link del "$BRIDGE" 2>/dev/null
rm -rf "$CL"
rm -f .errata-cluster.env
log "down"
