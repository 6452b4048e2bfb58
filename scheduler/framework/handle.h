#pragma once
// Handle: what the runtime gives a plugin's factory, and what the plugin may keep for
// its whole life: the cycle's node snapshot, the API client (for binders), an event
// recorder, the stats scopes, the parallelizer and the clock. Upstream's framework.Handle,
// reduced to what Trimaran's plugins use. The runtime implements it;
// scheduler/testing/fake_handle.h has a fake.
//
// Also here, the small interfaces a Handle hands out: NodeInfoLister/SharedLister (the
// snapshot), ObjectLister (namespaces, services and controllers), EventRecorder and
// Parallelizer.
//
// Thread-safety: Handle and everything it returns are safe for concurrent use, except
// the snapshot lister, whose contents change between scheduling cycles (read it only
// from within an extension point call; see NodeInfoLister).
//
// Ownership: the Handle outlives every plugin created with it; references returned by
// its accessors stay valid as long as the Handle.

#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "kube/api/pod.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "kube/client.h"
#include "loadwatcher/client.h"
#include "loadwatcher/source_pool.h"
#include "scheduler/framework/metrics_availability.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/plugins_runner.h"
#include "scheduler/framework/pod_group_lister.h"
#include "scheduler/framework/pod_nominator.h"
#include "scheduler/framework/stats_scopes.h"
#include "scheduler/framework/waiting_pod.h"

namespace trimaran::sched {

// Read access to the NodeInfos of the snapshot the current cycle runs on.
// The snapshot is updated by the scheduling thread between cycles, so the span and the
// pointers are valid only within one extension point call of the scheduling cycle
// (and must not be read from binding-cycle extension points).
class NodeInfoLister {
 public:
  virtual ~NodeInfoLister() = default;
  // Every node, in snapshot order (zone-interleaved, the order Filter rotates over).
  virtual std::span<const NodeInfo* const> List() const = 0;
  // NotFound when the snapshot has no node named `node_name`.
  virtual absl::StatusOr<const NodeInfo*> Get(absl::string_view node_name) const = 0;
  // The nodes with at least one pod with pod (anti-)affinity
  // (NodeInfo::pods_with_affinity() not empty), and with at least one pod with a
  // required anti-affinity term; in List() order.
  virtual std::span<const NodeInfo* const> HavePodsWithAffinityList() const = 0;
  virtual std::span<const NodeInfo* const> HavePodsWithRequiredAntiAffinityList() const = 0;
};

// The snapshot's listers (upstream SharedLister; more listers, e.g. pods with affinity,
// join NodeInfos() when the plugins that need them arrive).
class SharedLister {
 public:
  virtual ~SharedLister() = default;
  virtual const NodeInfoLister& NodeInfos() const = 0;
};

// The Namespaces, Services, ReplicationControllers, ReplicaSets and StatefulSets the
// scheduler's informers hold (kube/api/selector_object.h): upstream's informer listers,
// read live rather than per cycle (as upstream, a cycle may see an object change
// between two reads). InterPodAffinity reads namespaces' labels; PodTopologySpread the
// selectors behind its default constraints. The default implementation is empty.
class ObjectLister {
 public:
  virtual ~ObjectLister() = default;
  // The object `ns`/`name` (`ns` ignored for namespaces), or nullptr.
  virtual std::shared_ptr<const kube::SelectorObject> Get(kube::SelectorResource resource,
                                                          std::string_view ns,
                                                          std::string_view name) const = 0;
  // Every object of `resource` in namespace `ns` (every namespace for kNamespaces), in
  // name order.
  virtual std::vector<std::shared_ptr<const kube::SelectorObject>> List(
      kube::SelectorResource resource, std::string_view ns) const = 0;
};

// An ObjectLister with nothing in it.
const ObjectLister& EmptyObjectLister();

// The PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers
// and CSIStorageCapacities the scheduler's informers hold (kube/api/storage.h), read
// live like ObjectLister: what the volume plugins read (upstream's PV/PVC/StorageClass/
// CSINode/CSIDriver/CSIStorageCapacity listers). Each getter returns nullptr when the
// object is absent. The default implementation is empty.
class StorageLister {
 public:
  virtual ~StorageLister() = default;
  virtual std::shared_ptr<const kube::PersistentVolume> GetPersistentVolume(
      std::string_view name) const = 0;
  virtual std::shared_ptr<const kube::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view ns, std::string_view name) const = 0;
  virtual std::shared_ptr<const kube::StorageClass> GetStorageClass(
      std::string_view name) const = 0;
  virtual std::shared_ptr<const kube::CSINode> GetCSINode(std::string_view name) const = 0;
  // Every PersistentVolume, in name order.
  virtual std::vector<std::shared_ptr<const kube::PersistentVolume>> ListPersistentVolumes()
      const = 0;
  virtual std::shared_ptr<const kube::CSIDriver> GetCSIDriver(std::string_view name) const = 0;
  // Every CSIStorageCapacity, in namespace/name order.
  virtual std::vector<std::shared_ptr<const kube::CSIStorageCapacity>> ListCSIStorageCapacities()
      const = 0;
  // False when the apiserver serves no CSIStorageCapacity API (1.20): VolumeBinding then
  // provisions without capacity checks, as upstream with storage capacity tracking off.
  virtual bool CapacityTracking() const = 0;
};

// A StorageLister with nothing in it.
const StorageLister& EmptyStorageLister();

enum class EventType { kNormal, kWarning };

// Records Kubernetes Events (events.k8s.io/v1) about pods, like client-go's
// events.EventRecorder: `regarding` is the object the event is about, `related` an
// optional second object (the preemptor for "Preempted"). `note` is the formatted
// message (callers use absl::StrCat/StrFormat); the recorder truncates it to 1 KiB.
//
// Thread-safety: safe for concurrent use. Never blocks on the API: implementations
// queue the write and drop (and count) events when overloaded.
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  virtual void Eventf(const kube::Pod& regarding, const kube::Pod* related, EventType type,
                      absl::string_view reason, absl::string_view action,
                      absl::string_view note) = 0;
};

// Runs independent pieces of work on the scheduler's worker threads (`parallelism`
// from the config, default 16), as upstream's parallelize.Parallelizer.
//
// Thread-safety: safe for concurrent use; `work` is called concurrently and must be
// thread-safe.
class Parallelizer {
 public:
  virtual ~Parallelizer() = default;
  // Number of workers.
  virtual int parallelism() const = 0;
  // Calls work(i) for every i in [0, pieces), spread over up to parallelism() threads,
  // and returns when all calls have returned. `operation` labels the metrics
  // ("Filter", "Score", "Preemption"). Early stop is the caller's business: `work`
  // returns at once when the caller's own flag says so.
  virtual void Until(int pieces, absl::FunctionRef<void(int piece)> work,
                     absl::string_view operation) = 0;
  // As Until, but hands out whole chunks: work(begin, end) for disjoint ranges that
  // cover [0, pieces) exactly once, each range consecutive pieces (so a caller can
  // batch per-piece work, e.g. Score over consecutive nodes). Default: one-piece ranges
  // through Until.
  virtual void UntilRanges(int pieces, absl::FunctionRef<void(int begin, int end)> work,
                           absl::string_view operation) {
    Until(
        pieces, [&work](int i) { work(i, i + 1); }, operation);
  }
};

class Handle {
 public:
  virtual ~Handle() = default;

  // The snapshot of the current scheduling cycle.
  virtual const SharedLister& snapshot_lister() const = 0;
  // The Kubernetes API (binders, preemption). Never the REST client type directly.
  virtual kube::Client& client() = 0;
  // The profile's event recorder (reportingController = the profile's schedulerName).
  virtual EventRecorder& event_recorder() = 0;
  // Where the framework and plugins register their stats (stats_scopes.h): a plugin's
  // families of its own go in `own`, named relative to it and shared by every plugin
  // and profile (label them by plugin rather than putting the plugin in the name).
  virtual const StatsScopes& stats_scopes() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  virtual const Clock& clock() const = 0;
  // The load watcher that load-aware plugins (TargetLoadPacking, ...) read: in-process
  // or remote, behind one interface (loadwatcher/client.h). nullptr when the scheduler
  // runs without one; such plugins then fall back as their staleness policy says.
  virtual lw::Client* load_watcher() { return nullptr; }
  // Per-args metrics sources (loadwatcher/source_pool.h): what a load-aware plugin
  // resolves its metricProvider / watcherAddress args through, shared by every plugin
  // and profile. nullptr when the scheduler runs without one (plugins then use
  // load_watcher(), or fall back).
  virtual lw::SourcePool* load_watcher_sources() { return nullptr; }
  // Told when a load-aware plugin's metrics become unusable or usable again
  // (metrics_availability.h); nullptr where nobody listens (tools, tests).
  virtual MetricsAvailabilityObserver* metrics_availability() { return nullptr; }
  // The options of the API calls that act as the leader: the Binding a binding cycle
  // makes for the pod (Bind plugins pass them to kube::Client::Bind), and preemption's
  // evictions (the victims' DisruptionTarget PATCH and DELETE, nominations cleared).
  // Under leader election their stop fires when the lease is lost and their deadline is
  // the leader's LeadingUntil(), so no such call is sent once another replica may lead.
  // Read them right before each call (the deadline moves with every renewal).
  // Unbounded by default.
  virtual kube::CallOptions binding_call_options() { return {}; }
  // Namespaces, Services, ReplicationControllers, ReplicaSets and StatefulSets (see
  // ObjectLister). Empty unless the runtime has informers for them.
  virtual const ObjectLister& object_lister() const { return EmptyObjectLister(); }
  // The pods nominated to nodes (the scheduling queue's nominator), or nullptr when the
  // runtime keeps none (tools, tests): Filter then ignores nominations.
  virtual PodNominator* nominator() const { return nullptr; }
  // The profile's PreFilter extensions and Filters (preemption dry runs). Set in the
  // Handle a plugin's factory receives from the runtime; nullptr elsewhere.
  virtual const PluginsRunner* plugins_runner() const { return nullptr; }
  // PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes (see
  // StorageLister). Empty unless the runtime has informers for them.
  virtual const StorageLister& storage_lister() const { return EmptyStorageLister(); }
  // PodGroups and their member pods (Coscheduling). Empty unless the runtime has a
  // PodGroup informer (pod_group_lister.h).
  virtual const PodGroupLister& pod_group_lister() const { return EmptyPodGroupLister(); }
  // Calls fn for each pod of this profile held at Permit (upstream's
  // IterateOverWaitingPods), outside the map's lock: fn may Allow or Reject. Set in the
  // Handle a plugin's factory receives from the runtime; no pods elsewhere.
  virtual void IterateOverWaitingPods(absl::FunctionRef<void(WaitingPodHandle&)> fn) { (void)fn; }
  // Whether `pod` is still known to the scheduler (its cache holds it, assumed or
  // bound): false once the pod was deleted. What a binding cycle that waits (VolumeBinding's
  // PreBind) polls to stop waiting for a deleted pod. True where there is no cache.
  virtual bool PodExists(const kube::Pod& pod) const {
    (void)pod;
    return true;
  }
  // Requested when the scheduler stops (shutdown): binding cycles that wait on their
  // own (VolumeBinding's PreBind) give up, so that draining the bindings is quick. A
  // token that never stops by default.
  virtual std::stop_token shutdown_token() const { return {}; }
};

}  // namespace trimaran::sched
