#pragma once
// CoschedulingArgs (kubernetes-sigs/scheduler-plugins, config.x-k8s.io CoschedulingArgs):
//
//   args:
//     permitWaitingTimeSeconds: 60   # how long a member waits at Permit when its
//                                    # PodGroup sets no scheduleTimeoutSeconds; 1..900
//     podGroupBackoffSeconds: 0      # after a group is rejected in PostFilter, its pods
//                                    # are refused at PreFilter this long; 0 = off
//     podGroupRejectPercentage: 10   # PostFilter rejects the group's waiting pods only
//                                    # when more than this % of minMember is missing; 0..100
//
// Thread-safety: plain values and pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched::plugins {

struct CoschedulingArgs {
  int64_t permit_waiting_time_seconds = 60;
  int64_t pod_group_backoff_seconds = 0;
  int32_t pod_group_reject_percentage = 10;

  absl::Duration permit_waiting_time() const { return absl::Seconds(permit_waiting_time_seconds); }
  absl::Duration pod_group_backoff() const { return absl::Seconds(pod_group_backoff_seconds); }

  friend bool operator==(const CoschedulingArgs&, const CoschedulingArgs&) = default;
};

// Decodes `args.args` (Null: all defaults) and validates it: unknown fields, wrong types
// and out-of-range values are field errors naming their path, all reported together as
// InvalidArgument (joined with "; ").
absl::StatusOr<CoschedulingArgs> DecodeCoschedulingArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
