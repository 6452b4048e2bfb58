#include "common/stats/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/read_file.h"
#include "common/version.h"

namespace trimaran::stats {
namespace {

// btime from /proc/stat, seconds since the epoch; 0 when unknown.
double BootTimeSeconds() {
  static const double kBoot = [] {
    for (absl::string_view line : absl::StrSplit(ReadFileOrEmpty("/proc/stat"), '\n')) {
      if (absl::ConsumePrefix(&line, "btime ")) {
        double v = 0;
        if (absl::SimpleAtod(line, &v)) return v;
      }
    }
    return 0.0;
  }();
  return kBoot;
}

std::optional<double> OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace

std::optional<ProcessStats> ParseProcStat(absl::string_view stat, long ticks_per_second,
                                          long page_size, double boot_time_seconds) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses; fields resume
  // after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == absl::string_view::npos || ticks_per_second <= 0) return std::nullopt;
  std::vector<absl::string_view> f = absl::StrSplit(stat.substr(close + 1), ' ', absl::SkipEmpty());
  // f[0] is field 3 (state): field N is f[N - 3]. utime 14, stime 15, starttime 22,
  // vsize 23, rss 24 (pages).
  if (f.size() < 22) return std::nullopt;
  double utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
  if (!absl::SimpleAtod(f[11], &utime) || !absl::SimpleAtod(f[12], &stime) ||
      !absl::SimpleAtod(f[19], &start) || !absl::SimpleAtod(f[20], &vsize) ||
      !absl::SimpleAtod(f[21], &rss)) {
    return std::nullopt;
  }
  const double ticks = static_cast<double>(ticks_per_second);
  return ProcessStats{.cpu_seconds = (utime + stime) / ticks,
                      .virtual_bytes = vsize,
                      .resident_bytes = rss * static_cast<double>(page_size),
                      .start_time_seconds = boot_time_seconds + start / ticks};
}

std::optional<ProcessStats> ReadProcessStats() {
  return ParseProcStat(ReadFileOrEmpty("/proc/self/stat"), sysconf(_SC_CLK_TCK),
                       sysconf(_SC_PAGESIZE), BootTimeSeconds());
}

void RegisterProcessMetrics(Registry& registry) {
  // Each callback returns NaN when /proc cannot be read (not exported as a sample value
  // anyone would trust; see the header).
  auto stat_field = [](double ProcessStats::*field) {
    return [field]() -> double {
      std::optional<ProcessStats> s = ReadProcessStats();
      return s.has_value() ? (*s).*field : std::numeric_limits<double>::quiet_NaN();
    };
  };
  registry
      .CallbackCounterFamily("process_cpu_seconds_total",
                             "Total user and system CPU time spent in seconds.")
      .WithLabels({})
      .Set(stat_field(&ProcessStats::cpu_seconds));
  registry.CallbackGaugeFamily("process_resident_memory_bytes", "Resident memory size in bytes.")
      .WithLabels({})
      .Set(stat_field(&ProcessStats::resident_bytes));
  registry.CallbackGaugeFamily("process_virtual_memory_bytes", "Virtual memory size in bytes.")
      .WithLabels({})
      .Set(stat_field(&ProcessStats::virtual_bytes));
  registry
      .CallbackGaugeFamily("process_start_time_seconds",
                           "Start time of the process since unix epoch in seconds.")
      .WithLabels({})
      .Set(stat_field(&ProcessStats::start_time_seconds));
  registry.CallbackGaugeFamily("process_open_fds", "Number of open file descriptors.")
      .WithLabels({})
      .Set([] {
        std::optional<double> n = OpenFds();
        return n.value_or(std::numeric_limits<double>::quiet_NaN());
      });
  registry.CallbackGaugeFamily("process_max_fds", "Maximum number of open file descriptors.")
      .WithLabels({})
      .Set([] {
        rlimit r{};
        if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) {
          return std::numeric_limits<double>::quiet_NaN();
        }
        return static_cast<double>(r.rlim_cur);
      });
}

void RegisterBuildInfo(Registry& registry, absl::string_view prefix) {
#if defined(__clang__)
  const std::string compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  const std::string compiler = std::string("gcc ") + __VERSION__;
#else
  const std::string compiler = "unknown";
#endif
  registry
      .GaugeFamily(std::string(prefix) + "build_info",
                   "A metric with a constant '1' value labeled by the version, the compiler and "
                   "the Kubernetes versions this build follows.",
                   {"version", "compiler", "kubernetes"})
      .WithLabels({kVersion, compiler, kCompatibleKubernetes})
      .Set(1);
}

}  // namespace trimaran::stats
