#!/usr/bin/env bash
# Checks that every tracked .cc/.h file is formatted as clang-format 14 (Debian 12) with
# the repository's .clang-format formats it. Lists the files that are not and exits 1.
#
#   tools/check-format.sh           check (what .ci/run does)
#   tools/check-format.sh --diff    also print what clang-format would change
#   tools/check-format.sh --fix     reformat the listed files in place
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mode=check
case "${1:-}" in
  "") ;;
  --diff) mode=diff ;;
  --fix) mode=fix ;;
  *) echo "check-format: unknown argument $1" >&2; exit 2 ;;
esac
command -v clang-format >/dev/null || "$root/tools/setup.sh"

bad=()
while IFS= read -r -d '' f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files -z -- '*.cc' '*.h')

if ((${#bad[@]} == 0)); then
  echo "check-format: all files formatted ($(clang-format --version))"
  exit 0
fi
for f in "${bad[@]}"; do
  case "$mode" in
    diff) clang-format "$f" | diff -u --label "a/$f" --label "b/$f" "$f" - || true ;;
    fix) clang-format -i "$f" ;;
  esac
done
if [[ "$mode" == fix ]]; then
  echo "check-format: reformatted ${#bad[@]} file(s):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 0
fi
echo "check-format: ${#bad[@]} file(s) not formatted with clang-format (fix: tools/check-format.sh --fix):" >&2
printf '  %s\n' "${bad[@]}" >&2
exit 1
