#pragma once
// Cluster: the set-up every end-to-end user of a real control plane repeats, in one
// place: a ControlPlane (etcd + kube-apiserver on 127.0.0.1, see control_plane.h), the
// admin kubeconfig written for the programs under test, an admin kube::RestClient
// (rate limit chosen by the caller; 5000 QPS by default, so that the set-up itself is
// not throttled), nodes that are schedulable at once (created, then the not-ready taint
// that admission adds is removed, since no kubelet runs here), and pending pods created
// in parallel.
//
//   auto cluster = Cluster::Start();
//   TRIMARAN_RETURN_IF_ERROR((*cluster)->AddNodes(NumberedNames("node", 50),
//                                                  {.cpu = "4", .memory = "16Gi"}));
//   TRIMARAN_RETURN_IF_ERROR((*cluster)->CreatePods(1000, [](int i) {
//     return PodShape{.name = absl::StrCat("web-", i), .scheduler_name = "trimaran",
//                     .cpu = "100m", .memory = "128Mi"};
//   }));
//
// What differs between users (node sizes and names, pod specs, QPS, parallelism, what to
// do when a pod was created) is a parameter; Cluster adds no assertion of its own:
// every fallible call returns an absl::Status / StatusOr for the caller to check.
//
// Thread-safety: AddNode(s), CreatePods, client() and the accessors are safe for
// concurrent use (RestClient and ControlPlane::Request are). The ControlPlane's other
// methods (KillApiserver, AddTokenUser, ...) are externally synchronized, as there.
//
// Ownership: Cluster owns the ControlPlane (its processes and its temporary directory,
// removed on destruction) and the RestClient; references handed out must not outlive
// it. The client is destroyed before the control plane.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/object_meta.h"
#include "kube/api/pod.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/control_plane.h"

namespace trimaran::e2e {

struct ClusterOptions {
  ControlPlaneOptions control_plane;
  // The admin client's client-side rate limit; std::nullopt keeps what the kubeconfig
  // loader gives (RestConfig's defaults).
  std::optional<double> qps = 5000;
  std::optional<int> burst = 5000;
  kube::RestClientOptions client;
};

// A node as the scheduler sees it: capacity = allocatable = {cpu, memory, pods}.
struct NodeShape {
  std::string cpu;
  std::string memory;
  std::string pods = "110";
  kube::StringMap labels;
  // Also label each node kubernetes.io/hostname=<its name>, as the kubelet does.
  bool hostname_label = false;
};

// A pod with one container requesting cpu and memory (no limits); pending unless
// `node_name` is set.
struct PodShape {
  std::string name;
  std::string namespace_name = "default";
  std::string scheduler_name;
  std::string cpu;
  std::string memory;
  kube::StringMap labels;
  // Set: the pod is created bound to this node (spec.nodeName), no scheduler involved.
  std::string node_name;
  // Pod (anti-)affinity and topology spread constraints, as given.
  std::optional<kube::Affinity> affinity;
  std::vector<kube::TopologySpreadConstraint> topology_spread_constraints;
};

struct CreatePodsOptions {
  // Concurrent creators; 1 creates the pods in index order on the calling thread.
  int parallelism = 8;
  // Called on the creating thread right after a pod's POST succeeded (e.g. to stamp its
  // creation time); may be empty.
  std::function<void(const kube::Pod& created)> on_created;
};

// An events.k8s.io/v1 Event as the tests read it back.
struct EventRecord {
  std::string reason;
  std::string type;       // "Normal", "Warning"
  std::string regarding;  // regarding.name
  std::string note;
};

// "<prefix>-0" ... "<prefix>-<n-1>".
std::vector<std::string> NumberedNames(absl::string_view prefix, int n);

class Cluster {
 public:
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(ClusterOptions options = {});

  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  ~Cluster();

  ControlPlane& control_plane() const { return *control_plane_; }
  kube::RestClient& client() const { return *client_; }
  // The admin kubeconfig (ControlPlane::WriteKubeconfig), for the programs under test.
  const std::string& kubeconfig() const { return kubeconfig_; }

  // Creates node `name` of `shape` and removes its taints (the not-ready taint added at
  // admission) with a JSON merge-patch; an error names the node and the step.
  absl::Status AddNode(const std::string& name, const NodeShape& shape);
  // AddNode for every name, `parallelism` at a time (1: in order on this thread). All
  // are attempted; an error counts the failures and carries the first one.
  absl::Status AddNodes(const std::vector<std::string>& names, const NodeShape& shape,
                        int parallelism = 1);

  // Creates pods shape(0) ... shape(n-1). All are attempted; an error counts the
  // failures and carries the first one.
  absl::Status CreatePods(int n, const std::function<PodShape(int i)>& shape,
                          const CreatePodsOptions& options = {});

  // `method` `path` with `body` on the apiserver as admin; an error unless the answer is
  // 2xx ("<method> <path>: HTTP <code>: <body>").
  absl::Status Send(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& content_type = "application/json") const;

  // The events.k8s.io/v1 Events of namespace `ns`, read from the apiserver (empty when
  // it does not answer).
  std::vector<EventRecord> Events(const std::string& ns) const;
  // The notes of the Events of `ns` with `reason` about the object named `regarding`.
  std::vector<std::string> EventNotes(const std::string& ns, const std::string& reason,
                                      const std::string& regarding) const;

  // Applies the PodGroup CRD file `crd_file` (deploy/components/coscheduling/crd.yaml)
  // with kubectl, as a user would (its output in the control plane's kubectl.log), and
  // waits up to `timeout` until podgroups are served.
  absl::Status InstallPodGroupCrd(const std::string& crd_file, absl::Duration timeout) const;

 private:
  Cluster() = default;

  std::unique_ptr<ControlPlane> control_plane_;
  std::string kubeconfig_;
  std::unique_ptr<kube::RestClient> client_;  // after control_plane_: destroyed first
};

}  // namespace trimaran::e2e
