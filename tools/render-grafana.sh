#!/usr/bin/env bash
# Renders the Grafana dashboard deploy/components/monitoring/trimaran-scheduler.json from its one source,
# deploy/components/monitoring/dashboard.jq. Run it after editing the source; MonitoringTest checks that
# the committed JSON is this script's output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jq -n --indent 2 -f "$root/deploy/components/monitoring/dashboard.jq" >"$root/deploy/components/monitoring/trimaran-scheduler.json"
echo "wrote deploy/components/monitoring/trimaran-scheduler.json"
