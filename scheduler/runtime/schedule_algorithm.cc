#include "scheduler/runtime/schedule_algorithm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace trimaran::sched {
namespace {

constexpr int kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
// Upstream samples per-plugin latency on this share of cycles.
constexpr uint64_t kPluginMetricsSamplePercent = 10;

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

bool ExactGreater(double a, double b) { return a - b > 1e-9 * std::max(1.0, std::fabs(b)); }

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
               RandomSource& random, bool deterministic) {
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
      ++tied;
      if (deterministic) {
        if (cur.node->name() < best.node->name()) selected = static_cast<int>(i);
      } else if (random.Uniform(tied) == 0) {
        // Reservoir sampling: the k-th tied node replaces the pick with probability 1/k.
        selected = static_cast<int>(i);
      }
    }
  }
  return selected;
}

namespace {

// One cycle's run of the algorithm: the steps of upstream's schedulePod as methods
// sharing the cycle's inputs.
class Cycle {
 public:
  Cycle(Framework& framework, CycleState& state, const kube::Pod& pod,
        const NodeInfoLister& snapshot, SchedulingAlgorithmState& algo, RandomSource& random,
        const ScheduleOptions& options)
      : framework_(framework),
        state_(state),
        pod_(pod),
        snapshot_(snapshot),
        algo_(algo),
        random_(random),
        options_(options),
        details_(options.details) {}

  ScheduleResult Run();

 private:
  // PreFilter, the nominated node, then Filter (FindNodesThatPassFilters). Leaves the
  // feasible nodes in algo_.feasible; returns false when `result` is final.
  bool FindNodesThatFitPod(ScheduleResult& result);
  // Filter over `candidates` from a rotating start (all of them, in order, with
  // evaluate_all_nodes); returns false when `result` is final.
  bool FindNodesThatPassFilters(std::span<const NodeInfo* const> candidates,
                                ScheduleResult& result);
  // PreScore and Score of the feasible nodes into algo_.scores.
  Status PrioritizeNodes();
  // The nominated node when it fits (checked first, unless evaluate_all_nodes).
  const NodeInfo* NominatedNodeThatFits(bool use_feasible) const;
  void RecordFailedPoint(absl::string_view point, absl::string_view node = {}) {
    if (details_ == nullptr) return;
    details_->failed_point = std::string(point);
    details_->failed_node = std::string(node);
  }

  Framework& framework_;
  CycleState& state_;
  const kube::Pod& pod_;
  const NodeInfoLister& snapshot_;
  SchedulingAlgorithmState& algo_;
  RandomSource& random_;
  const ScheduleOptions& options_;
  CycleDetails* details_;
};

ScheduleResult Cycle::Run() {
  ScheduleResult result;
  const std::span<const NodeInfo* const> all_nodes = snapshot_.List();
  result.num_all_nodes = static_cast<int>(all_nodes.size());
  if (all_nodes.empty()) {
    result.status = Status::UnschedulableAndUnresolvable("no nodes available to schedule pods");
    return result;
  }
  state_.set_record_plugin_metrics(random_.Uniform(100) < kPluginMetricsSamplePercent);

  if (!FindNodesThatFitPod(result)) return result;
  const int feasible = static_cast<int>(algo_.feasible.size());
  if (feasible == 1 && !options_.evaluate_all_nodes) {
    result.suggested_host = algo_.feasible.front()->name();
    return result;
  }

  if (Status s = PrioritizeNodes(); !s.IsSuccess()) {
    result.status = std::move(s);
    return result;
  }
  result.scored = true;
  if (details_ != nullptr) {
    details_->scored = algo_.feasible;
    details_->scores = algo_.scores;
  }
  if (options_.evaluate_all_nodes) {
    if (const NodeInfo* nominated = NominatedNodeThatFits(/*use_feasible=*/true)) {
      if (details_ != nullptr) details_->took_nominated = true;
      result.suggested_host = nominated->name();
      return result;
    }
  }
  const int host = SelectHost(algo_.scores.totals, framework_.config().exact_tie_break, random_,
                              options_.deterministic_tie_break);
  result.suggested_host = algo_.feasible[host]->name();
  result.selected_index = host;
  return result;
}

const NodeInfo* Cycle::NominatedNodeThatFits(bool use_feasible) const {
  const std::string& name = pod_.status.nominated_node_name;
  if (name.empty()) return nullptr;
  if (use_feasible) {
    for (const NodeInfo* node : algo_.feasible) {
      if (node->name() == name) return node;
    }
    return nullptr;
  }
  if (!framework_.HasFilterPlugins()) return nullptr;
  absl::StatusOr<const NodeInfo*> nominated = snapshot_.Get(name);
  const PreFilterResult& pre = algo_.pre_filter.result;
  if (nominated.ok() && (pre.AllNodes() || pre.node_names->contains((*nominated)->name())) &&
      framework_.RunFilterPluginsWithNominatedPods(state_, pod_, **nominated).IsSuccess()) {
    return *nominated;
  }
  return nullptr;
}

bool Cycle::FindNodesThatFitPod(ScheduleResult& result) {
  const std::span<const NodeInfo* const> all_nodes = snapshot_.List();
  // ---- PreFilter ----
  Framework::PreFilterOutput& pre = algo_.pre_filter;
  Status s = framework_.RunPreFilterPlugins(state_, pod_, all_nodes, pre);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) {
      RecordFailedPoint("PreFilter");
      result.status = std::move(s);
      return false;
    }
    if (details_ != nullptr) {
      details_->pre_filter = s;
      if (options_.evaluate_all_nodes) {
        for (const NodeInfo* node : all_nodes) details_->nodes.push_back({node, s});
      }
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
    result = FitError(std::move(result), code);
    return false;
  }

  // ---- Nominated node first (spec §4.1 step 3) ----
  if (!options_.evaluate_all_nodes) {
    if (const NodeInfo* nominated = NominatedNodeThatFits(/*use_feasible=*/false)) {
      if (details_ != nullptr) details_->took_nominated = true;
      result.suggested_host = nominated->name();
      result.evaluated_nodes = 1;
      result.feasible_nodes = 1;
      return false;
    }
  }

  // ---- Candidates ----
  std::span<const NodeInfo* const> candidates = all_nodes;
  if (!pre.result.AllNodes()) {
    algo_.candidates.clear();
    for (const std::string& name : *pre.result.node_names) {
      absl::StatusOr<const NodeInfo*> node = snapshot_.Get(name);
      if (node.ok()) algo_.candidates.push_back(*node);
    }
    // The set's order is arbitrary: make the rotation deterministic.
    std::sort(algo_.candidates.begin(), algo_.candidates.end(),
              [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
    candidates = algo_.candidates;
    result.diagnosis.node_to_status.set_absent_nodes_status(
        Status::UnschedulableAndUnresolvable(absl::StrCat(
            "node(s) didn't satisfy plugin(s) [", absl::StrJoin(pre.narrowing_plugins, " "), "]")));
  }
  return FindNodesThatPassFilters(candidates, result);
}

bool Cycle::FindNodesThatPassFilters(std::span<const NodeInfo* const> candidates,
                                     ScheduleResult& result) {
  const Framework::PreFilterOutput& pre = algo_.pre_filter;
  const int n = static_cast<int>(candidates.size());
  const bool all = options_.evaluate_all_nodes;
  const ProfileConfig& config = framework_.config();
  int to_find = NumFeasibleNodesToFind(config.percentage_of_nodes_to_score, n);
  if (config.packing && config.percentage_of_nodes_to_score.value_or(0) == 0) to_find = n;
  if (!framework_.HasScorePlugins()) to_find = std::min(to_find, 1);
  if (all) to_find = n;
  const size_t start = n == 0 || all ? 0 : algo_.next_start_node_index % static_cast<size_t>(n);

  algo_.feasible.clear();
  int rejected = 0;
  if (n > 0 && !framework_.HasFilterPlugins()) {
    algo_.outcome.assign(n, 0);
    for (int i = 0; i < to_find; ++i) {
      algo_.feasible.push_back(candidates[(start + i) % n]);
      algo_.outcome[i] = 1;
    }
  } else if (n > 0) {
    algo_.outcome.assign(n, 0);
    if (algo_.rejection.size() < static_cast<size_t>(n)) algo_.rejection.resize(n);
    std::atomic<int> found{0};
    std::atomic<bool> stop{false};
    absl::Mutex error_mu;
    Status error;
    int error_index = -1;
    framework_.handle().parallelizer().Until(
        n,
        [&](int i) {
          if (stop.load(std::memory_order_relaxed)) return;
          const NodeInfo& node = *candidates[(start + i) % n];
          Status fs = framework_.RunFilterPluginsWithNominatedPods(state_, pod_, node);
          if (fs.IsSuccess()) {
            const int k = found.fetch_add(1, std::memory_order_relaxed) + 1;
            if (k > to_find) {
              stop.store(true, std::memory_order_relaxed);
              return;
            }
            algo_.outcome[i] = 1;
            if (k == to_find) stop.store(true, std::memory_order_relaxed);
          } else if (fs.IsError()) {
            absl::MutexLock lock(&error_mu);  // once per cycle at most: the cycle aborts
            if (error.IsSuccess()) {
              error = std::move(fs);
              error_index = i;
            }
            stop.store(true, std::memory_order_relaxed);
          } else {
            algo_.outcome[i] = 2;
            algo_.rejection[i] = std::move(fs);
          }
        },
        "Filter");
    for (int i = 0; i < n; ++i) {
      if (algo_.outcome[i] == 1) {
        algo_.feasible.push_back(candidates[(start + i) % n]);
      } else if (algo_.outcome[i] == 2) {
        ++rejected;
      }
    }
    absl::MutexLock lock(&error_mu);
    if (!error.IsSuccess()) {
      for (int i = 0; i < n; ++i) {
        if (algo_.outcome[i] == 2) algo_.rejection[i] = Status();
      }
      if (!all) {
        algo_.next_start_node_index =
            (start + algo_.feasible.size() + static_cast<size_t>(rejected)) % n;
      }
      RecordFailedPoint("Filter", candidates[(start + error_index) % n]->name());
      result.status = std::move(error);
      return false;
    }
  }
  const int feasible = static_cast<int>(algo_.feasible.size());
  result.evaluated_nodes = feasible + rejected;
  result.feasible_nodes = feasible;
  if (n > 0 && !all) {
    algo_.next_start_node_index = (start + static_cast<size_t>(feasible + rejected)) % n;
  }
  if (details_ != nullptr && all) {
    // Every node's verdict, in snapshot order.
    absl::flat_hash_map<const NodeInfo*, int> position;
    for (int i = 0; i < n; ++i) position[candidates[i]] = i;
    Status narrowed;
    if (!pre.result.AllNodes()) {
      narrowed = Status::UnschedulableAndUnresolvable(
                     absl::StrCat("node(s) didn't satisfy plugin(s) [",
                                  absl::StrJoin(pre.narrowing_plugins, " "), "]"))
                     .WithPlugin(pre.narrowing_plugins.empty() ? std::string()
                                                               : pre.narrowing_plugins.front());
    }
    for (const NodeInfo* node : snapshot_.List()) {
      auto it = position.find(node);
      if (it == position.end()) {
        details_->nodes.push_back({node, narrowed});
      } else if (algo_.outcome[it->second] == 2) {
        details_->nodes.push_back({node, algo_.rejection[it->second]});
      } else {
        details_->nodes.push_back({node, Status()});
      }
    }
  }

  if (feasible == 0) {
    if (!pre.result.AllNodes()) {
      for (const std::string& name : pre.narrowing_plugins) {
        result.diagnosis.unschedulable_plugins.insert(name);
      }
    }
    for (int i = 0; i < n && rejected > 0; ++i) {
      if (algo_.outcome[i] != 2) continue;
      Status& rs = algo_.rejection[i];
      RecordRejection(rs, result.diagnosis);
      result.diagnosis.node_to_status.Set(candidates[(start + i) % n]->name(), std::move(rs));
      rs = Status();
    }
    result = FitError(std::move(result), Code::kUnschedulable);
    return false;
  }
  // Release the rejected nodes' statuses (they may share blocks with plugins).
  if (rejected > 0) {
    for (int i = 0; i < n; ++i) {
      if (algo_.outcome[i] == 2) algo_.rejection[i] = Status();
    }
  }
  return true;
}

Status Cycle::PrioritizeNodes() {
  const std::span<const NodeInfo* const> feasible_nodes = algo_.feasible;
  Status s = framework_.RunPreScorePlugins(state_, pod_, feasible_nodes);
  if (!s.IsSuccess()) {
    RecordFailedPoint("PreScore");
    return s;
  }
  algo_.scores.keep_raw = details_ != nullptr;
  s = framework_.RunScorePlugins(state_, pod_, feasible_nodes, algo_.scores);
  if (!s.IsSuccess()) RecordFailedPoint("Score");
  return s;
}

}  // namespace

ScheduleResult SchedulePod(Framework& framework, CycleState& state, const kube::Pod& pod,
                           const NodeInfoLister& snapshot, SchedulingAlgorithmState& algo,
                           RandomSource& random, const ScheduleOptions& options) {
  return Cycle(framework, state, pod, snapshot, algo, random, options).Run();
}

}  // namespace trimaran::sched
