#include "cmd/trimaranctl/score.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/logging.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/status_macros.h"
#include "common/version.h"
#include "kube/api/json_codec.h"
#include "kube/client.h"
#include "loadwatcher/client.h"
#include "loadwatcher/json.h"
#include "loadwatcher/source_pool.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "scheduler/backend/cache/cache_impl.h"
#include "scheduler/backend/cache/snapshot.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/status.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/profiles.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using sched::Code;

absl::Status PathError(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

std::string PodKey(const kube::Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
}

// ---------------------------------------------------------------------------------
// Input parsing.

std::string Serialize(const rapidjson::Value& value, bool pretty) {
  rapidjson::StringBuffer buffer;
  if (pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    value.Accept(writer);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
  }
  return std::string(buffer.GetString(), buffer.GetSize());
}

// `field` is an array of objects or a List object with `items` (kubectl get -o json).
// Calls decode(value, path) for each element.
template <typename Decode>
absl::Status ForEachItem(const rapidjson::Value& field, absl::string_view field_path,
                         Decode decode) {
  const rapidjson::Value* items = &field;
  std::string base(field_path);
  if (field.IsObject()) {
    auto it = field.FindMember("items");
    if (it == field.MemberEnd() || it->value.IsNull()) return absl::OkStatus();
    items = &it->value;
    base = absl::StrCat(field_path, ".items");
  }
  if (!items->IsArray()) {
    return PathError(base, "expected an array (or a List object with \"items\")");
  }
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    TRIMARAN_RETURN_IF_ERROR(decode((*items)[i], absl::StrCat(base, "[", i, "]")));
  }
  return absl::OkStatus();
}

absl::StatusOr<lw::WatcherMetrics> DecodeMetrics(const rapidjson::Value& value) {
  std::string text;
  if (value.IsString()) {
    text.assign(value.GetString(), value.GetStringLength());
  } else if (value.IsObject()) {
    text = Serialize(value, /*pretty=*/false);
  } else {
    return PathError("metrics", "expected an object (the load watcher's /watcher JSON)");
  }
  absl::StatusOr<lw::WatcherMetrics> metrics = lw::DecodeWatcherMetricsJson(text);
  if (metrics.ok()) return metrics;
  // "decode watcher metrics: $.window.start: not a number" -> "metrics.window.start: ..."
  absl::string_view message = metrics.status().message();
  absl::ConsumePrefix(&message, "decode watcher metrics: ");
  if (absl::ConsumePrefix(&message, "$"))
    return absl::InvalidArgumentError(absl::StrCat("metrics", message));
  return PathError("metrics", message);
}

}  // namespace

absl::StatusOr<ScoreInput> ParseScoreInput(absl::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON at offset ", doc.GetErrorOffset(), ": ",
                     rapidjson::GetParseError_En(doc.GetParseError())));
  }
  if (!doc.IsObject()) return PathError("$", "expected an object");
  // Read through a const view: RapidJSON's non-const MemberIterator comparisons are
  // ambiguous under C++20's reversed operators.
  const rapidjson::Value& root = doc;
  static const std::set<std::string, std::less<>> kKnown = {"now", "nodes",   "pods",
                                                            "pod", "metrics", "schedulerConfig"};
  for (auto it = root.MemberBegin(); it != root.MemberEnd(); ++it) {
    absl::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (!kKnown.contains(key)) {
      return PathError(key,
                       "unknown field (known: now, nodes, pods, pod, metrics, schedulerConfig)");
    }
  }
  auto member = [&](const char* key) -> const rapidjson::Value* {
    auto it = root.FindMember(key);
    return it == root.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
  };

  ScoreInput input;
  // now: RFC 3339 or unix seconds.
  if (const rapidjson::Value* now = member("now")) {
    if (now->IsString()) {
      absl::StatusOr<absl::Time> t =
          kube::ParseRfc3339(std::string_view(now->GetString(), now->GetStringLength()));
      if (!t.ok()) return PathError("now", t.status().message());
      input.now = *t;
    } else if (now->IsInt64()) {
      input.now = absl::FromUnixSeconds(now->GetInt64());
    } else {
      return PathError("now", "expected an RFC 3339 string or unix seconds");
    }
  }

  const rapidjson::Value* nodes = member("nodes");
  if (nodes == nullptr) return PathError("nodes", "required");
  std::set<std::string, std::less<>> node_names;
  absl::Status nodes_status =
      ForEachItem(*nodes, "nodes", [&](const rapidjson::Value& v, const std::string& path) {
        kube::Node node;
        TRIMARAN_RETURN_IF_ERROR(kube::DecodeNodeValue(v, path, node));
        if (node.metadata.name.empty()) return PathError(path + ".metadata.name", "required");
        if (!node_names.insert(node.metadata.name).second) {
          return PathError(path + ".metadata.name",
                           absl::StrCat("duplicate node \"", node.metadata.name, "\""));
        }
        input.nodes.push_back(std::move(node));
        return absl::OkStatus();
      });
  if (!nodes_status.ok()) return nodes_status;

  if (const rapidjson::Value* pods = member("pods")) {
    absl::Status pods_status =
        ForEachItem(*pods, "pods", [&](const rapidjson::Value& v, const std::string& path) {
          kube::Pod pod;
          TRIMARAN_RETURN_IF_ERROR(kube::DecodePodValue(v, path, pod));
          if (pod.metadata.name.empty()) return PathError(path + ".metadata.name", "required");
          input.pods.push_back(std::move(pod));
          return absl::OkStatus();
        });
    if (!pods_status.ok()) return pods_status;
  }

  const rapidjson::Value* pod = member("pod");
  if (pod == nullptr) return PathError("pod", "required (the pod to schedule)");
  TRIMARAN_RETURN_IF_ERROR(kube::DecodePodValue(*pod, "pod", input.pod));
  if (input.pod.metadata.name.empty()) return PathError("pod.metadata.name", "required");

  if (const rapidjson::Value* metrics = member("metrics")) {
    TRIMARAN_ASSIGN_OR_RETURN(input.metrics, DecodeMetrics(*metrics));
  }

  if (const rapidjson::Value* config = member("schedulerConfig")) {
    if (config->IsString()) {
      input.scheduler_config.assign(config->GetString(), config->GetStringLength());
    } else if (config->IsObject()) {
      // JSON is YAML: the loader reads the object's text (lines are those of this
      // pretty-printed copy).
      input.scheduler_config = Serialize(*config, /*pretty=*/true);
    } else {
      return PathError("schedulerConfig",
                       "expected a KubeSchedulerConfiguration object or its YAML text");
    }
  }
  return input;
}

namespace {

// ---------------------------------------------------------------------------------
// The offline Handle and its parts.

// A Clock frozen at one instant. Nothing in a score run waits; a wait ends only when
// cancelled (time never reaches a future deadline).
class FrozenClock final : public Clock {
 public:
  explicit FrozenClock(absl::Time now) : now_(now) {}
  absl::Time Now() const override { return now_; }
  bool AwaitWithDeadline(absl::Mutex& mu, const bool* cancelled,
                         absl::Time deadline) const override {
    if (deadline <= now_) return true;
    mu.Await(absl::Condition(cancelled));
    return false;
  }

 private:
  const absl::Time now_;
};

// One WatcherMetrics, served to every caller (reduced to the hosts asked for).
class StaticMetricsClient final : public lw::Client {
 public:
  explicit StaticMetricsClient(lw::WatcherMetrics metrics) : metrics_(std::move(metrics)) {}
  absl::StatusOr<lw::WatcherMetrics> GetLatestMetrics(const lw::MetricsRequest& request) override {
    return lw::FilterHosts(metrics_, request.hosts);
  }

 private:
  const lw::WatcherMetrics metrics_;
};

// Every source resolves to the static client; what was asked for is recorded for the
// report's notes.
class StaticSourcePool final : public lw::SourcePool {
 public:
  explicit StaticSourcePool(lw::Client& client) : client_(client) {}
  absl::StatusOr<lw::Client*> InProcess(const lw::ProviderSpec& spec) override {
    Record(absl::StrCat("metricProvider {type: ", spec.type,
                        spec.address.empty() ? "" : absl::StrCat(", address: ", spec.address),
                        "}"));
    return &client_;
  }
  absl::StatusOr<lw::Client*> Remote(absl::string_view address) override {
    if (!absl::StartsWith(address, "http://") && !absl::StartsWith(address, "https://") &&
        !absl::StartsWith(address, "grpc://")) {
      return absl::InvalidArgumentError(
          absl::StrCat("watcherAddress \"", address, "\": expected http://, https:// or grpc://"));
    }
    Record(absl::StrCat("watcherAddress ", address));
    return &client_;
  }
  std::vector<std::string> Requested() const {
    absl::MutexLock lock(&mu_);
    return {requested_.begin(), requested_.end()};
  }

 private:
  void Record(std::string what) {
    absl::MutexLock lock(&mu_);
    requested_.insert(std::move(what));
  }
  lw::Client& client_;
  mutable absl::Mutex mu_;
  std::set<std::string> requested_ ABSL_GUARDED_BY(mu_);
};

// No API server: every call fails. Score plugins never call it; binders would.
class OfflineClient final : public kube::Client {
 public:
  absl::StatusOr<kube::PodList> ListPods(absl::string_view, const kube::ListOptions&) override {
    return Offline();
  }
  absl::Status WatchPods(absl::string_view, const kube::WatchOptions&,
                         const kube::WatchHandler<kube::Pod>&, std::stop_token) override {
    return Offline();
  }
  absl::StatusOr<kube::Pod> GetPod(absl::string_view, absl::string_view) override {
    return Offline();
  }
  absl::StatusOr<kube::Pod> CreatePod(const kube::Pod&) override { return Offline(); }
  absl::Status DeletePod(absl::string_view, absl::string_view) override { return Offline(); }
  absl::Status Bind(const kube::Binding&) override { return Offline(); }
  absl::Status PatchPodStatus(absl::string_view, absl::string_view,
                              const kube::PodStatusPatch&) override {
    return Offline();
  }
  absl::StatusOr<kube::NodeList> ListNodes(const kube::ListOptions&) override { return Offline(); }
  absl::Status WatchNodes(const kube::WatchOptions&, const kube::WatchHandler<kube::Node>&,
                          std::stop_token) override {
    return Offline();
  }
  absl::StatusOr<kube::Node> GetNode(absl::string_view) override { return Offline(); }
  absl::StatusOr<kube::Node> CreateNode(const kube::Node&) override { return Offline(); }
  absl::Status DeleteNode(absl::string_view) override { return Offline(); }
  absl::Status CreateEvent(const kube::Event&) override { return Offline(); }
  absl::StatusOr<kube::Lease> GetLease(absl::string_view, absl::string_view) override {
    return Offline();
  }
  absl::StatusOr<kube::Lease> CreateLease(const kube::Lease&) override { return Offline(); }
  absl::StatusOr<kube::Lease> UpdateLease(const kube::Lease&) override { return Offline(); }
  absl::StatusOr<std::string> Raw(absl::string_view, absl::string_view, absl::string_view,
                                  absl::string_view) override {
    return Offline();
  }

 private:
  static absl::Status Offline() {
    return absl::FailedPreconditionError("trimaranctl score runs offline: no API server");
  }
};

class NullEventRecorder final : public sched::EventRecorder {
 public:
  void Eventf(const kube::Pod&, const kube::Pod*, sched::EventType, absl::string_view,
              absl::string_view, absl::string_view) override {}
};

// Runs the work on the calling thread, in order: reports are deterministic.
class InlineParallelizer final : public sched::Parallelizer {
 public:
  int parallelism() const override { return 1; }
  void Until(int pieces, absl::FunctionRef<void(int)> work, absl::string_view) override {
    for (int i = 0; i < pieces; ++i) work(i);
  }
};

class OfflineHandle final : public sched::Handle {
 public:
  OfflineHandle(const sched::Snapshot& snapshot, const stats::Scope& scope, const Clock& clock,
                lw::Client* load_watcher, lw::SourcePool* sources)
      : snapshot_(snapshot),
        scope_(scope),
        clock_(clock),
        load_watcher_(load_watcher),
        sources_(sources) {}
  const sched::SharedLister& snapshot_lister() const override { return snapshot_; }
  kube::Client& client() override { return client_; }
  sched::EventRecorder& event_recorder() override { return recorder_; }
  const stats::Scope& stats_scope() const override { return scope_; }
  sched::Parallelizer& parallelizer() override { return parallelizer_; }
  const Clock& clock() const override { return clock_; }
  lw::Client* load_watcher() override { return load_watcher_; }
  lw::SourcePool* load_watcher_sources() override { return sources_; }

 private:
  const sched::Snapshot& snapshot_;
  const stats::Scope& scope_;
  const Clock& clock_;
  lw::Client* load_watcher_;
  lw::SourcePool* sources_;
  OfflineClient client_;
  NullEventRecorder recorder_;
  InlineParallelizer parallelizer_;
};

// ---------------------------------------------------------------------------------
// Configuration: parse, default, validate, expand (as the daemon does).

absl::StatusOr<std::vector<sched::ProfileConfig>> LoadProfiles(
    const std::string& text, const sched::config::PluginCatalog& catalog) {
  namespace config = sched::config;
  config::SchedulerConfig cfg;
  if (text.empty()) {
    // The daemon's built-in default without --config (cmd/scheduler/app.cc): the v1
    // default plugins in one profile named "trimaran".
    config::Profile profile;
    profile.scheduler_name = kDefaultProfileName;
    cfg.profiles.push_back(std::move(profile));
    config::SetDefaults(cfg);
  } else {
    absl::StatusOr<config::SchedulerConfig> parsed =
        config::ParseConfig(text, "schedulerConfig");  // SetDefaults applied
    if (!parsed.ok()) return PathError("schedulerConfig", parsed.status().message());
    cfg = *std::move(parsed);
  }
  if (absl::Status s = config::Validate(cfg, catalog); !s.ok()) {
    return PathError("schedulerConfig", s.message());
  }
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      sched::ProfilesFromConfig(cfg, catalog.implements);
  if (!profiles.ok()) return PathError("schedulerConfig", profiles.status().message());
  return profiles;
}

// The runtime's tie tolerance (schedule_algorithm.cc, ExactGreater): exact totals closer
// than 1e-9 relative are equal.
bool ExactGreater(double a, double b) { return a - b > 1e-9 * std::max(1.0, std::fabs(b)); }

void SetVerdict(NodeReport& node, const sched::Status& status) {
  node.feasible = status.IsSuccess();
  node.code = std::string(sched::CodeName(status.code()));
  node.plugin = std::string(status.plugin());
  node.reasons = status.reasons();
}

}  // namespace

absl::StatusOr<ScoreReport> RunScore(const ScoreInput& input, const ScoreOptions& options) {
  sched::Registry in_tree;
  const sched::Registry* registry = options.registry;
  if (registry == nullptr) {
    TRIMARAN_RETURN_IF_ERROR(sched::plugins::RegisterInTreePlugins(in_tree));
    registry = &in_tree;
  }

  ScoreReport report;
  report.pod_namespace = input.pod.metadata.namespace_name;
  report.pod_name = input.pod.metadata.name;
  report.metrics = input.metrics;

  // ---- Profile ----
  const sched::config::PluginCatalog catalog =
      options.catalog != nullptr ? *options.catalog : sched::plugins::InTreeCatalog();
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                            LoadProfiles(input.scheduler_config, catalog));
  const sched::ProfileConfig* profile = nullptr;
  auto find_profile = [&](absl::string_view name) -> const sched::ProfileConfig* {
    for (const sched::ProfileConfig& p : profiles) {
      if (p.scheduler_name == name) return &p;
    }
    return nullptr;
  };
  if (!options.profile.empty()) {
    profile = find_profile(options.profile);
    if (profile == nullptr) {
      std::vector<std::string> names;
      for (const sched::ProfileConfig& p : profiles) names.push_back(p.scheduler_name);
      return absl::InvalidArgumentError(
          absl::StrCat("--profile: no profile named \"", options.profile,
                       "\" (profiles: ", absl::StrJoin(names, ", "), ")"));
    }
  } else {
    profile = find_profile(input.pod.spec.scheduler_name);
    if (profile == nullptr) {
      profile = &profiles.front();
      report.notes.push_back(absl::StrCat(
          "pod.spec.schedulerName \"", input.pod.spec.scheduler_name,
          "\" names no profile: using the first profile, \"", profile->scheduler_name, "\""));
    }
  }
  report.profile = profile->scheduler_name;

  // ---- Time ----
  if (input.now.has_value()) {
    report.now = *input.now;
    report.now_source = "now";
  } else if (input.metrics.has_value()) {
    report.now = absl::FromUnixSeconds(input.metrics->timestamp);
    report.now_source = "metrics.timestamp";
  } else {
    report.now = absl::UnixEpoch();
    report.now_source = "default";
  }
  FrozenClock clock(report.now);

  // ---- The pending pod ----
  kube::Pod pod = input.pod;
  const std::string pod_key = PodKey(pod);
  if (!pod.spec.node_name.empty()) {
    report.notes.push_back(absl::StrCat("pod.spec.nodeName \"", pod.spec.node_name,
                                        "\" ignored: the pod is scored as pending"));
    pod.spec.node_name.clear();
  }

  // ---- Cache and snapshot ----
  stats::Registry stats_registry;
  const stats::Scope scope(stats_registry, "trimaranctl_");
  sched::CacheImpl cache(clock, scope);
  for (size_t i = 0; i < input.nodes.size(); ++i) {
    if (absl::Status s = cache.AddNode(std::make_shared<const kube::Node>(input.nodes[i]));
        !s.ok()) {
      return PathError(absl::StrCat("nodes[", i, "]"), s.message());
    }
  }
  std::set<std::string, std::less<>> node_names;
  for (const kube::Node& n : input.nodes) node_names.insert(n.metadata.name);
  int skipped_unassigned = 0;
  int skipped_terminal = 0;
  for (size_t i = 0; i < input.pods.size(); ++i) {
    const kube::Pod& p = input.pods[i];
    const std::string path = absl::StrCat("pods[", i, "]");
    if (PodKey(p) == pod_key) {
      report.notes.push_back(
          absl::StrCat(path, " is the pod being scored (", pod_key, "): left out of the nodes"));
      continue;
    }
    if (p.spec.node_name.empty()) {
      ++skipped_unassigned;
      continue;
    }
    if (kube::IsTerminal(p)) {
      ++skipped_terminal;
      continue;
    }
    if (!node_names.contains(p.spec.node_name)) {
      report.notes.push_back(absl::StrCat(path, " (", PodKey(p), ") is on node \"",
                                          p.spec.node_name, "\", which is not in nodes: left out"));
      continue;
    }
    if (absl::Status s = cache.AddPod(std::make_shared<const kube::Pod>(p)); !s.ok()) {
      return PathError(path, s.message());
    }
  }
  if (skipped_unassigned > 0) {
    report.notes.push_back(absl::StrCat(skipped_unassigned,
                                        " pod(s) without spec.nodeName left out (they use no "
                                        "node's resources)"));
  }
  if (skipped_terminal > 0) {
    report.notes.push_back(absl::StrCat(skipped_terminal,
                                        " terminal pod(s) (Succeeded/Failed) left out, as the "
                                        "scheduler does"));
  }
  sched::Snapshot snapshot;
  TRIMARAN_RETURN_IF_ERROR(cache.UpdateSnapshot(snapshot));

  // ---- Framework ----
  std::unique_ptr<StaticMetricsClient> metrics_client;
  std::unique_ptr<StaticSourcePool> pool;
  if (input.metrics.has_value()) {
    metrics_client = std::make_unique<StaticMetricsClient>(*input.metrics);
    pool = std::make_unique<StaticSourcePool>(*metrics_client);
  }
  OfflineHandle handle(snapshot, scope, clock, metrics_client.get(), pool.get());
  absl::StatusOr<sched::FrameworkPtr> framework_or =
      sched::Framework::Create(*profile, *registry, handle);
  if (!framework_or.ok()) {
    return PathError("schedulerConfig", framework_or.status().message());
  }
  sched::Framework& framework = **framework_or;
  for (const sched::WeightedPlugin& wp : profile->score) {
    report.score_plugins.emplace_back(wp.name, wp.weight == 0 ? 1 : wp.weight);
  }

  if (sched::Status s = framework.RunPreEnqueuePlugins(pod); !s.IsSuccess()) {
    report.notes.push_back(
        absl::StrCat("PreEnqueue would keep the pod out of the queue: ", s.ToString()));
  }

  // ---- PreFilter ----
  const std::span<const sched::NodeInfo* const> all = snapshot.List();
  sched::CycleState state;
  sched::Framework::PreFilterOutput pre;
  sched::Status pre_status = framework.RunPreFilterPlugins(state, pod, all, pre);
  if (pre_status.IsError()) {
    return absl::InternalError(absl::StrCat("PreFilter: ", pre_status.Message()));
  }
  std::vector<NodeReport> nodes(all.size());
  std::vector<const sched::NodeInfo*> feasible;
  std::vector<size_t> feasible_index;  // into nodes
  for (size_t i = 0; i < all.size(); ++i) {
    NodeReport& node = nodes[i];
    node.name = all[i]->name();
    if (!pre_status.IsSuccess()) {
      SetVerdict(node, pre_status);
      continue;
    }
    if (!pre.result.AllNodes() && !pre.result.node_names->contains(node.name)) {
      SetVerdict(node,
                 sched::Status::UnschedulableAndUnresolvable(
                     absl::StrCat("node(s) didn't satisfy plugin(s) [",
                                  absl::StrJoin(pre.narrowing_plugins, " "), "]"))
                     .WithPlugin(pre.narrowing_plugins.empty() ? std::string()
                                                               : pre.narrowing_plugins.front()));
      continue;
    }
    // ---- Filter: every node, no sampling ----
    sched::Status s = framework.RunFilterPlugins(state, pod, *all[i]);
    if (s.IsError()) {
      return absl::InternalError(absl::StrCat("Filter on node \"", node.name, "\": ", s.Message()));
    }
    SetVerdict(node, s);
    if (s.IsSuccess()) {
      feasible.push_back(all[i]);
      feasible_index.push_back(i);
    }
  }
  if (!pre_status.IsSuccess()) {
    report.notes.push_back(
        absl::StrCat("PreFilter rejected the pod on every node: ", pre_status.ToString()));
  }

  const int num_nodes = static_cast<int>(all.size());
  const int daemon_to_find =
      sched::NumFeasibleNodesToFind(profile->percentage_of_nodes_to_score, num_nodes);
  if (!profile->packing || profile->percentage_of_nodes_to_score.value_or(0) != 0) {
    if (daemon_to_find<num_nodes&& static_cast<int>(feasible.size())> daemon_to_find) {
      report.notes.push_back(absl::StrCat(
          "the daemon stops filtering after ", daemon_to_find, " feasible node(s) of ", num_nodes,
          " (percentageOfNodesToScore) and scores only those, starting at a "
          "rotating node; this report filters and scores every node"));
    }
  }

  // ---- PreScore / Score / Normalize / weights ----
  if (!feasible.empty()) {
    sched::Status s = framework.RunPreScorePlugins(state, pod, feasible);
    if (!s.IsSuccess() && !s.IsSkip()) {
      return absl::InternalError(absl::StrCat("PreScore: ", s.Message()));
    }
    sched::Framework::ScoreBuffers scores;
    s = framework.RunScorePlugins(state, pod, feasible, scores);
    if (!s.IsSuccess()) return absl::InternalError(absl::StrCat("Score: ", s.Message()));
    for (size_t f = 0; f < feasible.size(); ++f) {
      NodeReport& node = nodes[feasible_index[f]];
      node.total = scores.totals[f].total;
      node.exact_total = scores.totals[f].exact_total;
      for (size_t p = 0; p < report.score_plugins.size(); ++p) {
        PluginScore ps;
        ps.plugin = report.score_plugins[p].first;
        ps.weight = report.score_plugins[p].second;
        ps.skipped = !scores.active[p];
        if (!ps.skipped) {
          ps.score = scores.per_plugin[p][f].score;
          ps.exact = scores.per_plugin[p][f].exact;
        }
        node.scores.push_back(std::move(ps));
      }
    }
  }
  if (pool != nullptr) {
    for (const std::string& what : pool->Requested()) {
      report.notes.push_back(
          absl::StrCat("a plugin asked for metrics from ", what, ": served the file's metrics"));
    }
  }

  // ---- Selection ----
  std::vector<NodeReport> ranked;
  std::vector<NodeReport> rejected;
  for (NodeReport& n : nodes) (n.feasible ? ranked : rejected).push_back(std::move(n));
  const bool exact = profile->exact_tie_break;
  std::sort(ranked.begin(), ranked.end(), [&](const NodeReport& a, const NodeReport& b) {
    if (a.total != b.total) return a.total > b.total;
    if (exact && a.exact_total != b.exact_total) return a.exact_total > b.exact_total;
    return a.name < b.name;
  });
  std::sort(rejected.begin(), rejected.end(),
            [](const NodeReport& a, const NodeReport& b) { return a.name < b.name; });
  if (!ranked.empty()) {
    size_t chosen = 0;
    const std::string& nominated = pod.status.nominated_node_name;
    auto nominated_it = std::find_if(ranked.begin(), ranked.end(),
                                     [&](const NodeReport& n) { return n.name == nominated; });
    if (!nominated.empty() && nominated_it != ranked.end()) {
      chosen = static_cast<size_t>(nominated_it - ranked.begin());
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
        std::vector<size_t> still_tied = tied_total;
        if (exact) {
          double best_exact = ranked.front().exact_total;
          for (size_t i : tied_total) best_exact = std::max(best_exact, ranked[i].exact_total);
          still_tied.clear();
          for (size_t i : tied_total) {
            if (!ExactGreater(best_exact, ranked[i].exact_total)) still_tied.push_back(i);
          }
        }
        // The smallest name among the nodes still tied.
        chosen = *std::min_element(still_tied.begin(), still_tied.end(), [&](size_t a, size_t b) {
          return ranked[a].name < ranked[b].name;
        });
        report.decided_by = still_tied.size() == 1 ? "exact-total" : "node-name";
        if (still_tied.size() > 1) {
          std::vector<std::string> names;
          for (size_t i : still_tied) names.push_back(ranked[i].name);
          std::sort(names.begin(), names.end());
          report.notes.push_back(absl::StrCat(
              "nodes [", absl::StrJoin(names, " "),
              "] tie on every total: this report picks the smallest name; the daemon picks one "
              "of them at random"));
        }
      }
    }
    if (chosen != 0)
      std::rotate(ranked.begin(), ranked.begin() + chosen, ranked.begin() + chosen + 1);
    report.chosen = ranked.front().name;
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
  return report;
}

// ---------------------------------------------------------------------------------
// Output.

namespace {

std::string Verdict(const NodeReport& n) {
  if (n.feasible) return "ok";
  std::string out = absl::StrCat(n.code, ": ", absl::StrJoin(n.reasons, ", "));
  if (!n.plugin.empty()) absl::StrAppend(&out, " (", n.plugin, ")");
  return out;
}

std::string DecisionText(const ScoreReport& r) {
  if (r.chosen.empty()) return "none: no node fits the pod";
  const NodeReport& c = r.nodes.front();
  if (r.decided_by == "nominated") return absl::StrCat(r.chosen, " (the pod's nominated node)");
  if (r.decided_by == "only-feasible-node")
    return absl::StrCat(r.chosen, " (the only node that fits)");
  if (r.decided_by == "highest-total") {
    return absl::StrCat(r.chosen, " (highest total ", c.total, ")");
  }
  std::string tied = absl::StrJoin(r.tied, ", ");
  if (r.decided_by == "exact-total") {
    return absl::StrCat(r.chosen, " (total ", c.total, " tied with ", tied,
                        "; broken by the highest exact total ",
                        absl::StrFormat("%.4f", c.exact_total), ")");
  }
  return absl::StrCat(r.chosen, " (total ", c.total, " tied with ", tied,
                      "; broken deterministically by the smallest node name)");
}

}  // namespace

std::string FormatTable(const ScoreReport& r) {
  std::string out;
  absl::StrAppend(&out, "Pod:      ", r.pod_namespace, "/", r.pod_name, "\n");
  absl::StrAppend(&out, "Profile:  ", r.profile, "\n");
  absl::StrAppend(&out, "Now:      ", kube::FormatRfc3339(r.now), " (from ", r.now_source, ")\n");
  if (r.metrics.has_value()) {
    absl::StrAppend(&out, "Metrics:  source ", r.metrics->source.empty() ? "-" : r.metrics->source,
                    ", window ",
                    r.metrics->window.duration.empty() ? "-" : r.metrics->window.duration, ", ",
                    r.metrics->data.node_metrics_map.size(), " host(s), timestamp ",
                    kube::FormatRfc3339(absl::FromUnixSeconds(r.metrics->timestamp)), "\n");
  } else {
    absl::StrAppend(&out, "Metrics:  none\n");
  }
  int feasible = 0;
  for (const NodeReport& n : r.nodes) feasible += n.feasible ? 1 : 0;
  absl::StrAppend(&out, "Nodes:    ", r.nodes.size(), " (", feasible, " fit)\n\n");

  // Rows of cells.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"RANK", "NODE", "FILTER"};
  for (const auto& [name, weight] : r.score_plugins) {
    header.push_back(absl::StrCat(name, " (w=", weight, ")"));
  }
  header.push_back("TOTAL");
  rows.push_back(header);
  for (const NodeReport& n : r.nodes) {
    std::vector<std::string> row = {n.feasible ? absl::StrCat(n.rank) : "-", n.name, Verdict(n)};
    for (size_t p = 0; p < r.score_plugins.size(); ++p) {
      if (!n.feasible) {
        row.push_back("-");
      } else if (n.scores[p].skipped) {
        row.push_back("skip");
      } else {
        row.push_back(absl::StrCat(n.scores[p].score));
      }
    }
    row.push_back(n.feasible ? absl::StrCat(n.total) : "-");
    if (n.feasible && n.name == r.chosen) row.back() += "  <- chosen";
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    absl::StrAppend(&out, line, "\n");
  }
  absl::StrAppend(&out, "\nTOTAL = sum of weight x score (scores after NormalizeScore, 0..100)\n");
  absl::StrAppend(&out, "Chosen: ", DecisionText(r), "\n");
  if (!r.notes.empty()) {
    absl::StrAppend(&out, "Notes:\n");
    for (const std::string& note : r.notes) absl::StrAppend(&out, "  - ", note, "\n");
  }
  return out;
}

std::string FormatJson(const ScoreReport& r) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&](absl::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  auto key = [&](absl::string_view s) {
    w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  key("schemaVersion");
  w.Int(kReportSchemaVersion);
  key("pod");
  w.StartObject();
  key("namespace");
  str(r.pod_namespace);
  key("name");
  str(r.pod_name);
  w.EndObject();
  key("profile");
  str(r.profile);
  key("now");
  str(kube::FormatRfc3339(r.now));
  key("nowSource");
  str(r.now_source);
  key("metrics");
  if (r.metrics.has_value()) {
    w.StartObject();
    key("timestamp");
    w.Int64(r.metrics->timestamp);
    key("source");
    str(r.metrics->source);
    key("window");
    str(r.metrics->window.duration);
    key("hosts");
    w.Uint64(r.metrics->data.node_metrics_map.size());
    w.EndObject();
  } else {
    w.Null();
  }
  key("scorePlugins");
  w.StartArray();
  for (const auto& [name, weight] : r.score_plugins) {
    w.StartObject();
    key("name");
    str(name);
    key("weight");
    w.Int64(weight);
    w.EndObject();
  }
  w.EndArray();
  key("nodes");
  w.StartArray();
  for (const NodeReport& n : r.nodes) {
    w.StartObject();
    key("name");
    str(n.name);
    key("feasible");
    w.Bool(n.feasible);
    key("rank");
    if (n.feasible) {
      w.Int(n.rank);
    } else {
      w.Null();
    }
    key("filter");
    w.StartObject();
    key("code");
    str(n.code);
    key("plugin");
    str(n.plugin);
    key("reasons");
    w.StartArray();
    for (const std::string& reason : n.reasons) str(reason);
    w.EndArray();
    key("message");
    str(absl::StrJoin(n.reasons, ", "));
    w.EndObject();
    key("scores");
    w.StartArray();
    for (const PluginScore& s : n.scores) {
      w.StartObject();
      key("plugin");
      str(s.plugin);
      key("weight");
      w.Int64(s.weight);
      key("skipped");
      w.Bool(s.skipped);
      key("score");
      w.Int64(s.score);
      key("exact");
      if (s.exact.has_value() && std::isfinite(*s.exact)) {
        w.Double(*s.exact);
      } else {
        w.Null();
      }
      key("weighted");
      w.Int64(s.weight * s.score);
      w.EndObject();
    }
    w.EndArray();
    key("total");
    if (n.feasible) {
      w.Int64(n.total);
    } else {
      w.Null();
    }
    key("exactTotal");
    if (n.feasible) {
      w.Double(n.exact_total);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  key("chosen");
  if (r.chosen.empty()) {
    w.Null();
  } else {
    str(r.chosen);
  }
  key("decidedBy");
  str(r.decided_by);
  key("tiedNodes");
  w.StartArray();
  for (const std::string& t : r.tied) str(t);
  w.EndArray();
  key("notes");
  w.StartArray();
  for (const std::string& note : r.notes) str(note);
  w.EndArray();
  w.EndObject();
  return absl::StrCat(absl::string_view(buffer.GetString(), buffer.GetSize()), "\n");
}

// ---------------------------------------------------------------------------------
// The CLI.

std::string HelpText() {
  return absl::StrCat(
      "trimaranctl: the Trimaran scheduler's user CLI.\n"
      "\n"
      "Usage:\n"
      "  trimaranctl score [flags] FILE     explain where a pod would be scheduled, and why\n"
      "  trimaranctl --version              print \"trimaranctl <version>\"\n"
      "  trimaranctl --help                 this text\n"
      "\n"
      "score runs the real scheduling framework (the profile's PreFilter, Filter, PreScore,\n"
      "Score, NormalizeScore and weights) over EVERY node of FILE, a JSON file holding\n"
      "nodes, the pods already on them, the pending pod, load-watcher metrics and a\n"
      "KubeSchedulerConfiguration (format: docs/trimaranctl.md). FILE \"-\" is stdin.\n"
      "It prints, per node, the filter verdict and reason, each plugin's score (after\n"
      "normalization, before the weight), the weighted total, and the chosen node.\n"
      "\n"
      "Flags of score:\n"
      "  -o, --output FORMAT   table (default) or json (schema: docs/trimaranctl.md)\n"
      "      --profile NAME    the profile (schedulerName) to run; default: the pod's\n"
      "                        spec.schedulerName if a profile has it, else the first\n"
      "  -v, --v N             log verbosity (klog style) on stderr; default: warnings only\n"
      "  -h, --help            this text\n"
      "\n"
      "Exit status: 0 when the report was printed (also when no node fits), 1 on bad\n"
      "input, a plugin error or a usage error.\n");
}

namespace {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open file"));
  buffer << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

}  // namespace

int RunTrimaranctl(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto usage_error = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl: error: ", message,
                    "\nRun 'trimaranctl --help' for usage.\n");
    return 1;
  };
  if (args.empty()) return usage_error("no command given");
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out += HelpText();
    return 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    absl::StrAppend(&out, "trimaranctl ", kVersion, "\n");
    return 0;
  }
  if (args[0] != "score") return usage_error(absl::StrCat("unknown command \"", args[0], "\""));

  std::string output = "table";
  ScoreOptions options;
  std::string file;
  int verbosity = -1;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out += HelpText();
      return 0;
    }
    // Flags with a value: "--flag v", "--flag=v", and for -o also "-ov".
    std::string flag;
    std::string value;
    bool has_value = false;
    for (const char* name : {"--output", "-o", "--profile", "--v", "-v"}) {
      const std::string n(name);
      if (arg == n) {
        if (i + 1 >= args.size()) return usage_error(absl::StrCat(n, ": needs a value"));
        flag = n;
        value = args[++i];
        has_value = true;
      } else if (absl::StartsWith(arg, n + "=")) {
        flag = n;
        value = arg.substr(n.size() + 1);
        has_value = true;
      }
      if (has_value) break;
    }
    if (!has_value && absl::StartsWith(arg, "-o") && !absl::StartsWith(arg, "--")) {
      flag = "-o";
      value = arg.substr(2);
      has_value = true;
    }
    if (has_value && (flag == "--v" || flag == "-v")) {
      if (!absl::SimpleAtoi(value, &verbosity) || verbosity < 0) {
        return usage_error(
            absl::StrCat("--v: must be a non-negative integer, got \"", value, "\""));
      }
    } else if (has_value && flag == "--profile") {
      if (value.empty()) return usage_error("--profile: needs a profile name");
      options.profile = value;
    } else if (has_value) {
      if (value != "table" && value != "json") {
        return usage_error(absl::StrCat("--output: must be table or json, got \"", value, "\""));
      }
      output = value;
    } else if (arg != "-" && absl::StartsWith(arg, "-")) {
      return usage_error(absl::StrCat("unknown flag \"", arg, "\""));
    } else if (!file.empty()) {
      return usage_error(absl::StrCat("more than one FILE (\"", file, "\", \"", arg, "\")"));
    } else {
      file = arg;
    }
  }
  if (file.empty()) return usage_error("score: FILE is required");

  // The report is the output: the scheduler's info logs (dropped default plugins, ...)
  // only with --v.
  if (verbosity >= 0) {
    SetVerbosity(verbosity);
  } else {
    for (int c = 0; c < kNumComponents; ++c) {
      SetComponentLevel(ComponentName(static_cast<Component>(c)), "warn").IgnoreError();
    }
  }
  absl::StatusOr<std::string> text = ReadInput(file);
  if (!text.ok()) return usage_error(text.status().message());
  absl::StatusOr<ScoreInput> input = ParseScoreInput(*text);
  if (!input.ok()) {
    absl::StrAppend(&err, "trimaranctl: error: ", file, ": ", input.status().message(), "\n");
    return 1;
  }
  absl::StatusOr<ScoreReport> report = RunScore(*input, options);
  if (!report.ok()) {
    absl::StrAppend(&err, "trimaranctl: error: ", file, ": ", report.status().message(), "\n");
    return 1;
  }
  out += output == "json" ? FormatJson(*report) : FormatTable(*report);
  return 0;
}

}  // namespace trimaran::cmd::trimaranctl
