# Multi-stage build: a Debian 12 builder that uses the project's own scripts, and a slim
# Debian 12 runtime with only the runtime libraries, a non-root user and the programs.
FROM docker.io/library/debian:bookworm-slim AS build
WORKDIR /src
COPY . .
RUN bash tools/setup.sh \
 && BUILD_DIR=/src/build-image bash tools/build.sh -DTRIMARAN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release

FROM docker.io/library/debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libcurl4 libssl3 \
      libgrpc++1.51 libprotobuf32 libspdlog1.10 libfmt9 libyaml-cpp0.7 \
      libabsl20220623 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 65532 --no-create-home --shell /usr/sbin/nologin trimaran
COPY --from=build /src/build-image/bin/ /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/trimaran-scheduler"]
