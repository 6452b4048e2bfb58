#include "scheduler/plugins/load_aware/trimaran_spec.h"

#include <initializer_list>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "loadwatcher/metrics.h"

namespace trimaran::sched::plugins::load_aware {

using helper::ChildPath;
using helper::DecodeBool;
using helper::DecodeMapKeys;
using helper::DecodeString;
using helper::FieldErrors;
using helper::Present;

absl::string_view FallbackPolicyName(FallbackPolicy policy) {
  return policy == FallbackPolicy::kMinScore ? "MinScore" : "Requests";
}

const std::vector<absl::string_view>& TrimaranSpecFields() {
  static const auto* fields =
      new std::vector<absl::string_view>{"metricProvider",   "watcherAddress", "watcherCAFile",
                                         "watcherTokenFile", "metricsMaxAge",  "fallback"};
  return *fields;
}

TrimaranSpec DefaultTrimaranSpec() {
  TrimaranSpec spec;
  spec.metric_provider.type = std::string(lw::kProviderMetricsServer);
  return spec;
}

void ValidateTrimaranSpec(const TrimaranSpec& spec, absl::string_view path, FieldErrors& errors) {
  if (spec.service_mode()) {
    const std::string& addr = *spec.watcher_address;
    if (!absl::StartsWith(addr, "http://") && !absl::StartsWith(addr, "https://") &&
        !absl::StartsWith(addr, "grpc://") && !absl::StartsWith(addr, "grpcs://")) {
      errors.Add(ChildPath(path, "watcherAddress"),
                 absl::StrCat("must start with http://, https://, grpc:// or grpcs://, got \"",
                              addr, "\""));
    } else if (!spec.watcher_ca_file.empty() && !absl::StartsWith(addr, "https://") &&
               !absl::StartsWith(addr, "grpcs://")) {
      errors.Add(
          ChildPath(path, "watcherCAFile"),
          absl::StrCat("needs a TLS watcherAddress (https:// or grpcs://), got \"", addr, "\""));
    }
  } else {
    if (!spec.watcher_ca_file.empty()) {
      errors.Add(ChildPath(path, "watcherCAFile"), "only with a non-empty watcherAddress");
    }
    if (!spec.watcher_token_file.empty()) {
      errors.Add(ChildPath(path, "watcherTokenFile"), "only with a non-empty watcherAddress");
    }
    const std::string& type = spec.metric_provider.type;
    if (type != lw::kProviderMetricsServer && type != lw::kProviderPrometheus &&
        type != lw::kProviderSignalFx) {
      errors.Add(ChildPath(ChildPath(path, "metricProvider"), "type"),
                 absl::StrCat("invalid MetricProvider.Type, got ", type,
                              " (supported: KubernetesMetricsServer, Prometheus, SignalFx)"));
    }
  }
  if (spec.metrics_max_age <= absl::ZeroDuration()) {
    errors.Add(ChildPath(path, "metricsMaxAge"),
               absl::StrCat("must be a duration greater than 0, got ",
                            absl::FormatDuration(spec.metrics_max_age)));
  }
}

void DecodeTrimaranSpec(const YAML::Node& node, absl::string_view path, TrimaranSpec& spec,
                        FieldErrors& errors) {
  spec = TrimaranSpec{};
  spec.metric_provider.type.clear();
  std::optional<bool> insecure;
  if (const YAML::Node mp = node["metricProvider"]; Present(mp)) {
    const std::string mp_path = ChildPath(path, "metricProvider");
    if (DecodeMapKeys(mp, mp_path,
                      {"type", "address", "token", "insecureSkipVerify", "tokenFile", "caFile",
                       "certFile", "keyFile", "headers", "nodeLabels", "cpuMetric", "memoryMetric"},
                      errors)) {
      lw::ProviderSpec& p = spec.metric_provider;
      for (const auto& [key, out] : std::initializer_list<std::pair<const char*, std::string*>>{
               {"tokenFile", &p.token_file},
               {"caFile", &p.ca_file},
               {"certFile", &p.client_cert_file},
               {"keyFile", &p.client_key_file},
               {"cpuMetric", &p.cpu_metric},
               {"memoryMetric", &p.memory_metric}}) {
        if (Present(mp[key]))
          *out = DecodeString(mp[key], ChildPath(mp_path, key), errors).value_or("");
      }
      if (const YAML::Node h = mp["headers"]; Present(h)) {
        const std::string h_path = ChildPath(mp_path, "headers");
        if (!h.IsMap()) {
          errors.Add(h_path, "must be a map of header names to values");
        } else {
          for (auto it = h.begin(); it != h.end(); ++it) {
            const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
            std::optional<std::string> value =
                DecodeString(it->second, ChildPath(h_path, name), errors);
            if (name.empty()) {
              errors.Add(h_path, "a header name is empty");
            } else if (value.has_value()) {
              p.headers.emplace_back(name, *value);
            }
          }
        }
      }
      if (const YAML::Node labels = mp["nodeLabels"]; Present(labels)) {
        helper::DecodeList(
            labels, ChildPath(mp_path, "nodeLabels"), errors,
            [&](const YAML::Node& item, const std::string& item_path) {
              std::optional<std::string> label = DecodeString(item, item_path, errors);
              if (label.has_value() && !label->empty()) p.node_labels.push_back(*label);
            },
            "must be a list of label names");
      }
      if (!p.token_file.empty() && Present(mp["token"])) {
        errors.Add(ChildPath(mp_path, "tokenFile"), "give token or tokenFile, not both");
      }
      if (p.client_cert_file.empty() != p.client_key_file.empty()) {
        errors.Add(ChildPath(mp_path, "certFile"), "certFile and keyFile go together");
      }
      if (Present(mp["type"])) {
        spec.metric_provider.type =
            DecodeString(mp["type"], ChildPath(mp_path, "type"), errors).value_or("");
      }
      if (Present(mp["address"])) {
        spec.metric_provider.address =
            DecodeString(mp["address"], ChildPath(mp_path, "address"), errors).value_or("");
      }
      if (Present(mp["token"])) {
        spec.metric_provider.token =
            DecodeString(mp["token"], ChildPath(mp_path, "token"), errors).value_or("");
      }
      if (Present(mp["insecureSkipVerify"])) {
        insecure =
            DecodeBool(mp["insecureSkipVerify"], ChildPath(mp_path, "insecureSkipVerify"), errors);
      }
    }
  }
  // watcherAddress: null counts as absent (Go's nil pointer); "" is an explicit value.
  if (const YAML::Node wa = node["watcherAddress"]; Present(wa)) {
    if (auto s = DecodeString(wa, ChildPath(path, "watcherAddress"), errors)) {
      spec.watcher_address = *s;
    }
  }
  for (const auto& [field, out] :
       {std::pair<const char*, std::string*>{"watcherCAFile", &spec.watcher_ca_file},
        {"watcherTokenFile", &spec.watcher_token_file}}) {
    if (const YAML::Node f = node[field]; Present(f)) {
      *out = DecodeString(f, ChildPath(path, field), errors).value_or("");
    }
  }
  // Upstream v1 defaulting.
  if (!spec.watcher_address.has_value() && spec.metric_provider.type.empty()) {
    spec.metric_provider.type = std::string(lw::kProviderMetricsServer);
  }
  // Upstream defaults insecureSkipVerify to true for Prometheus; Trimaran verifies the
  // provider's certificate unless told not to (docs/configuration.md).
  spec.metric_provider.insecure_skip_verify = insecure.value_or(false);

  if (const YAML::Node age = node["metricsMaxAge"]; Present(age)) {
    const std::string age_path = ChildPath(path, "metricsMaxAge");
    if (auto s = DecodeString(age, age_path, errors)) {
      absl::Duration d;
      if (absl::ParseDuration(*s, &d)) {
        spec.metrics_max_age = d;
      } else {
        errors.Add(age_path,
                   absl::StrCat("must be a duration such as \"5m\" or \"90s\", got \"", *s, "\""));
      }
    }
  }
  if (const YAML::Node fb = node["fallback"]; Present(fb)) {
    const std::string fb_path = ChildPath(path, "fallback");
    if (auto s = DecodeString(fb, fb_path, errors)) {
      if (*s == "Requests") {
        spec.fallback = FallbackPolicy::kRequests;
      } else if (*s == "MinScore") {
        spec.fallback = FallbackPolicy::kMinScore;
      } else {
        errors.Add(fb_path, absl::StrCat("Unsupported value: \"", *s,
                                         "\": supported values: \"Requests\", \"MinScore\""));
      }
    }
  }
  ValidateTrimaranSpec(spec, path, errors);
}

bool DecodeTrimaranArgs(const PluginArgs& args, absl::string_view kind,
                        std::initializer_list<absl::string_view> fields, TrimaranSpec& spec,
                        FieldErrors& errors) {
  const YAML::Node& node = args.args;
  const absl::string_view path = args.path;
  if (!Present(node)) return false;
  std::vector<absl::string_view> known = {"apiVersion", "kind"};
  known.insert(known.end(), fields.begin(), fields.end());
  known.insert(known.end(), TrimaranSpecFields().begin(), TrimaranSpecFields().end());
  if (!DecodeMapKeys(node, path, known, errors)) return false;
  helper::CheckKind(node, path, kind, errors);
  DecodeTrimaranSpec(node, path, spec, errors);
  return true;
}

}  // namespace trimaran::sched::plugins::load_aware
