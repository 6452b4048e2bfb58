#pragma once
// Test doubles for the Handle side of the plugin API (scheduler/framework/handle.h):
//
//   FakeSnapshot        a fixed SharedLister/NodeInfoLister built from nodes and pods
//                       (upstream's framework.NewSnapshot(pods, nodes)).
//   FakeEventRecorder   records events in memory.
//   InlineParallelizer  runs every piece on the calling thread, in order.
//   FakeHandle          all of the above plus a kube::testing::FakeClient, a FakeClock,
//                       an ObjectStore (namespaces, services, controllers) and a private
//                       stats registry. NewHandleForTest() builds one.
//
//   auto handle = NewHandleForTest({MakeNode().Name("n1").Obj()},
//                                  {MakePod().Name("p").NodeName("n1").Obj()});
//   ASSERT_OK_AND_ASSIGN(const NodeInfo* n1,
//                        handle->snapshot_lister().NodeInfos().Get("n1"));
//
// Thread-safety: FakeEventRecorder is safe for concurrent use; FakeSnapshot is safe for
// concurrent reads while nobody calls its setters; FakeHandle's accessors are safe for
// concurrent use.

#include <algorithm>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/testing/fake_clock.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/testing/fake_client.h"
#include "scheduler/backend/cache/object_store.h"
#include "scheduler/backend/cache/pod_group_store.h"
#include "scheduler/backend/cache/storage_store.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/runtime/inline_parallelizer.h"
#include "scheduler/runtime/waiting_pods.h"

namespace trimaran::sched::testing {

// One NodeInfo per node (in the given order) holding the pods whose spec.nodeName names
// it. Pods whose node is not in `nodes` are dropped.
std::vector<std::shared_ptr<NodeInfo>> MakeNodeInfos(const std::vector<kube::Node>& nodes,
                                                     const std::vector<kube::Pod>& pods);

class FakeSnapshot final : public SharedLister, public NodeInfoLister {
 public:
  FakeSnapshot() = default;
  FakeSnapshot(const std::vector<kube::Node>& nodes, const std::vector<kube::Pod>& pods) {
    Set(nodes, pods);
  }

  // Replaces the contents.
  void Set(const std::vector<kube::Node>& nodes, const std::vector<kube::Pod>& pods) {
    SetNodeInfos(MakeNodeInfos(nodes, pods));
  }
  void SetNodeInfos(std::vector<std::shared_ptr<NodeInfo>> node_infos);
  // For tests that adjust a node in place; nullptr when absent.
  NodeInfo* MutableNodeInfo(absl::string_view node_name);

  const NodeInfoLister& NodeInfos() const override { return *this; }
  std::span<const NodeInfo* const> List() const override { return list_; }
  absl::StatusOr<const NodeInfo*> Get(absl::string_view node_name) const override;
  std::span<const NodeInfo* const> HavePodsWithAffinityList() const override {
    return with_affinity_;
  }
  std::span<const NodeInfo* const> HavePodsWithRequiredAntiAffinityList() const override {
    return with_required_anti_affinity_;
  }

 private:
  std::vector<std::shared_ptr<NodeInfo>> owned_;
  std::vector<const NodeInfo*> list_;
  std::vector<const NodeInfo*> with_affinity_;
  std::vector<const NodeInfo*> with_required_anti_affinity_;
  absl::flat_hash_map<std::string, NodeInfo*> by_name_;
};

struct RecordedEvent {
  std::string regarding;  // "namespace/name" of the pod
  std::string related;    // "" when none
  EventType type = EventType::kNormal;
  std::string reason;
  std::string action;
  std::string note;

  friend bool operator==(const RecordedEvent&, const RecordedEvent&) = default;
};

class FakeEventRecorder final : public EventRecorder {
 public:
  void Eventf(const kube::Pod& regarding, const kube::Pod* related, EventType type,
              absl::string_view reason, absl::string_view action, absl::string_view note) override;
  std::vector<RecordedEvent> Events() const;
  void Clear();

 private:
  mutable absl::Mutex mu_;
  std::vector<RecordedEvent> events_ ABSL_GUARDED_BY(mu_);
};

// The runtime's sequential Parallelizer (scheduler/runtime/inline_parallelizer.h).
using ::trimaran::sched::InlineParallelizer;

class FakeHandle final : public Handle {
 public:
  FakeHandle();
  FakeHandle(const FakeHandle&) = delete;
  FakeHandle& operator=(const FakeHandle&) = delete;

  // ---- Handle ----
  const SharedLister& snapshot_lister() const override { return snapshot_; }
  kube::Client& client() override { return client_; }
  EventRecorder& event_recorder() override { return recorder_; }
  const StatsScopes& stats_scopes() const override { return scopes_; }
  Parallelizer& parallelizer() override { return parallelizer_; }
  InlineParallelizer& inline_parallelizer() { return parallelizer_; }
  const Clock& clock() const override { return clock_; }
  lw::Client* load_watcher() override { return load_watcher_; }
  // Hands `client` (not owned; may be null) to plugins as the load watcher.
  void SetLoadWatcher(lw::Client* client) { load_watcher_ = client; }
  lw::SourcePool* load_watcher_sources() override { return sources_; }
  // Hands `pool` (not owned; may be null) to plugins as the per-args metrics sources.
  void SetLoadWatcherSources(lw::SourcePool* pool) { sources_ = pool; }
  MetricsAvailabilityObserver* metrics_availability() override { return availability_; }
  // Hands `observer` (not owned; may be null) to plugins as the metrics observer.
  void SetMetricsAvailability(MetricsAvailabilityObserver* observer) { availability_ = observer; }
  const ObjectLister& object_lister() const override { return objects_; }
  PodNominator* nominator() const override { return nominator_; }
  // Hands `nominator` (not owned; may be null) to plugins and the runtime.
  void SetNominator(PodNominator* nominator) { nominator_ = nominator; }
  const StorageLister& storage_lister() const override { return storage_; }
  const PodGroupLister& pod_group_lister() const override { return pod_groups_; }
  void IterateOverWaitingPods(absl::FunctionRef<void(WaitingPodHandle&)> fn) override {
    waiting_pods_.ForEach([&fn](WaitingPod& pod) { fn(pod); });
  }
  bool PodExists(const kube::Pod& pod) const override {
    absl::MutexLock lock(&deleted_mu_);
    return !deleted_pods_.contains(pod.metadata.uid);
  }
  std::stop_token shutdown_token() const override { return shutdown_.get_token(); }
  kube::CallOptions binding_call_options() override {
    absl::MutexLock lock(&call_options_mu_);
    return call_options_;
  }

  // ---- Test access ----
  // What binding_call_options() returns from now on (the leadership fence).
  void SetBindingCallOptions(kube::CallOptions options) {
    absl::MutexLock lock(&call_options_mu_);
    call_options_ = std::move(options);
  }
  // PodExists answers false for this pod's UID from now on (it was deleted).
  void DeletePod(const kube::Pod& pod) {
    absl::MutexLock lock(&deleted_mu_);
    deleted_pods_.insert(pod.metadata.uid);
  }
  // Fires shutdown_token() (the scheduler stops).
  void Shutdown() { shutdown_.request_stop(); }
  // Namespaces, services and controllers the plugins see (object_lister()).
  ObjectStore& objects() { return objects_; }
  // PVs, PVCs, StorageClasses and CSINodes the plugins see (storage_lister()).
  StorageStore& storage() { return storage_; }
  // PodGroups and their member pods the plugins see (pod_group_lister()).
  PodGroupStore& pod_groups() { return pod_groups_; }
  // The pods IterateOverWaitingPods hands out.
  WaitingPods& waiting_pods() { return waiting_pods_; }
  FakeSnapshot& snapshot() { return snapshot_; }
  FakeEventRecorder& recorder() { return recorder_; }
  kube::testing::FakeClient& fake_client() { return client_; }
  ::trimaran::testing::FakeClock& fake_clock() { return clock_; }
  stats::Registry& stats_registry() { return registry_; }

 private:
  lw::Client* load_watcher_ = nullptr;
  lw::SourcePool* sources_ = nullptr;
  MetricsAvailabilityObserver* availability_ = nullptr;
  PodNominator* nominator_ = nullptr;
  ::trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_;
  FakeSnapshot snapshot_;
  ObjectStore objects_;
  StorageStore storage_;
  PodGroupStore pod_groups_;
  WaitingPods waiting_pods_;
  FakeEventRecorder recorder_;
  InlineParallelizer parallelizer_;
  stats::Registry registry_;
  StatsScopes scopes_;
  mutable absl::Mutex deleted_mu_;
  absl::flat_hash_set<std::string> deleted_pods_ ABSL_GUARDED_BY(deleted_mu_);
  std::stop_source shutdown_;
  mutable absl::Mutex call_options_mu_;
  kube::CallOptions call_options_ ABSL_GUARDED_BY(call_options_mu_);
};

// A FakeHandle whose snapshot holds `nodes` and `pods`.
std::unique_ptr<FakeHandle> NewHandleForTest(const std::vector<kube::Node>& nodes = {},
                                             const std::vector<kube::Pod>& pods = {});

}  // namespace trimaran::sched::testing
