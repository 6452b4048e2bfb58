#pragma once
// The SignalFx provider as the registry (providers/registry.h) lists it:
// /v1/timeserieswindow joined with /v2/metrictimeseries (address default
// https://api.signalfx.com), the spec's token sent as X-SF-Token (mandatory).
//
// Daemon flags of its own:
//   SIGNALFX_HOST_NAME_SUFFIX  --signalfx-host-name-suffix  ""  (query host:*<suffix>)
//   SIGNALFX_CLUSTER_NAME      --signalfx-cluster-name      ""  (query cluster:<name>)
//
// Thread-safety: Descriptor() is safe to call from any thread.

#include "providers/provider.h"

namespace trimaran::providers::signalfx {

const ProviderDescriptor& Descriptor();

}  // namespace trimaran::providers::signalfx
