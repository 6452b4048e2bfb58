#include "scheduler/config/expand.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched::config {
namespace {

using EP = ExtensionPoint;

struct BuiltinPlugin {
  absl::string_view name;
  std::initializer_list<EP> points;
};

const BuiltinPlugin kBuiltins[] = {
    {"DefaultBinder", {EP::kBind}},
    {"LoadVariationRiskBalancing", {EP::kPreScore, EP::kScore, EP::kReserve}},
    {"LowRiskOverCommitment", {EP::kPreScore, EP::kScore}},
    {"NodeAffinity", {EP::kPreFilter, EP::kFilter, EP::kPreScore, EP::kScore}},
    {"NodeName", {EP::kFilter}},
    {"NodePorts", {EP::kPreFilter, EP::kFilter}},
    {"NodeResourcesBalancedAllocation", {EP::kPreScore, EP::kScore}},
    {"NodeResourcesFit", {EP::kPreFilter, EP::kFilter, EP::kPreScore, EP::kScore}},
    {"NodeUnschedulable", {EP::kFilter}},
    {"PrioritySort", {EP::kQueueSort}},
    {"TaintToleration", {EP::kFilter, EP::kPreScore, EP::kScore}},
    {"TargetLoadPacking", {EP::kPreScore, EP::kScore, EP::kReserve}},
    {"UnsupportedPodConstraints", {EP::kPreFilter}},
};

constexpr int64_t kMaxNodeScore = 100;

std::vector<std::string>* MutableNames(ExpandedProfile& p, EP point) {
  switch (point) {
    case EP::kPreEnqueue:
      return &p.pre_enqueue;
    case EP::kQueueSort:
      return &p.queue_sort;
    case EP::kPreFilter:
      return &p.pre_filter;
    case EP::kFilter:
      return &p.filter;
    case EP::kPostFilter:
      return &p.post_filter;
    case EP::kPreScore:
      return &p.pre_score;
    case EP::kScore:
      return nullptr;
    case EP::kReserve:
      return &p.reserve;
    case EP::kPermit:
      return &p.permit;
    case EP::kPreBind:
      return &p.pre_bind;
    case EP::kBind:
      return &p.bind;
    case EP::kPostBind:
      return &p.post_bind;
  }
  return nullptr;
}

const Plugin* FindPlugin(const std::vector<Plugin>& list, absl::string_view name) {
  for (const Plugin& p : list) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool IsPackingStrategy(const YAML::Node& args) {
  if (!args.IsMap()) return false;
  const YAML::Node strategy = args["scoringStrategy"];
  if (!strategy.IsMap() || !strategy["type"] || !strategy["type"].IsScalar()) return false;
  const std::string& type = strategy["type"].Scalar();
  return type == "MostAllocated" || type == "RequestedToCapacityRatio";
}

}  // namespace

bool BuiltinImplements(absl::string_view plugin, ExtensionPoint point) {
  for (const BuiltinPlugin& b : kBuiltins) {
    if (b.name == plugin) {
      return std::find(b.points.begin(), b.points.end(), point) != b.points.end();
    }
  }
  return false;
}

std::vector<std::string> BuiltinPluginNames() {
  std::vector<std::string> names;
  for (const BuiltinPlugin& b : kBuiltins) names.emplace_back(b.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> ExpandedProfile::Names(ExtensionPoint point) const {
  if (point == EP::kScore) {
    std::vector<std::string> names;
    for (const WeightedPlugin& w : score) names.push_back(w.name);
    return names;
  }
  return *MutableNames(const_cast<ExpandedProfile&>(*this), point);
}

ExpandedProfile ExpandProfileCollect(const SchedulerConfig& config, size_t index,
                                     const ImplementsFn& implements,
                                     std::vector<std::string>& errors) {
  const Profile& profile = config.profiles[index];
  const Plugins& plugins = profile.plugins;
  const std::string path = absl::StrCat("profiles[", index, "].plugins");
  ExpandedProfile out;
  out.scheduler_name = profile.scheduler_name;
  out.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score.has_value()
                                         ? profile.percentage_of_nodes_to_score
                                         : config.percentage_of_nodes_to_score;
  for (size_t i = 0; i < profile.plugin_config.size(); ++i) {
    const PluginConfig& pc = profile.plugin_config[i];
    out.plugin_args.emplace(pc.name, pc.args);
    out.plugin_args_path.emplace(pc.name,
                                 absl::StrCat("profiles[", index, "].pluginConfig[", i, "].args"));
  }

  const std::vector<Plugin>& mp = plugins.multi_point.enabled;
  {
    std::set<std::string, std::less<>> seen;
    for (size_t i = 0; i < mp.size(); ++i) {
      if (!seen.insert(mp[i].name).second) {
        errors.push_back(absl::StrCat(path, ".multiPoint.enabled[", i, "].name: plugin \"",
                                      mp[i].name, "\" already registered as multiPoint"));
      }
    }
  }

  for (EP ep : kAllExtensionPoints) {
    const PluginSet& set = plugins.At(ep);
    std::vector<const Plugin*> order;
    if (set.DisablesAll()) {
      for (const Plugin& p : set.enabled) order.push_back(&p);
    } else {
      for (const Plugin& p : set.enabled) {
        if (FindPlugin(mp, p.name) != nullptr) order.push_back(&p);
      }
      std::set<std::string, std::less<>> mp_seen;
      for (const Plugin& p : mp) {
        if (!mp_seen.insert(p.name).second) continue;
        if (!implements(p.name, ep) || set.IsDisabled(p.name)) continue;
        if (FindPlugin(set.enabled, p.name) != nullptr) continue;
        order.push_back(&p);
      }
      for (const Plugin& p : set.enabled) {
        if (FindPlugin(mp, p.name) == nullptr) order.push_back(&p);
      }
    }
    std::set<std::string, std::less<>> registered;
    std::vector<std::string> names;
    for (const Plugin* p : order) {
      if (!registered.insert(p->name).second) {
        errors.push_back(absl::StrCat(path, ".", ExtensionPointField(ep), ": plugin \"", p->name,
                                      "\" already registered as ", ExtensionPointName(ep)));
        continue;
      }
      names.push_back(p->name);
    }
    if (ep != EP::kScore) {
      *MutableNames(out, ep) = std::move(names);
      continue;
    }
    int64_t total = 0;
    for (const std::string& name : names) {
      const Plugin* explicit_entry = FindPlugin(plugins.score.enabled, name);
      const Plugin* mp_entry = FindPlugin(mp, name);
      int32_t weight = explicit_entry != nullptr ? explicit_entry->weight
                       : mp_entry != nullptr     ? mp_entry->weight
                                                 : 0;
      if (weight == 0) weight = 1;
      if (weight > 0) {
        if (weight * kMaxNodeScore > std::numeric_limits<int64_t>::max() - total) {
          errors.push_back(
              absl::StrCat(path, ".score: total score of Score plugins could overflow"));
        } else {
          total += weight * kMaxNodeScore;
        }
      }
      out.score.push_back(WeightedPlugin{name, weight});
      if (name == "TargetLoadPacking") out.packing = true;
      if (name == "NodeResourcesFit") {
        auto it = out.plugin_args.find(name);
        if (it != out.plugin_args.end() && IsPackingStrategy(it->second)) out.packing = true;
      }
    }
  }
  return out;
}

absl::StatusOr<ExpandedProfile> ExpandProfile(const SchedulerConfig& config, size_t index,
                                              const ImplementsFn& implements) {
  if (index >= config.profiles.size()) {
    return absl::InvalidArgumentError(absl::StrCat("profiles[", index, "]: no such profile"));
  }
  std::vector<std::string> errors;
  ExpandedProfile out = ExpandProfileCollect(config, index, implements, errors);
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  return out;
}

absl::StatusOr<std::vector<ExpandedProfile>> ExpandProfiles(const SchedulerConfig& config,
                                                            const ImplementsFn& implements) {
  std::vector<std::string> errors;
  std::vector<ExpandedProfile> out;
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    out.push_back(ExpandProfileCollect(config, i, implements, errors));
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  return out;
}

}  // namespace trimaran::sched::config
