#include "scheduler/explain/score_input.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/manual_clock.h"
#include "common/status_macros.h"
#include "kube/api/json_codec.h"
#include "loadwatcher/json.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/explain/explainer.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sched::explain {
namespace {

absl::Status PathError(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

std::string PodKey(const kube::Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
}

// ---------------------------------------------------------------------------------
// Input parsing.

// The cluster objects beside nodes and pods, by their input field.
constexpr std::pair<const char*, kube::SelectorResource> kObjectFields[] = {
    {"namespaces", kube::SelectorResource::kNamespaces},
    {"services", kube::SelectorResource::kServices},
    {"replicationControllers", kube::SelectorResource::kReplicationControllers},
    {"replicaSets", kube::SelectorResource::kReplicaSets},
    {"statefulSets", kube::SelectorResource::kStatefulSets},
};
constexpr std::pair<const char*, kube::StorageResource> kStorageFields[] = {
    {"persistentVolumes", kube::StorageResource::kPersistentVolumes},
    {"persistentVolumeClaims", kube::StorageResource::kPersistentVolumeClaims},
    {"storageClasses", kube::StorageResource::kStorageClasses},
    {"csiNodes", kube::StorageResource::kCSINodes},
    {"csiDrivers", kube::StorageResource::kCSIDrivers},
    {"csiStorageCapacities", kube::StorageResource::kCSIStorageCapacities},
};

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

// The text parsed into `doc`: an object, or InvalidArgument.
absl::Status ParseDocument(absl::string_view json, rapidjson::Document& doc) {
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON at offset ", doc.GetErrorOffset(), ": ",
                     rapidjson::GetParseError_En(doc.GetParseError())));
  }
  if (!doc.IsObject()) return PathError("$", "expected an object");
  return absl::OkStatus();
}

// Every top-level field is one the format knows.
absl::Status CheckKnownFields(const rapidjson::Value& root) {
  static const std::set<std::string, std::less<>> kKnown = {"now",
                                                            "nodes",
                                                            "pods",
                                                            "pod",
                                                            "metrics",
                                                            "schedulerConfig",
                                                            "namespaces",
                                                            "services",
                                                            "replicationControllers",
                                                            "replicaSets",
                                                            "statefulSets",
                                                            "persistentVolumes",
                                                            "persistentVolumeClaims",
                                                            "storageClasses",
                                                            "csiNodes",
                                                            "csiDrivers",
                                                            "csiStorageCapacities"};
  for (auto it = root.MemberBegin(); it != root.MemberEnd(); ++it) {
    absl::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (!kKnown.contains(key)) {
      return PathError(key,
                       "unknown field (known: now, nodes, pods, pod, metrics, schedulerConfig, "
                       "namespaces, services, replicationControllers, replicaSets, "
                       "statefulSets, persistentVolumes, persistentVolumeClaims, "
                       "storageClasses, csiNodes, csiDrivers, csiStorageCapacities)");
    }
  }
  return absl::OkStatus();
}

// The top-level field `key`, or null when absent or JSON null.
const rapidjson::Value* Member(const rapidjson::Value& root, const char* key) {
  auto it = root.FindMember(key);
  return it == root.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

// now: RFC 3339 or unix seconds.
absl::Status ReadNow(const rapidjson::Value* now, ScoreInput& input) {
  if (now == nullptr) return absl::OkStatus();
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
  return absl::OkStatus();
}

// nodes: required, each named, names unique.
absl::Status ReadNodes(const rapidjson::Value* nodes, ScoreInput& input) {
  if (nodes == nullptr) return PathError("nodes", "required");
  std::set<std::string, std::less<>> node_names;
  return ForEachItem(*nodes, "nodes", [&](const rapidjson::Value& v, const std::string& path) {
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
}

// pods: optional, each named.
absl::Status ReadPods(const rapidjson::Value* pods, ScoreInput& input) {
  if (pods == nullptr) return absl::OkStatus();
  return ForEachItem(*pods, "pods", [&](const rapidjson::Value& v, const std::string& path) {
    kube::Pod pod;
    TRIMARAN_RETURN_IF_ERROR(kube::DecodePodValue(v, path, pod));
    if (pod.metadata.name.empty()) return PathError(path + ".metadata.name", "required");
    input.pods.push_back(std::move(pod));
    return absl::OkStatus();
  });
}

// namespaces, services and controllers (kObjectFields); namespaced ones default to
// "default".
absl::Status ReadSelectorObjects(const rapidjson::Value& root, ScoreInput& input) {
  for (const auto& [field, resource] : kObjectFields) {
    const rapidjson::Value* objects = Member(root, field);
    if (objects == nullptr) continue;
    const kube::SelectorResource r = resource;
    absl::Status status =
        ForEachItem(*objects, field, [&](const rapidjson::Value& v, const std::string& path) {
          kube::SelectorObject object;
          TRIMARAN_RETURN_IF_ERROR(kube::DecodeSelectorObjectValue(v, path, object));
          if (object.metadata.name.empty()) {
            return PathError(path + ".metadata.name", "required");
          }
          if (kube::IsNamespaced(r) && object.metadata.namespace_name.empty()) {
            object.metadata.namespace_name = "default";
          }
          input.objects.emplace_back(r, std::move(object));
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The storage objects (kStorageFields); namespaced ones default to "default".
absl::Status ReadStorageObjects(const rapidjson::Value& root, ScoreInput& input) {
  for (const auto& [field, resource] : kStorageFields) {
    const rapidjson::Value* objects = Member(root, field);
    if (objects == nullptr) continue;
    const kube::StorageResource r = resource;
    absl::Status status =
        ForEachItem(*objects, field, [&](const rapidjson::Value& v, const std::string& path) {
          kube::StorageObject object;
          TRIMARAN_RETURN_IF_ERROR(kube::DecodeStorageObjectValue(v, path, r, object));
          if (object.metadata.name.empty()) {
            return PathError(path + ".metadata.name", "required");
          }
          if (kube::IsNamespaced(r) && object.metadata.namespace_name.empty()) {
            object.metadata.namespace_name = "default";
            std::visit([](auto& typed) { typed.metadata.namespace_name = "default"; },
                       object.object);
          }
          input.storage.push_back(std::move(object));
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// pod: the pod to schedule, required and named.
absl::Status ReadPendingPod(const rapidjson::Value* pod, ScoreInput& input) {
  if (pod == nullptr) return PathError("pod", "required (the pod to schedule)");
  TRIMARAN_RETURN_IF_ERROR(kube::DecodePodValue(*pod, "pod", input.pod));
  if (input.pod.metadata.name.empty()) return PathError("pod.metadata.name", "required");
  return absl::OkStatus();
}

// metrics: the load watcher's /watcher JSON, as an object or its text.
absl::Status ReadMetrics(const rapidjson::Value* metrics, ScoreInput& input) {
  if (metrics == nullptr) return absl::OkStatus();
  TRIMARAN_ASSIGN_OR_RETURN(input.metrics, DecodeMetrics(*metrics));
  return absl::OkStatus();
}

// schedulerConfig: a KubeSchedulerConfiguration object or its YAML text.
absl::Status ReadSchedulerConfig(const rapidjson::Value* config, ScoreInput& input) {
  if (config == nullptr) return absl::OkStatus();
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
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ScoreInput> ParseScoreInput(absl::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseDocument(json, doc));
  // Read through a const view: RapidJSON's non-const MemberIterator comparisons are
  // ambiguous under C++20's reversed operators.
  const rapidjson::Value& root = doc;
  TRIMARAN_RETURN_IF_ERROR(CheckKnownFields(root));
  ScoreInput input;
  TRIMARAN_RETURN_IF_ERROR(ReadNow(Member(root, "now"), input));
  TRIMARAN_RETURN_IF_ERROR(ReadNodes(Member(root, "nodes"), input));
  TRIMARAN_RETURN_IF_ERROR(ReadPods(Member(root, "pods"), input));
  TRIMARAN_RETURN_IF_ERROR(ReadSelectorObjects(root, input));
  TRIMARAN_RETURN_IF_ERROR(ReadStorageObjects(root, input));
  TRIMARAN_RETURN_IF_ERROR(ReadPendingPod(Member(root, "pod"), input));
  TRIMARAN_RETURN_IF_ERROR(ReadMetrics(Member(root, "metrics"), input));
  TRIMARAN_RETURN_IF_ERROR(ReadSchedulerConfig(Member(root, "schedulerConfig"), input));
  return input;
}

namespace {

// ---------------------------------------------------------------------------------
// The run.

// options.registry, else the in-tree plugins registered into `in_tree`.
absl::StatusOr<const Registry*> ResolveRegistry(const ScoreOptions& options, Registry& in_tree) {
  if (options.registry != nullptr) return options.registry;
  TRIMARAN_RETURN_IF_ERROR(plugins::RegisterInTreePlugins(in_tree));
  return &in_tree;
}

// Configuration: parse, default, validate, expand (as the daemon does).
absl::StatusOr<std::vector<ProfileConfig>> LoadProfiles(const std::string& text,
                                                        const Registry& registry) {
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
  if (absl::Status s = config::Validate(cfg, registry); !s.ok()) {
    return PathError("schedulerConfig", s.message());
  }
  absl::StatusOr<std::vector<ProfileConfig>> profiles = config::ExpandProfiles(cfg, registry);
  if (!profiles.ok()) return PathError("schedulerConfig", profiles.status().message());
  return profiles;
}

// The profile to run: --profile (which must exist), else the pod's schedulerName when a
// profile has it, else the first profile (with a note).
absl::StatusOr<std::string> ChooseProfile(const std::vector<ProfileConfig>& profiles,
                                          const std::string& requested, const kube::Pod& pod,
                                          std::vector<std::string>& notes) {
  auto has_profile = [&](absl::string_view name) {
    return std::any_of(profiles.begin(), profiles.end(),
                       [&](const ProfileConfig& p) { return p.scheduler_name == name; });
  };
  if (!requested.empty()) {
    if (!has_profile(requested)) {
      std::vector<std::string> names;
      for (const ProfileConfig& p : profiles) names.push_back(p.scheduler_name);
      return absl::InvalidArgumentError(absl::StrCat("--profile: no profile named \"", requested,
                                                     "\" (profiles: ", absl::StrJoin(names, ", "),
                                                     ")"));
    }
    return requested;
  }
  if (has_profile(pod.spec.scheduler_name)) return pod.spec.scheduler_name;
  const std::string& first = profiles.front().scheduler_name;
  notes.push_back(absl::StrCat("pod.spec.schedulerName \"", pod.spec.scheduler_name,
                               "\" names no profile: using the first profile, \"", first, "\""));
  return first;
}

// The instant the clock is frozen at, and where it came from (Report::now_source).
struct FrozenNow {
  absl::Time time = absl::UnixEpoch();
  std::string source = "default";
};

// Time: frozen at the file's instant, so a report is reproducible.
FrozenNow FreezeNow(const ScoreInput& input) {
  FrozenNow now;
  if (input.now.has_value()) {
    now.time = *input.now;
    now.source = "now";
  } else if (input.metrics.has_value()) {
    now.time = absl::FromUnixSeconds(input.metrics->timestamp);
    now.source = "metrics.timestamp";
  }
  return now;
}

absl::StatusOr<std::unique_ptr<Explainer>> MakeExplainer(std::vector<ProfileConfig> profiles,
                                                         const Registry& registry,
                                                         const Clock& clock,
                                                         const ScoreInput& input) {
  Explainer::Options options;
  options.registry = &registry;
  options.clock = &clock;
  options.metrics = input.metrics;
  return Explainer::Create(std::move(profiles), std::move(options));
}

absl::Status AddNodes(const ScoreInput& input, Explainer& explainer) {
  for (size_t i = 0; i < input.nodes.size(); ++i) {
    if (absl::Status s =
            explainer.cache().AddNode(std::make_shared<const kube::Node>(input.nodes[i]));
        !s.ok()) {
      return PathError(absl::StrCat("nodes[", i, "]"), s.message());
    }
  }
  return absl::OkStatus();
}

// The pods on the file's nodes; the pod being scored, unassigned and terminal pods and
// pods on unknown nodes are left out, with notes.
absl::Status AddAssignedPods(const ScoreInput& input, Explainer& explainer,
                             std::vector<std::string>& notes) {
  const std::string pod_key = PodKey(input.pod);
  std::set<std::string, std::less<>> node_names;
  for (const kube::Node& n : input.nodes) node_names.insert(n.metadata.name);
  int skipped_unassigned = 0;
  int skipped_terminal = 0;
  for (size_t i = 0; i < input.pods.size(); ++i) {
    const kube::Pod& p = input.pods[i];
    const std::string path = absl::StrCat("pods[", i, "]");
    if (PodKey(p) == pod_key) {
      notes.push_back(
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
      notes.push_back(absl::StrCat(path, " (", PodKey(p), ") is on node \"", p.spec.node_name,
                                   "\", which is not in nodes: left out"));
      continue;
    }
    if (absl::Status s = explainer.cache().AddPod(std::make_shared<const kube::Pod>(p)); !s.ok()) {
      return PathError(path, s.message());
    }
  }
  if (skipped_unassigned > 0) {
    notes.push_back(absl::StrCat(skipped_unassigned,
                                 " pod(s) without spec.nodeName left out (they use no "
                                 "node's resources)"));
  }
  if (skipped_terminal > 0) {
    notes.push_back(absl::StrCat(skipped_terminal,
                                 " terminal pod(s) (Succeeded/Failed) left out, as the "
                                 "scheduler does"));
  }
  return absl::OkStatus();
}

void AddClusterObjects(const ScoreInput& input, Explainer& explainer) {
  for (const auto& [resource, object] : input.objects) {
    explainer.objects().Apply(resource, std::make_shared<const kube::SelectorObject>(object));
  }
  for (const kube::StorageObject& object : input.storage) {
    explainer.storage().Apply(std::make_shared<const kube::StorageObject>(object));
  }
}

// The cluster: the nodes, the pods on them, the namespaces, services, controllers and
// storage objects.
absl::Status LoadCluster(const ScoreInput& input, Explainer& explainer,
                         std::vector<std::string>& notes) {
  if (!input.pod.spec.node_name.empty()) {
    notes.push_back(absl::StrCat("pod.spec.nodeName \"", input.pod.spec.node_name,
                                 "\" ignored: the pod is scored as pending"));
  }
  TRIMARAN_RETURN_IF_ERROR(AddNodes(input, explainer));
  TRIMARAN_RETURN_IF_ERROR(AddAssignedPods(input, explainer, notes));
  AddClusterObjects(input, explainer);
  return absl::OkStatus();
}

// One cycle, explained; the report carries the clock's source, the metrics and the
// notes of the steps before.
absl::StatusOr<Report> ExplainOneCycle(Explainer& explainer, const ScoreInput& input,
                                       const std::string& profile, const FrozenNow& now,
                                       const std::vector<std::string>& notes) {
  if (absl::StatusOr<Framework*> framework = explainer.FrameworkFor(profile); !framework.ok()) {
    return PathError("schedulerConfig", framework.status().message());
  }
  TRIMARAN_ASSIGN_OR_RETURN(Report report, explainer.Explain(input.pod, profile));
  report.now_source = now.source;
  report.metrics = input.metrics;
  report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
  return report;
}

}  // namespace

absl::StatusOr<Report> RunScore(const ScoreInput& input, const ScoreOptions& options) {
  Registry in_tree;
  TRIMARAN_ASSIGN_OR_RETURN(const Registry* registry, ResolveRegistry(options, in_tree));
  std::vector<std::string> notes;
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<ProfileConfig> profiles,
                            LoadProfiles(input.scheduler_config, *registry));
  TRIMARAN_ASSIGN_OR_RETURN(const std::string profile,
                            ChooseProfile(profiles, options.profile, input.pod, notes));
  const FrozenNow now = FreezeNow(input);
  ManualClock clock(now.time);
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<Explainer> explainer,
                            MakeExplainer(std::move(profiles), *registry, clock, input));
  TRIMARAN_RETURN_IF_ERROR(LoadCluster(input, *explainer, notes));
  return ExplainOneCycle(*explainer, input, profile, now, notes);
}

}  // namespace trimaran::sched::explain
