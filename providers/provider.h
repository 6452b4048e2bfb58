#pragma once
// What a metrics provider folder (metrics_server/, prometheus/, signalfx/) gives the
// registry (providers/registry.h): one ProviderDescriptor, its type name, the daemon
// flags and variables only it reads, and the factory that turns a lw::ProviderSpec plus
// the settings a spec does not carry (ProviderExtras) into a ready lw::MetricsProvider.
// A provider is described in its own folder alone (its descriptor.h), as a plugin is;
// the registry is the list of descriptors.
//
// Errors are InvalidArgument naming the field, in the plugin-args spelling with the
// daemon's variable in parentheses (kTypeField, kAddressField, kTokenField).
//
// Thread-safety: descriptors are immutable after their first use; their factories are
// pure functions of their arguments (the transport factory is called on the caller's
// thread). A built provider is safe for concurrent use (see each provider's header); so
// are its upkeep functions (with each other and with fetches).
// Ownership: BuiltProvider owns the provider and the transport it sends through; the
// kube client in ProviderExtras is borrowed and must outlive the provider (and its
// upkeep).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/transport.h"
#include "kube/client.h"
#include "loadwatcher/metrics_provider.h"
#include "loadwatcher/source_pool.h"  // lw::ProviderSpec
#include "providers/metrics_server/metrics_server_provider.h"
#include "providers/prometheus/options.h"
#include "providers/prometheus/prometheus_provider.h"

namespace trimaran::providers {

inline constexpr char kTypeField[] = "metricProvider.type (METRICS_PROVIDER_NAME)";
inline constexpr char kAddressField[] = "metricProvider.address (METRICS_PROVIDER_ADDRESS)";
inline constexpr char kTokenField[] = "metricProvider.token (METRICS_PROVIDER_TOKEN)";

// Makes the HttpTransport a Prometheus or SignalFx provider sends through. Tests inject
// a FakeTransport here; the default (DefaultTransportFactory) is a CurlTransport.
using TransportFactory =
    std::function<absl::StatusOr<std::shared_ptr<http::HttpTransport>>(const lw::ProviderSpec&)>;

// A CurlTransport with TLS verification per spec.insecure_skip_verify.
absl::StatusOr<std::shared_ptr<http::HttpTransport>> DefaultTransportFactory(
    const lw::ProviderSpec& spec);

// Settings a ProviderSpec does not carry.
struct ProviderExtras {
  // KubernetesMetricsServer: the cluster's client (required for that type; borrowed).
  kube::Client* kube_client = nullptr;
  metrics_server::Options metrics_server{};
  // Prometheus: the base options. The spec's address, token and insecure_skip_verify
  // replace `address`, `bearer_token` and `tls.insecure_skip_verify` (an empty spec
  // address keeps `address`, whose default is upstream's).
  prometheus::PrometheusOptions prometheus{};
  // Prometheus + kube_client: run the startup check before the first fetch (else only
  // map series to the listed nodes).
  bool prometheus_startup_check = true;
  // Prometheus + kube_client: re-list nodes this often (zero: only before the first
  // fetch).
  absl::Duration prometheus_node_resync_interval = absl::Minutes(5);
  // SignalFx (SIGNALFX_HOST_NAME_SUFFIX, SIGNALFX_CLUSTER_NAME).
  std::string signalfx_host_name_suffix{};
  std::string signalfx_cluster_name{};
  // Null: DefaultTransportFactory.
  TransportFactory transport_factory{};
};

// Work a provider needs besides its fetches, run by whoever runs its watcher. Empty for
// providers that need none. The functions use the provider (and the kube client), so
// they must not run after the BuiltProvider is gone.
struct ProviderUpkeep {
  // Once, on the watcher's thread, before the first fetch.
  std::function<void()> before_first_fetch{};
  // Every `interval` (on a thread of its own, from after before_first_fetch until the
  // watcher stops); unused when empty or when `interval` is not positive.
  std::function<void()> periodic{};
  absl::Duration interval = absl::ZeroDuration();
};

// A built provider and what it owns. Members are destroyed provider first.
struct BuiltProvider {
  std::shared_ptr<http::HttpTransport> transport{};  // null for metrics-server
  lw::MetricsProviderPtr provider{};                 // never null
  // The same object as `provider` when the type is Prometheus (for SetNodes and the
  // startup check), else null. Not owning.
  prometheus::PrometheusProvider* prometheus = nullptr;
  ProviderUpkeep upkeep{};
};

// A load-watcher daemon flag (and environment variable) that one provider alone reads.
// `set` stores `value` into the spec or the extras and returns "" or why it is invalid.
struct ProviderFlag {
  absl::string_view flag;  // without dashes
  absl::string_view env;
  absl::string_view type;  // shown by --help
  absl::string_view default_text;
  absl::string_view usage;
  std::string (*set)(lw::ProviderSpec& spec, ProviderExtras& extras, const std::string& value);
};

// Everything the registry knows of one provider.
struct ProviderDescriptor {
  absl::string_view type;  // the canonical, case-sensitive type name ("Prometheus")
  std::vector<ProviderFlag> flags;
  // Builds the provider `spec` (whose type is `type`) describes.
  absl::StatusOr<BuiltProvider> (*build)(const lw::ProviderSpec& spec,
                                         const ProviderExtras& extras);
};

// For factories of HTTP providers: OK for an empty address (the provider's default) or
// an absolute http:// or https:// URL, else InvalidArgument naming kAddressField.
absl::Status CheckHttpAddress(const std::string& address);

// For factories of HTTP providers: the transport from extras.transport_factory (or the
// default); Internal when the factory returns none.
absl::StatusOr<std::shared_ptr<http::HttpTransport>> MakeTransport(const lw::ProviderSpec& spec,
                                                                   const ProviderExtras& extras);

}  // namespace trimaran::providers
