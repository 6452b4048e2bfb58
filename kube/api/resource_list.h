#pragma once
// ResourceList: resource name -> Quantity (core/v1 ResourceList), as found in container
// requests/limits, pod overhead and node capacity/allocatable. Also the well-known
// resource names and the classification rules the scheduler uses to tell native,
// hugepages and extended ("scalar") resources apart.
//
// Thread-safety: plain values and pure functions; safe for concurrent const use.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "kube/api/quantity.h"

namespace trimaran::kube {

using ResourceName = std::string;
// Ordered for deterministic encoding; heterogeneous lookup by std::string_view.
using ResourceList = std::map<ResourceName, Quantity, std::less<>>;

inline constexpr std::string_view kResourceCPU = "cpu";        // cores; millicores in code
inline constexpr std::string_view kResourceMemory = "memory";  // bytes
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";  // bytes
inline constexpr std::string_view kResourcePods = "pods";                   // node: max pod count
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";  // hugepages-2Mi
inline constexpr std::string_view kResourceAttachableVolumesPrefix = "attachable-volumes-";
inline constexpr std::string_view kResourceDefaultNamespacePrefix = "kubernetes.io/";
inline constexpr std::string_view kResourceRequestsPrefix = "requests.";

// "hugepages-<size>".
bool IsHugePageResourceName(std::string_view name);
// "attachable-volumes-*".
bool IsAttachableVolumeResourceName(std::string_view name);
// Contains "kubernetes.io/" (kubernetes.io/ or *.kubernetes.io/ domain).
bool IsPrefixedNativeResource(std::string_view name);
// Unqualified names (no '/') and kubernetes.io-domain names.
bool IsNativeResource(std::string_view name);
// A domain-qualified name outside kubernetes.io ("nvidia.com/gpu"), not "requests.*".
// Extended resources are the ones NodeResourcesFit may be told to ignore.
bool IsExtendedResourceName(std::string_view name);
// Resources the scheduler accounts for generically, beyond cpu/memory/ephemeral-storage/
// pods: extended, hugepages-*, prefixed native and attachable-volumes-* resources.
bool IsScalarResourceName(std::string_view name);

}  // namespace trimaran::kube
