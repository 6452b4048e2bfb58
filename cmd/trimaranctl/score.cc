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

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "cmd/trimaranctl/dashboard_command.h"
#include "cmd/trimaranctl/explain_command.h"
#include "cmd/trimaranctl/flag_args.h"
#include "cmd/trimaranctl/nodes_command.h"
#include "common/clock.h"
#include "common/logging.h"
#include "common/manual_clock.h"
#include "common/status_macros.h"
#include "common/version.h"
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
#include "scheduler/explain/report_format.h"
#include "scheduler/framework/status.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/runtime/framework.h"

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
  // The cluster objects beside nodes and pods, by their input field.
  static constexpr std::pair<const char*, kube::SelectorResource> kObjectFields[] = {
      {"namespaces", kube::SelectorResource::kNamespaces},
      {"services", kube::SelectorResource::kServices},
      {"replicationControllers", kube::SelectorResource::kReplicationControllers},
      {"replicaSets", kube::SelectorResource::kReplicaSets},
      {"statefulSets", kube::SelectorResource::kStatefulSets},
  };
  static constexpr std::pair<const char*, kube::StorageResource> kStorageFields[] = {
      {"persistentVolumes", kube::StorageResource::kPersistentVolumes},
      {"persistentVolumeClaims", kube::StorageResource::kPersistentVolumeClaims},
      {"storageClasses", kube::StorageResource::kStorageClasses},
      {"csiNodes", kube::StorageResource::kCSINodes},
      {"csiDrivers", kube::StorageResource::kCSIDrivers},
      {"csiStorageCapacities", kube::StorageResource::kCSIStorageCapacities},
  };
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

  for (const auto& [field, resource] : kObjectFields) {
    const rapidjson::Value* objects = member(field);
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
  for (const auto& [field, resource] : kStorageFields) {
    const rapidjson::Value* objects = member(field);
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
// Configuration: parse, default, validate, expand (as the daemon does).

absl::StatusOr<std::vector<sched::ProfileConfig>> LoadProfiles(const std::string& text,
                                                               const sched::Registry& registry) {
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
  if (absl::Status s = config::Validate(cfg, registry); !s.ok()) {
    return PathError("schedulerConfig", s.message());
  }
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      config::ExpandProfiles(cfg, registry);
  if (!profiles.ok()) return PathError("schedulerConfig", profiles.status().message());
  return profiles;
}

}  // namespace

absl::StatusOr<ScoreReport> RunScore(const ScoreInput& input, const ScoreOptions& options) {
  sched::Registry in_tree;
  const sched::Registry* registry = options.registry;
  if (registry == nullptr) {
    TRIMARAN_RETURN_IF_ERROR(sched::plugins::RegisterInTreePlugins(in_tree));
    registry = &in_tree;
  }
  std::vector<std::string> notes;

  // ---- Profile ----
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                            LoadProfiles(input.scheduler_config, *registry));
  auto has_profile = [&](absl::string_view name) {
    return std::any_of(profiles.begin(), profiles.end(),
                       [&](const sched::ProfileConfig& p) { return p.scheduler_name == name; });
  };
  std::string profile = options.profile;
  if (!profile.empty()) {
    if (!has_profile(profile)) {
      std::vector<std::string> names;
      for (const sched::ProfileConfig& p : profiles) names.push_back(p.scheduler_name);
      return absl::InvalidArgumentError(absl::StrCat("--profile: no profile named \"", profile,
                                                     "\" (profiles: ", absl::StrJoin(names, ", "),
                                                     ")"));
    }
  } else if (has_profile(input.pod.spec.scheduler_name)) {
    profile = input.pod.spec.scheduler_name;
  } else {
    profile = profiles.front().scheduler_name;
    notes.push_back(absl::StrCat("pod.spec.schedulerName \"", input.pod.spec.scheduler_name,
                                 "\" names no profile: using the first profile, \"", profile,
                                 "\""));
  }

  // ---- Time: frozen at the file's instant, so a report is reproducible ----
  absl::Time now = absl::UnixEpoch();
  std::string now_source = "default";
  if (input.now.has_value()) {
    now = *input.now;
    now_source = "now";
  } else if (input.metrics.has_value()) {
    now = absl::FromUnixSeconds(input.metrics->timestamp);
    now_source = "metrics.timestamp";
  }
  ManualClock clock(now);

  // ---- The cluster ----
  sched::explain::Explainer::Options explainer_options;
  explainer_options.registry = registry;
  explainer_options.clock = &clock;
  explainer_options.metrics = input.metrics;
  TRIMARAN_ASSIGN_OR_RETURN(
      std::unique_ptr<sched::explain::Explainer> explainer,
      sched::explain::Explainer::Create(std::move(profiles), std::move(explainer_options)));
  const std::string pod_key = PodKey(input.pod);
  if (!input.pod.spec.node_name.empty()) {
    notes.push_back(absl::StrCat("pod.spec.nodeName \"", input.pod.spec.node_name,
                                 "\" ignored: the pod is scored as pending"));
  }
  for (size_t i = 0; i < input.nodes.size(); ++i) {
    if (absl::Status s =
            explainer->cache().AddNode(std::make_shared<const kube::Node>(input.nodes[i]));
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
    if (absl::Status s = explainer->cache().AddPod(std::make_shared<const kube::Pod>(p)); !s.ok()) {
      return PathError(path, s.message());
    }
  }
  for (const auto& [resource, object] : input.objects) {
    explainer->objects().Apply(resource, std::make_shared<const kube::SelectorObject>(object));
  }
  for (const kube::StorageObject& object : input.storage) {
    explainer->storage().Apply(std::make_shared<const kube::StorageObject>(object));
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

  // ---- One cycle, explained ----
  if (absl::StatusOr<sched::Framework*> framework = explainer->FrameworkFor(profile);
      !framework.ok()) {
    return PathError("schedulerConfig", framework.status().message());
  }
  TRIMARAN_ASSIGN_OR_RETURN(ScoreReport report, explainer->Explain(input.pod, profile));
  report.now_source = now_source;
  report.metrics = input.metrics;
  report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
  return report;
}

// ---------------------------------------------------------------------------------
// The CLI.

std::string HelpText() {
  return absl::StrCat(
      "trimaranctl: the Trimaran scheduler's user CLI.\n"
      "\n"
      "Usage:\n"
      "  trimaranctl score [flags] FILE     explain where a pod would be scheduled, and why\n"
      "  trimaranctl nodes [flags]          nodes: requests, live usage and price (nodes --help)\n"
      "  trimaranctl dashboard [flags]      the same as a web page (dashboard --help)\n"
      "  trimaranctl explain NAMESPACE/POD  the scheduler's real decision for a pod (explain "
      "--help)\n"
      "  trimaranctl simulate [flags]       what each profile costs on a trace (simulate --help)\n"
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
  if (args[0] == "dashboard") {
    return nodes::RunDashboardCommand(std::vector<std::string>(args.begin() + 1, args.end()), out,
                                      err);
  }
  if (args[0] == "nodes") {
    return nodes::RunNodesCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (args[0] == "explain") {
    return RunExplainCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (args[0] != "score") return usage_error(absl::StrCat("unknown command \"", args[0], "\""));

  std::string output = "table";
  ScoreOptions options;
  std::string file;
  int verbosity = -1;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--output", "-o", "--profile", "--v", "-v"},
      .bool_flags = {"-h", "--help"},
      .attached_short_output = true,
  };
  for (const FlagArg& arg :
       SplitFlags(std::vector<std::string>(args.begin() + 1, args.end()), *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      out += HelpText();
      return 0;
    }
    if (absl::Status s = FlagArgError(arg); !s.ok()) return usage_error(s.message());
    const std::string& value = arg.value;
    if (arg.is("--v") || arg.is("-v")) {
      if (!absl::SimpleAtoi(value, &verbosity) || verbosity < 0) {
        return usage_error(
            absl::StrCat("--v: must be a non-negative integer, got \"", value, "\""));
      }
    } else if (arg.is("--profile")) {
      if (value.empty()) return usage_error("--profile: needs a profile name");
      options.profile = value;
    } else if (arg.is("--output") || arg.is("-o")) {
      if (value != "table" && value != "json") {
        return usage_error(absl::StrCat("--output: must be table or json, got \"", value, "\""));
      }
      output = value;
    } else if (!file.empty()) {
      return usage_error(absl::StrCat("more than one FILE (\"", file, "\", \"", value, "\")"));
    } else {
      file = value;
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
