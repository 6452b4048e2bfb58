#include "kube/api/resource_list.h"

namespace trimaran::kube {

bool IsHugePageResourceName(std::string_view name) {
  return name.starts_with(kResourceHugePagesPrefix);
}

bool IsAttachableVolumeResourceName(std::string_view name) {
  return name.starts_with(kResourceAttachableVolumesPrefix);
}

bool IsPrefixedNativeResource(std::string_view name) {
  return name.find(kResourceDefaultNamespacePrefix) != std::string_view::npos;
}

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos || IsPrefixedNativeResource(name);
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || name.starts_with(kResourceRequestsPrefix)) return false;
  // A qualified name: a non-empty DNS-subdomain prefix, one '/', a non-empty name.
  const size_t slash = name.find('/');
  return slash != 0 && slash + 1 < name.size() &&
         name.find('/', slash + 1) == std::string_view::npos;
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || IsHugePageResourceName(name) ||
         IsPrefixedNativeResource(name) || IsAttachableVolumeResourceName(name);
}

}  // namespace trimaran::kube
