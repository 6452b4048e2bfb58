#include "providers/metrics_server/descriptor.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace trimaran::providers::metrics_server {
namespace {

absl::StatusOr<BuiltProvider> Build(const lw::ProviderSpec& /*spec*/,
                                    const ProviderExtras& extras) {
  if (extras.kube_client == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTypeField, ": ", lw::kProviderMetricsServer,
        " reads metrics.k8s.io through the Kubernetes API, but no Kubernetes client is "
        "configured (give a kubeconfig or run in-cluster)"));
  }
  BuiltProvider built;
  built.provider =
      std::make_unique<MetricsServerProvider>(*extras.kube_client, extras.metrics_server);
  return built;
}

}  // namespace

const ProviderDescriptor& Descriptor() {
  static const ProviderDescriptor* const kDescriptor =
      new ProviderDescriptor{.type = lw::kProviderMetricsServer, .flags = {}, .build = &Build};
  return *kDescriptor;
}

}  // namespace trimaran::providers::metrics_server
