#pragma once
// The provider registry: the one list of metrics providers (issue 6), each described in
// its own folder by a ProviderDescriptor (providers/provider.h; the folder's
// descriptor.h says what it reads and needs). BuildProvider turns a lw::ProviderSpec
// (plugin args `metricProvider`, or the load-watcher daemon's METRICS_PROVIDER_*
// variables) plus ProviderExtras into a ready lw::MetricsProvider through the
// descriptor of its type:
//
//   type                      folder            needs
//   "KubernetesMetricsServer" metrics_server/   extras.kube_client
//   "Prometheus"              prometheus/       an HttpTransport
//   "SignalFx"                signalfx/         an HttpTransport, a token
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
// Thread-safety: every function here is safe to call from any thread; BuildProvider is
// a pure function of its arguments (see provider.h for what it builds).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "providers/provider.h"

namespace trimaran::providers {

// Every provider, in the order --help and error messages list them.
const std::vector<const ProviderDescriptor*>& AllProviders();

// The canonical type name for `type` ("" -> "KubernetesMetricsServer"); InvalidArgument
// for an unknown type. Names are case-sensitive, as upstream's.
absl::StatusOr<std::string> CanonicalProviderType(const std::string& type);

// Builds the provider `spec` describes; see the file comment.
absl::StatusOr<BuiltProvider> BuildProvider(const lw::ProviderSpec& spec,
                                            const ProviderExtras& extras);

}  // namespace trimaran::providers
