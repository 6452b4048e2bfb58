#include "providers/registry.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/logging.h"
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

// Prometheus with a kube client: series are mapped to the cluster's nodes (listed before
// the first fetch, with the startup check, and re-listed periodically so nodes that
// join later are mapped).
ProviderUpkeep PrometheusNodeUpkeep(prometheus::PrometheusProvider& provider,
                                    kube::Client& kube_client, const ProviderExtras& extras) {
  ProviderUpkeep upkeep;
  prometheus::PrometheusProvider* prom = &provider;
  kube::Client* kube = &kube_client;
  upkeep.before_first_fetch = [prom, kube, check = extras.prometheus_startup_check] {
    absl::StatusOr<std::vector<prometheus::NodeRef>> nodes = ListNodeRefs(*kube);
    if (!nodes.ok()) {
      Log(Component::kProvider)
          .warn(
              "prometheus: cannot list nodes for series mapping (series are mapped by "
              "label value until the next resync): {}",
              nodes.status());
    } else if (check) {
      // Logs its summary itself (warning unless every node has series).
      absl::StatusOr<prometheus::StartupReport> report = prom->StartupCheck(*nodes);
      if (!report.ok()) {
        Log(Component::kProvider).warn("prometheus startup check failed: {}", report.status());
      }
    } else {
      prom->SetNodes(*nodes);
    }
  };
  upkeep.periodic = [prom, kube] {
    absl::StatusOr<std::vector<prometheus::NodeRef>> nodes = ListNodeRefs(*kube);
    if (!nodes.ok()) {
      Log(Component::kProvider).warn("prometheus: node resync failed: {}", nodes.status());
      return;
    }
    prom->SetNodes(*nodes);
  };
  upkeep.interval = extras.prometheus_node_resync_interval;
  return upkeep;
}

}  // namespace

absl::StatusOr<std::vector<prometheus::NodeRef>> ListNodeRefs(kube::Client& client) {
  std::vector<prometheus::NodeRef> refs;
  kube::ListOptions options;
  options.limit = 500;
  while (true) {
    TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList list, client.ListNodes(options));
    for (const kube::Node& node : list.items) {
      prometheus::NodeRef ref;
      ref.name = node.metadata.name;
      for (const kube::NodeAddress& a : node.status.addresses) ref.addresses.push_back(a.address);
      refs.push_back(std::move(ref));
    }
    if (list.metadata.continue_token.empty()) break;
    options.continue_token = list.metadata.continue_token;
  }
  return refs;
}

absl::StatusOr<std::shared_ptr<http::HttpTransport>> DefaultTransportFactory(
    const lw::ProviderSpec& spec) {
  http::CurlTransportOptions options;
  options.tls.insecure_skip_verify = spec.insecure_skip_verify;
  options.tls.ca_file = spec.ca_file;
  options.tls.client_cert_file = spec.client_cert_file;
  options.tls.client_key_file = spec.client_key_file;
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
    if (!spec.token.empty() && !spec.token_file.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kTokenField,
                       ": give a token or a token file (metricProvider.tokenFile, "
                       "METRICS_PROVIDER_TOKEN_FILE), not both"));
    }
    options.bearer_token = spec.token;
    if (!spec.token.empty()) options.bearer_token_file.clear();
    if (!spec.token_file.empty()) options.bearer_token_file = spec.token_file;
    options.tls.insecure_skip_verify = spec.insecure_skip_verify;
    if (!spec.ca_file.empty()) options.tls.ca_file = spec.ca_file;
    if (!spec.client_cert_file.empty()) options.tls.client_cert_file = spec.client_cert_file;
    if (!spec.client_key_file.empty()) options.tls.client_key_file = spec.client_key_file;
    for (const auto& h : spec.headers) options.headers.push_back(h);
    if (!spec.node_labels.empty()) options.node_labels = spec.node_labels;
    if (!spec.cpu_metric.empty() || !spec.memory_metric.empty()) {
      options.queries = prometheus::QueriesFor(
          spec.cpu_metric.empty() ? prometheus::kDefaultCpuMetric : spec.cpu_metric,
          spec.memory_metric.empty() ? prometheus::kDefaultMemoryMetric : spec.memory_metric);
    }
    TRIMARAN_ASSIGN_OR_RETURN(built.transport, MakeTransport(resolved, extras));
    absl::StatusOr<std::unique_ptr<prometheus::PrometheusProvider>> provider =
        prometheus::PrometheusProvider::Create(std::move(options), built.transport.get());
    if (!provider.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("metricProvider (Prometheus): ", provider.status().message()));
    }
    built.prometheus = provider->get();
    if (extras.kube_client != nullptr) {
      built.upkeep = PrometheusNodeUpkeep(**provider, *extras.kube_client, extras);
    }
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
