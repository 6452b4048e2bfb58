#!/usr/bin/env bash
# Builds the control plane the e2e tests run against, from the published Go modules, once
# per machine, and prints the directory that holds kube-apiserver, kube-scheduler,
# kube-controller-manager (1.37 only), etcd and a VERSION file (the Kubernetes gitVersion).
#
# Usage: tools/build-k8s.sh [1.37|1.32]   # default 1.37, the newest tested minor;
#                                         # 1.32 is the floor of the tested range
# Cache:  ${TRIMARAN_CACHE:-$HOME/.cache/trimaran}/k8s-<gitVersion>-<go.sum hash>/
#
# What is built is pinned by tools/k8s/v<minor>/go.mod and go.sum (k8s.io/kubernetes with
# every staging module replaced by its matching v0.<minor>.x) and tools/k8s/etcd/go.mod
# (go.etcd.io/etcd/server/v3). Nothing else of upstream is in this repository: `go build`
# fetches the modules from the Go module proxy. A module that cannot be fetched fails the
# build with its name and the command to retry; there is no fallback.
#
# Honours KUBEBUILDER_ASSETS (a directory with kube-apiserver and etcd): when set, nothing
# is built and that directory is printed.
set -euo pipefail

log() { echo "build-k8s: $*" >&2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
minor="${1:-1.37}"
mod="$root/tools/k8s/v$minor"
[[ -f "$mod/go.mod" ]] || { log "no module for Kubernetes $minor ($mod/go.mod); tested: 1.37, 1.32"; exit 2; }

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if [[ -x "$KUBEBUILDER_ASSETS/kube-apiserver" && -x "$KUBEBUILDER_ASSETS/etcd" ]]; then
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks kube-apiserver or etcd"
  exit 1
fi

command -v go >/dev/null || { log "needs the go command (Go >= 1.26) on PATH"; exit 1; }
# The machine's Go builds it; never a toolchain downloaded behind our back.
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

version="$(cd "$mod" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
hash="$(cat "$mod/go.sum" "$root/tools/k8s/etcd/go.sum" | sha256sum | cut -c1-12)"
cache="${TRIMARAN_CACHE:-$HOME/.cache/trimaran}/k8s-$version-$hash"
want=(kube-apiserver kube-scheduler etcd)
[[ "$minor" == 1.37 ]] && want+=(kube-controller-manager)
have=1
for b in "${want[@]}"; do [[ -x "$cache/$b" ]] || have=0; done
if ((have)) && [[ -f "$cache/VERSION" ]]; then
  echo "$cache"
  exit 0
fi

# Fetch first, so that a missing module is named on its own (not deep in a build log):
# `go list -deps` downloads exactly the modules the packages import.
fetch() {
  local dir="$1"
  shift
  if ! (cd "$dir" && go list -deps "$@" >/dev/null 2>"$cache.fetch.log"); then
    grep -E "go: |reading|not available|Forbidden|404|410|dial|missing" "$cache.fetch.log" | head -20 >&2 || true
    log "could not fetch the Go modules of ${dir#"$root"/}; retry with:"
    log "  (cd ${dir#"$root"/} && GOTOOLCHAIN=local go list -deps $* >/dev/null)"
    exit 1
  fi
}

mkdir -p "$cache"
start=$SECONDS
pkgs=()
for b in "${want[@]}"; do [[ "$b" == etcd ]] || pkgs+=("k8s.io/kubernetes/cmd/$b"); done
log "fetching the modules of Kubernetes $version and etcd"
fetch "$mod" "${pkgs[@]}"
fetch "$root/tools/k8s/etcd" go.etcd.io/etcd/server/v3

# The version the binaries report (/version, the scheduler's and client's user agent) is
# set the way Kubernetes' own build sets it.
major="${version#v}"; major="${major%%.*}"
minor_num="${version#v*.}"; minor_num="${minor_num%%.*}"
vpkg=k8s.io/component-base/version
ldflags="-s -w -X $vpkg.gitVersion=$version -X $vpkg.gitMajor=$major -X $vpkg.gitMinor=$minor_num"
ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$version"
ldflags+=" -X k8s.io/client-go/pkg/version.gitMajor=$major -X k8s.io/client-go/pkg/version.gitMinor=$minor_num"

log "building ${pkgs[*]##*/} $version (about 10 minutes on 2 cores the first time)"
(cd "$mod" && go build -trimpath -ldflags "$ldflags" -o "$cache/" "${pkgs[@]}") >&2
log "building etcd"
(cd "$root/tools/k8s/etcd" && go build -trimpath -ldflags "-s -w" -o "$cache/etcd" go.etcd.io/etcd/server/v3) >&2
echo "$version" >"$cache/VERSION"
rm -f "$cache.fetch.log"
log "built in $((SECONDS - start)) s, cached in $cache"
echo "$cache"
