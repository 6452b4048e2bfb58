#include "scheduler/plugins/load_aware/trimaran_spec.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "loadwatcher/metrics.h"

namespace trimaran::sched::plugins::load_aware {

absl::string_view FallbackPolicyName(FallbackPolicy policy) {
  return policy == FallbackPolicy::kMinScore ? "MinScore" : "Requests";
}

const std::vector<absl::string_view>& TrimaranSpecFields() {
  static const auto* fields = new std::vector<absl::string_view>{"metricProvider", "watcherAddress",
                                                                 "metricsMaxAge", "fallback"};
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
        !absl::StartsWith(addr, "grpc://")) {
      errors.Add(ChildPath(path, "watcherAddress"),
                 absl::StrCat("must start with http://, https:// or grpc://, got \"", addr, "\""));
    }
  } else {
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
    if (DecodeMapKeys(mp, mp_path, {"type", "address", "token", "insecureSkipVerify"}, errors)) {
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
  // Upstream v1 defaulting.
  if (!spec.watcher_address.has_value() && spec.metric_provider.type.empty()) {
    spec.metric_provider.type = std::string(lw::kProviderMetricsServer);
  }
  spec.metric_provider.insecure_skip_verify =
      insecure.value_or(spec.metric_provider.type == lw::kProviderPrometheus);

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

}  // namespace trimaran::sched::plugins::load_aware
