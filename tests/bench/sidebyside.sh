#!/usr/bin/env bash
# Side by side: trimaran-scheduler vs kube-scheduler 1.37 on the same workload (issues 5, 29).
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
# starts; both schedulers use client QPS = burst = 5000 and no leader election. Runs: the
# apiserver's own Binding ceiling (the driver binds, no scheduler), then the default
# profile and a MostAllocated profile for each scheduler, and kube-scheduler's
# MostAllocated again at percentageOfNodesToScore 100 (a fair packing comparison). Prints
# one JSON line per run (see sidebyside_driver.cc) and tables with the ratios.
# TRIMARAN_K8S_MINOR=1.32 runs it on the floor of the tested range.
#
# Needs: the build (BUILD_DIR, default build/) with trimaran-scheduler and
# sidebyside_driver, and kube-scheduler from tools/build-k8s.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
NODES="${1:-500}"
PODS="${2:-3000}"
WORKLOAD="${3:-plain}"
K8S="$(bash "$ROOT/tools/build-k8s.sh" "${TRIMARAN_K8S_MINOR:-1.37}")"
echo "sidebyside: kube-scheduler $(cat "$K8S/VERSION") from $K8S" >&2
DRIVER="$BUILD/tests/bench/sidebyside_driver"
TRIMARAN="$BUILD/bin/trimaran-scheduler"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# kube-scheduler: config API v1; MostAllocated is NodeResourcesFit's scoring strategy.
# PCT_LINE is the profile's percentageOfNodesToScore (empty: the adaptive default).
cat > "$WORK/kube-default.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: KUBECONFIG, qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: bench
YAML
cat > "$WORK/kube-most.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: KUBECONFIG, qps: 5000, burst: 5000}
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
# The same, scoring every node (so that the packing comparison is fair: trimaran's
# MostAllocated profile below scores every node as well when it packs).
sed 's/^leaderElection: {leaderElect: false}$/leaderElection: {leaderElect: false}\npercentageOfNodesToScore: 100/' \
  "$WORK/kube-most.yaml" > "$WORK/kube-most-all.yaml"
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
sed "s#KUBECONFIG#\$1#" "$WORK/$2" > "\$3/kube-$1.yaml"
exec "$K8S/kube-scheduler" --config="\$3/kube-$1.yaml" --bind-address=127.0.0.1 \
  --secure-port="\$2" --cert-dir="\$3/kube-certs" --authentication-kubeconfig="\$1" \
  --authorization-kubeconfig="\$1" -v=0
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
  # The apiserver's own Binding ceiling: 32 threads POST the Bindings, no scheduler.
  "$DRIVER" --label apiserver-binding-ceiling --nodes "$NODES" --pods "$PODS" \
    --scheduler-name bench --workload "$WORKLOAD" --bind-ceiling 32
  run_kube kube-scheduler-default kube-default.yaml
  run_trimaran trimaran-default trimaran-default.yaml
  if [[ "$WORKLOAD" == plain ]]; then
    run_kube kube-scheduler-mostallocated kube-most.yaml
    run_kube kube-scheduler-mostallocated-pct100 kube-most-all.yaml
    run_trimaran trimaran-mostallocated trimaran-most.yaml
  fi
} | tee "$WORK/results.jsonl"

python3 - "$WORK/results.jsonl" <<'PY'
import json, sys
rows = {r["label"]: r for r in map(json.loads, open(sys.argv[1]))}
keys = ["bound", "start_to_all_bound_s", "pods_per_s", "pods_per_s_while_binding",
        "p50_create_to_bound_s", "p99_create_to_bound_s", "p50_start_to_bound_s",
        "p99_start_to_bound_s", "nodes_used"]
c = rows.get("apiserver-binding-ceiling")
if c:
    print(f"\napiserver Binding ceiling: {c['pods_per_s']} Bindings/s (start to all bound)")
    for label, r in rows.items():
        if label != "apiserver-binding-ceiling" and c["pods_per_s"]:
            print(f"  {label:40} {r['pods_per_s']:>8} pods/s = {r['pods_per_s'] / c['pods_per_s']:.2f} x ceiling")
pairs = [("default", "default"), ("mostallocated", "mostallocated"),
         ("mostallocated-pct100", "mostallocated")]
for kube_profile, trimaran_profile in pairs:
    k = rows.get(f"kube-scheduler-{kube_profile}")
    t = rows.get(f"trimaran-{trimaran_profile}")
    if not k or not t:
        continue
    print(f"\nkube-scheduler {kube_profile} vs trimaran {trimaran_profile}")
    print(f"{'figure':28} {'kube-scheduler':>15} {'trimaran':>10} {'trimaran/kube':>14}")
    for key in keys:
        ratio = t[key] / k[key] if k[key] else float("nan")
        print(f"{key:28} {k[key]:>15} {t[key]:>10} {ratio:>14.2f}")
PY
