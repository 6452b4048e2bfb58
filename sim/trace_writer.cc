#include "sim/trace_writer.h"

#include <cmath>
#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace trimaran::sim {
namespace {

// Seconds as written to the CSV: whole numbers plainly, else three decimals.
std::string Num(double v) {
  return v == std::floor(v) ? absl::StrFormat("%.0f", v) : absl::StrFormat("%.3f", v);
}

std::string OptSeconds(const std::optional<double>& v) {
  return v.has_value() ? Num(*v) : std::string();
}

std::string OptInt(const std::optional<int64_t>& v) {
  return v.has_value() ? absl::StrCat(*v) : std::string();
}

struct Column {
  const char* name;
  // Whether the column is written when no pod sets it.
  bool always;
  std::function<bool(const TracePod&)> is_set;
  std::function<std::string(const TracePod&)> cell;
};

const std::vector<Column>& Columns() {
  static const auto* kColumns = new std::vector<Column>{
      {"name", true, nullptr, [](const TracePod& p) { return p.name; }},
      {"creation_time", true, nullptr, [](const TracePod& p) { return Num(p.creation_time); }},
      {"duration", true, nullptr, [](const TracePod& p) { return OptSeconds(p.duration); }},
      {"deletion_time", true, nullptr,
       [](const TracePod& p) { return OptSeconds(p.deletion_time); }},
      {"cpu_milli", true, nullptr, [](const TracePod& p) { return absl::StrCat(p.cpu_milli); }},
      {"memory_mib", true, nullptr, [](const TracePod& p) { return absl::StrCat(p.memory_mib); }},
      {"priority", true, nullptr, [](const TracePod& p) { return absl::StrCat(p.priority); }},
      {"group", true, nullptr, [](const TracePod& p) { return p.group; }},
      {"role", true, nullptr, [](const TracePod& p) { return p.role; }},
      {"cpu_use_milli", true, nullptr, [](const TracePod& p) { return OptInt(p.cpu_use_milli); }},
      {"memory_use_mib", true, nullptr, [](const TracePod& p) { return OptInt(p.memory_use_mib); }},
      {"usage", true, nullptr,
       [](const TracePod& p) {
         std::vector<std::string> points;
         for (const UsagePoint& u : p.usage) {
           points.push_back(absl::StrCat(Num(u.t), ":", u.cpu_milli, ":", u.memory_mib));
         }
         return absl::StrJoin(points, ";");
       }},
      {"labels", false, [](const TracePod& p) { return !p.labels.empty(); },
       [](const TracePod& p) { return absl::StrJoin(p.labels, ";", absl::PairFormatter("=")); }},
      {"cpu_limit_milli", false, [](const TracePod& p) { return p.cpu_limit_milli.has_value(); },
       [](const TracePod& p) { return OptInt(p.cpu_limit_milli); }},
      {"cpu_use_max_milli", false,
       [](const TracePod& p) { return p.cpu_use_max_milli.has_value(); },
       [](const TracePod& p) { return OptInt(p.cpu_use_max_milli); }},
      {"num_gpu", false, [](const TracePod& p) { return p.num_gpu != 0; },
       [](const TracePod& p) { return absl::StrCat(p.num_gpu); }},
      {"gpu_milli", false, [](const TracePod& p) { return p.gpu_milli != 0; },
       [](const TracePod& p) { return absl::StrCat(p.gpu_milli); }},
      {"gpu_spec", false, [](const TracePod& p) { return !p.gpu_spec.empty(); },
       [](const TracePod& p) { return p.gpu_spec; }},
      {"qos", false, [](const TracePod& p) { return !p.qos.empty(); },
       [](const TracePod& p) { return p.qos; }},
      {"depends_on", false, [](const TracePod& p) { return !p.depends_on.empty(); },
       [](const TracePod& p) { return absl::StrJoin(p.depends_on, ";"); }},
      {"orig_node", false, [](const TracePod& p) { return !p.orig_node.empty(); },
       [](const TracePod& p) { return p.orig_node; }},
      {"scheduled_time", false, [](const TracePod& p) { return p.scheduled_time.has_value(); },
       [](const TracePod& p) { return OptSeconds(p.scheduled_time); }},
  };
  return *kColumns;
}

}  // namespace

std::string FormatPodsCsv(const std::vector<TracePod>& pods) {
  std::vector<const Column*> columns;
  for (const Column& c : Columns()) {
    bool used = c.always;
    for (size_t i = 0; !used && i < pods.size(); ++i) used = c.is_set(pods[i]);
    if (used) columns.push_back(&c);
  }
  std::string out;
  absl::StrAppend(
      &out,
      absl::StrJoin(columns, ",", [](std::string* o, const Column* c) { o->append(c->name); }),
      "\n");
  for (const TracePod& p : pods) {
    absl::StrAppend(&out,
                    absl::StrJoin(columns, ",",
                                  [&p](std::string* o, const Column* c) { o->append(c->cell(p)); }),
                    "\n");
  }
  return out;
}

std::string FormatClusterYaml(const ClusterSpec& cluster) {
  std::string out = "nodeGroups:\n";
  for (const NodeGroup& g : cluster.groups) {
    absl::StrAppendFormat(&out,
                          "  - name: \"%s\"\n    instanceType: \"%s\"\n    cpuMilli: %d\n"
                          "    memoryMiB: %d\n    pods: %d\n    pricePerHour: %.6g\n"
                          "    min: %d\n    max: %d\n    initial: %d\n    startupDelay: %s\n",
                          g.name, g.instance_type, g.cpu_milli, g.memory_mib, g.pods,
                          g.price_per_hour, g.min, g.max, g.initial, Num(g.startup_delay));
    if (!g.labels.empty()) {
      out += "    labels:\n";
      for (const auto& [k, v] : g.labels) absl::StrAppend(&out, "      \"", k, "\": \"", v, "\"\n");
    }
  }
  const AutoscalerConfig& a = cluster.autoscaler;
  absl::StrAppend(&out, "autoscaler:\n  enabled: ", a.enabled ? "true" : "false",
                  "\n  expander: ", ExpanderName(a.expander),
                  "\n  scanInterval: ", Num(a.scan_interval),
                  "\n  scaleDownUnneededTime: ", Num(a.scale_down_unneeded_time),
                  "\n  scaleDownUtilizationThreshold: ", a.scale_down_utilization_threshold,
                  "\n  scaleDownDelayAfterAdd: ", Num(a.scale_down_delay_after_add),
                  "\n  maxEmptyBulkDelete: ", a.max_empty_bulk_delete,
                  "\n  maxDrainParallelism: ", a.max_drain_parallelism,
                  "\n  maxNodesPerScaleUp: ", a.max_nodes_per_scale_up,
                  "\n  consolidation: ", ConsolidationName(a.consolidation),
                  "\n  consolidateAfter: ", Num(a.consolidate_after), "\n");
  return out;
}

}  // namespace trimaran::sim
