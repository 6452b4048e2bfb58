#include "scheduler/plugins/coscheduling/pod_group_status.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "kube/api/json_codec.h"

namespace trimaran::sched::plugins {

kube::PodGroupStatus ComputePodGroupStatus(const kube::PodGroup& pg,
                                           std::span<const std::shared_ptr<const kube::Pod>> pods,
                                           absl::Time now) {
  kube::PodGroupStatus status = pg.status;
  const int32_t min = pg.spec.min_member;
  const int32_t n = static_cast<int32_t>(pods.size());
  int32_t running = 0, succeeded = 0, failed = 0, scheduled = 0;
  for (const auto& p : pods) {
    if (kube::IsAssigned(*p)) ++scheduled;
    switch (p->status.phase) {
      case kube::PodPhase::kRunning:
        ++running;
        break;
      case kube::PodPhase::kSucceeded:
        ++succeeded;
        break;
      case kube::PodPhase::kFailed:
        ++failed;
        break;
      default:
        break;
    }
  }
  // Upstream moves one step per sync; here the steps are applied until stable.
  for (int step = 0; step < 3; ++step) {
    const kube::PodGroupPhase before = status.phase;
    switch (status.phase) {
      case kube::PodGroupPhase::kNone:
        status.phase = kube::PodGroupPhase::kPending;
        break;
      case kube::PodGroupPhase::kPending:
        if (n >= min) {
          status.phase = kube::PodGroupPhase::kScheduling;
          if (!status.schedule_start_time.has_value()) status.schedule_start_time = now;
          if (n > 0 && !pods[0]->metadata.owner_references.empty()) {
            status.occupied_by = absl::StrCat(pods[0]->metadata.namespace_name, "/",
                                              pods[0]->metadata.owner_references[0].name);
          }
        }
        break;
      default:
        if (n < min) {
          status.phase = kube::PodGroupPhase::kPending;
          break;
        }
        if (succeeded + running < min) {
          status.phase =
              scheduled >= min ? kube::PodGroupPhase::kScheduled : kube::PodGroupPhase::kScheduling;
        } else {
          status.phase = kube::PodGroupPhase::kRunning;
        }
        if (failed != 0 && failed + running + succeeded >= min) {
          status.phase = kube::PodGroupPhase::kFailed;
        }
        if (succeeded >= min && min > 0) status.phase = kube::PodGroupPhase::kFinished;
        break;
    }
    if (status.phase == before) break;
  }
  status.scheduled = scheduled;
  status.running = running;
  status.succeeded = succeeded;
  status.failed = failed;
  return status;
}

void PodGroupStatusWriter::MarkDirty(std::string ns, std::string name) {
  absl::MutexLock lock(&mu_);
  dirty_.emplace(std::move(ns), std::move(name));
}

int PodGroupStatusWriter::SyncDirty() {
  std::set<std::pair<std::string, std::string>> dirty;
  {
    absl::MutexLock lock(&mu_);
    dirty.swap(dirty_);
  }
  int patched = 0;
  for (auto it = dirty.begin(); it != dirty.end(); ++it) {
    const auto& [ns, name] = *it;
    std::shared_ptr<const kube::PodGroup> pg = lister_.Get(ns, name);
    if (pg == nullptr) continue;
    const auto pods = lister_.Pods(ns, name);
    kube::PodGroupStatus status = ComputePodGroupStatus(*pg, pods, clock_.Now());
    if (status == pg->status) continue;
    const kube::CallOptions options = call_options_ ? call_options_() : kube::CallOptions{};
    if (absl::Status fence = kube::CheckCallOptions(options, clock_.Now(), "podgroup status");
        !fence.ok()) {
      // Not the leader any more (or not sure): the next leader writes them.
      for (; it != dirty.end(); ++it) MarkDirty(it->first, it->second);
      break;
    }
    absl::Status s =
        client_.PatchPodGroupStatus(ns, name, kube::EncodePodGroupStatusPatch(status), options);
    if (s.ok()) {
      ++patched;
      continue;
    }
    if (absl::IsNotFound(s)) continue;
    Log(Component::kPlugin)
        .warn("Coscheduling: cannot update the status of PodGroup {}/{}: {}", ns, name,
              s.ToString());
    MarkDirty(ns, name);
  }
  return patched;
}

void PodGroupStatusWriter::Run(std::stop_token stop, absl::Duration period) {
  while (clock_.SleepFor(period, stop)) SyncDirty();
}

}  // namespace trimaran::sched::plugins
