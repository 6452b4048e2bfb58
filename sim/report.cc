#include "sim/report.h"

#include "common/json_write.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace trimaran::sim {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// The headline numbers, shared by a profile and its deltas.
struct Headline {
  const char* key;
  double ProfileResult::*field;
};
constexpr Headline kHeadlines[] = {
    {"nodeHours", &ProfileResult::node_hours},
    {"cost", &ProfileResult::cost},
    {"costPerMonth", &ProfileResult::cost_per_month},
    {"pendingP50Seconds", &ProfileResult::pending_p50},
    {"pendingP99Seconds", &ProfileResult::pending_p99},
    {"packingEfficiency", &ProfileResult::packing_efficiency},
    {"hotNodeMinutes", &ProfileResult::hot_node_minutes},
    {"above100CpuNodeMinutes", &ProfileResult::above_100_cpu_node_minutes},
    {"aboveTargetNodeMinutes", &ProfileResult::above_target_node_minutes},
};

void WriteDistribution(Writer& w, const char* key, const Distribution& d) {
  JsonKey(w, key);
  w.StartObject();
  JsonDoubleField(w, "min", d.min);
  JsonDoubleField(w, "p10", d.p10);
  JsonDoubleField(w, "p50", d.p50);
  JsonDoubleField(w, "p90", d.p90);
  JsonDoubleField(w, "max", d.max);
  w.EndObject();
}

void WriteCompaction(Writer& w, const CompactionResult& c) {
  JsonKey(w, "compaction");
  w.StartObject();
  JsonIntField(w, "trials", c.trials);
  JsonDoubleField(w, "everySeconds", c.every);
  JsonIntField(w, "skippedInstants", c.skipped);
  JsonIntField(w, "repacks", c.repacks);
  JsonIntField(w, "schedulerErrors", c.scheduler_errors);
  WriteDistribution(w, "nodes", c.nodes);
  WriteDistribution(w, "ratio", c.ratio);
  JsonKey(w, "instants");
  w.StartArray();
  for (const CompactionInstant& i : c.instants) {
    w.StartObject();
    JsonDoubleField(w, "t", i.t);
    JsonStringField(w, "why", i.why);
    JsonIntField(w, "actual", i.actual);
    JsonIntField(w, "pods", i.pods);
    JsonKey(w, "compacted");
    w.StartArray();
    for (int k : i.compacted) w.Int(k);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteProfile(Writer& w, const ProfileResult& r, const ProfileResult* baseline) {
  w.StartObject();
  JsonStringField(w, "profile", r.profile);
  JsonDoubleField(w, "simulatedSeconds", r.end_time);
  JsonKey(w, "pods");
  w.StartObject();
  JsonIntField(w, "total", r.pods);
  JsonIntField(w, "scheduled", r.scheduled);
  JsonIntField(w, "neverScheduled", r.never_scheduled);
  JsonIntField(w, "evicted", r.evicted);
  JsonIntField(w, "schedulingCycles", r.scheduling_cycles);
  JsonIntField(w, "schedulerErrors", r.scheduler_errors);
  if (!r.first_scheduler_error.empty()) {
    JsonStringField(w, "firstSchedulerError", r.first_scheduler_error);
  }
  w.EndObject();
  for (const Headline& h : kHeadlines) {
    JsonDoubleField(w, h.key, r.*h.field);
  }
  JsonDoubleField(w, "pendingMaxSeconds", r.pending_max);
  JsonIntField(w, "peakNodes", r.peak_nodes);
  JsonKey(w, "peakNodesByGroup");
  w.StartObject();
  for (const auto& [g, n] : r.peak_nodes_by_group) JsonIntField(w, g, n);
  w.EndObject();
  JsonKey(w, "autoscaler");
  w.StartObject();
  JsonIntField(w, "scaleUpEvents", r.scale_up_events);
  JsonIntField(w, "nodesAdded", r.nodes_added);
  JsonIntField(w, "scaleDownEvents", r.scale_down_events);
  JsonIntField(w, "nodesRemoved", r.nodes_removed);
  JsonIntField(w, "consolidationReplacements", r.consolidation_replacements);
  JsonIntField(w, "consolidationMultiNode", r.consolidation_multi_node);
  JsonIntField(w, "consolidationFitChecks", r.consolidation_fit_checks);
  w.EndObject();
  JsonKey(w, "lowerBound");
  w.StartObject();
  JsonDoubleField(w, "cost", r.lower_bound_cost);
  JsonDoubleField(w, "nodeHours", r.lower_bound_node_hours);
  JsonDoubleField(w, "nodeHoursOverLowerBound", r.node_hours_over_lower_bound);
  w.EndObject();
  JsonKey(w, "fallbacks");
  w.StartObject();
  for (const auto& [what, count] : r.fallbacks) JsonIntField(w, what, count);
  w.EndObject();
  JsonDoubleField(w, "memoryOverAllocatableNodeMinutes", r.memory_over_allocatable_node_minutes);
  JsonDoubleField(w, "peakNodeCpuUsage", r.peak_node_cpu_usage);
  JsonKey(w, "cpuUsageHistogram");
  w.StartArray();
  for (int64_t c : r.cpu_usage_histogram) w.Int64(c);
  w.EndArray();
  WriteCompaction(w, r.compaction);
  if (baseline != nullptr) {
    JsonKey(w, "deltaVsBaseline");
    w.StartObject();
    for (const Headline& h : kHeadlines) {
      JsonDoubleField(w, h.key, r.*h.field - baseline->*h.field);
    }
    JsonIntField(w, "peakNodes", r.peak_nodes - baseline->peak_nodes);
    JsonDoubleField(w, "compactionRatioP50",
                    r.compaction.ratio.p50 - baseline->compaction.ratio.p50);
    w.EndObject();
  }
  JsonKey(w, "timeline");
  w.StartArray();
  for (const TimelinePoint& p : r.timeline) {
    w.StartObject();
    JsonDoubleField(w, "t", p.t);
    JsonIntField(w, "nodes", p.nodes);
    JsonIntField(w, "pending", p.pending);
    JsonIntField(w, "running", p.running);
    JsonDoubleField(w, "costPerHour", p.cost_per_hour);
    JsonDoubleField(w, "lowerBoundCostPerHour", p.lower_bound_cost_per_hour);
    JsonDoubleField(w, "cpuRequested", p.cpu_requested);
    JsonDoubleField(w, "cpuUsed", p.cpu_used);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string FormatSimReportJson(const SimReportInput& input) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  w.SetMaxDecimalPlaces(6);
  w.StartObject();
  JsonIntField(w, "schemaVersion", kSimReportSchemaVersion);
  JsonStringField(w, "trace", input.trace);
  JsonStringField(w, "nodeGroupsFile", input.node_groups);
  JsonUintField(w, "seed", input.seed);
  if (input.cluster != nullptr) {
    JsonKey(w, "nodeGroups");
    w.StartArray();
    for (const NodeGroup& g : input.cluster->groups) {
      w.StartObject();
      JsonStringField(w, "name", g.name);
      JsonStringField(w, "instanceType", g.instance_type);
      JsonIntField(w, "cpuMilli", g.cpu_milli);
      JsonIntField(w, "memoryMiB", g.memory_mib);
      JsonDoubleField(w, "pricePerHour", g.price_per_hour);
      JsonIntField(w, "min", g.min);
      JsonIntField(w, "max", g.max);
      w.EndObject();
    }
    w.EndArray();
    const AutoscalerConfig& a = input.cluster->autoscaler;
    JsonKey(w, "autoscaler");
    w.StartObject();
    JsonBoolField(w, "enabled", a.enabled);
    JsonStringField(w, "expander", std::string(ExpanderName(a.expander)));
    JsonDoubleField(w, "scanInterval", a.scan_interval);
    JsonDoubleField(w, "scaleDownUnneededTime", a.scale_down_unneeded_time);
    JsonDoubleField(w, "scaleDownUtilizationThreshold", a.scale_down_utilization_threshold);
    JsonDoubleField(w, "scaleDownDelayAfterAdd", a.scale_down_delay_after_add);
    JsonStringField(w, "consolidation", std::string(ConsolidationName(a.consolidation)));
    JsonDoubleField(w, "consolidateAfter", a.consolidate_after);
    w.EndObject();
  }
  JsonStringField(w, "baseline",
                  input.profiles.empty() ? std::string() : input.profiles.front().profile);
  JsonKey(w, "profiles");
  w.StartArray();
  for (size_t i = 0; i < input.profiles.size(); ++i) {
    WriteProfile(w, input.profiles[i], i == 0 ? nullptr : &input.profiles.front());
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace trimaran::sim
