#include "scheduler/plugins/unsupported_constraints/unsupported_constraints.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kSuffix = " is not supported by this scheduler yet";

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> UnsupportedPodConstraints::New(const PluginArgs& /*args*/,
                                                                       Handle& /*handle*/) {
  return std::make_unique<UnsupportedPodConstraints>();
}

PluginDescriptor UnsupportedPodConstraints::Descriptor() {
  return DescriptorFor<UnsupportedPodConstraints>();
}

Status UnsupportedPodConstraints::PreFilter(CycleState& /*state*/, const kube::Pod& pod,
                                            std::span<const NodeInfo* const> /*nodes*/,
                                            PreFilterResult& /*result*/) {
  std::vector<std::string> reasons;
  if (const auto& affinity = pod.spec.affinity; affinity.has_value()) {
    if (affinity->pod_affinity.has_value() && !affinity->pod_affinity->required.empty()) {
      reasons.push_back(absl::StrCat(
          "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution", kSuffix));
    }
    if (affinity->pod_anti_affinity.has_value() && !affinity->pod_anti_affinity->required.empty()) {
      reasons.push_back(absl::StrCat(
          "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution", kSuffix));
    }
  }
  const auto& constraints = pod.spec.topology_spread_constraints;
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (constraints[i].when_unsatisfiable == kube::UnsatisfiableConstraintAction::kDoNotSchedule) {
      reasons.push_back(absl::StrCat("spec.topologySpreadConstraints[", i,
                                     "] with whenUnsatisfiable: DoNotSchedule", kSuffix));
    }
  }
  if (reasons.empty()) return Status::Success();
  return Status::UnschedulableAndUnresolvable(std::move(reasons)).WithPlugin(kName);
}

}  // namespace trimaran::sched::plugins
