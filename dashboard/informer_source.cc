#include "dashboard/informer_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "kube/store.h"

namespace trimaran::dashboard {

std::string ObjectKey(const SlimPod& pod) {
  return absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
}

SlimPod SlimDown(const kube::Pod& pod) {
  SlimPod slim;
  slim.metadata.name = pod.metadata.name;
  slim.metadata.namespace_name = pod.metadata.namespace_name;
  slim.metadata.uid = pod.metadata.uid;
  slim.metadata.resource_version = pod.metadata.resource_version;
  slim.summary = SummarizePod(pod);
  return slim;
}

kube::ListerWatcher<SlimPod> SlimPodListerWatcher(kube::Client& client) {
  kube::ListerWatcher<SlimPod> lw;
  lw.list = [&client](const kube::ListOptions& o) -> absl::StatusOr<kube::List<SlimPod>> {
    absl::StatusOr<kube::PodList> full = client.ListPods("", o);
    if (!full.ok()) return full.status();
    kube::List<SlimPod> slim;
    slim.metadata = std::move(full->metadata);
    slim.skipped = std::move(full->skipped);
    slim.items.reserve(full->items.size());
    for (const kube::Pod& p : full->items) slim.items.push_back(SlimDown(p));
    return slim;
  };
  lw.watch = [&client](const kube::WatchOptions& o, const kube::WatchHandler<SlimPod>& h,
                       std::stop_token stop) {
    return client.WatchPods(
        "", o,
        [&h](kube::WatchEvent<kube::Pod>&& ev) {
          kube::WatchEvent<SlimPod> slim;
          slim.type = ev.type;
          slim.object = SlimDown(ev.object);
          slim.error = std::move(ev.error);
          slim.undecodable = std::move(ev.undecodable);
          return h(std::move(slim));
        },
        stop);
  };
  lw.field_selector = kube::kNonTerminalPodsSelector;
  lw.description = "pods";
  return lw;
}

InformerClusterSource::InformerClusterSource(kube::Client& kube, lw::Client* watcher,
                                             std::string node_selector, std::string window,
                                             const Clock& clock, absl::Duration watcher_period)
    : watcher_(watcher),
      window_(std::move(window)),
      clock_(clock),
      watcher_period_(watcher_period),
      nodes_(kube::NodeListerWatcher(kube, std::move(node_selector)), clock),
      pods_(SlimPodListerWatcher(kube), clock) {
  kube::EventHandlers<SlimPod> h;
  h.on_add = [this](const std::shared_ptr<const SlimPod>& p) {
    absl::MutexLock lock(&mu_);
    totals_.Add(p->summary);
  };
  h.on_update = [this](const std::shared_ptr<const SlimPod>& old_pod,
                       const std::shared_ptr<const SlimPod>& new_pod) {
    absl::MutexLock lock(&mu_);
    totals_.Remove(old_pod->summary);
    totals_.Add(new_pod->summary);
  };
  h.on_delete = [this](const std::shared_ptr<const SlimPod>& p, bool) {
    absl::MutexLock lock(&mu_);
    totals_.Remove(p->summary);
  };
  pods_.AddEventHandlers(std::move(h));
}

InformerClusterSource::~InformerClusterSource() {
  if (watcher_thread_.joinable()) {
    watcher_thread_.request_stop();
    watcher_thread_.join();
  }
  nodes_.RequestStop();
  pods_.RequestStop();
  nodes_.Stop();
  pods_.Stop();
}

absl::Status InformerClusterSource::Start(absl::Duration timeout) {
  if (!informers_started_) {
    // Once: a second Start (a retry after a timeout) only waits again, so the informers
    // never list twice into the same totals.
    informers_started_ = true;
    nodes_.Start();
    pods_.Start();
  }
  if (!nodes_.WaitForSync(timeout) || !pods_.WaitForSync(timeout)) {
    return absl::DeadlineExceededError(
        absl::StrCat("nodes and pods not listed within ", absl::FormatDuration(timeout)));
  }
  auto read = [this] {
    ClusterInputs w;
    ReadWatcher(watcher_, window_, w);
    absl::MutexLock lock(&mu_);
    metrics_ = std::move(w.metrics);
    metrics_error_ = std::move(w.metrics_error);
  };
  read();
  if (watcher_ != nullptr && !watcher_thread_.joinable()) {
    watcher_thread_ = std::jthread([this, read](std::stop_token stop) {
      while (clock_.SleepFor(watcher_period_, stop)) read();
    });
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterInputs> InformerClusterSource::Fetch() {
  ClusterInputs in;
  for (const std::shared_ptr<const kube::Node>& n : nodes_.store().List()) {
    in.nodes.push_back(*n);
  }
  absl::MutexLock lock(&mu_);
  in.pods = totals_;
  in.metrics = metrics_;
  in.metrics_error = metrics_error_;
  return in;
}

}  // namespace trimaran::dashboard
