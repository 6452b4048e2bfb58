#include "providers/prometheus/descriptor.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/logging.h"
#include "common/status_macros.h"

namespace trimaran::providers::prometheus {
namespace {

// Series are mapped to the cluster's nodes: listed before the first fetch, with the
// startup check, and re-listed periodically so nodes that join later are mapped.
ProviderUpkeep NodeUpkeep(PrometheusProvider& provider, kube::Client& kube_client,
                          const ProviderExtras& extras) {
  ProviderUpkeep upkeep;
  PrometheusProvider* prom = &provider;
  kube::Client* kube = &kube_client;
  upkeep.before_first_fetch = [prom, kube, check = extras.prometheus_startup_check] {
    absl::StatusOr<std::vector<NodeRef>> nodes = ListNodeRefs(*kube);
    if (!nodes.ok()) {
      Log(Component::kProvider)
          .warn(
              "prometheus: cannot list nodes for series mapping (series are mapped by "
              "label value until the next resync): {}",
              nodes.status());
    } else if (check) {
      // Logs its summary itself (warning unless every node has series).
      absl::StatusOr<StartupReport> report = prom->StartupCheck(*nodes);
      if (!report.ok()) {
        Log(Component::kProvider).warn("prometheus startup check failed: {}", report.status());
      }
    } else {
      prom->SetNodes(*nodes);
    }
  };
  upkeep.periodic = [prom, kube] {
    absl::StatusOr<std::vector<NodeRef>> nodes = ListNodeRefs(*kube);
    if (!nodes.ok()) {
      Log(Component::kProvider).warn("prometheus: node resync failed: {}", nodes.status());
      return;
    }
    prom->SetNodes(*nodes);
  };
  upkeep.interval = extras.prometheus_node_resync_interval;
  return upkeep;
}

// The base options with the spec's address, credentials, TLS, headers and series laid
// over them.
absl::StatusOr<PrometheusOptions> OptionsFor(const lw::ProviderSpec& spec,
                                             const ProviderExtras& extras) {
  PrometheusOptions options = extras.prometheus;
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
    options.queries =
        QueriesFor(spec.cpu_metric.empty() ? kDefaultCpuMetric : spec.cpu_metric,
                   spec.memory_metric.empty() ? kDefaultMemoryMetric : spec.memory_metric);
  }
  return options;
}

absl::StatusOr<BuiltProvider> Build(const lw::ProviderSpec& spec, const ProviderExtras& extras) {
  TRIMARAN_RETURN_IF_ERROR(CheckHttpAddress(spec.address));
  TRIMARAN_ASSIGN_OR_RETURN(PrometheusOptions options, OptionsFor(spec, extras));
  BuiltProvider built;
  TRIMARAN_ASSIGN_OR_RETURN(built.transport, MakeTransport(spec, extras));
  absl::StatusOr<std::unique_ptr<PrometheusProvider>> provider =
      PrometheusProvider::Create(std::move(options), built.transport.get());
  if (!provider.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metricProvider (Prometheus): ", provider.status().message()));
  }
  built.prometheus = provider->get();
  if (extras.kube_client != nullptr) {
    built.upkeep = NodeUpkeep(**provider, *extras.kube_client, extras);
  }
  built.provider = *std::move(provider);
  return built;
}

std::string SetNodeLabels(lw::ProviderSpec& spec, ProviderExtras& /*extras*/,
                          const std::string& value) {
  spec.node_labels.clear();
  for (absl::string_view label : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    spec.node_labels.emplace_back(absl::StripAsciiWhitespace(label));
  }
  return "";
}

std::string SetCpuMetric(lw::ProviderSpec& spec, ProviderExtras& /*extras*/,
                         const std::string& value) {
  spec.cpu_metric = value;
  return "";
}

std::string SetMemoryMetric(lw::ProviderSpec& spec, ProviderExtras& /*extras*/,
                            const std::string& value) {
  spec.memory_metric = value;
  return "";
}

}  // namespace

absl::StatusOr<std::vector<NodeRef>> ListNodeRefs(kube::Client& client) {
  std::vector<NodeRef> refs;
  kube::ListOptions options;
  options.limit = 500;
  while (true) {
    TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList list, client.ListNodes(options));
    for (const kube::Node& node : list.items) {
      NodeRef ref;
      ref.name = node.metadata.name;
      for (const kube::NodeAddress& a : node.status.addresses) ref.addresses.push_back(a.address);
      refs.push_back(std::move(ref));
    }
    if (list.metadata.continue_token.empty()) break;
    options.continue_token = list.metadata.continue_token;
  }
  return refs;
}

const ProviderDescriptor& Descriptor() {
  static const ProviderDescriptor* const kDescriptor = new ProviderDescriptor{
      .type = lw::kProviderPrometheus,
      .flags =
          {
              {"prometheus-node-labels", "PROMETHEUS_NODE_LABELS", "string", "instance",
               "Prometheus: comma-separated labels naming the node of a series, tried in "
               "order (e.g. node,instance).",
               &SetNodeLabels},
              {"prometheus-cpu-metric", "PROMETHEUS_CPU_METRIC", "string",
               "instance:node_cpu:ratio",
               "Prometheus: the series of per-node CPU utilisation (a 0..1 ratio).", &SetCpuMetric},
              {"prometheus-memory-metric", "PROMETHEUS_MEMORY_METRIC", "string",
               "instance:node_memory_utilisation:ratio",
               "Prometheus: the series of per-node memory utilisation (a 0..1 ratio).",
               &SetMemoryMetric},
          },
      .build = &Build};
  return *kDescriptor;
}

}  // namespace trimaran::providers::prometheus
