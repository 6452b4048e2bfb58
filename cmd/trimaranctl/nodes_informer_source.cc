#include "cmd/trimaranctl/nodes_informer_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "kube/store.h"

namespace trimaran::cmd::trimaranctl::nodes {

InformerClusterSource::InformerClusterSource(kube::Client& kube, lw::Client* watcher,
                                             std::string node_selector, std::string window,
                                             const Clock& clock, absl::Duration watcher_period)
    : watcher_(watcher),
      window_(std::move(window)),
      clock_(clock),
      watcher_period_(watcher_period),
      nodes_(kube::NodeListerWatcher(kube, std::move(node_selector)), clock),
      pods_(kube::PodListerWatcher(kube), clock) {
  kube::EventHandlers<kube::Pod> h;
  h.on_add = [this](const std::shared_ptr<const kube::Pod>& p) {
    const PodSummary s = SummarizePod(*p);
    absl::MutexLock lock(&mu_);
    totals_.Add(s);
  };
  h.on_update = [this](const std::shared_ptr<const kube::Pod>& old_pod,
                       const std::shared_ptr<const kube::Pod>& new_pod) {
    const PodSummary before = SummarizePod(*old_pod);
    const PodSummary after = SummarizePod(*new_pod);
    absl::MutexLock lock(&mu_);
    totals_.Remove(before);
    totals_.Add(after);
  };
  h.on_delete = [this](const std::shared_ptr<const kube::Pod>& p, bool) {
    const PodSummary s = SummarizePod(*p);
    absl::MutexLock lock(&mu_);
    totals_.Remove(s);
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

}  // namespace trimaran::cmd::trimaranctl::nodes
