#pragma once
// The provider registry: the one list of metrics providers (issue 6). BuildProvider
// turns a lw::ProviderSpec (plugin args `metricProvider`, or the load-watcher daemon's
// METRICS_PROVIDER_* variables) plus the settings that are not part of the spec
// (ProviderExtras) into a ready lw::MetricsProvider:
//
//   type                      provider                               needs
//   "KubernetesMetricsServer" metrics_server::MetricsServerProvider   extras.kube_client
//   "Prometheus"              prometheus::PrometheusProvider          an HttpTransport
//   "SignalFx"                signalfx::SignalFxProvider              an HttpTransport, a token
//   "" (unset)                as "KubernetesMetricsServer" (upstream's default)
//
// Address: Prometheus and SignalFx use upstream's defaults when it is empty
// (http://prometheus-k8s:9090, https://api.signalfx.com); metrics-server ignores it (it
// goes through the kube client). A set address must be absolute http:// or https://.
// Token: Prometheus bearer token; SignalFx X-SF-Token (mandatory). insecure_skip_verify
// applies to the provider's TLS.
//
// Errors are InvalidArgument naming the field, in the plugin-args spelling with the
// daemon's variable in parentheses, e.g.
//   metricProvider.type (METRICS_PROVIDER_NAME): unknown provider "Datadog" (want ...)
// Upstream silently falls back to metrics-server for an unknown type; we refuse.
//
// Provider-specific work besides fetching (Prometheus with a kube client: map series to
// the cluster's nodes, run the startup check, re-list nodes periodically) comes with the
// built provider as a ProviderUpkeep, so whoever runs the provider's watcher (the
// ProviderSourcePool) stays generic.
//
// Thread-safety: BuildProvider is a pure function of its arguments (the transport
// factory is called on the caller's thread). The built provider is safe for concurrent
// use (see each provider's header); so are its upkeep functions (with each other and
// with fetches).
// Ownership: BuiltProvider owns the provider and the transport it sends through; the
// kube client in ProviderExtras is borrowed and must outlive the provider (and its
// upkeep).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/transport.h"
#include "kube/client.h"
#include "loadwatcher/metrics_provider.h"
#include "loadwatcher/source_pool.h"  // lw::ProviderSpec
#include "providers/metrics_server/metrics_server_provider.h"
#include "providers/prometheus/options.h"
#include "providers/prometheus/prometheus_provider.h"

namespace trimaran::providers {

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

// The canonical type name for `type` ("" -> "KubernetesMetricsServer"); InvalidArgument
// for an unknown type. Names are case-sensitive, as upstream's.
absl::StatusOr<std::string> CanonicalProviderType(const std::string& type);

// Builds the provider `spec` describes; see the file comment.
absl::StatusOr<BuiltProvider> BuildProvider(const lw::ProviderSpec& spec,
                                            const ProviderExtras& extras);

// Lists every node (following continue tokens) as Prometheus NodeRefs (name + every
// status address).
absl::StatusOr<std::vector<prometheus::NodeRef>> ListNodeRefs(kube::Client& client);

}  // namespace trimaran::providers
