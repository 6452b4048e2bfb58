#!/usr/bin/env bash
# The test command: installs what is needed, builds, and runs every test through ctest
# (unit tests, benchmark smoke runs, and the e2e tests against real components).
# Exits non-zero on any failure.
#
#   tools/test.sh                 everything
#   tools/test.sh -L unit         only tests labelled unit (any ctest arguments pass through)
#   TRIMARAN_TEST_IMAGE_SOURCE=1 tools/test.sh   also the image compiled from source
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/setup.sh" --e2e
# The control planes of the tested range, built from their Go modules once per machine:
# every e2e suite runs on the newest (1.37); the compatibility subset (ctest label
# compat) also on the floor (1.32).
export TRIMARAN_K8S_ASSETS_1_37="$("$root/tools/build-k8s.sh" 1.37)"
export TRIMARAN_K8S_ASSETS_1_32="$("$root/tools/build-k8s.sh" 1.32)"
export TRIMARAN_K8S_ASSETS="$TRIMARAN_K8S_ASSETS_1_37"
"$root/tools/build.sh"
cd "${BUILD_DIR:-$root/build}"
# The container image is tested through tools/build-image.sh's fast path (label image,
# minutes). The build that compiles everything inside the image (label image-source,
# 25-35 min on 2 cores, RUN_SERIAL) runs only when asked: TRIMARAN_TEST_IMAGE_SOURCE=1,
# or `ctest -L image-source` in the build directory.
exclude=()
[[ ${TRIMARAN_TEST_IMAGE_SOURCE:-0} == 1 ]] || exclude=(-LE image-source)
ctest --output-on-failure --timeout 900 -j"$(nproc)" "${exclude[@]}" "$@"
