#include "providers/registry.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/status_macros.h"
#include "providers/signalfx/signalfx_provider.h"

namespace trimaran::providers {
namespace {

constexpr char kTypeField[] = "metricProvider.type (METRICS_PROVIDER_NAME)";
constexpr char kAddressField[] = "metricProvider.address (METRICS_PROVIDER_ADDRESS)";
constexpr char kTokenField[] = "metricProvider.token (METRICS_PROVIDER_TOKEN)";

absl::Status CheckHttpAddress(const std::string& address) {
  if (address.empty()) return absl::OkStatus();
  const bool http = absl::StartsWith(address, "http://") || absl::StartsWith(address, "https://");
  if (!http || address.size() <= (absl::StartsWith(address, "https://") ? 8u : 7u)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kAddressField, ": \"", address,
                     "\" is not an absolute http:// or https:// URL (e.g. "
                     "\"http://prometheus-k8s.monitoring:9090\")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<http::HttpTransport>> MakeTransport(const lw::ProviderSpec& spec,
                                                                   const ProviderExtras& extras) {
  absl::StatusOr<std::shared_ptr<http::HttpTransport>> transport =
      extras.transport_factory ? extras.transport_factory(spec) : DefaultTransportFactory(spec);
  if (!transport.ok()) return transport.status();
  if (*transport == nullptr) {
    return absl::InternalError(absl::StrCat("provider ", spec.type, ": no HTTP transport"));
  }
  return transport;
}

}  // namespace

absl::StatusOr<std::shared_ptr<http::HttpTransport>> DefaultTransportFactory(
    const lw::ProviderSpec& spec) {
  http::CurlTransportOptions options;
  options.tls.insecure_skip_verify = spec.insecure_skip_verify;
  options.user_agent = "trimaran-load-watcher";
  options.max_idle_handles = 4;
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<http::CurlTransport> transport,
                            http::CurlTransport::Create(std::move(options)));
  return std::shared_ptr<http::HttpTransport>(std::move(transport));
}

absl::StatusOr<std::string> CanonicalProviderType(const std::string& type) {
  if (type.empty()) return std::string(lw::kProviderMetricsServer);
  for (absl::string_view known :
       {lw::kProviderMetricsServer, lw::kProviderPrometheus, lw::kProviderSignalFx}) {
    if (type == known) return std::string(known);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      kTypeField, ": unknown provider \"", type, "\" (want ", lw::kProviderMetricsServer, ", ",
      lw::kProviderPrometheus, " or ", lw::kProviderSignalFx, ")"));
}

absl::StatusOr<BuiltProvider> BuildProvider(const lw::ProviderSpec& spec,
                                            const ProviderExtras& extras) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string type, CanonicalProviderType(spec.type));
  BuiltProvider built;
  if (type == lw::kProviderMetricsServer) {
    if (extras.kube_client == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          kTypeField, ": ", lw::kProviderMetricsServer,
          " reads metrics.k8s.io through the Kubernetes API, but no Kubernetes client is "
          "configured (give a kubeconfig or run in-cluster)"));
    }
    built.provider = std::make_unique<metrics_server::MetricsServerProvider>(*extras.kube_client,
                                                                             extras.metrics_server);
    return built;
  }

  TRIMARAN_RETURN_IF_ERROR(CheckHttpAddress(spec.address));
  lw::ProviderSpec resolved = spec;
  resolved.type = type;
  if (type == lw::kProviderPrometheus) {
    prometheus::PrometheusOptions options = extras.prometheus;
    if (!spec.address.empty()) options.address = spec.address;
    options.bearer_token = spec.token;
    if (!spec.token.empty()) options.bearer_token_file.clear();
    options.tls.insecure_skip_verify = spec.insecure_skip_verify;
    TRIMARAN_ASSIGN_OR_RETURN(built.transport, MakeTransport(resolved, extras));
    absl::StatusOr<std::unique_ptr<prometheus::PrometheusProvider>> provider =
        prometheus::PrometheusProvider::Create(std::move(options), built.transport.get());
    if (!provider.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("metricProvider (Prometheus): ", provider.status().message()));
    }
    built.prometheus = provider->get();
    built.provider = *std::move(provider);
    return built;
  }

  // SignalFx.
  if (spec.token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kTokenField, ": SignalFx needs an API access token (sent as X-SF-Token)"));
  }
  signalfx::Options options;
  options.address = spec.address;
  options.token = spec.token;
  options.insecure_skip_verify = spec.insecure_skip_verify;
  options.host_name_suffix = extras.signalfx_host_name_suffix;
  options.cluster_name = extras.signalfx_cluster_name;
  TRIMARAN_ASSIGN_OR_RETURN(built.transport, MakeTransport(resolved, extras));
  absl::StatusOr<std::unique_ptr<signalfx::SignalFxProvider>> provider =
      signalfx::SignalFxProvider::Create(*built.transport, std::move(options));
  if (!provider.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metricProvider (SignalFx): ", provider.status().message()));
  }
  built.provider = *std::move(provider);
  return built;
}

}  // namespace trimaran::providers
