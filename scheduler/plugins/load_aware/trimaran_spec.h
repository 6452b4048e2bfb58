#pragma once
// TrimaranSpec: the args every Trimaran plugin shares, inlined at the top level of its
// args object (spec trimaran-and-load-watcher.md §6), plus Trimaran's staleness policy:
//
//   metricProvider:            # library mode: an in-process load watcher
//     type: Prometheus         # KubernetesMetricsServer | Prometheus | SignalFx
//     address: http://prometheus-k8s.monitoring:9090
//     token: ""
//     insecureSkipVerify: false
//   watcherAddress: http://127.0.0.1:2020   # service mode (http://, https://, grpc://,
//                                           # grpcs://); when set, metricProvider is ignored
//   watcherCAFile: /etc/trimaran/watcher-ca/ca.crt   # service mode, https:// or grpcs://:
//                                           # the CA verifying the watcher (default: system's)
//   watcherTokenFile: /var/run/secrets/trimaran/watcher-token/token  # service mode: the
//                                           # watcher's bearer token, re-read as it rotates
//   metricsMaxAge: 5m          # Trimaran: node metrics older than this (or missing) ...
//   fallback: Requests         # ... are scored by requests (Requests) or get 0 (MinScore)
//
// Defaults, as upstream's v1 defaulting: metricProvider.type = KubernetesMetricsServer
// only when watcherAddress is absent and the type is empty (an explicit
// `watcherAddress: ""` therefore leaves the type empty, which validation rejects, as
// upstream's library-mode check does); insecureSkipVerify = true when the type is
// Prometheus and the field is unset. Trimaran's own: metricsMaxAge 5m (the KEP's
// "not older than 5 minutes"; upstream has no limit), fallback Requests.
//
// Validation (field paths as in the other args decoders): type is one of the three
// upstream accepts ("invalid MetricProvider.Type, got <type>"); watcherAddress, when
// non-empty, starts with http://, https://, grpc:// or grpcs://; watcherCAFile and
// watcherTokenFile need a non-empty watcherAddress, and watcherCAFile a TLS one
// (https:// or grpcs://); metricsMaxAge is a duration > 0;
// fallback is Requests or MinScore.
//
// Thread-safety: plain values and pure functions.

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "loadwatcher/source_pool.h"
#include "scheduler/framework/plugin_args.h"
#include "scheduler/plugins/helper/args_decoding.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins::load_aware {

// What a plugin does with a node whose metrics are missing or older than metricsMaxAge.
enum class FallbackPolicy {
  kRequests,  // predict from the node's requests through the plugin's own formula
  kMinScore,  // score 0 (upstream's behaviour for missing metrics)
};
absl::string_view FallbackPolicyName(FallbackPolicy policy);

inline constexpr absl::Duration kDefaultMetricsMaxAge = absl::Minutes(5);

struct TrimaranSpec {
  lw::ProviderSpec metric_provider;
  // Unset: library mode. Set and non-empty: service mode.
  std::optional<std::string> watcher_address;
  std::string watcher_ca_file{};     // watcherCAFile
  std::string watcher_token_file{};  // watcherTokenFile
  absl::Duration metrics_max_age = kDefaultMetricsMaxAge;
  FallbackPolicy fallback = FallbackPolicy::kRequests;

  // True when the remote watcher is used (watcherAddress non-empty).
  bool service_mode() const { return watcher_address.has_value() && !watcher_address->empty(); }
  // The remote watcher (service mode).
  lw::RemoteSpec remote() const {
    return lw::RemoteSpec{.address = watcher_address.value_or(""),
                          .ca_file = watcher_ca_file,
                          .token_file = watcher_token_file};
  }

  friend bool operator==(const TrimaranSpec&, const TrimaranSpec&) = default;
};

// The field names DecodeTrimaranSpec reads (for the plugins' unknown-field checks).
const std::vector<absl::string_view>& TrimaranSpecFields();

// Decodes the TrimaranSpec fields of the args mapping `node` (already checked to be a
// mapping) into `spec`, applies the defaults above and validates. Errors are added
// with their paths under `path`.
void DecodeTrimaranSpec(const YAML::Node& node, absl::string_view path, TrimaranSpec& spec,
                        helper::FieldErrors& errors);

// The start every load-aware plugin's args decoder shares. False when there is nothing
// more to decode: the args are absent or null (no error; `spec` is left as it is) or not
// a mapping (the error is in `errors`). Otherwise the keys are only apiVersion, kind, the
// TrimaranSpec fields and the plugin's own `fields` (helper::DecodeMapKeys), `kind` is
// `kind` (helper::CheckKind), and the TrimaranSpec is decoded into `spec`
// (DecodeTrimaranSpec).
bool DecodeTrimaranArgs(const PluginArgs& args, absl::string_view kind,
                        std::initializer_list<absl::string_view> fields, TrimaranSpec& spec,
                        helper::FieldErrors& errors);

// The spec of args that were not given at all (a Null args node).
TrimaranSpec DefaultTrimaranSpec();

// Validates an already decoded spec (also used for programmatically built args).
void ValidateTrimaranSpec(const TrimaranSpec& spec, absl::string_view path,
                          helper::FieldErrors& errors);

}  // namespace trimaran::sched::plugins::load_aware
