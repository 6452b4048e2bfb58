#pragma once
// The Prometheus provider as the registry (providers/registry.h) lists it: instant
// queries over the HTTP API (address default http://prometheus-k8s:9090), a bearer token
// or token file, TLS and extra headers from the spec; with a kube client, series are
// mapped to the cluster's nodes (listed, with the startup check, before the first
// fetch, and re-listed every ProviderExtras::prometheus_node_resync_interval so nodes
// that join later are mapped; a ProviderUpkeep).
//
// Daemon flags of its own:
//   PROMETHEUS_NODE_LABELS    --prometheus-node-labels    instance
//   PROMETHEUS_CPU_METRIC     --prometheus-cpu-metric     instance:node_cpu:ratio
//   PROMETHEUS_MEMORY_METRIC  --prometheus-memory-metric  instance:node_memory_utilisation:ratio
//
// Thread-safety: Descriptor() and ListNodeRefs are safe to call from any thread
// (ListNodeRefs as the client is).

#include <vector>

#include "absl/status/statusor.h"
#include "kube/client.h"
#include "providers/prometheus/prometheus_provider.h"
#include "providers/provider.h"

namespace trimaran::providers::prometheus {

const ProviderDescriptor& Descriptor();

// Lists every node (following continue tokens) as NodeRefs (name + every status
// address).
absl::StatusOr<std::vector<NodeRef>> ListNodeRefs(kube::Client& client);

}  // namespace trimaran::providers::prometheus
