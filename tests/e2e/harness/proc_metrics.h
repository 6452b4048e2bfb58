#pragma once
// What e2e tests and benchmarks read from a daemon under test: a sample summed out of a
// Prometheus text exposition (its /metrics), and a field of /proc/<pid>/status.
//
//   double bound = SumSamples(Curl(metrics_url), "scheduler_schedule_attempts_total",
//                             {R"(result="scheduled")"});
//   int64_t rss_kb = ProcStatusKb(sched.process->pid(), "VmRSS");
//
// Thread-safety: plain functions, reentrant.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace trimaran::e2e {

// The sum of the samples of `name` (exactly: the series name before '{' or ' ') whose
// labels contain every one of `labels` (e.g. R"(le="1.024")"); 0 when there is none.
double SumSamples(const std::string& exposition, absl::string_view name,
                  const std::vector<std::string>& labels = {});

// A /proc/<pid>/status field in kB ("VmRSS", "VmHWM"); -1 when unreadable.
int64_t ProcStatusKb(pid_t pid, absl::string_view field);

}  // namespace trimaran::e2e
