#pragma once
// What an importer (import_alibaba_v2018.h, import_openb.h) produces: the simulator's own
// trace (pods, and the recorded machines as node groups) plus the counts of rows it
// skipped or adjusted, by reason, for the report the CLI prints.
//
// Recorded machines become node groups by shape: one group per distinct (CPU, memory,
// labels), named "<prefix>-<cores>c-<GiB>g[-<label suffix>]", with `initial` = `max` =
// the machines of that shape (min 0, or the same count with fixed_nodes), a price of
// cores × price_per_cpu_hour and the simulator's default start-up delay.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/trace.h"

namespace trimaran::sim {

// One table's text and the name used in messages; absent when `name` is empty.
struct TraceFile {
  std::string name;
  std::string text;
  bool present() const { return !name.empty(); }
};

struct ImportedTrace {
  std::vector<TracePod> pods;
  // Empty groups: the source had no machine list (simulate then uses its default).
  ClusterSpec cluster;
  // Rows (or usage points, machines) left out, by reason ("batch_instance: status not
  // Terminated").
  std::map<std::string, int64_t> skipped;
  // Values kept but changed or dropped (an invalid usage value left unset), by reason.
  std::map<std::string, int64_t> adjusted;
  // Header rows found and skipped, by file.
  std::vector<std::string> headers;
};

// A recorded machine, before grouping.
struct RecordedNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // Group labels (e.g. the GPU model); part of the shape.
  std::map<std::string, std::string> labels;
  // Appended to the group name when not empty ("8xv100m32").
  std::string name_suffix;
};

struct NodeGroupOptions {
  std::string prefix = "node";
  // USD per vCPU-hour: m5.xlarge's $0.192/h over 4 vCPUs (us-east-1 on demand, the
  // simulator's default node group).
  double price_per_cpu_hour = 0.048;
  // min = max = initial: a fixed cluster (else min 0, so the autoscaler may remove).
  bool fixed_nodes = false;
};

// Groups `nodes` by shape (sorted by name for a stable output); CA's default autoscaler
// settings.
ClusterSpec GroupRecordedNodes(const std::vector<RecordedNode>& nodes,
                               const NodeGroupOptions& options);

// A text cell made safe for the trace's unquoted CSV and list syntax: ',', ';', '=',
// and control characters become '_'.
std::string SafeCell(absl::string_view s);

// "  pods: 12\n  skipped (batch_instance: status not Terminated): 1\n ..."
std::string FormatImportSummary(const ImportedTrace& trace);

}  // namespace trimaran::sim
