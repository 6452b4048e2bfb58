#pragma once
// FakeClient: an in-memory apiserver behind kube::Client, for unit tests and
// benchmarks. It keeps pods, nodes, the SelectorObject resources (namespaces, services,
// replication controllers, replica sets, stateful sets), leases and events, assigns
// resourceVersions from one counter like etcd, serves paged lists and watches that resume from a
// version (410 Gone when the version is older than the kept history), applies bindings the way the
// apiserver does (spec.nodeName + PodScheduled=True; 409 if already bound), merges
// status patches, and checks lease updates optimistically (409 -> Aborted).
//
// Selectors: label selectors with =, ==, !=, key and !key terms; field selectors with
// status.phase, spec.nodeName, spec.schedulerName, metadata.name and
// metadata.namespace (= and !=). Anything else is InvalidArgument.
//
// Test knobs: FailNext() injects errors into the next calls of one method,
// BreakWatches() ends every open watch with Unavailable (a cut connection),
// SetHistoryLimit() controls when old versions become 410 Gone.
//
// Paged lists: every page carries the first page's resourceVersion (the list's
// snapshot, as the apiserver's); the continue token names it, and a continue token
// older than a Compact() fails with Aborted (the apiserver's 410 Expired), so the list
// must start again. Pages read the live objects (not a snapshot).
//
// Thread-safety: safe for concurrent use; watches block their caller's thread.

#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/client.h"

namespace trimaran::kube::testing {

class FakeClient final : public Client {
 public:
  explicit FakeClient(const Clock& clock = RealClock::Get());

  // ---- Client ----
  absl::StatusOr<PodList> ListPods(absl::string_view ns, const ListOptions& options) override;
  absl::Status WatchPods(absl::string_view ns, const WatchOptions& options,
                         const WatchHandler<Pod>& handler, std::stop_token stop) override;
  absl::StatusOr<Pod> GetPod(absl::string_view ns, absl::string_view name) override;
  absl::StatusOr<Pod> CreatePod(const Pod& pod) override;
  absl::Status DeletePod(absl::string_view ns, absl::string_view name) override;
  absl::Status Bind(const Binding& binding) override;
  absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                              const PodStatusPatch& patch) override;
  absl::StatusOr<NodeList> ListNodes(const ListOptions& options) override;
  absl::Status WatchNodes(const WatchOptions& options, const WatchHandler<Node>& handler,
                          std::stop_token stop) override;
  absl::StatusOr<SelectorObjectList> ListSelectorObjects(SelectorResource resource,
                                                         const ListOptions& options) override;
  absl::Status WatchSelectorObjects(SelectorResource resource, const WatchOptions& options,
                                    const WatchHandler<SelectorObject>& handler,
                                    std::stop_token stop) override;
  absl::StatusOr<StorageObjectList> ListStorageObjects(StorageResource resource,
                                                       const ListOptions& options) override;
  absl::Status WatchStorageObjects(StorageResource resource, const WatchOptions& options,
                                   const WatchHandler<StorageObject>& handler,
                                   std::stop_token stop) override;
  // As the apiserver: NotFound when absent, Aborted when patch.resource_version is set
  // and not the object's; annotations merged, claimRef replaced, a new resourceVersion.
  absl::StatusOr<StorageObject> PatchStorageObject(StorageResource resource, absl::string_view ns,
                                                   absl::string_view name,
                                                   const StoragePatch& patch) override;
  absl::StatusOr<Node> GetNode(absl::string_view name) override;
  absl::StatusOr<Node> CreateNode(const Node& node) override;
  absl::Status DeleteNode(absl::string_view name) override;
  absl::Status CreateEvent(const Event& event) override;
  absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name) override;
  absl::StatusOr<Lease> CreateLease(const Lease& lease) override;
  absl::StatusOr<Lease> UpdateLease(const Lease& lease) override;
  // The CallOptions overloads: Cancelled when the stop was requested before the call;
  // a method made to hang (Hang) waits for the stop or the deadline (on this fake's
  // clock, which must then be the caller's) instead of answering.
  absl::Status Bind(const Binding& binding, const CallOptions& options) override;
  absl::Status DeletePod(absl::string_view ns, absl::string_view name,
                         const CallOptions& options) override;
  absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                              const PodStatusPatch& patch, const CallOptions& options) override;
  // Admitted as "PatchPodGroupStatus", then served by Raw (the raw handler).
  absl::Status PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                   absl::string_view status_patch,
                                   const CallOptions& options) override;
  absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name,
                                 const CallOptions& options) override;
  absl::StatusOr<Lease> CreateLease(const Lease& lease, const CallOptions& options) override;
  absl::StatusOr<Lease> UpdateLease(const Lease& lease, const CallOptions& options) override;
  absl::StatusOr<std::string> Raw(absl::string_view method, absl::string_view path,
                                  absl::string_view body, absl::string_view content_type) override;

  // ---- Test helpers ----
  // Replaces a pod or node wholesale (a MODIFIED event), as another client would.
  absl::StatusOr<Pod> UpdatePod(const Pod& pod);
  absl::StatusOr<Node> UpdateNode(const Node& node);
  // Creates (ADDED) or replaces (MODIFIED) a namespace, service, replication controller,
  // replica set or stateful set; deletes one (NotFound when absent).
  absl::StatusOr<SelectorObject> ApplySelectorObject(SelectorResource resource,
                                                     const SelectorObject& object);
  absl::Status DeleteSelectorObject(SelectorResource resource, absl::string_view ns,
                                    absl::string_view name);
  // Creates (ADDED) or replaces (MODIFIED) a PV, PVC, StorageClass or CSINode (its kind
  // from the object); deletes one (NotFound when absent). GetStorageObject reads one.
  absl::StatusOr<StorageObject> ApplyStorageObject(const StorageObject& object);
  absl::Status DeleteStorageObject(StorageResource resource, absl::string_view ns,
                                   absl::string_view name);
  absl::StatusOr<StorageObject> GetStorageObject(StorageResource resource, absl::string_view ns,
                                                 absl::string_view name) const;
  // The next `times` calls of `method` ("Bind", "ListPods", "WatchPods", ...) fail.
  void FailNext(const std::string& method, absl::Status status, int times = 1);
  // While `hang` is true, calls of `method` ("GetLease", "UpdateLease", "Bind", ...) made
  // with CallOptions block until their stop or deadline (a request that never gets an
  // answer) and fail with Cancelled / DeadlineExceeded. They count in Calls().
  void Hang(const std::string& method, bool hang);
  // Ends every open watch with Unavailable.
  void BreakWatches();
  // Keep this many change events for watch resume (default 100000).
  void SetHistoryLimit(size_t limit);
  // Drops all history: every watch from an older version gets 410 Gone, and so does
  // every continue token of an older list.
  void Compact();
  // Serves Raw() requests.
  void SetRawHandler(std::function<absl::StatusOr<std::string>(
                         absl::string_view method, absl::string_view path, absl::string_view body)>
                         handler);

  std::vector<Binding> Bindings() const;
  std::vector<Event> Events() const;
  std::vector<std::pair<std::string, PodStatusPatch>> StatusPatches() const;
  int64_t CurrentResourceVersion() const;
  int OpenWatches() const;
  // Waits (real time, at most `timeout`) until exactly `n` watches are open.
  bool AwaitOpenWatches(int n, absl::Duration timeout = absl::Seconds(10)) const;
  // Calls of each method so far.
  int Calls(const std::string& method) const;

 private:
  // Which watch a change belongs to: pods, nodes, or one SelectorResource (its value).
  static constexpr int kPodStream = -2;
  static constexpr int kNodeStream = -1;
  // Storage resources use kStorageStreamBase + their StorageResource value.
  static constexpr int kStorageStreamBase = 100;
  struct Change {
    int64_t rv;
    WatchEventType type;
    int stream;
    Pod pod;
    Node node;
    SelectorObject object;
    StorageObject storage;
  };
  absl::Status Injected(const std::string& method) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static std::string ContinueToken(int64_t list_rv, const std::string& last_key);
  // Reads `token` (empty: a first page, nothing changes) into the list's resourceVersion
  // and the key to continue after; Aborted when compacted away.
  absl::Status ReadContinue(const std::string& token, int64_t* list_rv, std::string* after) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // For the CallOptions overloads: OK to go on with the call, or its error after
  // hanging (Hang) or because the options end it.
  absl::Status Admit(const std::string& method, const CallOptions& options)
      ABSL_LOCKS_EXCLUDED(mu_);
  int64_t NextRv() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Record(WatchEventType type, const Pod* pod, const Node* node)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordObject(WatchEventType type, SelectorResource resource, const SelectorObject& object)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordStorage(WatchEventType type, const StorageObject& object)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename T>
  absl::Status Watch(int stream, absl::string_view ns, const WatchOptions& options,
                     const WatchHandler<T>& handler, std::stop_token stop);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  int64_t rv_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t uid_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, Pod> pods_ ABSL_GUARDED_BY(mu_);    // "ns/name"
  std::map<std::string, Node> nodes_ ABSL_GUARDED_BY(mu_);  // "name"
  // Per SelectorResource, by "ns/name" ("name" for namespaces).
  std::map<std::string, SelectorObject> objects_[std::size(kAllSelectorResources)] ABSL_GUARDED_BY(
      mu_);
  // Per StorageResource, by "ns/name" ("name" for cluster-scoped kinds).
  std::map<std::string, StorageObject> storage_[std::size(kAllStorageResources)] ABSL_GUARDED_BY(
      mu_);
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  std::vector<Binding> bindings_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, PodStatusPatch>> patches_ ABSL_GUARDED_BY(mu_);
  std::deque<Change> history_ ABSL_GUARDED_BY(mu_);
  size_t history_limit_ ABSL_GUARDED_BY(mu_) = 100000;
  int64_t compacted_rv_ ABSL_GUARDED_BY(mu_) = 0;  // versions <= this are gone
  uint64_t watch_generation_ ABSL_GUARDED_BY(mu_) = 0;
  int open_watches_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::deque<absl::Status>> failures_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, bool> hang_ ABSL_GUARDED_BY(mu_);
  std::function<absl::StatusOr<std::string>(absl::string_view, absl::string_view,
                                            absl::string_view)>
      raw_handler_ ABSL_GUARDED_BY(mu_);
};

// Selector matching used by FakeClient (exposed for tests).
absl::StatusOr<bool> MatchesLabelSelector(absl::string_view selector, const Labels& labels);
absl::StatusOr<bool> MatchesPodFieldSelector(absl::string_view selector, const Pod& pod);

}  // namespace trimaran::kube::testing
