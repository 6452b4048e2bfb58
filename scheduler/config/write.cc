#include "scheduler/config/write.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/json_string.h"

namespace trimaran::sched::config {
namespace {

YAML::Node SetToNode(const PluginSet& set) {
  YAML::Node node(YAML::NodeType::Map);
  if (!set.enabled.empty()) {
    for (const Plugin& p : set.enabled) {
      YAML::Node e(YAML::NodeType::Map);
      e["name"] = p.name;
      if (p.weight != 0) e["weight"] = p.weight;
      node["enabled"].push_back(e);
    }
  }
  if (!set.disabled.empty()) {
    for (const std::string& name : set.disabled) {
      YAML::Node e(YAML::NodeType::Map);
      e["name"] = name;
      node["disabled"].push_back(e);
    }
  }
  return node;
}

// Scalars that are JSON literals when written plainly. Strings the writer itself set
// (names, durations, ...) never look like these except by the user's choice of name.
bool IsJsonLiteral(const YAML::Node& node) {
  if (node.Tag() == "!") return false;  // quoted in the source
  const std::string& s = node.Scalar();
  if (s == "true" || s == "false" || s == "null") return true;
  double d = 0;
  return !s.empty() && (absl::ascii_isdigit(s[0]) || s[0] == '-') && absl::SimpleAtod(s, &d);
}

void ToJson(const YAML::Node& node, std::string& out, bool string_scalar = false) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      out += "{";
      bool first = true;
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!first) out += ",";
        first = false;
        absl::StrAppend(&out, JsonQuote(it->first.Scalar()), ":");
        const std::string& key = it->first.Scalar();
        // Fields the writer knows are strings, whatever they look like.
        const bool str = key == "name" || key == "schedulerName" || key == "apiVersion" ||
                         key == "kind" || key == "resourceName" || key == "resourceNamespace" ||
                         key == "kubeconfig" || key == "contentType" ||
                         key == "acceptContentTypes" || key == "resourceLock";
        ToJson(it->second, out, str);
      }
      out += "}";
      return;
    }
    case YAML::NodeType::Sequence: {
      out += "[";
      for (size_t i = 0; i < node.size(); ++i) {
        if (i > 0) out += ",";
        ToJson(node[i], out);
      }
      out += "]";
      return;
    }
    case YAML::NodeType::Scalar:
      out += !string_scalar && IsJsonLiteral(node) ? node.Scalar() : JsonQuote(node.Scalar());
      return;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out += string_scalar ? "\"\"" : "null";
      return;
  }
}

}  // namespace

std::string FormatGoDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "0s";
  return absl::FormatDuration(d);
}

YAML::Node ConfigToNode(const SchedulerConfig& config) {
  YAML::Node root(YAML::NodeType::Map);
  root["apiVersion"] = std::string(kApiVersionV1);
  root["kind"] = std::string(kKind);
  root["parallelism"] = config.parallelism;
  const LeaderElection& le = config.leader_election;
  YAML::Node len(YAML::NodeType::Map);
  len["leaderElect"] = le.leader_elect;
  len["leaseDuration"] = FormatGoDuration(le.lease_duration);
  len["renewDeadline"] = FormatGoDuration(le.renew_deadline);
  len["retryPeriod"] = FormatGoDuration(le.retry_period);
  len["resourceLock"] = le.resource_lock;
  len["resourceName"] = le.resource_name;
  len["resourceNamespace"] = le.resource_namespace;
  root["leaderElection"] = len;
  const ClientConnection& cc = config.client_connection;
  YAML::Node ccn(YAML::NodeType::Map);
  ccn["kubeconfig"] = cc.kubeconfig;
  ccn["acceptContentTypes"] = cc.accept_content_types;
  ccn["contentType"] = cc.content_type;
  ccn["qps"] = cc.qps;
  ccn["burst"] = cc.burst;
  root["clientConnection"] = ccn;
  root["enableProfiling"] = config.enable_profiling;
  root["enableContentionProfiling"] = config.enable_contention_profiling.value_or(false);
  root["percentageOfNodesToScore"] = config.percentage_of_nodes_to_score.value_or(0);
  root["podInitialBackoffSeconds"] = config.pod_initial_backoff_seconds;
  root["podMaxBackoffSeconds"] = config.pod_max_backoff_seconds;
  YAML::Node profiles(YAML::NodeType::Sequence);
  for (const Profile& profile : config.profiles) {
    YAML::Node pn(YAML::NodeType::Map);
    pn["schedulerName"] = profile.scheduler_name;
    if (profile.percentage_of_nodes_to_score.has_value()) {
      pn["percentageOfNodesToScore"] = *profile.percentage_of_nodes_to_score;
    }
    YAML::Node plugins(YAML::NodeType::Map);
    // A profile with no multiPoint plugins (a v1beta2 one, or a v1 one that disabled
    // them all) says so explicitly: reloaded as v1, an absent multiPoint would get v1's
    // default set merged back in and change the profile's meaning.
    PluginSet multi_point = profile.plugins.multi_point;
    if (multi_point.enabled.empty() && !multi_point.DisablesAll()) {
      multi_point.disabled.insert(multi_point.disabled.begin(), "*");
    }
    plugins["multiPoint"] = SetToNode(multi_point);
    for (ExtensionPoint ep : kAllExtensionPoints) {
      const PluginSet& set = profile.plugins.At(ep);
      if (!set.empty()) plugins[std::string(ExtensionPointField(ep))] = SetToNode(set);
    }
    pn["plugins"] = plugins;
    if (!profile.plugin_config.empty()) {
      YAML::Node pcs(YAML::NodeType::Sequence);
      for (const PluginConfig& pc : profile.plugin_config) {
        YAML::Node e(YAML::NodeType::Map);
        e["name"] = pc.name;
        if (pc.args && !pc.args.IsNull()) e["args"] = YAML::Clone(pc.args);
        pcs.push_back(e);
      }
      pn["pluginConfig"] = pcs;
    }
    profiles.push_back(pn);
  }
  root["profiles"] = profiles;
  root["delayCacheUntilActive"] = config.delay_cache_until_active;
  return root;
}

std::string WriteConfigYaml(const SchedulerConfig& config) {
  YAML::Emitter out;
  out << ConfigToNode(config);
  return absl::StrCat(out.c_str(), "\n");
}

bool IsSecretKey(absl::string_view key) {
  const std::string k = absl::AsciiStrToLower(key);
  for (absl::string_view word :
       {"token", "password", "secret", "apikey", "api_key", "credential", "authorization"}) {
    if (absl::StrContains(k, word)) return true;
  }
  return false;
}

void RedactSecrets(YAML::Node node) {
  if (node.IsSequence()) {
    for (YAML::Node item : node) RedactSecrets(item);
    return;
  }
  if (!node.IsMap()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    YAML::Node value = it->second;
    if (absl::AsciiStrToLower(key) == "headers" && value.IsMap()) {
      for (auto h = value.begin(); h != value.end(); ++h) h->second = kRedacted;
    } else if (IsSecretKey(key) && value.IsScalar() && !value.Scalar().empty()) {
      it->second = kRedacted;
    } else {
      RedactSecrets(value);
    }
  }
}

std::string WriteConfigJson(const SchedulerConfig& config) {
  YAML::Node root = ConfigToNode(config);
  RedactSecrets(root);
  std::string out;
  ToJson(root, out);
  return out;
}

}  // namespace trimaran::sched::config
