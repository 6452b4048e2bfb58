#!/usr/bin/env bash
# The fuzzing smoke job (issue 14): builds the libFuzzer targets of fuzz/ with clang 14
# (-fsanitize=fuzzer,address,undefined; -DTRIMARAN_FUZZ=ON) into their own build
# directory and runs each one on its checked-in seed corpus (fuzz/corpus/<name>/, with
# fuzz/dict/<name>.dict when present) for a short time. Exits non-zero when the build
# fails, when a fuzzer crashes, leaks, hits a sanitizer report, breaks one of its
# invariants or times out on an input, and when fuzz/corpus and the built fuzzers do
# not match one to one.
#
# Inputs found during the run go to a scratch directory, never into the checked-in
# corpus; a failing input is kept as <build>/fuzz-artifacts/<name>-crash-<sha1> and the
# command to reproduce it is printed. Only the `fuzzers` target is built: the code
# under test with -O1 and line tables only, as tools/check-clang.sh does.
#
#   tools/check-fuzz.sh                       build, then 10 s per fuzzer
#   tools/check-fuzz.sh quantity_fuzzer       only the named fuzzers
#   TRIMARAN_FUZZ_SECONDS=300 tools/check-fuzz.sh   longer runs (docs/benchmarks.md)
#
# Environment: BUILD_DIR (default <repo>/build-clang: the clang job's directory, whose
# objects the fuzzers reuse; tools/clang-build.sh), TRIMARAN_FUZZ_SECONDS (per fuzzer,
# default 10), TRIMARAN_JOBS, TRIMARAN_CCACHE (as tools/build.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/setup.sh" --clang
build="${BUILD_DIR:-$root/build-clang}"
seconds="${TRIMARAN_FUZZ_SECONDS:-10}"

start=$SECONDS
BUILD_DIR="$build" TRIMARAN_TARGETS=fuzzers "$root/tools/clang-build.sh"
echo "check-fuzz: built in $((SECONDS - start)) s"

# Every corpus has its fuzzer and every fuzzer its corpus.
mapfile -t corpora < <(cd "$root/fuzz/corpus" && ls)
mapfile -t built < <(cd "$build/fuzz" && find . -maxdepth 1 -type f -name '*_fuzzer' -perm -u+x \
  -printf '%f\n' | sort)
if [[ "${corpora[*]}" != "${built[*]}" ]]; then
  echo "check-fuzz: fuzz/corpus (${corpora[*]}) and the built fuzzers (${built[*]}) differ" >&2
  exit 1
fi
names=("$@")
((${#names[@]})) || names=("${corpora[@]}")

export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
export ASAN_OPTIONS="${ASAN_OPTIONS:-check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
artifacts="$build/fuzz-artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"
failed=()
for name in "${names[@]}"; do
  bin="$build/fuzz/$name"
  [[ -x "$bin" ]] || { echo "check-fuzz: no fuzzer $name" >&2; exit 1; }
  # A fixed seed: the smoke run explores the same inputs on every CI run (a finding is
  # reproducible, not luck); TRIMARAN_FUZZ_SEED=0 lets libFuzzer pick one.
  # -max_len: long enough for the deep-nesting seeds (deep_*: one level past the shared
  # JSON depth limit of 512, common/json_parse.h) to be kept and mutated; the size
  # limits (MiB) are covered by the unit tests, not by fuzzing.
  args=(-seed="${TRIMARAN_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
    -max_len="${TRIMARAN_FUZZ_MAX_LEN:-16384}" -print_final_stats=1
    -artifact_prefix="$artifacts/$name-")
  [[ -f "$root/fuzz/dict/$name.dict" ]] && args+=(-dict="$root/fuzz/dict/$name.dict")
  mkdir -p "$scratch/$name"
  log="$build/fuzz-$name.log"
  if "$bin" "${args[@]}" "$scratch/$name" "$root/fuzz/corpus/$name" >"$log" 2>&1; then
    # libFuzzer's last status line ("#N DONE cov: C ft: F corp: U/S ...") and its runs.
    summary="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 |
      sed -E 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+//; s/[[:space:]]+$//' || true)"
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    echo "check-fuzz: ok $name: ${execs:-?} runs in ${seconds} s; ${summary}"
  else
    echo "check-fuzz: FAILED $name (log $log):" >&2
    { grep -E 'ERROR|invariant failed|runtime error|SUMMARY|Test unit written' "$log" || tail -20 "$log"; } | head -20 >&2
    echo "check-fuzz: reproduce with: $bin $artifacts/$name-<crash file>" >&2
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "check-fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "check-fuzz: all ${#names[@]} fuzzers passed in $((SECONDS - start)) s"
