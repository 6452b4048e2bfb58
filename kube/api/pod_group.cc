#include "kube/api/pod_group.h"

#include "absl/strings/str_cat.h"

namespace trimaran::kube {

std::string_view PodGroupPhaseName(PodGroupPhase phase) {
  switch (phase) {
    case PodGroupPhase::kNone:
      return "";
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kScheduling:
      return "Scheduling";
    case PodGroupPhase::kScheduled:
      return "Scheduled";
    case PodGroupPhase::kRunning:
      return "Running";
    case PodGroupPhase::kFinished:
      return "Finished";
    case PodGroupPhase::kFailed:
      return "Failed";
    case PodGroupPhase::kUnrecognized:
      break;
  }
  return "<unrecognized>";
}

PodGroupPhase ParsePodGroupPhase(std::string_view name) {
  for (PodGroupPhase p : {PodGroupPhase::kNone, PodGroupPhase::kPending, PodGroupPhase::kScheduling,
                          PodGroupPhase::kScheduled, PodGroupPhase::kRunning,
                          PodGroupPhase::kFinished, PodGroupPhase::kFailed}) {
    if (PodGroupPhaseName(p) == name) return p;
  }
  return PodGroupPhase::kUnrecognized;
}

std::string_view PodGroupNameOf(const Pod& pod) {
  auto it = pod.metadata.labels.find(kPodGroupLabel);
  if (it == pod.metadata.labels.end()) return {};
  return it->second;
}

std::string PodGroupFullNameOf(const Pod& pod) {
  std::string_view name = PodGroupNameOf(pod);
  if (name.empty()) return "";
  return absl::StrCat(pod.metadata.namespace_name, "/",
                      absl::string_view(name.data(), name.size()));
}

}  // namespace trimaran::kube
