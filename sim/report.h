#pragma once
// The simulator's report: every profile's ProfileResult as one JSON document
// (schema in docs/simulator.md), with the first profile as the baseline and each
// other profile's deltas against it.
//
// Thread-safety: pure functions.

#include <string>
#include <vector>

#include "sim/simulator.h"
#include "sim/trace.h"

namespace trimaran::sim {

inline constexpr int kSimReportSchemaVersion = 1;

struct SimReportInput {
  std::string trace;        // the trace's path, as given
  std::string node_groups;  // the node groups' path ("" for the built-in default)
  uint64_t seed = 1;
  const ClusterSpec* cluster = nullptr;
  std::vector<ProfileResult> profiles;
};

std::string FormatSimReportJson(const SimReportInput& input);

}  // namespace trimaran::sim
