#!/usr/bin/env bash
# Re-captures kube/api/testdata/apiserver-<minor>/ from the real kube-apiserver of each
# tested minor (tests/e2e/apiserver_capture_main.cc says what is captured and how).
#
#   tools/capture-apiserver.sh            # 1.37 and 1.32
#   tools/capture-apiserver.sh 1.37
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
TRIMARAN_TARGETS=apiserver_capture "$root/tools/build.sh"
minors=("$@")
((${#minors[@]})) || minors=(1.37 1.32)
for m in "${minors[@]}"; do
  assets="$("$root/tools/build-k8s.sh" "$m")"
  out="$root/kube/api/testdata/apiserver-$m"
  rm -rf "$out"
  env TRIMARAN_K8S_MINOR="$m" "TRIMARAN_K8S_ASSETS_${m/./_}=$assets" \
    "$build/tests/e2e/apiserver-capture" --out "$out"
done
