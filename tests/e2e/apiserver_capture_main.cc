// apiserver-capture: writes what a real kube-apiserver answers for the objects the
// scheduler reads and writes, byte for byte, into a directory of test data
// (kube/api/testdata/apiserver-<minor>/, decoded by kube/api/apiserver_capture_test.cc and
// seeded into the fuzz corpora).
//
//   TRIMARAN_K8S_MINOR=1.37 apiserver-capture --out kube/api/testdata/apiserver-1.37
//   (tools/capture-apiserver.sh runs it for every tested minor)
//
// It starts etcd + kube-apiserver of that minor on 127.0.0.1 (tests/e2e/harness; on 1.37
// with the GenericWorkload gate and scheduling.k8s.io/v1alpha3 on, for the Workload
// object), creates each object the way a user or a kubelet would, and saves the
// apiserver's answer to a GET (or the watch stream) in a file named after it. Fields the
// apiserver of that minor does not know are dropped by it, as they would be in a
// cluster of that version: that is part of what the captures record. Each file's
// creation is logged; an object the apiserver refuses fails the run with its answer.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tests/e2e/harness/control_plane.h"

namespace trimaran::e2e {
namespace {

// A pod with every field added since 1.20 that the scheduler reads: a sidecar (an init
// container with restartPolicy Always), pod-level resources, scheduling gates, a
// resource claim, affinity terms with namespaceSelector / matchLabelKeys /
// mismatchLabelKeys, and topology spread with minDomains, nodeAffinityPolicy,
// nodeTaintsPolicy and matchLabelKeys.
constexpr char kPod[] = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"spark-exec-1","namespace":"default",
   "labels":{"spark-role":"executor","spark-app":"pi","pod-template-hash":"7d9f"}},
 "spec":{
  "schedulerName":"trimaran","priority":0,
  "schedulingGates":[{"name":"example.com/quota"}],
  "resources":{"requests":{"cpu":"3","memory":"6Gi"},"limits":{"cpu":"4","memory":"8Gi"}},
  "initContainers":[
   {"name":"init","image":"busybox","resources":{"requests":{"cpu":"1","memory":"1Gi"}}},
   {"name":"log-shipper","image":"busybox","restartPolicy":"Always",
    "resources":{"requests":{"cpu":"200m","memory":"256Mi"}}}],
  "containers":[{"name":"executor","image":"spark:3.5",
   "ports":[{"containerPort":7079,"hostPort":7079}],
   "resources":{"requests":{"cpu":"2","memory":"4Gi"},"limits":{"cpu":"2","memory":"4Gi"}}}],
  "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one-gpu"}],
  "nodeSelector":{"topology.kubernetes.io/zone":"us-east-1a"},
  "tolerations":[{"key":"spark","operator":"Exists","effect":"NoSchedule"}],
  "affinity":{
   "podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
    {"labelSelector":{"matchLabels":{"spark-role":"driver"}},
     "namespaceSelector":{"matchLabels":{"team":"data"}},
     "matchLabelKeys":["spark-app"],
     "topologyKey":"topology.kubernetes.io/zone"}]},
   "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
    {"weight":100,"podAffinityTerm":{
      "labelSelector":{"matchLabels":{"spark-role":"executor"}},
      "mismatchLabelKeys":["spark-app"],
      "topologyKey":"kubernetes.io/hostname"}}]}},
  "topologySpreadConstraints":[
   {"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
    "labelSelector":{"matchLabels":{"spark-role":"executor"}},
    "minDomains":3,"nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Honor",
    "matchLabelKeys":["pod-template-hash"]}]}})";

// A running pod whose resize the kubelet has not finished: spec asks for 1 CPU, the
// kubelet still has 2 allocated and applied, with PodResizeInProgress.
constexpr char kResizePod[] = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-resize","namespace":"default","labels":{"app":"web"}},
 "spec":{"nodeName":"node-a","containers":[{"name":"web","image":"nginx",
   "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
   "resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}}}]}})";

constexpr char kResizePatch[] =
    R"({"spec":{"containers":[{"name":"web","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"1"}}}]}})";

constexpr char kResizeStatus[] = R"({"status":{"phase":"Running",
 "conditions":[{"type":"PodResizeInProgress","status":"True",
   "lastTransitionTime":"2026-12-02T00:00:00Z"},
  {"type":"Ready","status":"True","lastTransitionTime":"2026-12-02T00:00:00Z"}],
 "containerStatuses":[{"name":"web","image":"nginx","imageID":"","ready":true,"restartCount":0,
   "started":true,"state":{"running":{"startedAt":"2026-12-02T00:00:00Z"}},
   "allocatedResources":{"cpu":"2","memory":"1Gi"},
   "resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}}}]}})";

constexpr char kNode[] = R"({"apiVersion":"v1","kind":"Node",
 "metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a",
   "topology.kubernetes.io/zone":"us-east-1a","node.kubernetes.io/instance-type":"m5.8xlarge"}},
 "spec":{"taints":[{"key":"spark","value":"true","effect":"NoSchedule"}]}})";

constexpr char kNodeStatus[] = R"({"status":{
 "capacity":{"cpu":"32","memory":"128Gi","pods":"110","nvidia.com/gpu":"4"},
 "allocatable":{"cpu":"31500m","memory":"125Gi","pods":"110","nvidia.com/gpu":"4"},
 "addresses":[{"type":"InternalIP","address":"10.0.1.17"},{"type":"Hostname","address":"node-a"}],
 "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
   "lastHeartbeatTime":"2026-12-02T00:00:00Z","lastTransitionTime":"2026-12-02T00:00:00Z"}],
 "images":[{"names":["spark:3.5"],"sizeBytes":812345678}]}})";

constexpr char kPdb[] = R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
 "metadata":{"name":"web","namespace":"default"},
 "spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"web"}},
   "unhealthyPodEvictionPolicy":"AlwaysAllow"}})";

constexpr char kCsiDriver[] = R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver",
 "metadata":{"name":"ebs.csi.aws.com"},
 "spec":{"attachRequired":true,"podInfoOnMount":false,"storageCapacity":true}})";

constexpr char kCapacity[] = R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity",
 "metadata":{"name":"ebs-us-east-1a","namespace":"default"},
 "storageClassName":"gp3","capacity":"500Gi","maximumVolumeSize":"16Ti",
 "nodeTopology":{"matchLabels":{"topology.ebs.csi.aws.com/zone":"us-east-1a"}}})";

constexpr char kEvent[] = R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
 "metadata":{"name":"spark-exec-1.scheduled","namespace":"default"},
 "eventTime":"2026-12-02T00:00:00.000000Z","reportingController":"trimaran",
 "reportingInstance":"trimaran-node-a","action":"Binding","reason":"Scheduled",
 "regarding":{"apiVersion":"v1","kind":"Pod","namespace":"default","name":"spark-exec-1"},
 "note":"Successfully assigned default/spark-exec-1 to node-a","type":"Normal"})";

constexpr char kLease[] = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
 "metadata":{"name":"trimaran","namespace":"default"},
 "spec":{"holderIdentity":"trimaran-0_1a2b","leaseDurationSeconds":15,
   "acquireTime":"2026-12-02T00:00:00.000000Z","renewTime":"2026-12-02T00:00:05.000000Z",
   "leaseTransitions":3}})";

constexpr char kWorkload[] = R"({"apiVersion":"scheduling.k8s.io/v1alpha3","kind":"Workload",
 "metadata":{"name":"spark-pi","namespace":"default"},
 "spec":{"podGroupTemplates":[{"name":"executors","schedulingPolicy":{"gang":{"minCount":4}}}]}})";

class Capturer {
 public:
  Capturer(ControlPlane& cp, std::string out) : cp_(cp), out_(std::move(out)) {}

  absl::Status Run() {
    std::filesystem::create_directories(out_);
    TRIMARAN_RETURN_IF_ERROR(Create("/api/v1/nodes", kNode));
    TRIMARAN_RETURN_IF_ERROR(Patch("/api/v1/nodes/node-a/status", kNodeStatus));
    TRIMARAN_RETURN_IF_ERROR(Save("node.json", "/api/v1/nodes/node-a"));
    TRIMARAN_RETURN_IF_ERROR(Save("node_list.json", "/api/v1/nodes"));

    TRIMARAN_RETURN_IF_ERROR(Create("/api/v1/namespaces/default/pods", kPod));
    TRIMARAN_RETURN_IF_ERROR(Save("pod.json", "/api/v1/namespaces/default/pods/spark-exec-1"));
    TRIMARAN_RETURN_IF_ERROR(CaptureResize());
    TRIMARAN_RETURN_IF_ERROR(Save("pod_list.json", "/api/v1/namespaces/default/pods"));
    TRIMARAN_RETURN_IF_ERROR(CaptureWatch());
    TRIMARAN_RETURN_IF_ERROR(
        Save("status_not_found.json", "/api/v1/namespaces/default/pods/nope", 404));

    TRIMARAN_RETURN_IF_ERROR(
        Create("/apis/policy/v1/namespaces/default/poddisruptionbudgets", kPdb));
    TRIMARAN_RETURN_IF_ERROR(
        Save("pdb_list_v1.json", "/apis/policy/v1/namespaces/default/poddisruptionbudgets"));
    TRIMARAN_RETURN_IF_ERROR(Create("/apis/storage.k8s.io/v1/csidrivers", kCsiDriver));
    TRIMARAN_RETURN_IF_ERROR(
        Save("csidriver.json", "/apis/storage.k8s.io/v1/csidrivers/ebs.csi.aws.com"));
    TRIMARAN_RETURN_IF_ERROR(
        Create("/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities", kCapacity));
    TRIMARAN_RETURN_IF_ERROR(
        Save("csistoragecapacity_list_v1.json",
             "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities"));
    TRIMARAN_RETURN_IF_ERROR(Create("/apis/events.k8s.io/v1/namespaces/default/events", kEvent));
    TRIMARAN_RETURN_IF_ERROR(
        Save("event_v1.json",
             "/apis/events.k8s.io/v1/namespaces/default/events/spark-exec-1.scheduled"));
    TRIMARAN_RETURN_IF_ERROR(
        Create("/apis/coordination.k8s.io/v1/namespaces/default/leases", kLease));
    TRIMARAN_RETURN_IF_ERROR(
        Save("lease.json", "/apis/coordination.k8s.io/v1/namespaces/default/leases/trimaran"));
    if (K8sMinor() != "1.32") {
      TRIMARAN_RETURN_IF_ERROR(
          Create("/apis/scheduling.k8s.io/v1alpha3/namespaces/default/workloads", kWorkload));
      TRIMARAN_RETURN_IF_ERROR(
          Save("workload.json",
               "/apis/scheduling.k8s.io/v1alpha3/namespaces/default/workloads/spark-pi"));
    }
    TRIMARAN_RETURN_IF_ERROR(Save("version.json", "/version"));
    return absl::OkStatus();
  }

 private:
  absl::Status Expect(const std::string& what, const http::HttpResponse& r, int want) {
    if (r.status_code == want) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": HTTP ", r.status_code, " (want ", want, "): ", r.body));
  }
  absl::Status Create(const std::string& path, const std::string& body) {
    TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r, cp_.Request("POST", path, body));
    return Expect("POST " + path, r, 201);
  }
  absl::Status Patch(const std::string& path, const std::string& body) {
    TRIMARAN_ASSIGN_OR_RETURN(
        http::HttpResponse r,
        cp_.Request("PATCH", path, body, "application/strategic-merge-patch+json"));
    return Expect("PATCH " + path, r, 200);
  }
  absl::Status Write(const std::string& name, const std::string& body) {
    const std::string path = absl::StrCat(out_, "/", name);
    std::ofstream out(path, std::ios::trunc | std::ios::binary);
    out << body;
    if (!out) return absl::InternalError("write " + path);
    std::fprintf(stderr, "apiserver-capture: %s (%zu bytes)\n", path.c_str(), body.size());
    return absl::OkStatus();
  }
  absl::Status Save(const std::string& name, const std::string& path, int want = 200) {
    TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r, cp_.Request("GET", path));
    TRIMARAN_RETURN_IF_ERROR(Expect("GET " + path, r, want));
    return Write(name, r.body);
  }

  // The pod is created bound, resized through the resize subresource (1.33+; on 1.32
  // the spec is patched as before), then the kubelet's status is written.
  absl::Status CaptureResize() {
    TRIMARAN_RETURN_IF_ERROR(Create("/api/v1/namespaces/default/pods", kResizePod));
    const std::string pod = "/api/v1/namespaces/default/pods/web-resize";
    if (K8sMinor() == "1.32") {
      // 1.32 has no resize subresource; the spec is immutable there, so the capture keeps
      // the unresized spec and records only the status.
    } else {
      TRIMARAN_RETURN_IF_ERROR(Patch(pod + "/resize", kResizePatch));
    }
    TRIMARAN_RETURN_IF_ERROR(Patch(pod + "/status", kResizeStatus));
    return Save("pod_resize.json", pod);
  }

  // A watch of the default namespace's pods from the list's resourceVersion while a pod
  // is added, updated and deleted.
  absl::Status CaptureWatch() {
    TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse list,
                              cp_.Request("GET", "/api/v1/namespaces/default/pods?limit=1"));
    const std::string key = "\"resourceVersion\":\"";
    size_t at = list.body.find(key);
    if (at == std::string::npos) return absl::InternalError("no resourceVersion: " + list.body);
    at += key.size();
    const std::string rv = list.body.substr(at, list.body.find('"', at) - at);
    std::thread writer([this] {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      (void)cp_.Request("POST", "/api/v1/namespaces/default/pods",
                        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"watched"},
                            "spec":{"containers":[{"name":"c","image":"busybox"}]}})");
      (void)cp_.Request("PATCH", "/api/v1/namespaces/default/pods/watched",
                        R"({"metadata":{"labels":{"step":"two"}}})",
                        "application/strategic-merge-patch+json");
      (void)cp_.Request("DELETE", "/api/v1/namespaces/default/pods/watched?gracePeriodSeconds=0");
    });
    absl::StatusOr<http::HttpResponse> watch =
        cp_.Request("GET", absl::StrCat("/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=3"
                                        "&resourceVersion=",
                                        rv));
    writer.join();
    if (!watch.ok()) return watch.status();
    TRIMARAN_RETURN_IF_ERROR(Expect("watch pods", *watch, 200));
    return Write("pod_watch.jsonl", watch->body);
  }

  ControlPlane& cp_;
  std::string out_;
};

int Main(int argc, char** argv) {
  std::string out;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--out") out = argv[++i];
  }
  if (out.empty()) {
    std::fprintf(stderr, "usage: TRIMARAN_K8S_MINOR=1.37 apiserver-capture --out DIR\n");
    return 2;
  }
  ControlPlaneOptions options;
  if (K8sMinor() != "1.32") {
    options.extra_apiserver_flags = {"--feature-gates=GenericWorkload=true",
                                     "--runtime-config=scheduling.k8s.io/v1alpha3=true"};
  }
  absl::StatusOr<std::unique_ptr<ControlPlane>> cp = ControlPlane::Start(options);
  if (!cp.ok()) {
    std::fprintf(stderr, "apiserver-capture: %s\n", cp.status().ToString().c_str());
    return 1;
  }
  Capturer capturer(**cp, out);
  if (absl::Status s = capturer.Run(); !s.ok()) {
    std::fprintf(stderr, "apiserver-capture: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace trimaran::e2e

int main(int argc, char** argv) { return trimaran::e2e::Main(argc, argv); }
