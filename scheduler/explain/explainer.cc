#include "scheduler/explain/explainer.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/status.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::sched::explain {
namespace {

void SetVerdict(NodeReport& node, const Status& status) {
  node.feasible = status.IsSuccess();
  node.code = std::string(CodeName(status.code()));
  node.plugin = std::string(status.plugin());
  node.reasons = status.reasons();
}

// The Internal error of a cycle that failed with kError.
absl::Status CycleError(const CycleDetails& details, const Status& status) {
  if (details.failed_point == "Filter") {
    return absl::InternalError(
        absl::StrCat("Filter on node \"", details.failed_node, "\": ", status.Message()));
  }
  const std::string point = details.failed_point.empty() ? "cycle" : details.failed_point;
  return absl::InternalError(absl::StrCat(point, ": ", status.Message()));
}

// Orders the feasible nodes (total, exact total, name), puts the chosen one first and
// says how it was chosen.
void RankAndDecide(const ProfileConfig& profile, const CycleDetails& details,
                   const std::string& chosen, std::vector<NodeReport> nodes, Report& report) {
  std::vector<NodeReport> ranked;
  std::vector<NodeReport> rejected;
  for (NodeReport& n : nodes) (n.feasible ? ranked : rejected).push_back(std::move(n));
  const bool exact = profile.exact_tie_break;
  std::sort(ranked.begin(), ranked.end(), [&](const NodeReport& a, const NodeReport& b) {
    if (a.total != b.total) return a.total > b.total;
    if (exact && a.exact_total != b.exact_total) return a.exact_total > b.exact_total;
    return a.name < b.name;
  });
  std::sort(rejected.begin(), rejected.end(),
            [](const NodeReport& a, const NodeReport& b) { return a.name < b.name; });
  if (!ranked.empty() && !chosen.empty()) {
    if (details.took_nominated) {
      report.decided_by = "nominated";
    } else if (ranked.size() == 1) {
      report.decided_by = "only-feasible-node";
    } else {
      // Nodes tied with the best on the integer total.
      const int64_t best_total = ranked.front().total;
      std::vector<size_t> tied_total;
      for (size_t i = 0; i < ranked.size() && ranked[i].total == best_total; ++i) {
        tied_total.push_back(i);
      }
      if (tied_total.size() == 1) {
        report.decided_by = "highest-total";
      } else {
        for (size_t i : tied_total) report.tied.push_back(ranked[i].name);
        std::vector<std::string> still_tied;
        double best_exact = ranked.front().exact_total;
        for (size_t i : tied_total) best_exact = std::max(best_exact, ranked[i].exact_total);
        for (size_t i : tied_total) {
          if (!exact || !ExactGreater(best_exact, ranked[i].exact_total)) {
            still_tied.push_back(ranked[i].name);
          }
        }
        report.decided_by = still_tied.size() == 1 ? "exact-total" : "node-name";
        if (still_tied.size() > 1) {
          std::sort(still_tied.begin(), still_tied.end());
          report.notes.push_back(absl::StrCat(
              "nodes [", absl::StrJoin(still_tied, " "),
              "] tie on every total: this report picks the smallest name; the daemon picks one "
              "of them at random"));
        }
      }
    }
    auto it = std::find_if(ranked.begin(), ranked.end(),
                           [&](const NodeReport& n) { return n.name == chosen; });
    if (it != ranked.end()) std::rotate(ranked.begin(), it, it + 1);
    report.chosen = chosen;
    if (report.decided_by == "nominated") {
      report.notes.push_back(absl::StrCat("status.nominatedNodeName \"", report.chosen,
                                          "\" fits: the daemon takes it without scoring"));
    } else if (report.decided_by == "only-feasible-node") {
      report.notes.push_back("only one node fits: the daemon selects it without scoring");
    }
  }
  for (size_t i = 0; i < ranked.size(); ++i) ranked[i].rank = static_cast<int>(i) + 1;
  report.nodes = std::move(ranked);
  for (NodeReport& n : rejected) report.nodes.push_back(std::move(n));
}

// Runs the profile's Reserve plugins for `pod` on `node` as the daemon's scheduling cycle
// does after choosing it (the pod with spec.nodeName set); a failure runs Unreserve and
// is Internal naming the plugin.
absl::Status Reserve(Framework& framework, CycleState& state, const kube::Pod& pod,
                     const std::string& node) {
  kube::Pod assumed = pod;
  assumed.spec.node_name = node;
  if (Status s = framework.RunReservePluginsReserve(state, assumed, node);
      !s.IsSuccess() && s.code() != Code::kSkip) {
    framework.RunReservePluginsUnreserve(state, assumed, node);
    return absl::InternalError(absl::StrCat("Reserve on ", node, ": ", s.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Explainer>> Explainer::Create(std::vector<ProfileConfig> profiles,
                                                             Options options) {
  if (profiles.empty()) return absl::InvalidArgumentError("no scheduling profiles");
  if (options.registry == nullptr || options.clock == nullptr) {
    return absl::InvalidArgumentError("Explainer needs a plugin registry and a clock");
  }
  return std::unique_ptr<Explainer>(new Explainer(std::move(profiles), std::move(options)));
}

Explainer::Explainer(std::vector<ProfileConfig> profiles, Options options)
    : profiles_(std::move(profiles)),
      registry_(*options.registry),
      clock_(*options.clock),
      scopes_{.upstream = stats::Scope(stats_registry_, "scheduler_"),
              .own = stats::Scope(stats_registry_, "trimaran_")},
      cache_(clock_, scopes_),
      metrics_client_(options.metrics.has_value()
                          ? std::make_unique<FixedMetricsClient>(*std::move(options.metrics))
                          : nullptr),
      sources_(metrics_client_ != nullptr ? std::make_unique<FixedSourcePool>(*metrics_client_)
                                          : nullptr),
      handle_(snapshot_, scopes_, clock_, metrics_client_.get(), sources_.get(), objects_,
              storage_) {}

void Explainer::SetMetrics(lw::WatcherMetrics metrics) {
  if (metrics_client_ != nullptr) metrics_client_->Set(std::move(metrics));
}

void Explainer::SetMetricsByWindow(std::map<std::string, lw::WatcherMetrics> by_window) {
  if (metrics_client_ != nullptr) metrics_client_->SetByWindow(std::move(by_window));
}

const ProfileConfig* Explainer::FindProfile(absl::string_view name) const {
  for (const ProfileConfig& p : profiles_) {
    if (p.scheduler_name == name) return &p;
  }
  return nullptr;
}

absl::StatusOr<Framework*> Explainer::FrameworkFor(absl::string_view profile) {
  if (auto it = frameworks_.find(profile); it != frameworks_.end()) return it->second.get();
  const ProfileConfig* config = FindProfile(profile);
  if (config == nullptr) {
    return absl::NotFoundError(absl::StrCat("no profile named \"", profile, "\""));
  }
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<Framework> framework,
                            Framework::Create(*config, registry_, handle_));
  Framework* out = framework.get();
  frameworks_.emplace(std::string(profile), std::move(framework));
  return out;
}

absl::StatusOr<Report> Explainer::Explain(const kube::Pod& input_pod, absl::string_view profile) {
  return Explain(input_pod, profile, CycleOptions{});
}

absl::StatusOr<Report> Explainer::Explain(const kube::Pod& input_pod, absl::string_view profile,
                                          const CycleOptions& cycle_options) {
  TRIMARAN_ASSIGN_OR_RETURN(Framework * framework, FrameworkFor(profile));
  const ProfileConfig& config = framework->config();
  TRIMARAN_RETURN_IF_ERROR(cache_.UpdateSnapshot(snapshot_));
  kube::Pod pod = input_pod;
  pod.spec.node_name.clear();

  Report report;
  report.pod_namespace = pod.metadata.namespace_name;
  report.pod_name = pod.metadata.name;
  report.profile = config.scheduler_name;
  report.now = clock_.Now();
  for (const WeightedPlugin& wp : config.score) {
    report.score_plugins.emplace_back(wp.name, wp.weight == 0 ? 1 : wp.weight);
  }
  if (Status s = framework->RunPreEnqueuePlugins(pod); !s.IsSuccess()) {
    report.notes.push_back(
        absl::StrCat("PreEnqueue would keep the pod out of the queue: ", s.ToString()));
  }

  // ---- The cycle: the scheduler's algorithm, every node evaluated ----
  CycleState state;
  SchedulingAlgorithmState algo;
  RandomSource random(0);
  CycleDetails details;
  const ScheduleOptions options{
      .evaluate_all_nodes = true, .deterministic_tie_break = true, .details = &details};
  ScheduleResult result = SchedulePod(*framework, state, pod, snapshot_, algo, random, options);
  if (result.status.IsError()) return CycleError(details, result.status);

  // ---- Every node's verdict and scores ----
  absl::flat_hash_map<const NodeInfo*, size_t> scored_index;
  for (size_t f = 0; f < details.scored.size(); ++f) scored_index[details.scored[f]] = f;
  const Framework::ScoreBuffers& scores = details.scores;
  std::vector<NodeReport> nodes;
  int feasible = 0;
  for (const CycleDetails::NodeVerdict& verdict : details.nodes) {
    NodeReport& node = nodes.emplace_back();
    node.name = verdict.node->name();
    SetVerdict(node, verdict.status);
    if (!node.feasible) continue;
    ++feasible;
    auto it = scored_index.find(verdict.node);
    if (it == scored_index.end()) continue;
    const size_t f = it->second;
    node.total = scores.totals[f].total;
    node.exact_total = scores.totals[f].exact_total;
    for (size_t p = 0; p < report.score_plugins.size(); ++p) {
      PluginScore ps;
      ps.plugin = report.score_plugins[p].first;
      ps.weight = report.score_plugins[p].second;
      ps.skipped = !scores.active[p];
      if (!ps.skipped) {
        ps.score = scores.per_plugin[p][f].score;
        ps.raw_score = scores.raw[p][f].score;
        ps.exact = scores.per_plugin[p][f].exact;
      }
      node.scores.push_back(std::move(ps));
    }
  }
  if (!details.pre_filter.IsSuccess()) {
    report.notes.push_back(
        absl::StrCat("PreFilter rejected the pod on every node: ", details.pre_filter.ToString()));
  }

  // ---- What the daemon would do differently ----
  const int num_nodes = static_cast<int>(details.nodes.size());
  const int daemon_to_find = NumFeasibleNodesToFind(config.percentage_of_nodes_to_score, num_nodes);
  if (!config.packing || config.percentage_of_nodes_to_score.value_or(0) != 0) {
    if (daemon_to_find < num_nodes && feasible > daemon_to_find) {
      report.notes.push_back(absl::StrCat(
          "the daemon stops filtering after ", daemon_to_find, " feasible node(s) of ", num_nodes,
          " (percentageOfNodesToScore) and scores only those, starting at a "
          "rotating node; this report filters and scores every node"));
    }
  }
  if (sources_ != nullptr) {
    for (const std::string& what : sources_->Requested()) {
      report.notes.push_back(
          absl::StrCat("a plugin asked for metrics from ", what, ": served the file's metrics"));
    }
  }

  RankAndDecide(config, details, result.suggested_host, std::move(nodes), report);
  // No node fits: what preemption would do (a dry run of the profile's PostFilter).
  if (report.chosen.empty() && result.status.IsRejected()) {
    for (const std::string& name : config.post_filter) {
      auto* previewer = dynamic_cast<PreemptionPreviewer*>(framework->GetPlugin(name));
      if (previewer == nullptr) continue;
      report.preemption = previewer->Preview(state, pod, result.diagnosis.node_to_status);
      report.notes.push_back(absl::StrCat(name, " (dry run): ", report.preemption->message));
      break;
    }
  }
  // The counts behind the decisions, from plugins that explain their cycle state.
  std::vector<std::string> stateful;
  for (const std::vector<std::string>* names : {&config.pre_filter, &config.pre_score}) {
    for (const std::string& name : *names) {
      if (std::find(stateful.begin(), stateful.end(), name) == stateful.end()) {
        stateful.push_back(name);
      }
    }
  }
  for (const std::string& name : stateful) {
    const auto* explainer = dynamic_cast<const StateExplainer*>(framework->GetPlugin(name));
    if (explainer == nullptr) continue;
    std::vector<StateCount> rows = explainer->ExplainState(state);
    if (rows.empty()) continue;
    std::sort(rows.begin(), rows.end(), [](const StateCount& a, const StateCount& b) {
      return std::tie(a.table, a.key, a.value) < std::tie(b.table, b.key, b.value);
    });
    report.plugin_state.emplace_back(name, std::move(rows));
  }
  if (cycle_options.reserve && !report.chosen.empty()) {
    TRIMARAN_RETURN_IF_ERROR(Reserve(*framework, state, pod, report.chosen));
  }
  return report;
}

absl::StatusOr<std::string> Explainer::Place(const kube::Pod& pod, absl::string_view profile) {
  return Place(pod, profile, CycleOptions{});
}

absl::StatusOr<std::string> Explainer::Place(const kube::Pod& input_pod, absl::string_view profile,
                                             const CycleOptions& cycle_options) {
  TRIMARAN_ASSIGN_OR_RETURN(Framework * framework, FrameworkFor(profile));
  TRIMARAN_RETURN_IF_ERROR(cache_.UpdateSnapshot(snapshot_));
  std::optional<kube::Pod> unbound;
  if (!input_pod.spec.node_name.empty()) {
    unbound = input_pod;
    unbound->spec.node_name.clear();
  }
  const kube::Pod& pod = unbound.has_value() ? *unbound : input_pod;
  CycleState state;
  RandomSource random(0);
  const ScheduleOptions options{.deterministic_tie_break = true};
  ScheduleResult result =
      SchedulePod(*framework, state, pod, snapshot_, place_algo_, random, options);
  if (result.status.IsError()) {
    return absl::InternalError(absl::StrCat(result.status.plugin(), ": ", result.status.Message()));
  }
  if (cycle_options.reserve && !result.suggested_host.empty()) {
    TRIMARAN_RETURN_IF_ERROR(Reserve(*framework, state, pod, result.suggested_host));
  }
  return std::move(result.suggested_host);
}

}  // namespace trimaran::sched::explain
