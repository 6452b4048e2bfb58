#pragma once
// Imports the Alibaba GPU-2023 trace (openb, cluster-trace-gpu-v2023; spec
// dashboard-and-simulator.md §B2, §B5) into the simulator's trace (trace.h). The
// project's pod columns reuse openb's names, so the mapping is near identity:
//
//   openb_pod_list_*.csv  name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
//                         pod_phase, creation_time, deletion_time, scheduled_time
//     → pods with the same values. deletion_time empty or 0 (0 only for a pod created
//     after 0): no end, the pod runs to the end of the simulation. scheduled_time empty
//     (or 0 for a pod created after 0): never scheduled in the recording; such pods are
//     kept (they are demand the cluster did not meet) unless skip_unscheduled. With
//     EndMode::kFromBind a scheduled pod's end becomes duration = deletion_time −
//     scheduled_time (a late bind in the simulation then ends late); the default,
//     kAbsolute, keeps deletion_time. pod_phase is carried as the label "pod_phase".
//   openb_node_list_*.csv sn, cpu_milli, memory_mib, gpu, model
//     → node groups by shape (imported_trace.h), the GPU count and model as the group
//     labels trimaran.io/gpu-count and trimaran.io/gpu-model. The simulator does not
//     model GPUs: pods are placed by CPU and memory only.
//
// The files have a header row in the published CSVs; columns are then taken by name, a
// headerless file positionally in the order above (import_csv.h). A malformed row is
// InvalidArgument with file:line; rows skipped (duplicate name, deletion before
// creation) are counted in ImportedTrace::skipped.
//
// Thread-safety: pure functions.

#include <vector>

#include "absl/status/statusor.h"
#include "sim/imported_trace.h"

namespace trimaran::sim {

struct OpenbInput {
  std::vector<TraceFile> pod_lists;
  TraceFile node_list;
};

struct OpenbOptions {
  enum class EndMode { kAbsolute, kFromBind };
  EndMode end = EndMode::kAbsolute;
  bool skip_unscheduled = false;
  NodeGroupOptions nodes = {.prefix = "openb"};
};

absl::StatusOr<ImportedTrace> ImportOpenb(const OpenbInput& input, const OpenbOptions& options);

}  // namespace trimaran::sim
