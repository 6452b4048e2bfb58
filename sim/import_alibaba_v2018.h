#pragma once
// Imports the Alibaba cluster-trace-v2018 (spec dashboard-and-simulator.md §B2, §B5
// "Import mappings"; docs/simulator.md "Importing public traces") into the simulator's
// trace (trace.h):
//
//   batch_instance + batch_task → batch pods, one per `Terminated` instance row:
//     creation = start_time, duration = end_time − start_time (run time from bind),
//     cpu_milli = plan_cpu × 10 (100 = 1 core), memory_mib = plan_mem / 100 × ref_mem_mib,
//     cpu_use_milli = cpu_avg × 10, cpu_use_max_milli = cpu_max × 10,
//     memory_use_mib = mem_avg / 100 × ref_mem_mib, group = job_name, role = task_name,
//     depends_on = the DAG ("M5_3_4" → "job/<task 3>;job/<task 4>"), qos BE,
//     orig_node = machine_id, scheduled_time = start_time.
//   container_meta → long-running pods, one per container (its earliest row):
//     creation = time_stamp, no end, cpu_milli = cpu_request × 10,
//     cpu_limit_milli = cpu_limit × 10, memory_mib = mem_size / 100 × ref_mem_mib,
//     group = app_du, role = "service", qos LS, orig_node = machine_id.
//   container_usage → the containers' usage profiles: t = time_stamp − creation,
//     cpu = cpu_util_percent / 100 × base, memory = mem_util_percent / 100 × base, where
//     the base is the container's request (UtilBase::kRequest, the default) or its
//     machine's capacity (kMachine). Which one the trace means is not documented.
//   machine_meta → node groups by shape (imported_trace.h), one machine per machine_id
//     (its earliest row): cpu_milli = cpu_num × 1000, memory = mem_size / 100 ×
//     ref_mem_mib.
//
// The files are positional CSV (columns in schema.txt's order; import_csv.h for the
// optional header). A malformed row (wrong cell count, a number that does not parse) is
// InvalidArgument with file:line. Rows the mapping cannot use are skipped and counted in
// ImportedTrace::skipped: non-Terminated instances, times of 0 ("outside the 8-day
// span"), an end before the start, a missing task, invalid normalised requests (-1, 101
// or outside [0, 100]), invalid usage points. An invalid usage value of an otherwise good
// pod is left unset (the pod uses its requests) and counted in `adjusted`.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/imported_trace.h"

namespace trimaran::sim {

struct AlibabaV2018Input {
  TraceFile batch_task;
  TraceFile batch_instance;
  TraceFile container_meta;
  TraceFile container_usage;
  TraceFile machine_meta;
};

struct AlibabaV2018Options {
  // The memory of a machine whose normalised mem_size is 100 (the trace normalises to the
  // largest machine; its real size is not published). Default 384 GiB: the trace's
  // 96-core machines at 4 GiB per core, the general-purpose (m5) ratio of the
  // simulator's default node group.
  int64_t ref_mem_mib = 384 * 1024;
  enum class UtilBase { kRequest, kMachine };
  UtilBase util_base = UtilBase::kRequest;
  NodeGroupOptions nodes = {.prefix = "ali"};
};

absl::StatusOr<ImportedTrace> ImportAlibabaV2018(const AlibabaV2018Input& input,
                                                 const AlibabaV2018Options& options);

// The DAG edges of a task name: "M5_3_4" → {5, {3, 4}}; "M1" → {1, {}}; a name that does
// not follow the pattern (letters, then numbers joined by '_') → nullopt (independent).
struct TaskDag {
  int index = 0;
  std::vector<int> depends_on;
};
std::optional<TaskDag> ParseTaskDag(absl::string_view task_name);

}  // namespace trimaran::sim
