#include "providers/registry.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "providers/metrics_server/descriptor.h"
#include "providers/prometheus/descriptor.h"
#include "providers/signalfx/descriptor.h"

namespace trimaran::providers {
namespace {

const ProviderDescriptor* Find(absl::string_view type) {
  for (const ProviderDescriptor* descriptor : AllProviders()) {
    if (descriptor->type == type) return descriptor;
  }
  return nullptr;
}

// "A, B or C".
std::string KnownTypes() {
  std::string out;
  const std::vector<const ProviderDescriptor*>& all = AllProviders();
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, i + 1 == all.size() ? " or " : ", ");
    absl::StrAppend(&out, all[i]->type);
  }
  return out;
}

}  // namespace

const std::vector<const ProviderDescriptor*>& AllProviders() {
  static const std::vector<const ProviderDescriptor*>* const kAll =
      new std::vector<const ProviderDescriptor*>{
          &metrics_server::Descriptor(),
          &prometheus::Descriptor(),
          &signalfx::Descriptor(),
      };
  return *kAll;
}

absl::StatusOr<std::string> CanonicalProviderType(const std::string& type) {
  if (type.empty()) return std::string(lw::kProviderMetricsServer);
  if (const ProviderDescriptor* descriptor = Find(type); descriptor != nullptr) {
    return std::string(descriptor->type);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(kTypeField, ": unknown provider \"", type, "\" (want ", KnownTypes(), ")"));
}

absl::StatusOr<BuiltProvider> BuildProvider(const lw::ProviderSpec& spec,
                                            const ProviderExtras& extras) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string type, CanonicalProviderType(spec.type));
  lw::ProviderSpec resolved = spec;
  resolved.type = type;
  return Find(type)->build(resolved, extras);
}

}  // namespace trimaran::providers
