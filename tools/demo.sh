#!/usr/bin/env bash
# The run command: builds Trimaran and runs its main job. At this stage of the project
# the main job is the scheduler binary itself (the full local demo with a control plane,
# Prometheus and a Spark-like job is tracked in the shipping issue).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/setup.sh"
"$root/tools/build.sh"
bin="${BUILD_DIR:-$root/build}/bin"
"$bin/trimaran-scheduler" --version
"$bin/trimaran-scheduler" --help
