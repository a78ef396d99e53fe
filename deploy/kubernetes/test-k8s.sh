#!/bin/bash
# A real one-node Kubernetes test of the recipe (make test-k8s; root, Linux,
# cgroup v1 or v2). It installs Debian's etcd-server, containerd, runc,
# containernetworking-plugins and podman when missing, builds Kubernetes
# from the Go module proxy once (build-k8s.sh; cached), builds the fedcon
# image (the static binary on an empty base, as deploy/Dockerfile's last
# stage) and a pause image with podman (storage of its own), and starts its
# own etcd, containerd (CRI), kube-apiserver, kube-controller-manager,
# kube-scheduler and kubelet: configuration, certificates, state and logs in
# one temporary directory, on free loopback ports, the pods' cgroups under
# /fedcon-k8s-PID. Then deploy/kubernetes/run.sh runs the claim (bound to a
# hostPath PersistentVolume of class nfs-client holding the data sets), the
# Indexed Job of 4 shards of `reproduce table4 --trials 2` and the merge
# Job, and the merged result JSON and CSV are compared with a one-process
# run's, timing fields aside. Last, shards that fail (--beta -1, one try per
# index) must stop run.sh with fedcon's message before any merge Job.
#
# The manifests run as they are but for three changes: the shards' command
# (`reproduce table4 --trials 2` instead of `reproduce all --quick`, and no
# --no-fetch, which table4 does not take: about a minute, not hours, on 2
# CPUs), `hostNetwork: true` in the pods (no pod network: the Jobs use none
# once the data sets are on the claim, and the test creates no bridge nor
# iptables rule), and no data Job (nothing to fetch from here:
# FEDCON_K8S_JOBS="shards merge", the data sets of $FEDCON_DATA_DIR copied
# onto the volume). The node is named localhost, so that the apiserver
# reaches the kubelet (kubectl logs) on the loopback.
#
# Every wait has a hard deadline and fails with the components' log tails
# and the containers' last log lines. On exit it deletes the Jobs, stops
# what it started (the shims by their socket), unmounts what is mounted
# under its directory, removes the pods' cgroups and what the kubelet added
# to /var/log/pods and /var/log/containers, and restores the kernel
# settings the kubelet changes (vm.overcommit_memory, vm.panic_on_oom,
# kernel.panic, kernel.panic_on_oops, kernel.keys.root_maxkeys and
# root_maxbytes). The directory is removed after a pass, kept after a
# failure (FEDCON_K8S_KEEP=1: always kept).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
[ "$(id -u)" -eq 0 ] || { echo "test-k8s: run as root (kubelet, containerd)" >&2; exit 2; }
[ "$(uname -s)" = Linux ] || { echo "test-k8s: Linux only" >&2; exit 2; }
command -v python3 >/dev/null || { echo "test-k8s: python3 is needed to compare the results" >&2; exit 2; }

need=()
command -v etcd >/dev/null || need+=(etcd-server)
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/loopback ] || need+=(containernetworking-plugins)
command -v podman >/dev/null || need+=(podman)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

version=${KUBERNETES_VERSION:-v1.31.14}
k8s=${FEDCON_K8S_CACHE:-$HOME/.cache/fedcon-k8s}/$version
"$repo/deploy/kubernetes/build-k8s.sh" "$k8s"
bin=$k8s/bin
built=$(date +%s)

work=$(mktemp -d /tmp/fedcon-k8s.XXXXXX)
chmod 755 "$work"
mkdir -p "$work"/{pki,logs,image,pause,cni,etcd,kubelet,podman,manifests}
export KUBECONFIG=$work/kubeconfig
cgroot=/fedcon-k8s-$$
sock=$work/containerd.sock
# The node is called localhost: the apiserver reaches the kubelet (kubectl
# logs) at the node's host name, and this one is on the loopback.
node=localhost
pids=()
sysctls=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
declare -A saved=()
for s in "${sysctls[@]}"; do saved[$s]=$(sysctl -n "$s"); done
# The kubelet writes the pods' logs under /var/log/pods and links them
# from /var/log/containers: what it adds there is removed on exit.
declare -A had_log=()
for d in /var/log/pods /var/log/containers; do
  [ -d "$d" ] && had_log[$d]=$(ls -A "$d")
done

log_tail() {
  for f in "$work"/logs/*.log; do
    [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
  done
  # the containers' own logs (the kubelet's files, kept in pod-logs/)
  if [ -d /var/log/pods ]; then
    mkdir -p "$work/pod-logs"
    cp -r /var/log/pods/. "$work/pod-logs/" 2>/dev/null
    find "$work/pod-logs" -name '*.log' -printf '%T@ %p\n' | sort -n | tail -n 4 | while read -r _ f; do
      echo "--- ${f#"$work"/pod-logs/}"
      tail -n 10 "$f"
    done
  fi
  return 0
}
stop_pid() { # stop_pid PID: TERM, up to 10 s, then KILL
  local p=$1
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 20); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$p" 2>/dev/null || true
}
cleanup() {
  set +e
  if [ -n "${kubelet_pid:-}" ] && kill -0 "$kubelet_pid" 2>/dev/null; then
    timeout 60 "$bin/kubectl" delete jobs --all --cascade=foreground --wait=true >/dev/null 2>&1
  fi
  # the kubelet, scheduler, controller-manager, apiserver, etcd: newest first
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    [ "${pids[$i]}" = "${containerd_pid:-x}" ] && continue
    stop_pid "${pids[$i]}"
  done
  if [ -n "${containerd_pid:-}" ]; then
    for t in $(timeout 10 ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      timeout 10 ctr --address "$sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
      sleep 0.5
      timeout 10 ctr --address "$sock" -n k8s.io tasks delete "$t" >/dev/null 2>&1
    done
    stop_pid "$containerd_pid"
    # shims of this containerd only: their command line names its socket
    for p in $(pgrep -f -- "-address $sock" 2>/dev/null); do stop_pid "$p"; done
  fi
  awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
  for c in /sys/fs/cgroup/*/"$cgroot" /sys/fs/cgroup/unified/"$cgroot" /sys/fs/cgroup"$cgroot"; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  for d in /var/log/pods /var/log/containers; do
    [ -d "$d" ] || continue
    for e in $(ls -A "$d"); do
      grep -qxF -- "$e" <<<"${had_log[$d]:-}" || rm -rf "${d:?}/$e"
    done
    [ -n "${had_log[$d]+x}" ] || rmdir "$d" 2>/dev/null
  done
  for s in "${sysctls[@]}"; do
    [ "$(sysctl -n "$s")" = "${saved[$s]}" ] || sysctl -qw "$s=${saved[$s]}"
  done
  if [ "${fail:-1}" -eq 0 ] && [ -z "${FEDCON_K8S_KEEP:-}" ]; then
    rm -rf "$work"
  else
    echo "test-k8s: kept $work" >&2
  fi
  return 0
}
trap cleanup EXIT
fail_now() { echo "test-k8s: $*" >&2; log_tail >&2; exit 1; }
# wait_for SECONDS WHAT COMMAND...: runs COMMAND every second until it
# succeeds; fails with the log tails after SECONDS, or when a started
# process has exited.
wait_for() {
  local secs=$1 what=$2 end
  shift 2
  end=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    for p in "${pids[@]}"; do
      kill -0 "$p" 2>/dev/null || fail_now "$what: process $p ($(cat "$work/logs/pid-$p" 2>/dev/null)) exited:"
    done
    [ "$(date +%s)" -lt "$end" ] || fail_now "$what: not within $secs s:"
    sleep 1
  done
  echo "test-k8s: $what after $(($(date +%s) - start)) s"
}
# run NAME COMMAND...: starts COMMAND in the background, logging to logs/NAME.log.
run() {
  local name=$1
  shift
  "$@" >"$work/logs/$name.log" 2>&1 &
  pids+=($!)
  echo "$name" >"$work/logs/pid-$!"
}

read -r etcd_port etcd_peer api_port kcm_port sched_port kubelet_port healthz_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(7)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

# Images: fedcon (a static build, as deploy/Dockerfile) and pause.
cd "$repo"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/fedcon/fedcon/cmd.buildCommit=$commit" -o "$work/image/fedcon" .
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/pause/pause" ./deploy/kubernetes/pause
cp /etc/ssl/certs/ca-certificates.crt "$work/image/"
mkdir -p "$work/image/tmp"
chmod 1777 "$work/image/tmp"
cat >"$work/image/Containerfile" <<'EOF'
FROM scratch
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY fedcon /fedcon
COPY tmp /tmp
ENV FEDCON_DATA_DIR=/work/datasets HOME=/tmp
WORKDIR /work
USER 65534:65534
ENTRYPOINT ["/fedcon"]
EOF
printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$work/pause/Containerfile"
podman=(podman --root "$work/podman/root" --runroot "$work/podman/run" --tmpdir "$work/podman/tmp"
  --storage-driver vfs --cgroup-manager cgroupfs --events-backend none)
"${podman[@]}" build -q -t localhost/fedcon:dev "$work/image" >/dev/null
"${podman[@]}" build -q -t localhost/pause:fedcon "$work/pause" >/dev/null
"${podman[@]}" save -q -o "$work/fedcon.tar" localhost/fedcon:dev
"${podman[@]}" save -q -o "$work/pause.tar" localhost/pause:fedcon
rm -rf "$work/podman"
echo "test-k8s: images built after $(($(date +%s) - start)) s"

# Certificates: a CA, the apiserver's serving certificate, the service
# account key; every component authenticates with one static token.
(
  cd "$work/pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=fedcon-k8s-ca 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout api.key -out api.csr -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' >api.ext
  openssl x509 -req -in api.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out api.crt -days 2 -extfile api.ext 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
)
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "$token,admin,admin,system:masters" >"$work/pki/tokens.csv"
cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "https://127.0.0.1:$api_port", certificate-authority: "$work/pki/ca.crt"}
users:
- name: admin
  user: {token: "$token"}
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
EOF

run etcd etcd --name test --data-dir "$work/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "test=http://127.0.0.1:$etcd_peer"
wait_for 30 "etcd up" curl -sf "http://127.0.0.1:$etcd_port/health"

# containerd with the CRI plugin; a CNI configuration so that the runtime
# reports its network ready (no pod uses it: hostNetwork).
cat >"$work/cni/10-fedcon.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "fedcon-test",
 "plugins": [{"type": "bridge", "bridge": "fedcon$$", "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.254.0.0/24"}]]}}]}
EOF
cat >"$work/containerd.toml" <<EOF
version = 2
root = "$work/containerd/root"
state = "$work/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$work/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:fedcon"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$work/cni"
EOF
run containerd containerd --config "$work/containerd.toml"
containerd_pid=${pids[-1]}
wait_for 30 "containerd up" ctr --address "$sock" version
ctr --address "$sock" -n k8s.io images import "$work/fedcon.tar" >/dev/null
ctr --address "$sock" -n k8s.io images import "$work/pause.tar" >/dev/null
imgs=$(ctr --address "$sock" -n k8s.io images ls -q)
grep -qx localhost/fedcon:dev <<<"$imgs" || fail_now "localhost/fedcon:dev not in containerd after the import"

run kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --tls-cert-file "$work/pki/api.crt" --tls-private-key-file "$work/pki/api.key" \
  --client-ca-file "$work/pki/ca.crt" --token-auth-file "$work/pki/tokens.csv" \
  --authorization-mode AlwaysAllow --endpoint-reconciler-type none \
  --service-account-issuer https://kubernetes.default.svc \
  --service-account-key-file "$work/pki/sa.pub" --service-account-signing-key-file "$work/pki/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 --cert-dir "$work/pki/apiserver" \
  --kubelet-preferred-address-types Hostname
wait_for 90 "kube-apiserver ready" "$bin/kubectl" get --raw /readyz
run kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$KUBECONFIG" \
  --leader-elect=false --bind-address 127.0.0.1 --secure-port "$kcm_port" \
  --service-account-private-key-file "$work/pki/sa.key" --root-ca-file "$work/pki/ca.crt" \
  --cert-dir "$work/pki/kcm"
run kube-scheduler "$bin/kube-scheduler" --kubeconfig "$KUBECONFIG" \
  --leader-elect=false --bind-address 127.0.0.1 --secure-port "$sched_port" --cert-dir "$work/pki/scheduler"

# The pods' cgroup root, in every hierarchy (cgroup v1: cpuset's CPUs and
# memory nodes copied from the root, as a new cpuset has none).
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  mkdir -p "/sys/fs/cgroup$cgroot"
else
  for h in /sys/fs/cgroup/*/; do
    [ -f "$h/cgroup.procs" ] && mkdir -p "$h${cgroot#/}"
  done
  if [ -d "/sys/fs/cgroup/cpuset$cgroot" ]; then
    cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset$cgroot/cpuset.cpus"
    cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset$cgroot/cpuset.mems"
  fi
fi
cat >"$work/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz_port
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: $cgroot
failSwapOn: false
makeIPTablesUtilChains: false
containerRuntimeEndpoint: unix://$sock
resolvConf: /etc/resolv.conf
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: "100Mi"}
EOF
run kubelet "$bin/kubelet" --config "$work/kubelet.yaml" --kubeconfig "$KUBECONFIG" \
  --root-dir "$work/kubelet" --cert-dir "$work/pki/kubelet" --hostname-override "$node" \
  --pod-infra-container-image localhost/pause:fedcon
kubelet_pid=${pids[-1]}
wait_for 120 "node $node Ready" sh -c "'$bin/kubectl' get node '$node' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
wait_for 60 "service account default" "$bin/kubectl" get serviceaccount default

# The volume: a hostPath PersistentVolume of the claim's class, holding
# the data sets (the data Job's work) and writable by the pods' uid.
pv=$work/volume
mkdir -p "$pv/datasets" "$pv/results"
data=${FEDCON_DATA_DIR:-$repo/datasets}
[ -d "$data" ] && cp -r "$data"/. "$pv/datasets/"
chown -R 65534:65534 "$pv"
class=$(sed -n 's/^  storageClassName: *//p' "$repo/deploy/kubernetes/pvc.yaml")
"$bin/kubectl" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolume
metadata: {name: fedcon-test-volume}
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteMany]
  storageClassName: $class
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: "$pv", type: Directory}
EOF

# The manifests, with the three lines above changed.
m=$work/manifests
cp "$repo"/deploy/kubernetes/{pvc.yaml,data-job.yaml,shards-job.yaml,merge-job.yaml,run.sh} "$m/"
# (table4 reads no data set, so it has no --no-fetch)
sed -i 's/"reproduce", "all", "--quick",/"reproduce", "table4", "--trials", "2",/; s/"--no-fetch", //' "$m/shards-job.yaml"
grep -q '"reproduce", "table4", "--trials", "2"' "$m/shards-job.yaml" && ! grep -q no-fetch "$m/shards-job.yaml" ||
  fail_now "shards-job.yaml: no reproduce all --quick and --no-fetch to replace"
for f in "$m"/*-job.yaml; do
  sed -i 's/^      restartPolicy: Never$/&\n      hostNetwork: true/' "$f"
  grep -q '^      hostNetwork: true$' "$f" || fail_now "$f: no restartPolicy line to add hostNetwork after"
done
export PATH=$bin:$PATH
FEDCON_K8S_JOBS="shards merge" FEDCON_K8S_TIMEOUT=${FEDCON_K8S_TIMEOUT:-900} "$m/run.sh" || {
  "$bin/kubectl" get pods -o wide >&2
  fail_now "run.sh failed"
}
ran=$(date +%s)
"$bin/kubectl" get pods -l batch.kubernetes.io/job-name=fedcon-shards \
  -o custom-columns='POD:.metadata.name,INDEX:.metadata.annotations.batch\.kubernetes\.io/job-completion-index,PHASE:.status.phase'

fail=1
(cd "$work" && FEDCON_DATA_DIR=$pv/datasets "$work/image/fedcon" reproduce table4 --trials 2 --quiet --out "$work/one" >/dev/null)
n=$(find "$pv/results" -path '*/shard-*/table4/shard-*-of-4.json' | wc -l)
if [ "$n" -ne 4 ]; then
  echo "test-k8s: $n shard manifests under the volume, want 4" >&2
elif python3 "$repo/deploy/compare-results.py" --csv "$work/one" "$pv/results/merged"; then
  fail=0
fi

# A failing shard: run.sh must stop at the Failed Job with fedcon's own
# message and never start the merge (each index tried once here).
"$bin/kubectl" delete job fedcon-shards fedcon-merge --wait=true >/dev/null
f=$work/failing
mkdir -p "$f"
cp "$m"/{pvc.yaml,shards-job.yaml,merge-job.yaml,run.sh} "$f/"
sed -i 's/"reproduce", "table4",/"reproduce", "table4", "--beta", "-1",/; s/^  backoffLimitPerIndex: 3$/  backoffLimitPerIndex: 0/' "$f/shards-job.yaml"
grep -q '^  backoffLimitPerIndex: 0$' "$f/shards-job.yaml" || fail_now "shards-job.yaml: no backoffLimitPerIndex: 3 to replace"
if FEDCON_K8S_JOBS="shards merge" FEDCON_K8S_TIMEOUT=300 "$f/run.sh" >"$f/out" 2>&1; then
  echo "test-k8s: run.sh went on past shards that fail:" >&2
  cat "$f/out" >&2
  fail=1
elif ! grep -q 'job/fedcon-shards: FAILED' "$f/out" || ! grep -q 'beta = -1' "$f/out" ||
  "$bin/kubectl" get job fedcon-merge >/dev/null 2>&1; then
  echo "test-k8s: run.sh on failing shards: no FAILED line, no fedcon message, or a merge Job started:" >&2
  cat "$f/out" >&2
  fail=1
else
  echo "test-k8s: failing shards stopped run.sh before the merge: $(grep -m1 'beta = -1' "$f/out")"
fi
echo "test-k8s: $([ $fail -eq 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - start)) s (Kubernetes $version build $((built - start)) s, cluster and Jobs $((ran - built)) s)"
exit $fail
