#include "sim/imported_trace.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trimaran::sim {

ClusterSpec GroupRecordedNodes(const std::vector<RecordedNode>& nodes,
                               const NodeGroupOptions& options) {
  using Shape = std::tuple<int64_t, int64_t, std::map<std::string, std::string>, std::string>;
  std::map<Shape, int> counts;
  for (const RecordedNode& n : nodes) {
    ++counts[Shape{n.cpu_milli, n.memory_mib, n.labels, n.name_suffix}];
  }
  ClusterSpec spec;
  for (const auto& [shape, count] : counts) {
    const auto& [cpu, mem, labels, suffix] = shape;
    NodeGroup g;
    g.name = absl::StrFormat("%s-%gc-%gg", options.prefix, cpu / 1000.0, mem / 1024.0);
    if (!suffix.empty()) absl::StrAppend(&g.name, "-", suffix);
    for (char& c : g.name) {
      c = absl::ascii_isalnum(c) || c == '-' ? absl::ascii_tolower(c) : '-';
    }
    g.instance_type = g.name;
    g.cpu_milli = cpu;
    g.memory_mib = mem;
    g.labels = labels;
    g.price_per_hour = cpu / 1000.0 * options.price_per_cpu_hour;
    g.max = count;
    g.initial = count;
    g.min = options.fixed_nodes ? count : 0;
    spec.groups.push_back(std::move(g));
  }
  return spec;
}

std::string SafeCell(absl::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == ',' || c == ';' || c == '=' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  return out;
}

std::string FormatImportSummary(const ImportedTrace& trace) {
  int64_t nodes = 0;
  for (const NodeGroup& g : trace.cluster.groups) nodes += g.initial;
  int64_t points = 0;
  for (const TracePod& p : trace.pods) points += static_cast<int64_t>(p.usage.size());
  std::string out =
      absl::StrCat("  pods: ", trace.pods.size(), " (usage points: ", points, ")\n  nodes: ", nodes,
                   " in ", trace.cluster.groups.size(), " groups\n");
  for (const std::string& h : trace.headers)
    absl::StrAppend(&out, "  header row skipped: ", h, "\n");
  for (const auto& [reason, n] : trace.skipped) {
    absl::StrAppend(&out, "  skipped (", reason, "): ", n, "\n");
  }
  for (const auto& [reason, n] : trace.adjusted) {
    absl::StrAppend(&out, "  adjusted (", reason, "): ", n, "\n");
  }
  return out;
}

}  // namespace trimaran::sim
