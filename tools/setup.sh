#!/usr/bin/env bash
# Installs everything Trimaran needs to build and test on Debian 12, idempotently.
# Debian's package archive for the build; the e2e control plane comes from the Go module
# proxy (tools/build-k8s.sh, pinned by go.sum).
#
#   tools/setup.sh          build + unit-test dependencies
#   tools/setup.sh --e2e    also the real components of the e2e tests (etcd, Prometheus,
#                           tmux and headless Chromium for the trimaranctl views,
#                           kube-apiserver/kube-scheduler/etcd 1.37 built from their Go
#                           modules by tools/build-k8s.sh; needs Go >= 1.26)
#   tools/setup.sh --image  also buildah + debootstrap (the container image test, no Docker
#                           engine needed)
#   tools/setup.sh --clang  also clang 14, its sanitizer runtimes and llvm-symbolizer
#                           (tools/check-clang.sh); flags combine
set -euo pipefail

BUILD_PKGS=(cmake ninja-build g++ pkg-config clang-format
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libcurl4-openssl-dev libssl-dev rapidjson-dev libabsl-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev libcpp-httplib-dev openssl ccache)
E2E_PKGS=(prometheus jq curl procps tmux chromium fonts-liberation)
IMAGE_PKGS=(buildah debootstrap)
CLANG_PKGS=(clang-14 libclang-rt-14-dev llvm-14)

want=("${BUILD_PKGS[@]}")
e2e=0
for arg in "$@"; do
  case "$arg" in
    --e2e) e2e=1; want+=("${E2E_PKGS[@]}") ;;
    --image) want+=("${IMAGE_PKGS[@]}") ;;
    --clang) want+=("${CLANG_PKGS[@]}") ;;
    *) echo "setup: unknown argument $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ((e2e)); then
  # Builds (once, cached) the newest tested control plane from its Go modules; the test
  # command also builds the floor of the range (tools/build-k8s.sh 1.32).
  "$(dirname "$0")/build-k8s.sh" 1.37 >/dev/null
fi
