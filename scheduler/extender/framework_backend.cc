#include "scheduler/extender/framework_backend.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kube/api/binding.h"
#include "kube/api/object_names.h"
#include "kube/api/pod.h"
#include "scheduler/extender/score_mapping.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched::extender {
namespace {

constexpr char kNotInCache[] =
    "node is not in the extender's cache yet (its informer has not seen it)";

// The candidates as NodeInfos: the snapshot's, or (for a node the cache does not know)
// one built from the object kube-scheduler sent. `missing` gets the names of unknown
// nodes sent without an object.
void Resolve(const NodeInfoLister& snapshot, std::span<const CandidateNode> candidates,
             std::vector<const NodeInfo*>& nodes, std::deque<NodeInfo>& owned,
             std::vector<size_t>& positions, std::vector<std::string>& missing) {
  nodes.reserve(candidates.size());
  positions.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CandidateNode& c = candidates[i];
    absl::StatusOr<const NodeInfo*> info = snapshot.Get(c.name);
    if (info.ok()) {
      nodes.push_back(*info);
    } else if (c.object != nullptr) {
      owned.emplace_back(c.object);
      nodes.push_back(&owned.back());
    } else {
      missing.push_back(c.name);
      continue;
    }
    positions.push_back(i);
  }
}

void Record(FilterVerdicts& v, const std::string& name, const Status& s) {
  if (s.code() == Code::kUnschedulableAndUnresolvable) {
    v.failed_and_unresolvable[name] = s.Message();
  } else {
    v.failed[name] = s.Message();
  }
}

}  // namespace

FrameworkBackend::FrameworkBackend(Framework& framework, SnapshotSource snapshot, BindOptions bind)
    : framework_(framework), snapshot_(std::move(snapshot)), bind_(std::move(bind)) {}

absl::StatusOr<FilterVerdicts> FrameworkBackend::Filter(const kube::Pod& pod,
                                                        std::span<const CandidateNode> candidates) {
  absl::MutexLock lock(&mu_);
  TRIMARAN_ASSIGN_OR_RETURN(const NodeInfoLister* snapshot, snapshot_());
  std::vector<const NodeInfo*> nodes;
  std::deque<NodeInfo> owned;
  std::vector<size_t> positions;
  std::vector<std::string> missing;
  Resolve(*snapshot, candidates, nodes, owned, positions, missing);
  FilterVerdicts v;
  for (const std::string& name : missing) v.failed[name] = kNotInCache;

  CycleState state;
  Framework::PreFilterOutput pre;
  const Status ps = framework_.RunPreFilterPlugins(state, pod, snapshot->List(), pre);
  if (ps.IsError()) {
    return absl::InternalError(absl::StrCat("PreFilter: ", ps.Message()));
  }
  if (ps.IsRejected()) {
    for (const NodeInfo* n : nodes) Record(v, n->name(), ps);
    return v;
  }
  std::string narrowed;
  if (!pre.result.AllNodes()) {
    narrowed = absl::StrCat("node(s) didn't satisfy plugin(s) [",
                            absl::StrJoin(pre.narrowing_plugins, " "), "]");
  }
  std::vector<Status> statuses(nodes.size());
  framework_.handle().parallelizer().Until(
      static_cast<int>(nodes.size()),
      [&](int i) {
        const NodeInfo& n = *nodes[i];
        if (!pre.result.AllNodes() && !pre.result.node_names->contains(n.name())) {
          statuses[i] = Status::UnschedulableAndUnresolvable(narrowed);
          return;
        }
        statuses[i] = framework_.RunFilterPluginsWithNominatedPods(state, pod, n);
      },
      "Filter");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = candidates[positions[i]].name;
    if (statuses[i].IsSuccess()) {
      v.feasible.push_back(name);
    } else if (statuses[i].IsError()) {
      return absl::InternalError(
          absl::StrCat("Filter on node ", name, ": ", statuses[i].Message()));
    } else {
      Record(v, name, statuses[i]);
    }
  }
  return v;
}

absl::StatusOr<std::vector<HostPriority>> FrameworkBackend::Prioritize(
    const kube::Pod& pod, std::span<const CandidateNode> candidates) {
  absl::MutexLock lock(&mu_);
  TRIMARAN_ASSIGN_OR_RETURN(const NodeInfoLister* snapshot, snapshot_());
  std::vector<const NodeInfo*> nodes;
  std::deque<NodeInfo> owned;
  std::vector<size_t> positions;
  std::vector<std::string> missing;
  Resolve(*snapshot, candidates, nodes, owned, positions, missing);
  std::vector<HostPriority> out(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) out[i].host = candidates[i].name;
  if (nodes.empty() || !framework_.HasScorePlugins()) return out;

  CycleState state;
  Framework::PreFilterOutput pre;
  const Status ps = framework_.RunPreFilterPlugins(state, pod, snapshot->List(), pre);
  if (ps.IsError()) return absl::InternalError(absl::StrCat("PreFilter: ", ps.Message()));
  const Status pss = framework_.RunPreScorePlugins(state, pod, nodes);
  if (!pss.IsSuccess() && !pss.IsSkip()) {
    return absl::InternalError(absl::StrCat("PreScore: ", pss.Message()));
  }
  const Status ss = framework_.RunScorePlugins(state, pod, nodes, scores_);
  if (!ss.IsSuccess()) return absl::InternalError(absl::StrCat("Score: ", ss.Message()));
  int64_t max_total = 0;
  const std::vector<WeightedPlugin>& plugins = framework_.config().score;
  for (size_t p = 0; p < plugins.size() && p < scores_.active.size(); ++p) {
    if (scores_.active[p]) max_total += 100 * (plugins[p].weight == 0 ? 1 : plugins[p].weight);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    out[positions[i]].score = ToExtenderPriority(scores_.totals[i].total, max_total);
  }
  return out;
}

absl::Status FrameworkBackend::CheckBindingNames(const ExtenderBindingArgs& args) {
  if (!kube::IsDns1123Label(args.pod_namespace)) {
    return absl::InvalidArgumentError("bind: PodNamespace is not a valid namespace name");
  }
  if (!kube::IsDns1123Subdomain(args.pod_name)) {
    return absl::InvalidArgumentError("bind: PodName is not a valid pod name");
  }
  if (!kube::IsDns1123Subdomain(args.node)) {
    return absl::InvalidArgumentError("bind: Node is not a valid node name");
  }
  if (args.pod_uid.empty()) return absl::InvalidArgumentError("bind: PodUID is empty");
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const kube::Pod>> FrameworkBackend::PendingPodToBind(
    const ExtenderBindingArgs& args) const {
  const std::string key = absl::StrCat(args.pod_namespace, "/", args.pod_name);
  std::shared_ptr<const kube::Pod> pod =
      bind_.pods ? bind_.pods(args.pod_namespace, args.pod_name) : nullptr;
  if (pod == nullptr) {
    return absl::NotFoundError(absl::StrCat("bind: pod ", key, " is not in the extender's cache"));
  }
  if (pod->metadata.uid != args.pod_uid) {
    return absl::FailedPreconditionError(
        absl::StrCat("bind: pod ", key, " has another UID (deleted and created again?)"));
  }
  if (!pod->spec.node_name.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("bind: pod ", key, " is already bound"));
  }
  if (kube::IsTerminating(*pod)) {
    return absl::FailedPreconditionError(absl::StrCat("bind: pod ", key, " is terminating"));
  }
  if (std::find(bind_.scheduler_names.begin(), bind_.scheduler_names.end(),
                pod->spec.scheduler_name) == bind_.scheduler_names.end()) {
    return absl::PermissionDeniedError(
        absl::StrCat("bind: pod ", key, " has schedulerName \"", pod->spec.scheduler_name,
                     "\", which this extender does not bind for (--extender-bind-scheduler-names: ",
                     absl::StrJoin(bind_.scheduler_names, ","), ")"));
  }
  return pod;
}

absl::Status FrameworkBackend::CheckNodeFits(const kube::Pod& pod, const std::string& node) {
  const CandidateNode candidate{.name = node, .object = nullptr};
  TRIMARAN_ASSIGN_OR_RETURN(FilterVerdicts verdicts, Filter(pod, {&candidate, 1}));
  if (std::find(verdicts.feasible.begin(), verdicts.feasible.end(), node) !=
      verdicts.feasible.end()) {
    return absl::OkStatus();
  }
  std::string reason = "rejected";
  if (auto it = verdicts.failed.find(node); it != verdicts.failed.end()) reason = it->second;
  if (auto it = verdicts.failed_and_unresolvable.find(node);
      it != verdicts.failed_and_unresolvable.end()) {
    reason = it->second;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("bind: node ", node, " does not pass the profile's filters: ", reason));
}

absl::Status FrameworkBackend::Bind(const ExtenderBindingArgs& args) {
  if (bind_.client == nullptr) {
    return absl::UnimplementedError("binding is off (start the extender with --extender-bind)");
  }
  TRIMARAN_RETURN_IF_ERROR(CheckBindingNames(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::shared_ptr<const kube::Pod> pod, PendingPodToBind(args));
  TRIMARAN_RETURN_IF_ERROR(CheckNodeFits(*pod, args.node));
  return bind_.client->Bind(kube::MakeBinding(pod->metadata, args.node));
}

}  // namespace trimaran::sched::extender
