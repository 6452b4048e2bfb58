#pragma once
// The Prometheus client libraries' standard process collector, and a build-info gauge,
// for both binaries' /metrics (what operators' dashboards expect from any exporter):
//
//   process_cpu_seconds_total        counter  user + system CPU time
//   process_resident_memory_bytes    gauge    RSS
//   process_virtual_memory_bytes     gauge    virtual memory size
//   process_start_time_seconds       gauge    start time, seconds since the epoch
//   process_open_fds                 gauge    open file descriptors
//   process_max_fds                  gauge    the soft RLIMIT_NOFILE
//   <prefix>build_info{version,compiler,kubernetes} 1
//
// Values are read from /proc/self at scrape time (Linux); a value that cannot be read
// is not exported for that scrape.
//
// Thread-safety: registration once, from the owner; the callbacks are safe for concurrent
// scrapes.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "common/stats/registry.h"

namespace trimaran::stats {

// Registers the process_* families in `registry` (their callbacks read /proc/self and
// capture nothing, so they may outlive any owner).
void RegisterProcessMetrics(Registry& registry);

// Registers `<prefix>build_info` = 1 with labels version, compiler and kubernetes (the
// compatible Kubernetes versions), e.g. prefix "trimaran_".
void RegisterBuildInfo(Registry& registry, absl::string_view prefix);

// The readings behind RegisterProcessMetrics, for tests: /proc/self/stat parsed (CPU
// seconds, virtual and resident bytes, start time), nullopt when unreadable.
struct ProcessStats {
  double cpu_seconds = 0;
  double virtual_bytes = 0;
  double resident_bytes = 0;
  double start_time_seconds = 0;
};
std::optional<ProcessStats> ParseProcStat(absl::string_view stat, long ticks_per_second,
                                          long page_size, double boot_time_seconds);
std::optional<ProcessStats> ReadProcessStats();

}  // namespace trimaran::stats
