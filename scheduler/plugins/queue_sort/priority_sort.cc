#include "scheduler/plugins/queue_sort/priority_sort.h"

#include <cstdint>

#include "kube/api/pod.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> PrioritySort::New(const PluginArgs& /*args*/,
                                                          Handle& /*handle*/) {
  return std::make_unique<PrioritySort>();
}

PluginDescriptor PrioritySort::Descriptor() { return DescriptorFor<PrioritySort>(); }

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  // A QueuedPodInfo without a pod should not exist; treat it as priority 0.
  const int32_t pa = a.pod != nullptr ? kube::PodPriority(*a.pod) : 0;
  const int32_t pb = b.pod != nullptr ? kube::PodPriority(*b.pod) : 0;
  if (pa != pb) return pa > pb;
  return a.timestamp < b.timestamp;
}

}  // namespace trimaran::sched::plugins
