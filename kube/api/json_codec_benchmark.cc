// Decoding speed of realistic apiserver JSON. The headline number is
// BM_DecodePodList/5000: a 5,000-pod PodList as a kube-apiserver serves it (managedFields,
// ownerReferences, volumes, probes, status with conditions and containerStatuses ...),
// reported as items (pods) per second.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "benchmark/benchmark.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_resources.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

// One pod of a Deployment, about 5 KB of JSON. $0 = index, $1 = node, $2 = zone.
constexpr char kPodTemplate[] = R"({
  "metadata": {
    "name": "web-7d9f8b6c5-$0",
    "generateName": "web-7d9f8b6c5-",
    "namespace": "team-$2",
    "uid": "5f0d2c1e-8b7a-4c3d-9e2f-$0aaaaaaa",
    "resourceVersion": "18$0",
    "creationTimestamp": "2024-01-02T03:04:05Z",
    "labels": {"app": "web", "app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web-$2", "pod-template-hash": "7d9f8b6c5"},
    "annotations": {"kubectl.kubernetes.io/restartedAt": "2024-01-02T03:00:00Z", "prometheus.io/scrape": "true", "prometheus.io/port": "9113"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8b6c5", "uid": "0a1b2c3d-4e5f-6789-abcd-ef0123456789", "controller": true, "blockOwnerDeletion": true}],
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/restartedAt": {}, "f:prometheus.io/port": {}, "f:prometheus.io/scrape": {}}, "f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}}, "f:ownerReferences": {".": {}, "k:{\"uid\":\"0a1b2c3d-4e5f-6789-abcd-ef0123456789\"}": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:livenessProbe": {".": {}, "f:failureThreshold": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}}}, "f:name": {}, "f:ports": {".": {}, "k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}}, "f:resources": {".": {}, "f:limits": {".": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}}}},
                               "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}}}},
      {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": "2024-01-02T03:04:09Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:status": {"f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, "k:{\"ip\":\"10.244.3.21\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}},
       "subresource": "status"}
    ]
  },
  "spec": {
    "volumes": [{"name": "kube-api-access-8xk2v", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}, {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}, {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}], "defaultMode": 420}}],
    "containers": [
      {"name": "nginx", "image": "nginx:1.25.3", "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
       "env": [{"name": "MODE", "value": "prod"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
       "resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "256Mi"}},
       "volumeMounts": [{"name": "kube-api-access-8xk2v", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
       "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
       "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"},
      {"name": "exporter", "image": "nginx/nginx-prometheus-exporter:1.1.0", "ports": [{"name": "metrics", "containerPort": 9113, "protocol": "TCP"}],
       "resources": {"limits": {"memory": "64Mi"}, "requests": {"cpu": "20m", "memory": "32Mi"}},
       "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}
    ],
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
    "serviceAccountName": "default", "serviceAccount": "default", "nodeName": "$1", "securityContext": {},
    "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}}]}},
    "schedulerName": "trimaran",
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}, {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
    "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:05Z"},
      {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:09Z"},
      {"type": "ContainersReady", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:09Z"},
      {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:05Z"}
    ],
    "hostIP": "10.0.1.17", "hostIPs": [{"ip": "10.0.1.17"}], "podIP": "10.244.3.21", "podIPs": [{"ip": "10.244.3.21"}],
    "startTime": "2024-01-02T03:04:05Z",
    "containerStatuses": [
      {"name": "exporter", "state": {"running": {"startedAt": "2024-01-02T03:04:08Z"}}, "lastState": {}, "ready": true, "restartCount": 0, "image": "docker.io/nginx/nginx-prometheus-exporter:1.1.0", "imageID": "docker.io/nginx/nginx-prometheus-exporter@sha256:3333333333333333333333333333333333333333333333333333333333333333", "containerID": "containerd://cc33$0", "started": true},
      {"name": "nginx", "state": {"running": {"startedAt": "2024-01-02T03:04:08Z"}}, "lastState": {}, "ready": true, "restartCount": 0, "image": "docker.io/library/nginx:1.25.3", "imageID": "docker.io/library/nginx@sha256:2222222222222222222222222222222222222222222222222222222222222222", "containerID": "containerd://bb22$0", "started": true}
    ],
    "qosClass": "Burstable"
  }
})";

std::string PodJson(int i) {
  return absl::Substitute(kPodTemplate, i, absl::StrCat("node-", i % 500), i % 7);
}

std::string PodListJson(int n) {
  std::string json =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"987654"},"items":[)";
  for (int i = 0; i < n; ++i) {
    if (i > 0) json.push_back(',');
    json.append(PodJson(i));
  }
  json.append("]}");
  return json;
}

void BM_DecodePodList(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string json = PodListJson(n);
  for (auto _ : state) {
    absl::StatusOr<PodList> list = DecodePodList(json);
    if (!list.ok() || list->items.size() != static_cast<size_t>(n)) {
      state.SkipWithError("decode failed");
      break;
    }
    benchmark::DoNotOptimize(list);
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(json.size()));
  state.counters["bytes_per_pod"] = static_cast<double>(json.size()) / n;
}
BENCHMARK(BM_DecodePodList)->Arg(5000)->Unit(benchmark::kMillisecond);

void BM_DecodePod(benchmark::State& state) {
  const std::string json = PodJson(1);
  for (auto _ : state) {
    absl::StatusOr<Pod> pod = DecodePod(json);
    benchmark::DoNotOptimize(pod);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(json.size()));
}
BENCHMARK(BM_DecodePod);

void BM_DecodePodWatchEvent(benchmark::State& state) {
  const std::string json = absl::StrCat(R"({"type":"MODIFIED","object":)", PodJson(1), "}");
  for (auto _ : state) {
    absl::StatusOr<WatchEvent<Pod>> event = DecodePodWatchEvent(json);
    benchmark::DoNotOptimize(event);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodePodWatchEvent);

void BM_EncodePod(benchmark::State& state) {
  absl::StatusOr<Pod> pod = DecodePod(PodJson(1));
  if (!pod.ok()) {
    state.SkipWithError("decode failed");
    return;
  }
  for (auto _ : state) {
    std::string json = EncodePod(*pod);
    benchmark::DoNotOptimize(json);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodePod);

void BM_ComputePodRequests(benchmark::State& state) {
  const Pod pod = testing::MakePod()
                      .InitReq({{"cpu", "1"}, {"memory", "512Mi"}})
                      .SidecarReq({{"cpu", "100m"}, {"memory", "64Mi"}})
                      .Req({{"cpu", "500m"}, {"memory", "256Mi"}})
                      .Req({{"cpu", "20m"}, {"memory", "32Mi"}})
                      .Overhead({{"cpu", "10m"}})
                      .Obj();
  for (auto _ : state) {
    Resource r = ComputePodRequests(pod);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ComputePodRequests);

}  // namespace
}  // namespace trimaran::kube
