#include "scheduler/decisions/decision_builder.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::decisions {
namespace {

// Whether totals[a] ranks before totals[b].
bool Before(const Framework::NodeTotal& a, const Framework::NodeTotal& b) {
  if (a.total != b.total) return a.total > b.total;
  if (ExactGreater(a.exact_total, b.exact_total)) return true;
  if (ExactGreater(b.exact_total, a.exact_total)) return false;
  return a.node->name() < b.node->name();
}

}  // namespace

Decision MakeDecision(const Framework& framework, const CycleState& state, const kube::Pod& pod,
                      const ScheduleResult& result, const SchedulingAlgorithmState& algo) {
  Decision d;
  d.pod = absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
  d.uid = pod.metadata.uid;
  d.profile = framework.profile_name();
  d.evaluated_nodes = result.evaluated_nodes;
  d.feasible_nodes = result.feasible_nodes;
  if (!result.scored) {
    if (!result.suggested_host.empty()) d.top.push_back(TopNode{result.suggested_host, 0, {}});
    return d;
  }
  const Framework::ScoreBuffers& scores = algo.scores;
  const std::vector<Framework::NodeTotal>& totals = scores.totals;
  // The chosen node, then the best others (a small insertion-sorted array).
  int chosen = -1;
  std::array<int, kMaxTopNodes> best{};
  size_t count = 0;
  for (size_t i = 0; i < totals.size(); ++i) {
    if (chosen < 0 && totals[i].node->name() == result.suggested_host) {
      chosen = static_cast<int>(i);
      continue;
    }
    if (count == kMaxTopNodes && !Before(totals[i], totals[best[count - 1]])) continue;
    size_t at = count < kMaxTopNodes ? count++ : count - 1;
    while (at > 0 && Before(totals[i], totals[best[at - 1]])) {
      best[at] = best[at - 1];
      --at;
    }
    best[at] = static_cast<int>(i);
  }
  std::vector<int> order;
  if (chosen >= 0) order.push_back(chosen);
  for (size_t k = 0; k < count && order.size() < kMaxTopNodes; ++k) order.push_back(best[k]);
  const size_t plugins = framework.NumScorePlugins();
  for (int i : order) {
    TopNode top{totals[i].node->name(), totals[i].total, {}};
    for (size_t p = 0; p < plugins && p < scores.per_plugin.size(); ++p) {
      if (p < scores.active.size() && !scores.active[p]) continue;
      top.scores.emplace_back(framework.ScorePluginName(p),
                              framework.ScorePluginWeight(p) * scores.per_plugin[p][i].score);
    }
    d.top.push_back(std::move(top));
  }
  framework.AppendFallbackNotes(state, d.fallbacks);
  if (d.fallbacks.size() > kMaxFallbacks) d.fallbacks.resize(kMaxFallbacks);
  return d;
}

}  // namespace trimaran::sched::decisions
