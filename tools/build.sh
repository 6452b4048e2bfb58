#!/usr/bin/env bash
# Configures and builds Trimaran into ${BUILD_DIR:-build}. Extra arguments go to cmake
# at configure time (for example -DTRIMARAN_SANITIZE=thread).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
werror=OFF
[[ "${CI:-}" == "true" ]] && werror=ON
cmake -S "$root" -B "$build" -G Ninja -DTRIMARAN_WERROR="${TRIMARAN_WERROR:-$werror}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
