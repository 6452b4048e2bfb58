#include "scheduler/metrics_availability_events.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace trimaran::sched {

std::optional<kube::Pod> SelfPodFromEnvironment(absl::FunctionRef<const char*(const char*)> env) {
  auto read = [&](const char* name) {
    const char* v = env(name);
    return std::string(v == nullptr ? "" : v);
  };
  kube::Pod self;
  self.metadata.name = read("POD_NAME");
  self.metadata.namespace_name = read("POD_NAMESPACE");
  self.metadata.uid = read("POD_UID");
  if (self.metadata.name.empty() || self.metadata.namespace_name.empty()) return std::nullopt;
  return self;
}

MetricsAvailabilityEvents::MetricsAvailabilityEvents(EventRecorder& recorder,
                                                     std::optional<kube::Pod> self)
    : recorder_(recorder), self_(std::move(self)) {}

void MetricsAvailabilityEvents::MetricsUnavailable(absl::string_view plugin,
                                                   absl::string_view source,
                                                   absl::string_view why) {
  const std::string note =
      absl::StrCat(plugin, " cannot use the load metrics of ", source, ": ", why);
  Log(Component::kPlugin).warn("{}", note);
  if (self_.has_value()) {
    recorder_.Eventf(*self_, nullptr, EventType::kWarning, kLoadMetricsUnavailableReason,
                     "Scheduling", note);
  }
}

void MetricsAvailabilityEvents::MetricsAvailable(absl::string_view plugin,
                                                 absl::string_view source) {
  const std::string note = absl::StrCat(plugin, " uses the load metrics of ", source, " again");
  Log(Component::kPlugin).info("{}", note);
  if (self_.has_value()) {
    recorder_.Eventf(*self_, nullptr, EventType::kNormal, kLoadMetricsAvailableReason, "Scheduling",
                     note);
  }
}

}  // namespace trimaran::sched
