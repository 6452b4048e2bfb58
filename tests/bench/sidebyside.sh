#!/usr/bin/env bash
# Side by side: trimaran-scheduler vs kube-scheduler 1.20.2 on the same workload (issue 5).
#
#   bash tests/bench/sidebyside.sh [NODES] [PODS] [WORKLOAD]
#       (default 500 nodes, 3000 pods, workload plain)
#
# WORKLOAD: plain (four runs, below), or anti-affinity / spread (the default profile of
# each scheduler only): every pod carries scheduler_perf's required pod anti-affinity on
# hostname (at most one per node: use PODS <= NODES), or a DoNotSchedule maxSkew 5
# topology spread constraint over the nodes' 3 zones (issue 15).
#
# Each run gets a fresh local etcd + kube-apiserver (127.0.0.1), NODES nodes of 32 CPU /
# 128Gi / 110 pods and PODS pending pods of 100m / 500Mi created BEFORE the scheduler
# starts; both schedulers use client QPS = burst = 5000 and no leader election. Four runs:
# default profile and a MostAllocated profile, for each scheduler. Prints one JSON line
# per run (see sidebyside_driver.cc) and a table with the ratios.
#
# Needs: the build (BUILD_DIR, default build/) with trimaran-scheduler and
# sidebyside_driver, and kube-scheduler from tools/build-k8s.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
NODES="${1:-500}"
PODS="${2:-3000}"
WORKLOAD="${3:-plain}"
K8S="$(bash "$ROOT/tools/build-k8s.sh")"
DRIVER="$BUILD/tests/bench/sidebyside_driver"
TRIMARAN="$BUILD/bin/trimaran-scheduler"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# kube-scheduler 1.20: config API v1beta1; MostAllocated is its own plugin there.
cat > "$WORK/kube-default.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: KUBECONFIG, qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
# 1.20 always serves insecure healthz/metrics (default 0.0.0.0:10251, whatever --port
# says with --config): keep it on 127.0.0.1, on a free port picked per run.
healthzBindAddress: 127.0.0.1:INSECURE_PORT
metricsBindAddress: 127.0.0.1:INSECURE_PORT
profiles:
  - schedulerName: bench
YAML
cat > "$WORK/kube-most.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: KUBECONFIG, qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
# 1.20 always serves insecure healthz/metrics (default 0.0.0.0:10251, whatever --port
# says with --config): keep it on 127.0.0.1, on a free port picked per run.
healthzBindAddress: 127.0.0.1:INSECURE_PORT
metricsBindAddress: 127.0.0.1:INSECURE_PORT
profiles:
  - schedulerName: bench
    plugins:
      score:
        disabled: [{name: NodeResourcesLeastAllocated}]
        enabled: [{name: NodeResourcesMostAllocated, weight: 1}]
YAML
cat > "$WORK/trimaran-default.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: bench
YAML
cat > "$WORK/trimaran-most.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: bench
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
YAML

run_kube() {  # label config
  # The kubeconfig path is only known inside the driver: a tiny wrapper substitutes it.
  cat > "$WORK/run-kube-$1.sh" <<SH
#!/usr/bin/env bash
insecure=\$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s#KUBECONFIG#\$1#; s#INSECURE_PORT#\$insecure#g" "$WORK/$2" > "\$3/kube-$1.yaml"
exec "$K8S/kube-scheduler" --config="\$3/kube-$1.yaml" --port=0 --bind-address=127.0.0.1 \
  --secure-port="\$2" --cert-dir="\$3/kube-certs" -v=0
SH
  "$DRIVER" --label "$1" --nodes "$NODES" --pods "$PODS" --scheduler-name bench \
    --workload "$WORKLOAD" -- bash "$WORK/run-kube-$1.sh" "{kubeconfig}" "{port}" "{dir}"
}
run_trimaran() {  # label config
  "$DRIVER" --label "$1" --nodes "$NODES" --pods "$PODS" --scheduler-name bench \
    --workload "$WORKLOAD" -- "$TRIMARAN" --config="$WORK/$2" --kubeconfig="{kubeconfig}" --bind-address=127.0.0.1 \
    --secure-port="{port}" --cert-dir="{dir}/trimaran-certs"
}

{
  run_kube kube-scheduler-default kube-default.yaml
  run_trimaran trimaran-default trimaran-default.yaml
  if [[ "$WORKLOAD" == plain ]]; then
    run_kube kube-scheduler-mostallocated kube-most.yaml
    run_trimaran trimaran-mostallocated trimaran-most.yaml
  fi
} | tee "$WORK/results.jsonl"

python3 - "$WORK/results.jsonl" <<'PY'
import json, sys
rows = {r["label"]: r for r in map(json.loads, open(sys.argv[1]))}
keys = ["bound", "start_to_all_bound_s", "pods_per_s", "pods_per_s_while_binding",
        "p50_create_to_bound_s", "p99_create_to_bound_s", "p50_start_to_bound_s",
        "p99_start_to_bound_s", "nodes_used"]
for profile in ["default", "mostallocated"]:
    k, t = rows.get(f"kube-scheduler-{profile}"), rows.get(f"trimaran-{profile}")
    if not k or not t:
        continue
    print(f"\n{profile} profile")
    print(f"{'figure':28} {'kube-scheduler':>15} {'trimaran':>10} {'trimaran/kube':>14}")
    for key in keys:
        ratio = t[key] / k[key] if k[key] else float("nan")
        print(f"{key:28} {k[key]:>15} {t[key]:>10} {ratio:>14.2f}")
PY
