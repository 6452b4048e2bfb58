#pragma once
// The framework's extension points, as a value: what a plugin descriptor declares it
// implements (plugin_descriptor.h), what the configuration lists plugins at
// (scheduler/config) and what multiPoint expands to. multiPoint is not one: it is a way
// of listing plugins. The interfaces themselves are in interface.h; ExtensionPointsOf<T>
// (plugin_descriptor.h) maps a plugin class to the points it implements.
//
// Thread-safety: constants and pure functions.

#include <array>

#include "absl/strings/string_view.h"

namespace trimaran::sched {

enum class ExtensionPoint {
  kPreEnqueue,
  kQueueSort,
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kReserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
};
inline constexpr int kNumExtensionPoints = 12;
inline constexpr std::array<ExtensionPoint, kNumExtensionPoints> kAllExtensionPoints = {
    ExtensionPoint::kPreEnqueue, ExtensionPoint::kQueueSort,  ExtensionPoint::kPreFilter,
    ExtensionPoint::kFilter,     ExtensionPoint::kPostFilter, ExtensionPoint::kPreScore,
    ExtensionPoint::kScore,      ExtensionPoint::kReserve,    ExtensionPoint::kPermit,
    ExtensionPoint::kPreBind,    ExtensionPoint::kBind,       ExtensionPoint::kPostBind,
};

// "PreFilter", "Score", ... (as in upstream messages).
absl::string_view ExtensionPointName(ExtensionPoint point);

}  // namespace trimaran::sched
