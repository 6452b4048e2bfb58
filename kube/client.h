#pragma once
// kube::Client: everything Trimaran asks of the Kubernetes API, as one interface.
//
// The scheduler, the informers, leader election and the metrics-server provider talk to
// the cluster only through this interface. RestClient (rest_client.h) implements it over
// HTTP; kube::testing::FakeClient (testing/fake_client.h) is an in-memory apiserver for
// unit tests and benchmarks.
//
// Error codes (the mapping is written down once in common/http/status_mapping.h):
//   NotFound          the object does not exist (404)
//   AlreadyExists     create of an existing object (409 on POST)
//   Aborted           optimistic-concurrency conflict on update (409), or a watch
//                     whose resourceVersion is too old (410 Gone): re-list
//   Unauthenticated / PermissionDenied   401 / 403
//   InvalidArgument   the apiserver rejected the object (400, 422)
//   Unavailable       429, 5xx, connection failures (already retried with backoff)
//   DeadlineExceeded  timeouts
//   Cancelled         the caller's stop_token was triggered
//   Internal          a response that does not decode (malformed JSON)
// Every message names the operation and the object ("bind pod default/web-1: ...").
//
// Thread-safety: implementations are safe for concurrent use from many threads.

#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/binding.h"
#include "kube/api/event.h"
#include "kube/api/lease.h"
#include "kube/api/list.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/api/pod_status_patch.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "kube/api/watch_event.h"

namespace trimaran::kube {

struct ListOptions {
  std::string label_selector;  // "app=web,tier!=db"
  std::string field_selector;  // "status.phase!=Succeeded,status.phase!=Failed"
  int64_t limit = 0;           // page size; 0 = no paging
  std::string continue_token;  // from the previous page's ListMeta
  // "" = a consistent read from etcd; "0" = any cached version is fine.
  std::string resource_version;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // resume after this version
  bool allow_watch_bookmarks = true;
  // Asks the server to end the watch after this long (timeoutSeconds); the informer
  // then resumes from the last seen resourceVersion. Zero = server default.
  absl::Duration timeout = absl::Minutes(5);
};

// Bounds one unary call, all its attempts and retry waits included (client-go's
// context). A stop ends the call with Cancelled (an in-flight request is abandoned, a
// retry sleep cut short); past `deadline` it ends with DeadlineExceeded, and a retry
// whose wait (Retry-After included) would end past the deadline is not made.
struct CallOptions {
  std::stop_token stop{};
  absl::Time deadline = absl::InfiniteFuture();
};

// Receives each event of a watch, in order. Return false to end the watch (OK).
template <typename T>
using WatchHandler = std::function<bool(WatchEvent<T>&& event)>;

class Client {
 public:
  virtual ~Client() = default;

  // ---- Pods. `ns` "" means all namespaces for List/Watch. ----
  // One page of pods (follow ListMeta::continue_token for the next).
  virtual absl::StatusOr<PodList> ListPods(absl::string_view ns, const ListOptions& options) = 0;
  // Streams pod events to `handler` until the server ends the watch (OK), the handler
  // returns false (OK), `stop` is requested (Cancelled) or the stream fails. ERROR
  // events are delivered to the handler (410 Gone among them). An event that does not
  // decode (its object, or the whole line) is delivered with `undecodable` set and the
  // watch goes on: one bad object never ends a watch (a list leaves such items out, in
  // List::skipped).
  virtual absl::Status WatchPods(absl::string_view ns, const WatchOptions& options,
                                 const WatchHandler<Pod>& handler, std::stop_token stop) = 0;
  virtual absl::StatusOr<Pod> GetPod(absl::string_view ns, absl::string_view name) = 0;
  virtual absl::StatusOr<Pod> CreatePod(const Pod& pod) = 0;
  virtual absl::Status DeletePod(absl::string_view ns, absl::string_view name) = 0;
  // The same, bounded by `options` (preemption's evictions, fenced like Bind). Defaults
  // as for Bind.
  virtual absl::Status DeletePod(absl::string_view ns, absl::string_view name,
                                 const CallOptions& options);
  // POST pods/{name}/binding.
  virtual absl::Status Bind(const Binding& binding) = 0;
  // The same, bounded by `options`. The default checks the stop once (it has no clock for
  // the deadline), then calls Bind(binding); RestClient and FakeClient honour both.
  virtual absl::Status Bind(const Binding& binding, const CallOptions& options);
  // Strategic-merge PATCH of pods/{name}/status (PodScheduled condition,
  // nominatedNodeName).
  virtual absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                                      const PodStatusPatch& patch) = 0;
  // The same, bounded by `options` (a victim's DisruptionTarget condition, fenced like
  // Bind). Defaults as for Bind.
  virtual absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                                      const PodStatusPatch& patch, const CallOptions& options);

  // ---- Nodes. ----
  virtual absl::StatusOr<NodeList> ListNodes(const ListOptions& options) = 0;
  virtual absl::Status WatchNodes(const WatchOptions& options, const WatchHandler<Node>& handler,
                                  std::stop_token stop) = 0;
  virtual absl::StatusOr<Node> GetNode(absl::string_view name) = 0;
  virtual absl::StatusOr<Node> CreateNode(const Node& node) = 0;
  virtual absl::Status DeleteNode(absl::string_view name) = 0;

  // ---- Namespaces, Services, ReplicationControllers, ReplicaSets, StatefulSets: read
  // only for metadata and spec.selector (kube/api/selector_object.h), across all
  // namespaces. As ListPods/WatchPods otherwise. ----
  virtual absl::StatusOr<SelectorObjectList> ListSelectorObjects(SelectorResource resource,
                                                                 const ListOptions& options) = 0;
  virtual absl::Status WatchSelectorObjects(SelectorResource resource, const WatchOptions& options,
                                            const WatchHandler<SelectorObject>& handler,
                                            std::stop_token stop) = 0;

  // ---- PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes
  // (kube/api/storage.h), across all namespaces. As ListPods/WatchPods otherwise. ----
  virtual absl::StatusOr<StorageObjectList> ListStorageObjects(StorageResource resource,
                                                               const ListOptions& options) = 0;
  virtual absl::Status WatchStorageObjects(StorageResource resource, const WatchOptions& options,
                                           const WatchHandler<StorageObject>& handler,
                                           std::stop_token stop) = 0;
  // JSON merge PATCH of a PersistentVolume or PersistentVolumeClaim (the volume binder's
  // writes, kube/api/storage.h StoragePatch): sets the given annotations and, when
  // present, spec.claimRef, only if the object is still at patch.resource_version
  // (Aborted otherwise). Returns the object as the server stored it.
  virtual absl::StatusOr<StorageObject> PatchStorageObject(StorageResource resource,
                                                           absl::string_view ns,
                                                           absl::string_view name,
                                                           const StoragePatch& patch) = 0;

  // ---- PodGroups (scheduling.x-k8s.io/v1alpha1, a CRD: kube/api/pod_group.h), across
  // all namespaces; as ListPods/WatchPods otherwise. Not pure: clients that do not
  // serve them (fakes, tools) return Unimplemented, and an apiserver without the CRD
  // answers NotFound. Status is written with Raw (merge PATCH of podgroups/status). ----
  virtual absl::StatusOr<PodGroupList> ListPodGroups(const ListOptions& options);
  virtual absl::Status WatchPodGroups(const WatchOptions& options,
                                      const WatchHandler<PodGroup>& handler, std::stop_token stop);
  // Merge PATCH of podgroups/{name}/status with `status_patch` (JSON, e.g.
  // EncodePodGroupStatusPatch), bounded by `options` (the leader's status writes, fenced
  // like Bind). The default checks the stop once, then sends it with Raw.
  virtual absl::Status PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                           absl::string_view status_patch,
                                           const CallOptions& options);

  // ---- Events (events.k8s.io/v1). ----
  virtual absl::Status CreateEvent(const Event& event) = 0;

  // ---- Leases (coordination.k8s.io/v1). ----
  virtual absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name) = 0;
  virtual absl::StatusOr<Lease> CreateLease(const Lease& lease) = 0;
  // PUT with metadata.resourceVersion: Aborted when someone else updated it first.
  virtual absl::StatusOr<Lease> UpdateLease(const Lease& lease) = 0;
  // The same, bounded by `options` (leader election: each renew attempt ends by
  // renewDeadline). Defaults as for Bind.
  virtual absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name,
                                         const CallOptions& options);
  virtual absl::StatusOr<Lease> CreateLease(const Lease& lease, const CallOptions& options);
  virtual absl::StatusOr<Lease> UpdateLease(const Lease& lease, const CallOptions& options);

  // ---- Anything else (metrics.k8s.io, test set-up): a raw request. ----
  // `path` starts with "/" ("/apis/metrics.k8s.io/v1beta1/nodes"). Returns the body of
  // a 2xx response; other statuses become errors as above.
  virtual absl::StatusOr<std::string> Raw(absl::string_view method, absl::string_view path,
                                          absl::string_view body = "",
                                          absl::string_view content_type = "application/json") = 0;
};

using ClientPtr = std::unique_ptr<Client>;

// OK when `options` allow a call now; Cancelled (stop requested) or DeadlineExceeded
// (deadline reached by `now`) naming `what` otherwise.
absl::Status CheckCallOptions(const CallOptions& options, absl::Time now, absl::string_view what);

// "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/NS/podgroups/NAME/status".
std::string PodGroupStatusPath(absl::string_view ns, absl::string_view name);

}  // namespace trimaran::kube
