#!/usr/bin/env bash
# The container image test (ctest labels "image" and "image-source"): builds the
# repository's Dockerfile for real with Debian's buildah (no Docker engine) through
# tools/build-image.sh, then runs each program's --version
# inside the built image, checks that every shared library resolves (ldd) and that the
# image runs as uid 65532.
#
# Base image: there is no registry here, so docker.io/library/debian:bookworm-slim is
# made once per machine with debootstrap (--variant=minbase, Debian's mirror from the
# host's apt sources) and kept in a buildah storage of our own under
# ~/.cache/trimaran/buildah (vfs driver). Only the image and containers this test makes
# are removed at the end; the cached base stays.
#
# Environment:
#   TRIMARAN_VERSION         expected --version string (default: from CMakeLists.txt)
#   TRIMARAN_IMAGE_MODE      prebuilt (default): tools/build-image.sh's fast path from
#                            the programs in TRIMARAN_BUILD_DIR/bin; source: the
#                            Dockerfile compiles them inside the image (25-35 min)
#   TRIMARAN_BUILD_DIR       the build directory whose bin/ the fast path takes (ctest
#                            sets it)
#   TRIMARAN_IMAGE_PROGRAMS  programs to build and check in source mode (the fast path
#                            always takes all three)
#                            (default: "trimaran-scheduler load-watcher trimaranctl")
#   TRIMARAN_IMAGE_JOBS      compile jobs inside the build (default 2)
#   TRIMARAN_CACHE           cache root (default ~/.cache/trimaran)
#   TRIMARAN_IMAGE_KEEP=1    keep the built image (prints its name) for manual use
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${TRIMARAN_CACHE:-$HOME/.cache/trimaran}"
programs="${TRIMARAN_IMAGE_PROGRAMS:-trimaran-scheduler load-watcher trimaranctl}"
version="${TRIMARAN_VERSION:-$(sed -n 's/^project(trimaran VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")}"
base="docker.io/library/debian:bookworm-slim"
image="localhost/trimaran-image-test:$$"
start=$(date +%s)

log() { echo "image_test: [$(($(date +%s) - start))s] $*" >&2; }

if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  log "installing buildah and debootstrap (tools/setup.sh --image)"
  "$root/tools/setup.sh" --image
fi

mkdir -p "$cache/buildah"
B=(buildah --root "$cache/buildah/storage" --runroot "$cache/buildah/run" --storage-driver vfs)

containers=()
cleanup() {
  local rc=$?
  for c in "${containers[@]}"; do "${B[@]}" rm "$c" >/dev/null 2>&1 || true; done
  if [[ "${TRIMARAN_IMAGE_KEEP:-}" != 1 ]]; then
    "${B[@]}" rmi -f "$image" >/dev/null 2>&1 || true
    # Untagged leftovers of this build (intermediate stages) only; the base is tagged.
    "${B[@]}" rmi --prune >/dev/null 2>&1 || true
  else
    log "kept $image (storage: ${B[*]:1:6})"
  fi
  log "done, exit $rc"
  exit $rc
}
trap cleanup EXIT

# ---- 1. The base image, once per machine ----
if ! "${B[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  mirror=""
  for f in /etc/apt/sources.list.d/debian.sources; do
    [[ -f $f ]] && mirror=$(awk '/^URIs:/{print $2; exit}' "$f")
  done
  if [[ -z $mirror && -f /etc/apt/sources.list ]]; then
    mirror=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^https?:/){print $i; exit}}' /etc/apt/sources.list)
  fi
  [[ -n $mirror ]] || { echo "image_test: no Debian mirror in the apt sources" >&2; exit 1; }
  rootfs=$(mktemp -d "$cache/buildah/rootfs.XXXXXX")
  log "debootstrap --variant=minbase bookworm from $mirror (once per machine)"
  # Bounded, so a stalled mirror fails this run with its log (and ctest's retry starts
  # afresh) instead of holding the test to its 900-s timeout.
  timeout 420 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" \
    >"$cache/buildah/debootstrap.log" 2>&1 \
    || { echo "image_test: debootstrap failed or took over 420 s:" >&2
         tail -20 "$cache/buildah/debootstrap.log" >&2; rm -rf "$rootfs"; exit 1; }
  c=$("${B[@]}" from scratch)
  containers+=("$c")
  cp -a "$rootfs/." "$("${B[@]}" mount "$c")/"
  "${B[@]}" umount "$c" >/dev/null
  "${B[@]}" commit -q "$c" localhost/bookworm-base >/dev/null
  "${B[@]}" tag localhost/bookworm-base "$base"
  rm -rf "$rootfs"
  log "base image $base cached in $cache/buildah"
fi

# ---- 2. Build the Dockerfile through tools/build-image.sh, unchanged but for its base:
# the Dockerfile pins debian:bookworm-slim by digest, which the local stand-in cannot
# match. Mode "prebuilt" (the default, ctest deploy_image_test) is the fast path from the
# programs this build directory already has; mode "source" (deploy_image_source_test)
# compiles everything inside the image ----
mode="${TRIMARAN_IMAGE_MODE:-prebuilt}"
build_args=(--isolation chroot --pull-never -q --build-arg "DEBIAN_IMAGE=$base")
case "$mode" in
  prebuilt)
    [[ -n ${TRIMARAN_BUILD_DIR:-} ]] || { echo "image_test: TRIMARAN_BUILD_DIR is not set" >&2; exit 1; }
    cmd=(env BUILD_DIR="$TRIMARAN_BUILD_DIR" "$root/tools/build-image.sh" --no-build -t "$image") ;;
  source)
    # The compile inside the image shares this machine's ccache (mounted for the RUN
    # steps): with the flags of the build tools/test.sh made (RelWithDebInfo, -Werror
    # and -g0 under CI) and the same Debian compiler and headers, objects that build compiled are
    # cache hits, so the test proves the Dockerfile's build stage in minutes rather than
    # the 25-35 min of a cold compile. TRIMARAN_IMAGE_CCACHE=0 compiles cold.
    werror=OFF debug_info=ON
    [[ ${CI:-} == true ]] && werror=ON debug_info=OFF
    build_args+=(--build-arg "TRIMARAN_PROGRAMS=$programs"
      --build-arg "TRIMARAN_JOBS=${TRIMARAN_IMAGE_JOBS:-2}")
    if [[ ${TRIMARAN_IMAGE_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
      ccache_dir="$(ccache -k cache_dir)"
      mkdir -p "$ccache_dir"
      build_args+=(-v "$ccache_dir:/root/.cache/ccache"
        --build-arg "TRIMARAN_BUILD_TYPE=RelWithDebInfo" --build-arg "TRIMARAN_WERROR=$werror"
        --build-arg "TRIMARAN_DEBUG_INFO=$debug_info")
    fi
    cmd=("$root/tools/build-image.sh" --from-source -t "$image") ;;
  *) echo "image_test: TRIMARAN_IMAGE_MODE must be prebuilt or source, not $mode" >&2; exit 1 ;;
esac
log "building $image ($mode: $programs)"
# The fast path installs the runtime packages from Debian's mirror: bounded like the
# debootstrap above (the compile of source mode is not).
limit=()
[[ $mode == prebuilt ]] && limit=(timeout 420)
if ! TRIMARAN_BUILDAH_ARGS="${B[*]:1}" TRIMARAN_IMAGE_EXTRA_ARGS="$(printf '%s\n' "${build_args[@]}")" \
    "${limit[@]}" "${cmd[@]}" >"$cache/buildah/bud.log" 2>&1; then
  echo "image_test: the image build failed${limit:+ or took over 420 s}:" >&2
  tail -60 "$cache/buildah/bud.log" >&2
  exit 1
fi
log "built $image"

# ---- 3. Run the programs inside the image ----
c=$("${B[@]}" from --pull-never "$image")
containers+=("$c")
fail=0
for p in $programs; do
  out=$("${B[@]}" run --isolation chroot "$c" -- "/usr/local/bin/$p" --version 2>&1) || {
    echo "FAIL: $p --version exited non-zero: $out" >&2; fail=1; continue; }
  if [[ "$out" != *"$version"* ]]; then
    echo "FAIL: $p --version printed '$out', want version $version" >&2; fail=1
  else
    echo "ok: $p --version -> $out"
  fi
  missing=$("${B[@]}" run --isolation chroot "$c" -- ldd "/usr/local/bin/$p" 2>&1 | grep 'not found' || true)
  [[ -z $missing ]] || { echo "FAIL: $p has unresolved libraries: $missing" >&2; fail=1; }
done
uid=$("${B[@]}" run --isolation chroot "$c" -- id -u 2>&1)
[[ "$uid" == 65532 ]] || { echo "FAIL: image runs as uid '$uid', want 65532" >&2; fail=1; }
echo "ok: runs as uid $uid"
for cmd in gcc g++ cmake; do
  if "${B[@]}" run --isolation chroot "$c" -- sh -c "command -v $cmd" >/dev/null 2>&1; then
    echo "FAIL: the runtime image contains the build tool $cmd" >&2; fail=1
  fi
done
size=$("${B[@]}" images --format '{{.Size}}' "$image" 2>/dev/null | head -1)
log "image size $size"
exit $fail
