#pragma once
// Explainer: runs the scheduler's real algorithm (sched::SchedulePod, the profile's real
// plugins) offline and explains one cycle as a Report. It is the library behind
// `trimaranctl score`, and is built to serve any tool that runs many cycles: build it
// once, keep changing the cluster through cache(), and run as many cycles as needed; each
// profile's Framework is built on first use and kept.
//
//   ASSIGN_OR_RETURN(auto explainer, Explainer::Create(profiles, {&registry, &clock}));
//   RETURN_IF_ERROR(explainer->cache().AddNode(node));
//   ASSIGN_OR_RETURN(Report report, explainer->Explain(pod, "trimaran"));
//
// A cycle runs with ScheduleOptions{evaluate_all_nodes, deterministic_tie_break}: every
// node gets a verdict (no percentageOfNodesToScore sampling, no early stop), every
// feasible node is scored even when only one fits, and nodes still tied after the exact
// tie-break go to the smallest name (the daemon picks one of them at random; the
// report's notes say so, and say when the daemon would have sampled nodes).
//
// Errors: a plugin error (kError at PreFilter, Filter, PreScore or Score) is Internal
// naming the extension point (and the node, for Filter). A pod that fits nowhere is not
// an error: the report shows every node's rejection.
//
// Thread-safety: externally synchronized (one cycle at a time; plugins run on the
// calling thread).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "kube/api/pod.h"
#include "loadwatcher/metrics.h"
#include "scheduler/backend/cache/cache_impl.h"
#include "scheduler/backend/cache/object_store.h"
#include "scheduler/backend/cache/snapshot.h"
#include "scheduler/backend/cache/storage_store.h"
#include "scheduler/explain/fixed_metrics.h"
#include "scheduler/explain/offline_handle.h"
#include "scheduler/explain/report.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/stats_scopes.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::sched::explain {

class Explainer {
 public:
  struct Options {
    // The plugins frameworks are built from. Required; must outlive the Explainer.
    const Registry* registry = nullptr;
    // Time as the cache and the plugins see it. Required; must outlive the Explainer.
    const Clock* clock = nullptr;
    // Served to every load-aware plugin, whatever its args name (FixedSourcePool);
    // nullopt: no load watcher (such plugins fall back as their args say).
    std::optional<lw::WatcherMetrics> metrics;
  };

  // InvalidArgument when there are no profiles or a required option is missing.
  static absl::StatusOr<std::unique_ptr<Explainer>> Create(std::vector<ProfileConfig> profiles,
                                                           Options options);
  Explainer(const Explainer&) = delete;
  Explainer& operator=(const Explainer&) = delete;

  // The cluster: nodes and assigned pods, through the scheduler cache's operations.
  // Changes show in the next cycle.
  Cache& cache() { return cache_; }
  // Namespaces, services and controllers the plugins read (InterPodAffinity's
  // namespaceSelector, PodTopologySpread's default constraints).
  ObjectStore& objects() { return objects_; }
  // PVs, PVCs, StorageClasses and CSINodes the volume plugins see.
  StorageStore& storage() { return storage_; }
  // Replaces the served metrics (only when created with metrics).
  void SetMetrics(lw::WatcherMetrics metrics);
  // Serves each window its own snapshot (FixedMetricsClient::SetByWindow; only when
  // created with metrics).
  void SetMetricsByWindow(std::map<std::string, lw::WatcherMetrics> by_window);
  // The stats the cache and the plugins wrote (the daemon's families and prefixes), e.g.
  // trimaran_plugin_metrics_fallback_total for a simulator's fallback counts.
  const stats::Registry& stats() const { return stats_registry_; }

  const std::vector<ProfileConfig>& profiles() const { return profiles_; }
  // The profile named `name`, or nullptr.
  const ProfileConfig* FindProfile(absl::string_view name) const;
  // The profile's Framework, built on first use: NotFound for an unknown profile, the
  // factory's error when a plugin fails to build.
  absl::StatusOr<Framework*> FrameworkFor(absl::string_view profile);

  // What a cycle does besides explaining.
  struct CycleOptions {
    // When a node is chosen, run the profile's Reserve plugins for it with the cycle's
    // state, as the daemon's scheduling cycle does right after selecting the host (a
    // pod with spec.nodeName set to the node), so that plugins which remember their
    // placements (TargetLoadPacking's recent pods) count it in later cycles. Putting
    // the pod into cache() stays the caller's job; tell the plugins of its deletion
    // with the Framework's RunPodDeletionListeners. A Reserve failure runs Unreserve
    // and is Internal naming the plugin.
    bool reserve = false;
  };

  // One cycle of `profile` for `pod` (see the header comment). The pod is scored as
  // pending whatever its spec.nodeName says.
  absl::StatusOr<Report> Explain(const kube::Pod& pod, absl::string_view profile);
  absl::StatusOr<Report> Explain(const kube::Pod& pod, absl::string_view profile,
                                 const CycleOptions& options);

  // One cycle of `profile` for `pod` as the daemon runs it, for tools that need only the
  // decision (the simulator): the profile's percentageOfNodesToScore (adaptive sampling
  // from a start index that rotates from one call to the next, as the scheduler's, kept
  // across profiles; every node for packing profiles), no Report. Nodes still tied after
  // the exact tie-break go to the smallest name (the daemon picks one at random). Returns
  // the chosen node's name, "" when no node fits; Internal (as Explain) on a plugin error.
  // The pod is scored as pending whatever its spec.nodeName says.
  // With `options.reserve`, as Explain's.
  absl::StatusOr<std::string> Place(const kube::Pod& pod, absl::string_view profile);
  absl::StatusOr<std::string> Place(const kube::Pod& pod, absl::string_view profile,
                                    const CycleOptions& options);

 private:
  Explainer(std::vector<ProfileConfig> profiles, Options options);

  std::vector<ProfileConfig> profiles_;
  const Registry& registry_;
  const Clock& clock_;
  stats::Registry stats_registry_;
  // Nothing reads these stats; the daemon's prefixes, for the record.
  const StatsScopes scopes_;
  CacheImpl cache_;
  Snapshot snapshot_;
  ObjectStore objects_;
  StorageStore storage_;
  std::unique_ptr<FixedMetricsClient> metrics_client_;
  std::unique_ptr<FixedSourcePool> sources_;
  OfflineHandle handle_;
  // Place's state across cycles (the rotating start index, reused buffers).
  SchedulingAlgorithmState place_algo_;
  std::map<std::string, std::unique_ptr<Framework>, std::less<>> frameworks_;
};

}  // namespace trimaran::sched::explain
