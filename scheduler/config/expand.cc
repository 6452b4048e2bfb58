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

constexpr int64_t kMaxNodeScore = 100;

std::vector<std::string>* MutableNames(ProfileConfig& p, EP point) {
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

}  // namespace

ProfileConfig ExpandProfileCollect(const SchedulerConfig& config, size_t index,
                                   const Registry& registry, std::vector<std::string>& errors) {
  const Profile& profile = config.profiles[index];
  const Plugins& plugins = profile.plugins;
  const std::string path = absl::StrCat("profiles[", index, "].plugins");
  ProfileConfig out;
  out.scheduler_name = profile.scheduler_name;
  out.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score.has_value()
                                         ? profile.percentage_of_nodes_to_score
                                         : config.percentage_of_nodes_to_score;
  for (size_t i = 0; i < profile.plugin_config.size(); ++i) {
    const PluginConfig& pc = profile.plugin_config[i];
    out.plugin_args.emplace(
        pc.name,
        PluginArgs{pc.args, absl::StrCat("profiles[", index, "].pluginConfig[", i, "].args")});
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
        if (!registry.Implements(p.name, ep) || set.IsDisabled(p.name)) continue;
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
      const PluginDescriptor* descriptor = registry.Find(name);
      if (descriptor != nullptr && descriptor->packing) {
        static const PluginArgs kNoArgs;
        const auto it = out.plugin_args.find(name);
        if (descriptor->packing(it == out.plugin_args.end() ? kNoArgs : it->second)) {
          out.packing = true;
        }
      }
    }
  }
  return out;
}

absl::StatusOr<ProfileConfig> ExpandProfile(const SchedulerConfig& config, size_t index,
                                            const Registry& registry) {
  if (index >= config.profiles.size()) {
    return absl::InvalidArgumentError(absl::StrCat("profiles[", index, "]: no such profile"));
  }
  std::vector<std::string> errors;
  ProfileConfig out = ExpandProfileCollect(config, index, registry, errors);
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  return out;
}

absl::StatusOr<std::vector<ProfileConfig>> ExpandProfiles(const SchedulerConfig& config,
                                                          const Registry& registry) {
  std::vector<std::string> errors;
  std::vector<ProfileConfig> out;
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    out.push_back(ExpandProfileCollect(config, i, registry, errors));
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  return out;
}

}  // namespace trimaran::sched::config
