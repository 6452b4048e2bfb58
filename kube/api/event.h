#pragma once
// Event (events.k8s.io/v1): what the scheduler reports about a pod (Scheduled,
// FailedScheduling, Preempted). Times are MicroTime (microsecond precision on the wire).
// Repeated isomorphic events are folded into `series` by the recorder.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "kube/api/object_meta.h"
#include "kube/api/object_reference.h"

namespace trimaran::kube {

inline constexpr std::string_view kEventTypeNormal = "Normal";
inline constexpr std::string_view kEventTypeWarning = "Warning";

struct EventSeries {
  int32_t count = 0;
  std::optional<absl::Time> last_observed_time;

  bool operator==(const EventSeries&) const = default;
};

struct Event {
  ObjectMeta metadata;
  std::optional<absl::Time> event_time;
  std::optional<EventSeries> series;
  std::string reporting_controller;
  std::string reporting_instance;
  std::string action;  // "Binding", "Scheduling", "Preempting"
  std::string reason;  // "Scheduled", "FailedScheduling", "Preempted"
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  std::string note;  // at most 1 KiB, enforced by the recorder
  std::string type;  // kEventTypeNormal or kEventTypeWarning

  bool operator==(const Event&) const = default;
};

}  // namespace trimaran::kube
