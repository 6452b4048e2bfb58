#include "providers/signalfx/descriptor.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "providers/signalfx/signalfx_provider.h"

namespace trimaran::providers::signalfx {
namespace {

absl::StatusOr<BuiltProvider> Build(const lw::ProviderSpec& spec, const ProviderExtras& extras) {
  TRIMARAN_RETURN_IF_ERROR(CheckHttpAddress(spec.address));
  if (spec.token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kTokenField, ": SignalFx needs an API access token (sent as X-SF-Token)"));
  }
  Options options;
  options.address = spec.address;
  options.token = spec.token;
  options.insecure_skip_verify = spec.insecure_skip_verify;
  options.host_name_suffix = extras.signalfx_host_name_suffix;
  options.cluster_name = extras.signalfx_cluster_name;
  BuiltProvider built;
  TRIMARAN_ASSIGN_OR_RETURN(built.transport, MakeTransport(spec, extras));
  absl::StatusOr<std::unique_ptr<SignalFxProvider>> provider =
      SignalFxProvider::Create(*built.transport, std::move(options));
  if (!provider.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metricProvider (SignalFx): ", provider.status().message()));
  }
  built.provider = *std::move(provider);
  return built;
}

std::string SetHostNameSuffix(lw::ProviderSpec& /*spec*/, ProviderExtras& extras,
                              const std::string& value) {
  extras.signalfx_host_name_suffix = value;
  return "";
}

std::string SetClusterName(lw::ProviderSpec& /*spec*/, ProviderExtras& extras,
                           const std::string& value) {
  extras.signalfx_cluster_name = value;
  return "";
}

}  // namespace

const ProviderDescriptor& Descriptor() {
  static const ProviderDescriptor* const kDescriptor = new ProviderDescriptor{
      .type = lw::kProviderSignalFx,
      .flags =
          {
              {"signalfx-host-name-suffix", "SIGNALFX_HOST_NAME_SUFFIX", "string", "",
               "SignalFx: only hosts whose name ends with this (query host:*<suffix>).",
               &SetHostNameSuffix},
              {"signalfx-cluster-name", "SIGNALFX_CLUSTER_NAME", "string", "",
               "SignalFx: only this cluster (query cluster:<name>; empty: no cluster "
               "filter).",
               &SetClusterName},
          },
      .build = &Build};
  return *kDescriptor;
}

}  // namespace trimaran::providers::signalfx
