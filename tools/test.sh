#!/usr/bin/env bash
# The test command: installs what is needed, builds, and runs every test through ctest
# (unit tests, benchmark smoke runs, and the e2e tests against real components).
# Exits non-zero on any failure.
#
#   tools/test.sh                 everything
#   tools/test.sh -L unit         only tests labelled unit (any ctest arguments pass through)
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
ctest --output-on-failure --timeout 900 -j"$(nproc)" "$@"
