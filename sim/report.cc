#include "sim/report.h"

#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace trimaran::sim {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Key(Writer& w, const char* k) { w.Key(k); }
void Str(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

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
  Key(w, key);
  w.StartObject();
  Key(w, "min");
  w.Double(d.min);
  Key(w, "p10");
  w.Double(d.p10);
  Key(w, "p50");
  w.Double(d.p50);
  Key(w, "p90");
  w.Double(d.p90);
  Key(w, "max");
  w.Double(d.max);
  w.EndObject();
}

void WriteCompaction(Writer& w, const CompactionResult& c) {
  Key(w, "compaction");
  w.StartObject();
  Key(w, "trials");
  w.Int(c.trials);
  Key(w, "everySeconds");
  w.Double(c.every);
  Key(w, "skippedInstants");
  w.Int(c.skipped);
  Key(w, "repacks");
  w.Int64(c.repacks);
  Key(w, "schedulerErrors");
  w.Int64(c.scheduler_errors);
  WriteDistribution(w, "nodes", c.nodes);
  WriteDistribution(w, "ratio", c.ratio);
  Key(w, "instants");
  w.StartArray();
  for (const CompactionInstant& i : c.instants) {
    w.StartObject();
    Key(w, "t");
    w.Double(i.t);
    Key(w, "why");
    Str(w, i.why);
    Key(w, "actual");
    w.Int(i.actual);
    Key(w, "pods");
    w.Int(i.pods);
    Key(w, "compacted");
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
  Key(w, "profile");
  Str(w, r.profile);
  Key(w, "simulatedSeconds");
  w.Double(r.end_time);
  Key(w, "pods");
  w.StartObject();
  Key(w, "total");
  w.Int(r.pods);
  Key(w, "scheduled");
  w.Int(r.scheduled);
  Key(w, "neverScheduled");
  w.Int(r.never_scheduled);
  Key(w, "evicted");
  w.Int(r.evicted);
  Key(w, "schedulingCycles");
  w.Int64(r.scheduling_cycles);
  Key(w, "schedulerErrors");
  w.Int(r.scheduler_errors);
  if (!r.first_scheduler_error.empty()) {
    Key(w, "firstSchedulerError");
    Str(w, r.first_scheduler_error);
  }
  w.EndObject();
  for (const Headline& h : kHeadlines) {
    Key(w, h.key);
    w.Double(r.*h.field);
  }
  Key(w, "pendingMaxSeconds");
  w.Double(r.pending_max);
  Key(w, "peakNodes");
  w.Int(r.peak_nodes);
  Key(w, "peakNodesByGroup");
  w.StartObject();
  for (const auto& [g, n] : r.peak_nodes_by_group) {
    Str(w, g);
    w.Int(n);
  }
  w.EndObject();
  Key(w, "autoscaler");
  w.StartObject();
  Key(w, "scaleUpEvents");
  w.Int(r.scale_up_events);
  Key(w, "nodesAdded");
  w.Int(r.nodes_added);
  Key(w, "scaleDownEvents");
  w.Int(r.scale_down_events);
  Key(w, "nodesRemoved");
  w.Int(r.nodes_removed);
  Key(w, "consolidationReplacements");
  w.Int(r.consolidation_replacements);
  Key(w, "consolidationMultiNode");
  w.Int(r.consolidation_multi_node);
  Key(w, "consolidationFitChecks");
  w.Int64(r.consolidation_fit_checks);
  w.EndObject();
  Key(w, "lowerBound");
  w.StartObject();
  Key(w, "cost");
  w.Double(r.lower_bound_cost);
  Key(w, "nodeHours");
  w.Double(r.lower_bound_node_hours);
  Key(w, "nodeHoursOverLowerBound");
  w.Double(r.node_hours_over_lower_bound);
  w.EndObject();
  Key(w, "fallbacks");
  w.StartObject();
  for (const auto& [what, count] : r.fallbacks) {
    Str(w, what);
    w.Int64(count);
  }
  w.EndObject();
  Key(w, "memoryOverAllocatableNodeMinutes");
  w.Double(r.memory_over_allocatable_node_minutes);
  Key(w, "peakNodeCpuUsage");
  w.Double(r.peak_node_cpu_usage);
  Key(w, "cpuUsageHistogram");
  w.StartArray();
  for (int64_t c : r.cpu_usage_histogram) w.Int64(c);
  w.EndArray();
  WriteCompaction(w, r.compaction);
  if (baseline != nullptr) {
    Key(w, "deltaVsBaseline");
    w.StartObject();
    for (const Headline& h : kHeadlines) {
      Key(w, h.key);
      w.Double(r.*h.field - baseline->*h.field);
    }
    Key(w, "peakNodes");
    w.Int(r.peak_nodes - baseline->peak_nodes);
    Key(w, "compactionRatioP50");
    w.Double(r.compaction.ratio.p50 - baseline->compaction.ratio.p50);
    w.EndObject();
  }
  Key(w, "timeline");
  w.StartArray();
  for (const TimelinePoint& p : r.timeline) {
    w.StartObject();
    Key(w, "t");
    w.Double(p.t);
    Key(w, "nodes");
    w.Int(p.nodes);
    Key(w, "pending");
    w.Int(p.pending);
    Key(w, "running");
    w.Int(p.running);
    Key(w, "costPerHour");
    w.Double(p.cost_per_hour);
    Key(w, "lowerBoundCostPerHour");
    w.Double(p.lower_bound_cost_per_hour);
    Key(w, "cpuRequested");
    w.Double(p.cpu_requested);
    Key(w, "cpuUsed");
    w.Double(p.cpu_used);
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
  Key(w, "schemaVersion");
  w.Int(kSimReportSchemaVersion);
  Key(w, "trace");
  Str(w, input.trace);
  Key(w, "nodeGroupsFile");
  Str(w, input.node_groups);
  Key(w, "seed");
  w.Uint64(input.seed);
  if (input.cluster != nullptr) {
    Key(w, "nodeGroups");
    w.StartArray();
    for (const NodeGroup& g : input.cluster->groups) {
      w.StartObject();
      Key(w, "name");
      Str(w, g.name);
      Key(w, "instanceType");
      Str(w, g.instance_type);
      Key(w, "cpuMilli");
      w.Int64(g.cpu_milli);
      Key(w, "memoryMiB");
      w.Int64(g.memory_mib);
      Key(w, "pricePerHour");
      w.Double(g.price_per_hour);
      Key(w, "min");
      w.Int(g.min);
      Key(w, "max");
      w.Int(g.max);
      w.EndObject();
    }
    w.EndArray();
    const AutoscalerConfig& a = input.cluster->autoscaler;
    Key(w, "autoscaler");
    w.StartObject();
    Key(w, "enabled");
    w.Bool(a.enabled);
    Key(w, "expander");
    Str(w, std::string(ExpanderName(a.expander)));
    Key(w, "scanInterval");
    w.Double(a.scan_interval);
    Key(w, "scaleDownUnneededTime");
    w.Double(a.scale_down_unneeded_time);
    Key(w, "scaleDownUtilizationThreshold");
    w.Double(a.scale_down_utilization_threshold);
    Key(w, "scaleDownDelayAfterAdd");
    w.Double(a.scale_down_delay_after_add);
    Key(w, "consolidation");
    Str(w, std::string(ConsolidationName(a.consolidation)));
    Key(w, "consolidateAfter");
    w.Double(a.consolidate_after);
    w.EndObject();
  }
  Key(w, "baseline");
  Str(w, input.profiles.empty() ? std::string() : input.profiles.front().profile);
  Key(w, "profiles");
  w.StartArray();
  for (size_t i = 0; i < input.profiles.size(); ++i) {
    WriteProfile(w, input.profiles[i], i == 0 ? nullptr : &input.profiles.front());
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace trimaran::sim
