# syntax=docker/dockerfile:1
# Trimaran's container image: trimaran-scheduler, load-watcher and trimaranctl.
#
# Stage 1 (build): Debian 12 with the project's own scripts (tools/setup.sh installs the
# build dependencies from Debian's archive, tools/build.sh builds only the programs).
# It also derives the runtime packages from the binaries themselves: ldd lists the shared
# libraries, dpkg -S names the Debian packages that ship them.
# Stage 2 (runtime): debian:bookworm-slim + exactly those packages + ca-certificates,
# a non-root user (uid/gid 65532) and the programs in /usr/local/bin.
#
#   buildah bud -t ghcr.io/trimaran/trimaran:0.1.0 .     (or docker build)
#
# Tested by tests/deploy/image_test.sh (ctest label "image").

# Pinned by digest: the multi-platform index of debian:bookworm-slim built 2026-08-03 (as
# recorded by docker-library/repo-info, repos/debian/remote/bookworm-slim.md; linux/amd64,
# arm64, arm/v7, 386, ppc64le). To move to a newer base, take the index digest from
# `skopeo inspect --raw docker://docker.io/library/debian:bookworm-slim | sha256sum` or
# repo-info, and change it here; `--build-arg DEBIAN_IMAGE=...` overrides it for one build.
ARG DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim@sha256:abd67ffcfa541b485a3dff59865ab629aa048a6c613e639d36e7456b0b229241

FROM ${DEBIAN_IMAGE} AS build
ARG TRIMARAN_PROGRAMS="trimaran-scheduler load-watcher trimaranctl"
ARG TRIMARAN_JOBS=""
WORKDIR /src
COPY . .
RUN bash tools/setup.sh \
 && BUILD_DIR=/src/build-image TRIMARAN_TARGETS="${TRIMARAN_PROGRAMS}" \
    TRIMARAN_JOBS="${TRIMARAN_JOBS:-$(nproc)}" \
    bash tools/build.sh -DCMAKE_BUILD_TYPE=Release
RUN set -eu; mkdir -p /out/bin; \
    for p in ${TRIMARAN_PROGRAMS}; do \
      install -m 0755 "/src/build-image/bin/$p" /out/bin/; \
      strip --strip-unneeded "/out/bin/$p"; \
    done; \
    for p in ${TRIMARAN_PROGRAMS}; do ldd "/out/bin/$p"; done \
      | awk '/=> \//{print $3}' | sort -u \
      | while read -r lib; do \
          found=""; \
          for c in "$lib" "/usr$lib" "${lib#/usr}" "$(readlink -f "$lib")"; do \
            if out=$(dpkg -S "$c" 2>/dev/null); then found=$out; break; fi; \
          done; \
          [ -n "$found" ] || { echo "no Debian package ships $lib" >&2; exit 1; }; \
          echo "$found" | head -n1 | cut -d: -f1; \
        done | sort -u > /out/runtime-packages; \
    echo "runtime packages:"; cat /out/runtime-packages

FROM ${DEBIAN_IMAGE}
ARG TRIMARAN_VERSION=0.1.0
LABEL org.opencontainers.image.title="trimaran" \
      org.opencontainers.image.description="Trimaran: a bin-packing, load-aware Kubernetes scheduler (trimaran-scheduler, load-watcher, trimaranctl)" \
      org.opencontainers.image.version="${TRIMARAN_VERSION}"
COPY --from=build /out/runtime-packages /tmp/runtime-packages
RUN apt-get update \
 && xargs -a /tmp/runtime-packages apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
 && echo 'trimaran:x:65532:65532:trimaran:/nonexistent:/usr/sbin/nologin' >> /etc/passwd \
 && echo 'trimaran:x:65532:' >> /etc/group
COPY --from=build /out/bin/ /usr/local/bin/
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/usr/local/bin/trimaran-scheduler"]
