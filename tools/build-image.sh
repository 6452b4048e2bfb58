#!/usr/bin/env bash
# Builds Trimaran's container image (the repository's Dockerfile) with buildah, or with
# docker when buildah is not installed.
#
#   tools/build-image.sh -t REGISTRY/trimaran:0.1.0            fast path (1-3 min)
#   tools/build-image.sh -t REGISTRY/trimaran:0.1.0 --from-source [--platform linux/arm64]
#   tools/build-image.sh ... --push                             push the tag when built
#   tools/build-image.sh ... --no-build      fast path from BUILD_DIR/bin as it is (tests)
#
# Fast path (the default): the programs tools/build.sh builds on this machine (Debian 12;
# built here first if they are missing or stale) and the Debian packages their shared
# libraries come from (tools/image-runtime-packages.sh) are staged as image-input/ in a
# small build context: the Dockerfile's build stage then copies them instead of
# compiling. The image's architecture is
# this machine's (`dpkg --print-architecture`); the script prints the nodeSelector that
# matches it.
# --from-source: the Dockerfile's build stage compiles everything inside the image
# (25-35 min on 2 cores), for the platform given (default: this machine's). A foreign
# platform needs qemu-user-static registered with binfmt_misc; without it the script says
# so and exits 1 rather than building something that cannot run.
#
# Environment: BUILD_DIR (default <repo>/build), TRIMARAN_BUILDAH_ARGS (extra arguments
# before "bud", e.g. "--root DIR --runroot DIR --storage-driver vfs" as the image test
# uses), TRIMARAN_IMAGE_EXTRA_ARGS (extra "bud" arguments, one per line, e.g.
# $'--build-arg\nTRIMARAN_JOBS=4').
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
programs=(trimaran-scheduler load-watcher trimaranctl)
version="$(sed -n 's/^project(trimaran VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
tag="" from_source=0 platform="" push=0 no_build=0
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case "$1" in
    -t | --tag) tag="${2:?-t needs a value}"; shift 2 ;;
    --from-source) from_source=1; shift ;;
    --platform) platform="${2:?--platform needs a value}"; shift 2 ;;
    --push) push=1; shift ;;
    --no-build) no_build=1; shift ;;
    -h | --help) usage ;;
    *) echo "build-image: unknown argument $1" >&2; usage ;;
  esac
done
[[ -n $tag ]] || { echo "build-image: -t REGISTRY/trimaran:$version is required" >&2; exit 2; }

host_arch="$(dpkg --print-architecture)"
if ((from_source == 0)) && [[ -n $platform && $platform != "linux/$host_arch" ]]; then
  echo "build-image: the fast path builds for this machine (linux/$host_arch) only;" \
    "use --from-source --platform $platform (needs qemu-user-static), or run it on a" \
    "$platform machine" >&2
  exit 1
fi
arch="${platform#linux/}"
arch="${arch:-$host_arch}"
if [[ $arch != "$host_arch" && ! -e /proc/sys/fs/binfmt_misc/qemu-${arch/arm64/aarch64} ]]; then
  echo "build-image: building for linux/$arch on a linux/$host_arch machine needs" \
    "qemu-user-static registered with binfmt_misc (apt-get install qemu-user-static" \
    "binfmt-support), which this machine does not have" >&2
  exit 1
fi

if command -v buildah >/dev/null; then
  read -r -a extra_global <<<"${TRIMARAN_BUILDAH_ARGS:-}"
  builder=(buildah "${extra_global[@]}" bud --layers=false --force-rm)
  pusher=(buildah "${extra_global[@]}" push)
elif command -v docker >/dev/null; then
  builder=(docker build)
  pusher=(docker push)
else
  echo "build-image: neither buildah nor docker is installed (tools/setup.sh --image" \
    "installs buildah)" >&2
  exit 1
fi
extra_bud=()
[[ -n ${TRIMARAN_IMAGE_EXTRA_ARGS:-} ]] && readarray -t extra_bud <<<"$TRIMARAN_IMAGE_EXTRA_ARGS"
args=(-t "$tag" -f "$root/Dockerfile" --build-arg "TRIMARAN_VERSION=$version" "${extra_bud[@]}")
[[ -n $platform ]] && args+=(--platform "$platform")

if ((from_source)); then
  echo "build-image: compiling inside the image for linux/$arch (25-35 min on 2 cores)" >&2
  "${builder[@]}" "${args[@]}" "$root"
else
  build="${BUILD_DIR:-$root/build}"
  # The runtime stage is debian:bookworm-slim: programs linked on another release would
  # not find their libraries there.
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [[ $codename == bookworm ]] || {
    echo "build-image: the fast path needs a Debian 12 (bookworm) machine, this is" \
      "'${codename:-unknown}'; use --from-source" >&2
    exit 1
  }
  if ((no_build == 0)); then
    echo "build-image: building the programs on this machine (tools/build.sh)" >&2
    BUILD_DIR="$build" TRIMARAN_TARGETS="${programs[*]}" "$root/tools/build.sh"
  fi
  for p in "${programs[@]}"; do
    [[ -x $build/bin/$p ]] || { echo "build-image: $build/bin/$p is missing" >&2; exit 1; }
  done
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' EXIT
  mkdir -p "$context/image-input/bin"
  for p in "${programs[@]}"; do
    install -m 0755 "$build/bin/$p" "$context/image-input/bin/"
    strip --strip-unneeded "$context/image-input/bin/$p"
  done
  "$root/tools/image-runtime-packages.sh" "$context"/image-input/bin/* \
    >"$context/image-input/runtime-packages"
  echo "build-image: runtime packages: $(tr '\n' ' ' <"$context/image-input/runtime-packages")" >&2
  "${builder[@]}" "${args[@]}" "$context"
fi
echo "build-image: built $tag for linux/$arch" >&2
if [[ $arch != amd64 ]]; then
  echo "build-image: deploy/base selects kubernetes.io/arch: amd64; for this image add the" \
    "component deploy/components/arm64 to your overlay" >&2
fi
if ((push)); then
  "${pusher[@]}" "$tag"
  echo "build-image: pushed $tag" >&2
fi
