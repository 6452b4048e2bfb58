#include "sim/generator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trimaran::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

double Diurnal(const GenOptions& o, double t) {
  return 1 + o.diurnal_amplitude * std::sin(2 * kPi * (t / 86400.0 - 0.25));
}

int64_t MemoryRequest(int64_t heap_mib) {
  return heap_mib + std::max<int64_t>(static_cast<int64_t>(0.10 * heap_mib), 384);
}

}  // namespace

absl::StatusOr<std::vector<TracePod>> GenerateSparkTrace(const GenOptions& o) {
  if (o.hours <= 0 || o.apps_per_hour < 0 || o.diurnal_amplitude < 0 || o.diurnal_amplitude > 1 ||
      o.min_executors < 1 || o.max_executors < o.min_executors || o.executor_median_minutes <= 0 ||
      o.services < 0 || o.service_replicas < 0) {
    return absl::InvalidArgumentError(
        "gen: need hours > 0, apps-per-hour >= 0, 0 <= diurnal <= 1, 1 <= min-executors <= "
        "max-executors, executor-minutes > 0, services and replicas >= 0");
  }
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const double horizon = o.hours * 3600;
  std::vector<TracePod> pods;

  // Steady services.
  for (int s = 0; s < o.services; ++s) {
    for (int r = 0; r < o.service_replicas; ++r) {
      TracePod p;
      p.name = absl::StrFormat("svc%d-%d", s, r);
      p.creation_time = 0;
      p.cpu_milli = 500;
      p.memory_mib = 1024;
      p.group = absl::StrFormat("svc%d", s);
      p.role = "service";
      for (double t = 0; t < horizon; t += 1800) {
        p.usage.push_back({t, static_cast<int64_t>(250 * Diurnal(o, t)), 700});
      }
      pods.push_back(std::move(p));
    }
  }

  // Applications: Poisson arrivals with a diurnal rate, by thinning.
  const double peak_rate = o.apps_per_hour * (1 + o.diurnal_amplitude) / 3600;
  std::exponential_distribution<double> gap(peak_rate > 0 ? peak_rate : 1);
  std::lognormal_distribution<double> run(std::log(o.executor_median_minutes * 60), 0.6);
  const double log_min = std::log(static_cast<double>(o.min_executors));
  const double log_max = std::log(static_cast<double>(o.max_executors) + 1);
  int app = 0;
  for (double t = peak_rate > 0 ? gap(rng) : horizon; t < horizon; t += gap(rng)) {
    if (unit(rng) * (1 + o.diurnal_amplitude) > Diurnal(o, t)) continue;
    const double arrival = std::round(t);
    const std::string group = absl::StrFormat("app%04d", app++);
    const int executors = std::min(
        o.max_executors, static_cast<int>(std::exp(log_min + unit(rng) * (log_max - log_min))));
    static constexpr int64_t kCores[] = {1, 2, 4};
    const int64_t cores = kCores[std::uniform_int_distribution<int>(0, 2)(rng)];
    const int64_t heap = 1024 * std::uniform_int_distribution<int64_t>(4, 16)(rng);
    const int waves = std::uniform_int_distribution<int>(1, 3)(rng);
    double driver_end = arrival;
    int made = 0;
    for (int w = 0; w < waves; ++w) {
      const int count = w == waves - 1
                            ? executors - made
                            : static_cast<int>(executors * (0.3 + 0.4 * unit(rng)) / waves);
      const double start = std::round(t + 30 + w * 60 * (5 + 10 * unit(rng)));
      for (int e = 0; e < count; ++e, ++made) {
        TracePod p;
        p.name = absl::StrFormat("%s-exec-%d", group, made);
        p.creation_time = start;
        p.cpu_milli = cores * 1000;
        p.memory_mib = MemoryRequest(heap);
        p.group = group;
        p.role = "executor";
        p.duration = std::max(60.0, std::round(run(rng)));
        // Busy ~90 % of the request while tasks run, ~10 % between stages; memory
        // climbs towards the heap.
        bool busy = true;
        for (double u = 0; u < *p.duration; u += 60 * (2 + 6 * unit(rng)), busy = !busy) {
          const double frac = std::min(1.0, 0.3 + u / *p.duration);
          p.usage.push_back({std::round(u), static_cast<int64_t>(p.cpu_milli * (busy ? 0.9 : 0.1)),
                             static_cast<int64_t>(heap * frac)});
        }
        driver_end = std::max(driver_end, start + *p.duration);
        pods.push_back(std::move(p));
      }
    }
    TracePod d;
    d.name = absl::StrFormat("%s-driver", group);
    d.creation_time = arrival;
    d.cpu_milli = 1000;
    d.memory_mib = MemoryRequest(2048);
    d.group = group;
    d.role = "driver";
    // The driver ends a minute after its last executor would (on an unhurried cluster).
    d.duration = driver_end - arrival + 60;
    d.cpu_use_milli = 300;
    d.memory_use_mib = 1500;
    pods.push_back(std::move(d));
  }
  std::stable_sort(pods.begin(), pods.end(), [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  });
  return pods;
}

}  // namespace trimaran::sim
