#!/usr/bin/env bash
# Configures and builds Trimaran into ${BUILD_DIR:-build}. Extra arguments go to cmake
# at configure time (for example -DTRIMARAN_SANITIZE=thread).
#
# Environment:
#   BUILD_DIR          the build directory (default: <repo>/build)
#   TRIMARAN_WERROR    ON/OFF (default ON when CI=true, else OFF)
#   TRIMARAN_DEBUG_INFO ON/OFF (default OFF when CI=true, else ON): OFF compiles with -g0,
#                      about a quarter less compile time on CI's cold machine
#   TRIMARAN_TARGETS   space-separated targets to build (default: all), e.g.
#                      "trimaran-scheduler load-watcher trimaranctl" (what the Dockerfile builds)
#   TRIMARAN_JOBS      parallel build jobs (default: nproc)
#   TRIMARAN_CCACHE    0 to build without ccache (used when installed, the default)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
werror=OFF
debug_info=ON
if [[ "${CI:-}" == "true" ]]; then
  werror=ON
  debug_info=OFF
fi
launcher=()
if command -v ccache >/dev/null && [[ "${TRIMARAN_CCACHE:-1}" != 0 ]]; then
  # Checkouts of the same tree (worktrees, CI's fresh clone) share compiled objects.
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # Room for the gcc, clang and fuzz builds of .ci/run at once (the default 5 GB is not).
  ccache --max-size=20G >/dev/null
fi
cmake -S "$root" -B "$build" -G Ninja -DTRIMARAN_WERROR="${TRIMARAN_WERROR:-$werror}" \
  -DTRIMARAN_DEBUG_INFO="${TRIMARAN_DEBUG_INFO:-$debug_info}" \
  "${launcher[@]}" "$@" >/dev/null
targets=()
[[ -n "${TRIMARAN_TARGETS:-}" ]] && read -r -a targets <<<"$TRIMARAN_TARGETS"
if ((${#targets[@]})); then
  cmake --build "$build" -j"${TRIMARAN_JOBS:-$(nproc)}" --target "${targets[@]}"
else
  cmake --build "$build" -j"${TRIMARAN_JOBS:-$(nproc)}"
fi
