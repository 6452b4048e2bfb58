#!/usr/bin/env bash
# The run command: the local demo (the product's main job, on an embedded default).
#
# On a fresh Debian 12 machine it installs what it needs (tools/setup.sh --e2e:
# Prometheus, ...; etcd, kube-apiserver and kube-scheduler 1.37 built once from their Go
# modules by tools/build-k8s.sh), builds the programs it runs, and then (trimaran-local-demo, see
# tests/demo/local_demo.cc), on 127.0.0.1 only:
#   - starts etcd + kube-apiserver and a Prometheus with synthetic per-node load,
#   - runs load-watcher and trimaran-scheduler as the pod's two processes,
#   - registers 20 nodes, submits steady services and a Spark-like job with
#     schedulerName: trimaran, and prints per node the requested and used CPU/memory and
#     the nodes in use, beside what the real kube-scheduler 1.37 (default profile) and
#     request-only MostAllocated do with the same pods,
#   - stops everything it started.
# After the first build it finishes in about a minute.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/tools/setup.sh" --e2e
bash "$root/tools/build-k8s.sh" 1.37 >/dev/null
TRIMARAN_TARGETS="trimaran_scheduler load_watcher trimaran_local_demo" BUILD_DIR="$build" \
  "$root/tools/build.sh"
exec "$build/bin/trimaran-local-demo" --scheduler "$build/bin/trimaran-scheduler" \
  --load-watcher "$build/bin/load-watcher"
