#!/usr/bin/env bash
# The one clang 14 configuration of tools/check-clang.sh and tools/check-fuzz.sh:
# -Wthread-safety -Werror, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer's
# coverage instrumentation on every target (-DTRIMARAN_FUZZ=ON: -fsanitize=fuzzer-no-link;
# only the fuzzers link the libFuzzer driver), -O1 with line tables only, DCHECKs on. Both
# jobs build into the same directory, so the fuzzers reuse every object the unit tests
# compiled (and the other way round).
#
#   BUILD_DIR=build-clang TRIMARAN_TARGETS=unit_tests tools/clang-build.sh
#
# Environment: BUILD_DIR (required), TRIMARAN_TARGETS, TRIMARAN_JOBS, TRIMARAN_CCACHE (as
# tools/build.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
: "${BUILD_DIR:?BUILD_DIR is required}"
# TRIMARAN_DEBUG_INFO=ON: the line tables below stay (tools/build.sh turns debug
# information off under CI=true for the gcc build; sanitizer reports need the lines).
CC=clang-14 CXX=clang++-14 TRIMARAN_WERROR=ON TRIMARAN_DEBUG_INFO=ON "$root/tools/build.sh" \
  -DTRIMARAN_SANITIZE=address -DTRIMARAN_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only"
