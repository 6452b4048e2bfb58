#!/usr/bin/env bash
# The clang job: builds the unit tests with Debian's clang 14 (against libstdc++ and
# Debian's Abseil, gRPC, ...) with -Wthread-safety -Werror and AddressSanitizer +
# UndefinedBehaviorSanitizer, then runs `ctest -L unit`. Exits non-zero on any warning,
# sanitizer report or test failure.
#
# Only the unit-test executables are built (the `unit_tests` target): not the programs,
# the e2e tests, the benchmarks or the image. Code is compiled with -O1 and line tables
# only (no full debug info): fast to build, fast enough to test, and sanitizer reports
# still name files and lines. DCHECKs are on (no NDEBUG).
#
#   tools/check-clang.sh              setup (clang packages), configure, build, test
#   tools/check-clang.sh -R Quantity  extra arguments go to ctest
#
# Environment: BUILD_DIR (default <repo>/build-clang, shared with tools/check-fuzz.sh),
# TRIMARAN_JOBS, TRIMARAN_CCACHE (as tools/build.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/setup.sh" --clang
build="${BUILD_DIR:-$root/build-clang}"

# One clang build directory for this job and tools/check-fuzz.sh (tools/clang-build.sh):
# the libFuzzer coverage instrumentation is on everywhere, so the fuzzers reuse every
# object the unit tests compiled.
BUILD_DIR="$build" TRIMARAN_TARGETS=unit_tests "$root/tools/clang-build.sh"

# Reports name source lines; any leak, memory error or undefined behaviour (compiled with
# -fno-sanitize-recover) fails the test.
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
export ASAN_OPTIONS="${ASAN_OPTIONS:-check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
cd "$build"
ctest -L unit --output-on-failure -j"${TRIMARAN_JOBS:-$(nproc)}" "$@"
