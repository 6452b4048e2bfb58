#include "scheduler/plugins/scheduling_gates/scheduling_gates.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> SchedulingGates::New(const PluginArgs& /*args*/,
                                                             Handle& /*handle*/) {
  return std::make_unique<SchedulingGates>();
}

PluginDescriptor SchedulingGates::Descriptor() { return DescriptorFor<SchedulingGates>(); }

Status SchedulingGates::PreEnqueue(const kube::Pod& pod) const {
  const auto& gates = pod.spec.scheduling_gates;
  if (gates.empty()) return Status::Success();
  return Status::UnschedulableAndUnresolvable(
             absl::StrCat("waiting for scheduling gates: [",
                          absl::StrJoin(gates, " ",
                                        [](std::string* out, const kube::PodSchedulingGate& g) {
                                          out->append(g.name);
                                        }),
                          "]"))
      .WithPlugin(kName);
}

}  // namespace trimaran::sched::plugins
