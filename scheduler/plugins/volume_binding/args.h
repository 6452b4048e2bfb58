#pragma once
// VolumeBindingArgs (kubescheduler.config.k8s.io/v1, spec kube-scheduler-constraints.md
// §4.1):
//
//   args:
//     bindTimeoutSeconds: 600   # >= 0; how long PreBind waits for the claims to be bound
//
// `shape` belongs to the VolumeCapacityPriority feature (alpha, off upstream through
// 1.31, not implemented here): setting it is an error, as upstream with the gate off.
// Unknown fields are errors; every error names its field path; `kind`, when present,
// must be "VolumeBindingArgs".
//
// Thread-safety: plain values and pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched::plugins {

struct VolumeBindingArgs {
  int64_t bind_timeout_seconds = 600;

  friend bool operator==(const VolumeBindingArgs&, const VolumeBindingArgs&) = default;
};

absl::StatusOr<VolumeBindingArgs> DecodeVolumeBindingArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
