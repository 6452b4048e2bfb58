#include "scheduler/profiles.h"

#include <string>
#include <utility>

#include "common/status_macros.h"

namespace trimaran::sched {

ProfileConfig ToProfileConfig(const config::ExpandedProfile& e) {
  ProfileConfig p;
  p.scheduler_name = e.scheduler_name;
  p.queue_sort = e.queue_sort;
  p.pre_enqueue = e.pre_enqueue;
  p.pre_filter = e.pre_filter;
  p.filter = e.filter;
  p.post_filter = e.post_filter;
  p.pre_score = e.pre_score;
  for (const config::WeightedPlugin& w : e.score) p.score.push_back({w.name, w.weight});
  p.reserve = e.reserve;
  p.permit = e.permit;
  p.pre_bind = e.pre_bind;
  p.bind = e.bind;
  p.post_bind = e.post_bind;
  for (const auto& [name, args] : e.plugin_args) {
    auto path = e.plugin_args_path.find(name);
    p.plugin_args[name] =
        PluginArgs{args, path == e.plugin_args_path.end() ? std::string() : path->second};
  }
  p.percentage_of_nodes_to_score = e.percentage_of_nodes_to_score;
  p.packing = e.packing;
  return p;
}

absl::StatusOr<std::vector<ProfileConfig>> ProfilesFromConfig(
    const config::SchedulerConfig& config, const config::ImplementsFn& implements) {
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<config::ExpandedProfile> expanded,
                            config::ExpandProfiles(config, implements));
  std::vector<ProfileConfig> out;
  out.reserve(expanded.size());
  for (const config::ExpandedProfile& e : expanded) out.push_back(ToProfileConfig(e));
  return out;
}

}  // namespace trimaran::sched
