#include "scheduler/decisions/decision_builder.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::decisions {
namespace {

// Whether node a ranks before node b (indices into totals): the higher total, then the
// higher exact total, then the cycle's order. Reads only the totals array: no NodeInfo
// (scattered over the heap) is touched while ranking.
bool Before(const std::vector<Framework::NodeTotal>& totals, int a, int b) {
  const Framework::NodeTotal& x = totals[a];
  const Framework::NodeTotal& y = totals[b];
  if (x.total != y.total) return x.total > y.total;
  if (ExactGreater(x.exact_total, y.exact_total)) return true;
  if (ExactGreater(y.exact_total, x.exact_total)) return false;
  return a < b;
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
  int chosen = result.selected_index;
  if (chosen < 0 || static_cast<size_t>(chosen) >= totals.size()) {
    chosen = -1;
    for (size_t i = 0; i < totals.size() && chosen < 0; ++i) {
      if (totals[i].node->name() == result.suggested_host) chosen = static_cast<int>(i);
    }
  }
  std::array<int, kMaxTopNodes> best{};
  size_t count = 0;
  const int n = static_cast<int>(totals.size());
  for (int i = 0; i < n; ++i) {
    if (i == chosen) continue;
    if (count == kMaxTopNodes && !Before(totals, i, best[count - 1])) continue;
    size_t at = count < kMaxTopNodes ? count++ : count - 1;
    while (at > 0 && Before(totals, i, best[at - 1])) {
      best[at] = best[at - 1];
      --at;
    }
    best[at] = i;
  }
  std::array<int, kMaxTopNodes> order{};
  size_t kept = 0;
  if (chosen >= 0) order[kept++] = chosen;
  for (size_t k = 0; k < count && kept < kMaxTopNodes; ++k) order[kept++] = best[k];
  const size_t plugins = framework.NumScorePlugins();
  d.top.reserve(kept);
  for (size_t k = 0; k < kept; ++k) {
    const int i = order[k];
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
