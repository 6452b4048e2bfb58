#pragma once
// TargetLoadPackingArgs (kubescheduler.config.k8s.io/v1, spec §2.1 and §6), decoded from
// a pluginConfig entry's `args`, defaulted and validated here:
//
//   args:
//     targetUtilization: 40             # T, percent (default 40; <= 0 -> 40 as upstream)
//     defaultRequests: {cpu: 1000m}     # D: best-effort containers (default {cpu: 1000m})
//     defaultRequestsMultiplier: "1.5"  # m: requests-only containers (a string, as upstream)
//     resources:                        # Trimaran: also pack on memory (default: cpu only)
//       - {name: cpu, weight: 1}                          # targetUtilization defaults to T
//       - {name: memory, weight: 1, targetUtilization: 60}
//     # plus the shared TrimaranSpec fields (trimaran/trimaran_spec.h): metricProvider,
//     # watcherAddress, metricsMaxAge, fallback
//
// Validation (every error, each with its field path): targetUtilization in [1, 100]
// (upstream does not validate; T > 100 yields scores above 100); the multiplier parses
// as a finite number >= 0 ("unable to parse DefaultRequestsMultiplier: ..."); the
// defaultRequests quantities parse and are >= 0; resources: name cpu or memory, each at
// most once, weight in [1, 100], targetUtilization in [1, 100]; plus TrimaranSpec's.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/api/resource_list.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins {

struct TargetLoadPackingResource {
  std::string name;  // "cpu" or "memory"
  int64_t weight = 1;
  int64_t target_utilization = 40;  // percent

  friend bool operator==(const TargetLoadPackingResource&,
                         const TargetLoadPackingResource&) = default;
};

struct TargetLoadPackingArgs {
  load_aware::TrimaranSpec trimaran;
  int64_t target_utilization = 40;
  // In the pod's units: cpu millicores, memory bytes (absent: 0).
  int64_t default_requests_milli_cpu = 1000;
  int64_t default_requests_memory = 0;
  std::string default_requests_multiplier = "1.5";
  double multiplier = 1.5;  // parsed default_requests_multiplier
  // Never empty after decoding: [{cpu, 1, target_utilization}] by default.
  std::vector<TargetLoadPackingResource> resources;

  friend bool operator==(const TargetLoadPackingArgs&, const TargetLoadPackingArgs&) = default;
};

TargetLoadPackingArgs DefaultTargetLoadPackingArgs();

// Decodes `args.args` (Null: all defaults), defaults and validates; InvalidArgument
// listing every field error. `apiVersion` is accepted; `kind`, when present, must be
// "TargetLoadPackingArgs".
absl::StatusOr<TargetLoadPackingArgs> DecodeTargetLoadPackingArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
