#pragma once
// `trimaranctl simulate gen`: a seeded Spark-like trace generator (spec
// dashboard-and-simulator.md §B5 "Spark-like generator"; docs/simulator.md):
//
//   - Applications arrive as a Poisson process at apps_per_hour, scaled by a diurnal
//     factor 1 + diurnal_amplitude·sin(2π(t/24h − 1/4)) (lowest at midnight, highest at
//     noon), drawn by thinning.
//   - Each application: one driver (1 CPU, 2 GiB heap) and N executors, N log-uniform in
//     [min_executors, max_executors], each asking 1, 2 or 4 CPUs and a 4–16 GiB heap.
//     Memory request = heap + max(0.10 × heap, 384 MiB).
//   - Executors come in 1–3 dynamic-allocation waves (each a random share of N, starting
//     later in the driver's life); run times are lognormal (median
//     executor_median_minutes, σ 0.6); the driver outlives its last executor by a minute.
//   - Usage: executors use ~90 % of their CPU request while tasks run and ~10 % between
//     stages (alternating 2–8 minute stretches); memory rises towards the heap size.
//   - Steady services: `services` apps of `service_replicas` replicas (0.5 CPU, 1 GiB),
//     running the whole trace, CPU following the diurnal curve.
//
// Same options, same trace.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/trace.h"
#include "sim/trace_writer.h"  // FormatPodsCsv, which `gen` writes with

namespace trimaran::sim {

struct GenOptions {
  uint64_t seed = 1;
  double hours = 24;
  double apps_per_hour = 6;
  double diurnal_amplitude = 0.5;
  int min_executors = 2;
  int max_executors = 200;
  double executor_median_minutes = 20;
  int services = 4;
  int service_replicas = 3;
};

absl::StatusOr<std::vector<TracePod>> GenerateSparkTrace(const GenOptions& options);

}  // namespace trimaran::sim
