#pragma once
// The KubernetesMetricsServer provider as the registry (providers/registry.h) lists it:
// metrics.k8s.io node usage read through the cluster's kube client
// (ProviderExtras::kube_client, required; the spec's address is ignored). No daemon flags
// of its own (KUBE_CONFIG is the daemon's).
//
// Thread-safety: Descriptor() is safe to call from any thread.

#include "providers/provider.h"

namespace trimaran::providers::metrics_server {

const ProviderDescriptor& Descriptor();

}  // namespace trimaran::providers::metrics_server
