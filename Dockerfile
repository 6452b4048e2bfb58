# syntax=docker/dockerfile:1
# Trimaran's container image: trimaran-scheduler, load-watcher and trimaranctl (with the
# kubectl plugin name kubectl-trimaran pointing at it).
#
# Where the programs come from (stage "build"):
#   the repository as context: compiled here, Debian 12 with the project's own scripts
#     (tools/setup.sh installs the build dependencies from Debian's archive,
#     tools/build.sh builds only the programs); 25-35 min on 2 cores.
#   a context holding image-input/ (bin/ and runtime-packages), which tools/build-image.sh
#     stages from the programs tools/build.sh already built on this machine (Debian 12):
#     nothing is compiled, 1-3 min.
# Either way tools/image-runtime-packages.sh names the Debian packages that ship the
# programs' shared libraries (ldd, dpkg -S), and the runtime stage is
# debian:bookworm-slim + exactly those packages + ca-certificates, a non-root user
# (uid/gid 65532) and the programs in /usr/local/bin.
#
#   tools/build-image.sh -t REGISTRY/trimaran:0.1.0          (fast path, see its header)
#   buildah bud -t REGISTRY/trimaran:0.1.0 .                 (or docker build: from source)
#
# Tested by tests/deploy/image_test.sh (ctest labels "image" and "image-source").

ARG DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim@sha256:abd67ffcfa541b485a3dff59865ab629aa048a6c613e639d36e7456b0b229241

FROM ${DEBIAN_IMAGE} AS build
ARG TRIMARAN_PROGRAMS="trimaran-scheduler load-watcher trimaranctl"
ARG TRIMARAN_JOBS=""
ARG TRIMARAN_BUILD_TYPE=Release
ARG TRIMARAN_WERROR=OFF
ARG TRIMARAN_DEBUG_INFO=ON
WORKDIR /src
COPY . .
# A context holding image-input/ (tools/build-image.sh's fast path: bin/ and
# runtime-packages) skips the compile; the repository's own context never has one
# (.dockerignore).
RUN set -eu; \
    if [ -d image-input ]; then \
      mkdir -p /out && cp -a image-input/. /out/; \
    else \
      bash tools/setup.sh; \
      BUILD_DIR=/src/build-image TRIMARAN_TARGETS="${TRIMARAN_PROGRAMS}" \
        TRIMARAN_JOBS="${TRIMARAN_JOBS:-$(nproc)}" TRIMARAN_WERROR="${TRIMARAN_WERROR}" \
        TRIMARAN_DEBUG_INFO="${TRIMARAN_DEBUG_INFO}" bash tools/build.sh -DCMAKE_BUILD_TYPE="${TRIMARAN_BUILD_TYPE}"; \
      mkdir -p /out/bin; \
      for p in ${TRIMARAN_PROGRAMS}; do \
        install -m 0755 "/src/build-image/bin/$p" /out/bin/; \
        strip --strip-unneeded "/out/bin/$p"; \
      done; \
      bash tools/image-runtime-packages.sh /out/bin/* > /out/runtime-packages; \
    fi; \
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
RUN if [ -x /usr/local/bin/trimaranctl ]; then ln -s trimaranctl /usr/local/bin/kubectl-trimaran; fi
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/usr/local/bin/trimaran-scheduler"]
