#include "scheduler/runtime/schedule_algorithm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace trimaran::sched {
namespace {

constexpr int kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
// Upstream samples per-plugin latency on this share of cycles.
constexpr uint64_t kPluginMetricsSamplePercent = 10;

// Two exact totals closer than this (relative) are a tie: the same utilisation reached
// through a different order of floating-point operations must not decide.
bool ExactGreater(double a, double b) { return a - b > 1e-9 * std::max(1.0, std::fabs(b)); }

void RecordRejection(const Status& status, Diagnosis& diagnosis) {
  if (status.plugin().empty()) return;
  if (status.code() == Code::kPending) {
    diagnosis.pending_plugins.insert(std::string(status.plugin()));
  } else if (status.IsRejected()) {
    diagnosis.unschedulable_plugins.insert(std::string(status.plugin()));
  }
}

ScheduleResult FitError(ScheduleResult result, Code code) {
  result.status = Status(code, {FitErrorMessage(result.num_all_nodes, result.diagnosis)});
  return result;
}

}  // namespace

int NumFeasibleNodesToFind(std::optional<int32_t> percentage, int num_nodes) {
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int64_t p = percentage.value_or(0);
  if (p >= 100) return num_nodes;
  if (p <= 0) {
    p = std::max<int64_t>(kMinFeasibleNodesPercentageToFind, 50 - num_nodes / 125);
  }
  int64_t find = static_cast<int64_t>(num_nodes) * p / 100;
  if (find < kMinFeasibleNodesToFind) find = kMinFeasibleNodesToFind;
  return static_cast<int>(std::min<int64_t>(find, num_nodes));
}

int SelectHost(std::span<const Framework::NodeTotal> totals, bool exact_tie_break,
               RandomSource& random) {
  if (totals.empty()) return -1;
  int selected = 0;
  uint64_t tied = 1;  // nodes equal to the current best so far
  for (size_t i = 1; i < totals.size(); ++i) {
    const Framework::NodeTotal& cur = totals[i];
    const Framework::NodeTotal& best = totals[selected];
    bool better = cur.total > best.total;
    bool equal = cur.total == best.total;
    if (equal && exact_tie_break) {
      better = ExactGreater(cur.exact_total, best.exact_total);
      equal = !better && !ExactGreater(best.exact_total, cur.exact_total);
    }
    if (better) {
      selected = static_cast<int>(i);
      tied = 1;
    } else if (equal) {
      // Reservoir sampling: the k-th tied node replaces the pick with probability 1/k.
      ++tied;
      if (random.Uniform(tied) == 0) selected = static_cast<int>(i);
    }
  }
  return selected;
}

ScheduleResult SchedulePod(Framework& framework, CycleState& state, const kube::Pod& pod,
                           const NodeInfoLister& snapshot, SchedulingAlgorithmState& algo,
                           RandomSource& random) {
  ScheduleResult result;
  const std::span<const NodeInfo* const> all_nodes = snapshot.List();
  result.num_all_nodes = static_cast<int>(all_nodes.size());
  if (all_nodes.empty()) {
    result.status = Status::UnschedulableAndUnresolvable("no nodes available to schedule pods");
    return result;
  }
  state.set_record_plugin_metrics(random.Uniform(100) < kPluginMetricsSamplePercent);

  // ---- PreFilter ----
  Framework::PreFilterOutput& pre = algo.pre_filter;
  Status s = framework.RunPreFilterPlugins(state, pod, all_nodes, pre);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) {
      result.status = std::move(s);
      return result;
    }
    // Every node shares PreFilter's verdict (preemption reads it from absent nodes).
    result.diagnosis.pre_filter_msg = s.Message();
    for (const std::string& name : pre.rejector_plugins) {
      if (s.code() == Code::kPending) {
        result.diagnosis.pending_plugins.insert(name);
      } else {
        result.diagnosis.unschedulable_plugins.insert(name);
      }
    }
    for (const std::string& name : pre.narrowing_plugins) {
      result.diagnosis.unschedulable_plugins.insert(name);
    }
    const Code code = s.code();
    result.diagnosis.node_to_status.set_absent_nodes_status(std::move(s));
    return FitError(std::move(result), code);
  }

  // ---- Nominated node first (spec §4.1 step 3) ----
  if (!pod.status.nominated_node_name.empty() && framework.HasFilterPlugins()) {
    absl::StatusOr<const NodeInfo*> nominated = snapshot.Get(pod.status.nominated_node_name);
    if (nominated.ok() &&
        (pre.result.AllNodes() || pre.result.node_names->contains((*nominated)->name())) &&
        framework.RunFilterPlugins(state, pod, **nominated).IsSuccess()) {
      result.suggested_host = (*nominated)->name();
      result.evaluated_nodes = 1;
      result.feasible_nodes = 1;
      return result;
    }
  }

  // ---- Candidates ----
  std::span<const NodeInfo* const> candidates = all_nodes;
  if (!pre.result.AllNodes()) {
    algo.candidates.clear();
    for (const std::string& name : *pre.result.node_names) {
      absl::StatusOr<const NodeInfo*> node = snapshot.Get(name);
      if (node.ok()) algo.candidates.push_back(*node);
    }
    // The set's order is arbitrary: make the rotation deterministic.
    std::sort(algo.candidates.begin(), algo.candidates.end(),
              [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
    candidates = algo.candidates;
    result.diagnosis.node_to_status.set_absent_nodes_status(
        Status::UnschedulableAndUnresolvable(absl::StrCat(
            "node(s) didn't satisfy plugin(s) [", absl::StrJoin(pre.narrowing_plugins, " "), "]")));
  }
  const int n = static_cast<int>(candidates.size());

  // ---- Filter ----
  const ProfileConfig& config = framework.config();
  int to_find = NumFeasibleNodesToFind(config.percentage_of_nodes_to_score, n);
  if (config.packing && config.percentage_of_nodes_to_score.value_or(0) == 0) to_find = n;
  if (!framework.HasScorePlugins()) to_find = std::min(to_find, 1);
  const size_t start = n == 0 ? 0 : algo.next_start_node_index % static_cast<size_t>(n);

  algo.feasible.clear();
  int rejected = 0;
  if (n > 0 && !framework.HasFilterPlugins()) {
    for (int i = 0; i < to_find; ++i) algo.feasible.push_back(candidates[(start + i) % n]);
  } else if (n > 0) {
    algo.outcome.assign(n, 0);
    if (algo.rejection.size() < static_cast<size_t>(n)) algo.rejection.resize(n);
    std::atomic<int> found{0};
    std::atomic<bool> stop{false};
    absl::Mutex error_mu;
    Status error;
    framework.handle().parallelizer().Until(
        n,
        [&](int i) {
          if (stop.load(std::memory_order_relaxed)) return;
          const NodeInfo& node = *candidates[(start + i) % n];
          Status fs = framework.RunFilterPlugins(state, pod, node);
          if (fs.IsSuccess()) {
            const int k = found.fetch_add(1, std::memory_order_relaxed) + 1;
            if (k > to_find) {
              stop.store(true, std::memory_order_relaxed);
              return;
            }
            algo.outcome[i] = 1;
            if (k == to_find) stop.store(true, std::memory_order_relaxed);
          } else if (fs.IsError()) {
            absl::MutexLock lock(&error_mu);  // once per cycle at most: the cycle aborts
            if (error.IsSuccess()) error = std::move(fs);
            stop.store(true, std::memory_order_relaxed);
          } else {
            algo.outcome[i] = 2;
            algo.rejection[i] = std::move(fs);
          }
        },
        "Filter");
    for (int i = 0; i < n; ++i) {
      if (algo.outcome[i] == 1) {
        algo.feasible.push_back(candidates[(start + i) % n]);
      } else if (algo.outcome[i] == 2) {
        ++rejected;
      }
    }
    absl::MutexLock lock(&error_mu);
    if (!error.IsSuccess()) {
      for (int i = 0; i < n; ++i) {
        if (algo.outcome[i] == 2) algo.rejection[i] = Status();
      }
      algo.next_start_node_index =
          (start + algo.feasible.size() + static_cast<size_t>(rejected)) % n;
      result.status = std::move(error);
      return result;
    }
  }
  const int feasible = static_cast<int>(algo.feasible.size());
  result.evaluated_nodes = feasible + rejected;
  result.feasible_nodes = feasible;
  if (n > 0) algo.next_start_node_index = (start + static_cast<size_t>(feasible + rejected)) % n;

  if (feasible == 0) {
    if (!pre.result.AllNodes()) {
      for (const std::string& name : pre.narrowing_plugins) {
        result.diagnosis.unschedulable_plugins.insert(name);
      }
    }
    for (int i = 0; i < n && rejected > 0; ++i) {
      if (algo.outcome[i] != 2) continue;
      Status& rs = algo.rejection[i];
      RecordRejection(rs, result.diagnosis);
      result.diagnosis.node_to_status.Set(candidates[(start + i) % n]->name(), std::move(rs));
      rs = Status();
    }
    return FitError(std::move(result), Code::kUnschedulable);
  }
  // Release the rejected nodes' statuses (they may share blocks with plugins).
  if (rejected > 0) {
    for (int i = 0; i < n; ++i) {
      if (algo.outcome[i] == 2) algo.rejection[i] = Status();
    }
  }
  if (feasible == 1) {
    result.suggested_host = algo.feasible.front()->name();
    return result;
  }

  // ---- PreScore, Score, select ----
  const std::span<const NodeInfo* const> feasible_nodes = algo.feasible;
  s = framework.RunPreScorePlugins(state, pod, feasible_nodes);
  if (!s.IsSuccess()) {
    result.status = std::move(s);
    return result;
  }
  s = framework.RunScorePlugins(state, pod, feasible_nodes, algo.scores);
  if (!s.IsSuccess()) {
    result.status = std::move(s);
    return result;
  }
  const int host = SelectHost(algo.scores.totals, config.exact_tie_break, random);
  result.suggested_host = algo.feasible[host]->name();
  return result;
}

}  // namespace trimaran::sched
