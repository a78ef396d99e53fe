#!/bin/bash
# Builds the Kubernetes binaries that make test-k8s runs (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kubectl) from the
# k8s.io/kubernetes module of the Go module proxy, into DIR/bin (default
# ${FEDCON_K8S_CACHE:-$HOME/.cache/fedcon-k8s}/KUBERNETES_VERSION); does
# nothing when they are there. The module's zip has no staging/ (each
# staging directory is a module of its own), so the copy's go.mod requires
# the published k8s.io/* modules instead of replacing them with ./staging;
# a few patch releases are missing on the proxy, hence the pins below (the
# nearest earlier patch of the same minor). Static (CGO_ENABLED=0), niced.
set -euo pipefail
version=${KUBERNETES_VERSION:-v1.31.14}
dir=${1:-${FEDCON_K8S_CACHE:-$HOME/.cache/fedcon-k8s}/$version}
bins=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
have=1
for b in "${bins[@]}"; do [ -x "$dir/bin/$b" ] || have=0; done
[ $have -eq 1 ] && exit 0
[ "$version" = v1.31.14 ] || { echo "build-k8s: pins are for v1.31.14 only" >&2; exit 2; }
staging=(
  api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
  cloud-provider cluster-bootstrap code-generator component-base
  component-helpers controller-manager cri-api cri-client csi-translation-lib
  dynamic-resource-allocation kms kube-aggregator kubectl kubelet metrics
  mount-utils pod-security-admission
)
declare -A pinned=(
  [endpointslice]=v0.31.13 [kube-controller-manager]=v0.31.13
  [kube-proxy]=v0.31.11 [kube-scheduler]=v0.31.13
  [sample-apiserver]=v0.31.3 [sample-cli-plugin]=v0.31.0 [sample-controller]=v0.31.3
)
start=$(date +%s)
mkdir -p "$dir"
src=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "build-k8s: no k8s.io/kubernetes@$version from the module proxy" >&2; exit 1; }
rm -rf "$dir/src"
cp -r "$src" "$dir/src"
chmod -R u+w "$dir/src"
cd "$dir/src"
rm -rf go.work go.work.sum vendor
args=()
for m in "${staging[@]}"; do args+=("-dropreplace=k8s.io/$m" "-require=k8s.io/$m@${version/v1./v0.}"); done
for m in "${!pinned[@]}"; do args+=("-dropreplace=k8s.io/$m" "-require=k8s.io/$m@${pinned[$m]}"); done
go mod edit "${args[@]}"
if grep -q '=> ./staging' go.mod; then
  echo "build-k8s: staging modules left unpinned:" >&2
  grep '=> ./staging' go.mod >&2
  exit 1
fi
minor=${version#v1.}
minor=${minor%%.*}
CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 10 go build -trimpath \
  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
  -o "$dir/bin/" "${bins[@]/#/./cmd/}"
rm -rf "$dir/src"
echo "build-k8s: Kubernetes $version built in $(($(date +%s) - start)) s: $dir/bin"
