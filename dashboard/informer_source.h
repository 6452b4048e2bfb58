#pragma once
// InformerClusterSource: the live view's ClusterSource over the project's informers
// (kube/informer.h): nodes (with --node-selector) and non-terminal pods are listed once
// and then watched, so a refresh reads memory instead of re-listing the cluster. The
// informer's handlers keep PodTotals (requests and counts per node) up to date as events
// arrive (an update removes the old pod's summary and adds the new one's); Fetch copies
// the node store and the totals, and the latest load-watcher answer, which a background
// thread reads every `watcher_period` (so a slow or hung watcher never delays a redraw;
// a snapshot that stops changing is marked stale by its own timestamp).
//
// The pod informer stores a SlimPod per pod (its name, namespace, uid and
// resourceVersion and its PodSummary) instead of the full object: each list page and
// watch event is summarised as it arrives, so the view holds a few hundred bytes per
// pod whatever the pods carry (150,000 full pods take hundreds of MB). Nodes are kept in
// full (the view reads their labels, capacity and allocatable). The one-shot `-o`
// output uses ApiClusterSource instead, which never holds more than a list page of full
// pods.
//
// Thread-safety: Start and the destructor from the owner thread; Fetch is safe for
// concurrent use with the informers' handler thread (the summaries are under a mutex).

#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "dashboard/cluster_source.h"
#include "kube/informer.h"

namespace trimaran::dashboard {

// What the pod informer keeps of a pod: the metadata the informer keys and versions it
// by, and the view's summary.
struct SlimPod {
  // The part of metav1.ObjectMeta the informer reads (names as kube::ObjectMeta's).
  struct Meta {
    std::string name;
    std::string namespace_name;
    std::string uid;
    std::string resource_version;
  } metadata;
  PodSummary summary;
};
std::string ObjectKey(const SlimPod& pod);  // "namespace/name", as kube::ObjectKey(Pod)
SlimPod SlimDown(const kube::Pod& pod);
// Non-terminal pods in every namespace, each slimmed down as it arrives.
kube::ListerWatcher<SlimPod> SlimPodListerWatcher(kube::Client& client);

class InformerClusterSource final : public ClusterSource {
 public:
  // `kube`, `watcher` (may be null) and `clock` are borrowed and must outlive this.
  InformerClusterSource(kube::Client& kube, lw::Client* watcher, std::string node_selector,
                        std::string window, const Clock& clock,
                        absl::Duration watcher_period = absl::Seconds(2));
  ~InformerClusterSource() override;

  // Starts both informers and waits for their first list (DeadlineExceeded after
  // `timeout`: "nodes and pods not listed within 30s"), reads the watcher once, then
  // starts the watcher thread. May be called again after a DeadlineExceeded: it then
  // only waits again (the informers are started once).
  absl::Status Start(absl::Duration timeout);
  absl::StatusOr<ClusterInputs> Fetch() override;

 private:
  lw::Client* const watcher_;
  const std::string window_;
  const Clock& clock_;
  const absl::Duration watcher_period_;
  kube::Informer<kube::Node> nodes_;
  kube::Informer<SlimPod> pods_;
  bool informers_started_ = false;  // owner thread only
  mutable absl::Mutex mu_;
  PodTotals totals_ ABSL_GUARDED_BY(mu_);
  lw::WatcherMetricsPtr metrics_ ABSL_GUARDED_BY(mu_);
  std::string metrics_error_ ABSL_GUARDED_BY(mu_);
  // Last member: stopped and joined first on destruction.
  std::jthread watcher_thread_;
};

}  // namespace trimaran::dashboard
