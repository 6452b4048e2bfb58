#include "scheduler/config/load.h"

#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/logging.h"
#include "scheduler/config/defaults.h"

namespace trimaran::sched::config {
namespace {

// Collects decoding errors with their paths and locations.
class Decoder {
 public:
  explicit Decoder(absl::string_view source) : source_(source) {}

  void Error(const YAML::Node& at, absl::string_view path, absl::string_view message) {
    const YAML::Mark mark = at.Mark();
    if (mark.is_null()) {
      errors_.push_back(absl::StrCat(path, ": ", message, " (", source_, ")"));
    } else {
      errors_.push_back(absl::StrCat(path, ": ", message, " (", source_, ":", mark.line + 1, ":",
                                     mark.column + 1, ")"));
    }
  }
  const std::vector<std::string>& errors() const { return errors_; }

  // Calls `field(key, value, child_path)` for every key of the mapping `node`; `field`
  // returns false for an unknown key, which is recorded. Null = empty mapping.
  void Fields(
      const YAML::Node& node, absl::string_view path,
      const std::function<bool(const std::string&, const YAML::Node&, const std::string&)>& field) {
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) {
      Error(node, path, "expected a mapping");
      return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      const std::string child = path.empty() ? key : absl::StrCat(path, ".", key);
      if (!field(key, it->second, child)) Error(it->first, child, "unknown field");
    }
  }

  // Calls `item(i, value, child_path)` for every element of the sequence `node`.
  void Items(const YAML::Node& node, absl::string_view path,
             const std::function<void(size_t, const YAML::Node&, const std::string&)>& item) {
    if (!node || node.IsNull()) return;
    if (!node.IsSequence()) {
      Error(node, path, "expected a list");
      return;
    }
    for (size_t i = 0; i < node.size(); ++i) {
      item(i, node[i], absl::StrCat(path, "[", i, "]"));
    }
  }

  bool Scalar(const YAML::Node& node, absl::string_view path, absl::string_view what) {
    if (node.IsScalar()) return true;
    Error(node, path, absl::StrCat("expected ", what));
    return false;
  }

  void String(const YAML::Node& node, absl::string_view path, std::string& out) {
    if (node.IsNull()) {
      out.clear();
      return;
    }
    if (Scalar(node, path, "a string")) out = node.Scalar();
  }

  template <typename Int>
  void Integer(const YAML::Node& node, absl::string_view path, Int& out) {
    if (!Scalar(node, path, "an integer")) return;
    int64_t v = 0;
    if (node.Tag() == "!" || !absl::SimpleAtoi(node.Scalar(), &v) ||
        v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) {
      Error(node, path, absl::StrCat("expected an integer, got \"", node.Scalar(), "\""));
      return;
    }
    out = static_cast<Int>(v);
  }

  void Bool(const YAML::Node& node, absl::string_view path, bool& out) {
    if (!Scalar(node, path, "a boolean")) return;
    const std::string s = absl::AsciiStrToLower(node.Scalar());
    if (node.Tag() != "!" && (s == "true" || s == "yes" || s == "on")) {
      out = true;
    } else if (node.Tag() != "!" && (s == "false" || s == "no" || s == "off")) {
      out = false;
    } else {
      Error(node, path, absl::StrCat("expected a boolean, got \"", node.Scalar(), "\""));
    }
  }

  void Float(const YAML::Node& node, absl::string_view path, float& out) {
    if (!Scalar(node, path, "a number")) return;
    float v = 0;
    if (node.Tag() == "!" || !absl::SimpleAtof(node.Scalar(), &v)) {
      Error(node, path, absl::StrCat("expected a number, got \"", node.Scalar(), "\""));
      return;
    }
    out = v;
  }

  void Duration(const YAML::Node& node, absl::string_view path, absl::Duration& out) {
    if (!Scalar(node, path, "a duration string")) return;
    absl::StatusOr<absl::Duration> d = ParseGoDuration(node.Scalar());
    if (!d.ok()) {
      Error(node, path, d.status().message());
      return;
    }
    out = *d;
  }

 private:
  std::string source_;
  std::vector<std::string> errors_;
};

void DecodePluginSet(Decoder& d, const YAML::Node& node, const std::string& path, PluginSet& set) {
  d.Fields(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (key == "enabled") {
      d.Items(v, p, [&](size_t, const YAML::Node& item, const std::string& ip) {
        Plugin plugin;
        d.Fields(item, ip, [&](const std::string& k, const YAML::Node& fv, const std::string& fp) {
          if (k == "name") {
            d.String(fv, fp, plugin.name);
          } else if (k == "weight") {
            d.Integer(fv, fp, plugin.weight);
          } else {
            return false;
          }
          return true;
        });
        set.enabled.push_back(std::move(plugin));
      });
    } else if (key == "disabled") {
      d.Items(v, p, [&](size_t, const YAML::Node& item, const std::string& ip) {
        std::string name;
        d.Fields(item, ip, [&](const std::string& k, const YAML::Node& fv, const std::string& fp) {
          if (k == "name") {
            d.String(fv, fp, name);
          } else if (k == "weight") {
            int32_t ignored = 0;
            d.Integer(fv, fp, ignored);
          } else {
            return false;
          }
          return true;
        });
        set.disabled.push_back(std::move(name));
      });
    } else {
      return false;
    }
    return true;
  });
}

void DecodePlugins(Decoder& d, const YAML::Node& node, const std::string& path, ApiVersion version,
                   Plugins& plugins) {
  d.Fields(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    // v1beta2 had no multiPoint (introduced in v1beta3).
    if (key == "multiPoint" && version != ApiVersion::kV1beta2) {
      DecodePluginSet(d, v, p, plugins.multi_point);
      return true;
    }
    for (ExtensionPoint ep : kAllExtensionPoints) {
      if (key == ExtensionPointField(ep)) {
        DecodePluginSet(d, v, p, plugins.At(ep));
        return true;
      }
    }
    return false;
  });
}

void DecodeProfile(Decoder& d, const YAML::Node& node, const std::string& path, ApiVersion version,
                   Profile& profile) {
  d.Fields(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (key == "schedulerName") {
      d.String(v, p, profile.scheduler_name);
    } else if (key == "percentageOfNodesToScore") {
      int32_t pct = 0;
      d.Integer(v, p, pct);
      profile.percentage_of_nodes_to_score = pct;
    } else if (key == "plugins") {
      DecodePlugins(d, v, p, version, profile.plugins);
    } else if (key == "pluginConfig") {
      d.Items(v, p, [&](size_t, const YAML::Node& item, const std::string& ip) {
        PluginConfig pc;
        d.Fields(item, ip, [&](const std::string& k, const YAML::Node& fv, const std::string& fp) {
          if (k == "name") {
            d.String(fv, fp, pc.name);
          } else if (k == "args") {
            if (!fv.IsNull() && !fv.IsMap()) {
              d.Error(fv, fp, "expected a mapping");
            } else {
              pc.args = YAML::Clone(fv);
            }
          } else {
            return false;
          }
          return true;
        });
        profile.plugin_config.push_back(std::move(pc));
      });
    } else {
      return false;
    }
    return true;
  });
}

void DecodeRoot(Decoder& d, const YAML::Node& root, ApiVersion version, SchedulerConfig& cfg) {
  d.Fields(root, "", [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (key == "apiVersion" || key == "kind") {
      // Checked before decoding.
    } else if (key == "parallelism") {
      d.Integer(v, p, cfg.parallelism);
    } else if (key == "leaderElection") {
      LeaderElection& le = cfg.leader_election;
      d.Fields(v, p, [&](const std::string& k, const YAML::Node& fv, const std::string& fp) {
        if (k == "leaderElect") {
          d.Bool(fv, fp, le.leader_elect);
        } else if (k == "leaseDuration") {
          d.Duration(fv, fp, le.lease_duration);
        } else if (k == "renewDeadline") {
          d.Duration(fv, fp, le.renew_deadline);
        } else if (k == "retryPeriod") {
          d.Duration(fv, fp, le.retry_period);
        } else if (k == "resourceLock") {
          d.String(fv, fp, le.resource_lock);
        } else if (k == "resourceName") {
          d.String(fv, fp, le.resource_name);
        } else if (k == "resourceNamespace") {
          d.String(fv, fp, le.resource_namespace);
        } else {
          return false;
        }
        return true;
      });
    } else if (key == "clientConnection") {
      ClientConnection& cc = cfg.client_connection;
      d.Fields(v, p, [&](const std::string& k, const YAML::Node& fv, const std::string& fp) {
        if (k == "kubeconfig") {
          d.String(fv, fp, cc.kubeconfig);
        } else if (k == "acceptContentTypes") {
          d.String(fv, fp, cc.accept_content_types);
        } else if (k == "contentType") {
          d.String(fv, fp, cc.content_type);
        } else if (k == "qps") {
          d.Float(fv, fp, cc.qps);
        } else if (k == "burst") {
          d.Integer(fv, fp, cc.burst);
        } else {
          return false;
        }
        return true;
      });
    } else if (key == "enableProfiling") {
      d.Bool(v, p, cfg.enable_profiling);
    } else if (key == "enableContentionProfiling") {
      bool b = false;
      d.Bool(v, p, b);
      cfg.enable_contention_profiling = b;
    } else if (key == "percentageOfNodesToScore") {
      int32_t pct = 0;
      d.Integer(v, p, pct);
      cfg.percentage_of_nodes_to_score = pct;
    } else if (key == "percentageOfPlacementsToScore") {
      // 1.35+, feature-gated workload scheduling: accepted and ignored (spec §1.1).
      int32_t ignored = 0;
      d.Integer(v, p, ignored);
    } else if (key == "podInitialBackoffSeconds") {
      d.Integer(v, p, cfg.pod_initial_backoff_seconds);
    } else if (key == "podMaxBackoffSeconds") {
      d.Integer(v, p, cfg.pod_max_backoff_seconds);
    } else if (key == "delayCacheUntilActive") {
      d.Bool(v, p, cfg.delay_cache_until_active);
    } else if (key == "profiles") {
      d.Items(v, p, [&](size_t, const YAML::Node& item, const std::string& ip) {
        Profile profile;
        DecodeProfile(d, item, ip, version, profile);
        cfg.profiles.push_back(std::move(profile));
      });
    } else if (key == "extenders") {
      if (v.IsSequence() && v.size() > 0) {
        d.Error(v, p,
                absl::StrCat("not supported by trimaran-scheduler yet (", v.size(),
                             " extender(s) configured); remove the extenders"));
      } else if (!v.IsNull() && !v.IsSequence()) {
        d.Error(v, p, "expected a list");
      }
    } else if ((key == "healthzBindAddress" || key == "metricsBindAddress") &&
               version == ApiVersion::kV1beta2) {
      Log(Component::kConfig)
          .info("ignoring {}: use --bind-address and --secure-port instead", key);
    } else {
      return false;
    }
    return true;
  });
}

// ---- v1beta1 -> v1 -------------------------------------------------------------------

struct StrategyPlugin {
  const char* old_name;
  const char* type;
};
constexpr StrategyPlugin kStrategyPlugins[] = {
    {"NodeResourcesLeastAllocated", "LeastAllocated"},
    {"NodeResourcesMostAllocated", "MostAllocated"},
    {"RequestedToCapacityRatio", "RequestedToCapacityRatio"},
};

const StrategyPlugin* FindStrategyPlugin(absl::string_view name) {
  for (const StrategyPlugin& s : kStrategyPlugins) {
    if (name == s.old_name) return &s;
  }
  return nullptr;
}

bool SeqHasName(const YAML::Node& seq, absl::string_view name) {
  if (!seq.IsSequence()) return false;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (seq[i].IsMap() && seq[i]["name"] && seq[i]["name"].Scalar() == name) return true;
  }
  return false;
}

// Removes duplicate names (keeping the first) and the names in `drop`.
YAML::Node DedupeNames(const YAML::Node& seq, const std::vector<std::string>& drop) {
  YAML::Node out(YAML::NodeType::Sequence);
  std::vector<std::string> seen = drop;
  for (size_t i = 0; i < seq.size(); ++i) {
    std::string name = seq[i].IsMap() && seq[i]["name"] ? seq[i]["name"].Scalar() : "";
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    out.push_back(seq[i]);
  }
  return out;
}

// The top level: apiVersion, the bind addresses v1 removed, the lease lock.
void TranslateTopLevel(YAML::Node& root, std::vector<std::string>& notes) {
  root["apiVersion"] = std::string(kApiVersionV1);
  for (const char* gone : {"healthzBindAddress", "metricsBindAddress"}) {
    if (root[gone]) {
      root.remove(gone);
      notes.push_back(absl::StrCat(gone, " removed (use --bind-address / --secure-port)"));
    }
  }
  if (root["leaderElection"].IsMap() && root["leaderElection"]["resourceLock"] &&
      root["leaderElection"]["resourceLock"].Scalar() != "leases") {
    notes.push_back(absl::StrCat("leaderElection.resourceLock ",
                                 root["leaderElection"]["resourceLock"].Scalar(),
                                 " -> leases (the only lock v1 accepts)"));
    root["leaderElection"]["resourceLock"] = "leases";
  }
}

// The document's profiles, made when it has none: v1beta1 defaulted to one profile,
// which needs explicit weights (TranslateProfile).
YAML::Node ProfilesOrDefault(YAML::Node& root) {
  YAML::Node profiles = root["profiles"];
  if (!profiles || profiles.IsNull()) {
    YAML::Node profile(YAML::NodeType::Map);
    profiles = YAML::Node(YAML::NodeType::Sequence);
    profiles.push_back(profile);
    root["profiles"] = profiles;
  }
  return profiles;
}

// Renames the strategy plugins in the enabled and disabled lists of one plugin set
// (`set_name`, e.g. "score") to NodeResourcesFit; `enabled` becomes the strategy
// enabled there, if any.
void RenameStrategyPlugins(const std::string& set_name, YAML::Node& set, const std::string& ppath,
                           std::vector<std::string>& notes, const StrategyPlugin*& enabled) {
  for (const char* list : {"enabled", "disabled"}) {
    YAML::Node seq = set[list];
    if (!seq.IsSequence()) continue;
    for (size_t j = 0; j < seq.size(); ++j) {
      if (!seq[j].IsMap() || !seq[j]["name"]) continue;
      const StrategyPlugin* sp = FindStrategyPlugin(seq[j]["name"].Scalar());
      if (sp == nullptr) continue;
      notes.push_back(absl::StrCat(
          ppath, ".plugins.", set_name, ".", list, ": ", sp->old_name, " -> NodeResourcesFit",
          std::string(list) == "enabled" ? absl::StrCat(" with scoringStrategy.type ", sp->type)
                                         : ""));
      seq[j]["name"] = "NodeResourcesFit";
      if (std::string(list) == "enabled") enabled = sp;
    }
  }
}

// "enabled wins": a strategy enabled and another disabled both became
// NodeResourcesFit; keep it enabled.
void KeepFitEnabled(YAML::Node& set) {
  if (!set["disabled"].IsSequence()) return;
  std::vector<std::string> drop;
  if (SeqHasName(set["enabled"], "NodeResourcesFit")) drop.push_back("NodeResourcesFit");
  set["disabled"] = DedupeNames(set["disabled"], drop);
  if (set["disabled"].size() == 0) set.remove("disabled");
}

// Renames the strategy plugins in every set; returns the strategy enabled (the last
// one), null when none is.
const StrategyPlugin* RenameStrategyPluginsInSets(YAML::Node& plugins, const std::string& ppath,
                                                  std::vector<std::string>& notes) {
  const StrategyPlugin* enabled = nullptr;
  if (!plugins.IsMap()) return enabled;
  for (auto it = plugins.begin(); it != plugins.end(); ++it) {
    const std::string set_name = it->first.Scalar();
    YAML::Node set = it->second;
    if (!set.IsMap()) continue;
    RenameStrategyPlugins(set_name, set, ppath, notes, enabled);
    KeepFitEnabled(set);
  }
  return enabled;
}

// v1beta1's default score weights that changed in v1 (TaintToleration 1 -> 3,
// NodeAffinity 1 -> 2, InterPodAffinity 1 -> 2), written out.
void KeepV1beta1ScoreWeights(YAML::Node& plugins, const std::string& ppath,
                             std::vector<std::string>& notes) {
  YAML::Node score = plugins["score"];
  if (!score || score.IsNull()) score = YAML::Node(YAML::NodeType::Map);
  bool all_disabled = false;
  if (score["disabled"].IsSequence()) all_disabled = SeqHasName(score["disabled"], "*");
  if (!all_disabled) {
    for (const char* name : {"TaintToleration", "NodeAffinity", "InterPodAffinity"}) {
      if (SeqHasName(score["disabled"], name) || SeqHasName(score["enabled"], name)) continue;
      YAML::Node entry(YAML::NodeType::Map);
      entry["name"] = name;
      entry["weight"] = 1;
      if (!score["enabled"].IsSequence()) score["enabled"] = YAML::Node(YAML::NodeType::Sequence);
      score["enabled"].push_back(entry);
      notes.push_back(absl::StrCat(ppath, ".plugins.score.enabled: ", name,
                                   " weight 1 (its v1beta1 default; the v1 default differs)"));
    }
  }
  if (score.size() > 0) plugins["score"] = score;
}

// In the pluginConfig list `pcs`: every args' apiVersion to v1; the args of the
// `enabled` strategy plugin moved into `scoring`, those of the other strategy plugins
// dropped.
void MoveStrategyArgs(YAML::Node& pcs, const StrategyPlugin* enabled, YAML::Node& scoring,
                      const std::string& ppath, std::vector<std::string>& notes) {
  if (!pcs.IsSequence()) return;
  YAML::Node kept(YAML::NodeType::Sequence);
  for (size_t j = 0; j < pcs.size(); ++j) {
    YAML::Node pc = pcs[j];
    const std::string name = pc.IsMap() && pc["name"] ? pc["name"].Scalar() : "";
    YAML::Node args = pc.IsMap() ? pc["args"] : YAML::Node();
    if (args.IsMap() && args["apiVersion"] && args["apiVersion"].Scalar() == kApiVersionV1beta1) {
      args["apiVersion"] = std::string(kApiVersionV1);
    }
    const StrategyPlugin* sp = FindStrategyPlugin(name);
    if (sp == nullptr) {
      kept.push_back(pc);
      continue;
    }
    if (sp != enabled) {
      notes.push_back(absl::StrCat(ppath, ".pluginConfig: args of ", name,
                                   " dropped (the plugin is not enabled)"));
      continue;
    }
    if (args.IsMap() && args["resources"]) scoring["resources"] = args["resources"];
    if (args.IsMap() && args["shape"]) {
      scoring["requestedToCapacityRatio"]["shape"] = args["shape"];
    }
    notes.push_back(absl::StrCat(ppath, ".pluginConfig: args of ", name,
                                 " -> NodeResourcesFit scoringStrategy"));
  }
  pcs = kept;
}

// NodeResourcesFit's scoringStrategy `scoring` (cpu and memory, weight 1, unless it
// names resources) into its pluginConfig entry in `pcs`, made when there is none.
void MergeScoringStrategy(YAML::Node& pcs, YAML::Node& scoring) {
  if (!scoring["resources"]) {
    YAML::Node cpu(YAML::NodeType::Map);
    cpu["name"] = "cpu";
    cpu["weight"] = 1;
    YAML::Node mem(YAML::NodeType::Map);
    mem["name"] = "memory";
    mem["weight"] = 1;
    scoring["resources"].push_back(cpu);
    scoring["resources"].push_back(mem);
  }
  if (!pcs.IsSequence()) pcs = YAML::Node(YAML::NodeType::Sequence);
  bool merged = false;
  for (size_t j = 0; j < pcs.size(); ++j) {
    if (pcs[j].IsMap() && pcs[j]["name"] && pcs[j]["name"].Scalar() == "NodeResourcesFit") {
      pcs[j]["args"]["scoringStrategy"] = scoring;
      merged = true;
    }
  }
  if (!merged) {
    YAML::Node pc(YAML::NodeType::Map);
    pc["name"] = "NodeResourcesFit";
    pc["args"]["scoringStrategy"] = scoring;
    pcs.push_back(pc);
  }
}

// pluginConfig: the strategy plugins' args become NodeResourcesFit's scoringStrategy
// (of type `enabled`'s, when a strategy is enabled).
void TranslatePluginConfig(YAML::Node& profile, const StrategyPlugin* enabled,
                           const std::string& ppath, std::vector<std::string>& notes) {
  YAML::Node pcs = profile["pluginConfig"];
  YAML::Node scoring;
  if (enabled != nullptr) {
    scoring = YAML::Node(YAML::NodeType::Map);
    scoring["type"] = std::string(enabled->type);
  }
  MoveStrategyArgs(pcs, enabled, scoring, ppath, notes);
  if (enabled != nullptr) MergeScoringStrategy(pcs, scoring);
  if (pcs.IsSequence() && pcs.size() > 0) {
    profile["pluginConfig"] = pcs;
  } else if (profile["pluginConfig"]) {
    profile.remove("pluginConfig");
  }
}

// One profile (at `ppath`, "profiles[i]"): its plugin sets, then its pluginConfig.
void TranslateProfile(YAML::Node& profile, const std::string& ppath,
                      std::vector<std::string>& notes) {
  YAML::Node plugins = profile["plugins"];
  if (!plugins || plugins.IsNull()) {
    plugins = YAML::Node(YAML::NodeType::Map);
  }
  const StrategyPlugin* enabled = RenameStrategyPluginsInSets(plugins, ppath, notes);
  KeepV1beta1ScoreWeights(plugins, ppath, notes);
  if (plugins.size() > 0) profile["plugins"] = plugins;
  TranslatePluginConfig(profile, enabled, ppath, notes);
}

// The v1 equivalent of a v1beta1 document, emitted as YAML, followed by comments that
// list the changes.
std::string TranslateV1beta1(const YAML::Node& original) {
  YAML::Node root = YAML::Clone(original);
  std::vector<std::string> notes;
  TranslateTopLevel(root, notes);
  YAML::Node profiles = ProfilesOrDefault(root);
  for (size_t i = 0; profiles.IsSequence() && i < profiles.size(); ++i) {
    YAML::Node profile = profiles[i];
    if (!profile.IsMap()) continue;
    TranslateProfile(profile, absl::StrCat("profiles[", i, "]"), notes);
  }
  YAML::Emitter out;
  out << root;
  std::string text = absl::StrCat(out.c_str(), "\n");
  for (const std::string& note : notes) absl::StrAppend(&text, "# ", note, "\n");
  return text;
}

absl::Status V1beta1Refusal(const YAML::Node& root, absl::string_view source) {
  const std::string refusal = absl::StrCat(
      source, ": apiVersion ", kApiVersionV1beta1,
      " is not supported (removed in Kubernetes 1.25; trimaran-scheduler reads v1, v1beta3 "
      "and v1beta2).");
  // The translation walks whatever the file holds, and yaml-cpp throws where it meets a
  // shape it does not expect (operator[] on a scalar, as in `plugins: "x"`; found by
  // fuzz/scheduler_config_fuzzer.cc, it used to end the process). Such a file gets the
  // refusal without the translation.
  std::string translated;
  try {
    translated = TranslateV1beta1(root);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(refusal, " It cannot be translated to ",
                                                   kApiVersionV1, " automatically: ", e.what()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(refusal, " The same configuration as ", kApiVersionV1, " is:\n", translated));
}

// The offset of the first byte that does not belong to well-formed UTF-8 (no overlong
// forms, surrogates or code points past U+10FFFF), or npos.
size_t FirstInvalidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;  // truncated
    for (int k = 1; k <= n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return absl::string_view::npos;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view text) {
  absl::Duration d;
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower.find("inf") != std::string::npos || !absl::ParseDuration(text, &d)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid duration \"", text, "\" (want a Go duration such as \"15s\")"));
  }
  return d;
}

absl::StatusOr<SchedulerConfig> ParseConfig(absl::string_view yaml_text,
                                            absl::string_view source_name) {
  // YAML is Unicode; yaml-cpp passes invalid UTF-8 through a scalar while its emitter
  // writes U+FFFD for it, so such a file would not survive --write-config-to (found by
  // fuzz/scheduler_config_fuzzer.cc). Upstream's Go YAML reader refuses it too.
  if (const size_t bad = FirstInvalidUtf8(yaml_text); bad != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": invalid YAML: not UTF-8 at byte ", bad));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::ParserException& e) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ":", e.mark.line + 1, ":",
                                                   e.mark.column + 1, ": invalid YAML: ", e.msg));
  }
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": expected a KubeSchedulerConfiguration mapping"));
  }
  const YAML::Node api = root["apiVersion"];
  const YAML::Node kind = root["kind"];
  if (!api || !api.IsScalar() || api.Scalar().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": apiVersion: required"));
  }
  if (!kind || !kind.IsScalar() || kind.Scalar() != kKind) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": kind: must be ", kKind, ", got \"",
                     kind && kind.IsScalar() ? kind.Scalar() : std::string(), "\""));
  }
  SchedulerConfig cfg;
  const std::string& v = api.Scalar();
  if (v == kApiVersionV1) {
    cfg.api_version = ApiVersion::kV1;
  } else if (v == kApiVersionV1beta3) {
    cfg.api_version = ApiVersion::kV1beta3;
  } else if (v == kApiVersionV1beta2) {
    cfg.api_version = ApiVersion::kV1beta2;
  } else if (v == kApiVersionV1beta1) {
    return V1beta1Refusal(root, source_name);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": apiVersion: unsupported \"", v, "\" (want ", kApiVersionV1,
                     ", ", kApiVersionV1beta3, " or ", kApiVersionV1beta2, ")"));
  }
  Decoder d(source_name);
  DecodeRoot(d, root, cfg.api_version, cfg);
  if (!d.errors().empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(d.errors(), "\n"));
  }
  SetDefaults(cfg);
  return cfg;
}

absl::StatusOr<SchedulerConfig> LoadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read config file ", path));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseConfig(buf.str(), path);
}

}  // namespace trimaran::sched::config
