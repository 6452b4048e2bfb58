#include "scheduler/unsupported_pods.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched {

std::optional<UnsupportedPod> RefuseUnsupported(const kube::Pod& pod) {
  if (!pod.spec.resource_claims.empty()) {
    std::vector<absl::string_view> names;
    for (const kube::PodResourceClaim& c : pod.spec.resource_claims) names.push_back(c.name);
    return UnsupportedPod{
        .feature = "dynamic_resources",
        .status =
            Status(Code::kUnschedulableAndUnresolvable,
                   {absl::StrCat("pod uses Dynamic Resource Allocation (spec.resourceClaims: ",
                                 absl::StrJoin(names, ", "),
                                 "), which trimaran does not implement; schedule it with "
                                 "kube-scheduler (spec.schedulerName: default-scheduler)")})
                .WithPlugin(kDynamicResourcesPlugin)};
  }
  if (pod.spec.scheduling_group.has_value()) {
    return UnsupportedPod{
        .feature = "workload",
        .status = Status(Code::kUnschedulableAndUnresolvable,
                         {absl::StrCat("pod belongs to the scheduling group \"",
                                       pod.spec.scheduling_group->pod_group_name,
                                       "\" of the Workload API (spec.schedulingGroup), whose gang "
                                       "scheduling trimaran does not implement; schedule it with "
                                       "kube-scheduler, or use trimaran's Coscheduling (a "
                                       "scheduling.x-k8s.io PodGroup and the pod-group label)")})
                      .WithPlugin(kWorkloadSchedulingPlugin)};
  }
  return std::nullopt;
}

}  // namespace trimaran::sched
