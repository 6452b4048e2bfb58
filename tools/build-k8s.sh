#!/usr/bin/env bash
# Builds kube-apiserver and kube-scheduler 1.20.2 from Debian's `kubernetes` source
# package, once per machine, and prints the directory that holds them together with
# etcd. Honours KUBEBUILDER_ASSETS (a directory with kube-apiserver and etcd): when set,
# nothing is built and that directory is printed.
#
# Usage: tools/build-k8s.sh            # prints the assets directory on stdout
# Cache:  ${TRIMARAN_CACHE:-$HOME/.cache/trimaran}/k8s-1.20.2-r1/
#
# One fix is applied to the vendored tree before building: Kubernetes 1.20 vendors
# modern-go/reflect2 1.0.1 (with json-iterator 1.1.10), whose unsafe map iteration is
# wrong under Go >= 1.18 and crashes kube-apiserver ("fatal error: fault" in
# aeshashbody under sortKeysMapEncoder) when it encodes maps. Debian 12 ships Go 1.19
# and the fixed reflect2 1.0.2 / json-iterator 1.1.12 as source packages; those replace
# the vendored copies.
set -euo pipefail

log() { echo "build-k8s: $*" >&2; }

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if [[ -x "$KUBEBUILDER_ASSETS/kube-apiserver" && -x "$KUBEBUILDER_ASSETS/etcd" ]]; then
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks kube-apiserver or etcd"
  exit 1
fi

cache="${TRIMARAN_CACHE:-$HOME/.cache/trimaran}/k8s-1.20.2-r1"
if [[ -x "$cache/kube-apiserver" && -x "$cache/kube-scheduler" && -x "$cache/etcd" ]]; then
  echo "$cache"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
  if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    apt-get update -qq >&2
    apt-get install -y -qq "${missing[@]}" >&2
  fi
}
apt_install golang-go dpkg-dev rsync jq etcd-server \
  golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev

# Source packages: reuse the mirror URI already configured for binary packages.
if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list 2>/dev/null; then
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [[ -z "$uri" ]]; then
    uri=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  fi
  [[ -n "$uri" ]] || { log "cannot find the Debian mirror URI to enable source packages"; exit 1; }
  log "enabling deb-src from $uri"
  cat > /etc/apt/sources.list.d/trimaran-debian-src.sources <<SRC
Types: deb-src
URIs: $uri
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq >&2
fi

work="$cache.build"
rm -rf "$work"
mkdir -p "$work" "$cache"
cd "$work"
log "downloading Debian's kubernetes source package"
apt-get source --download-only kubernetes >&2
dpkg-source -x kubernetes_*.dsc src >&2
cd src
for dep in github.com/modern-go/reflect2 github.com/json-iterator/go; do
  [[ -d /usr/share/gocode/src/$dep ]] || { log "missing /usr/share/gocode/src/$dep"; exit 1; }
  rsync -a --delete --exclude '*_test.go' "/usr/share/gocode/src/$dep/" "vendor/$dep/"
done
log "replaced vendored reflect2/json-iterator with Debian's Go 1.18+-safe versions"
mkdir -p .go/src/k8s.io
ln -sfn ../../.. .go/src/k8s.io/kubernetes
log "building kube-apiserver and kube-scheduler (about 7 minutes on 2 cores)"
mkdir -p "$work/home"
GOPATH=$PWD/.go CGO_ENABLED=0 HOME="$work/home" \
  make WHAT="cmd/kube-apiserver cmd/kube-scheduler" >&2
cp _output/local/bin/linux/amd64/kube-apiserver _output/local/bin/linux/amd64/kube-scheduler "$cache/"
ln -sfn "$(command -v etcd)" "$cache/etcd"
cd /
rm -rf "$work"
log "cached in $cache"
echo "$cache"
