#!/usr/bin/env bash
# Prints, one per line and sorted, the Debian packages that ship the shared libraries the
# given programs load (ldd, then dpkg -S). The image's runtime stage installs exactly
# these; the Dockerfile's build stage and tools/build-image.sh (the fast path, from
# binaries built on this machine) both call this, so the two images get the same list.
#
#   tools/image-runtime-packages.sh build/bin/trimaran-scheduler build/bin/load-watcher
#
# Exits 1, naming the library, when a library is not from a Debian package (the runtime
# stage could not install it).
set -euo pipefail
(($#)) || { echo "usage: $0 PROGRAM..." >&2; exit 2; }
libs=$(for p in "$@"; do ldd "$p"; done | awk '/=> \//{print $3}' | sort -u)
for lib in $libs; do
  found=""
  for c in "$lib" "/usr$lib" "${lib#/usr}" "$(readlink -f "$lib")"; do
    if out=$(dpkg -S "$c" 2>/dev/null); then found=$out; break; fi
  done
  [[ -n $found ]] || { echo "image-runtime-packages: no Debian package ships $lib" >&2; exit 1; }
  echo "$found" | head -n1 | cut -d: -f1
done | sort -u
