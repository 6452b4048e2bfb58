#include "scheduler/framework/extension_point.h"

namespace trimaran::sched {

absl::string_view ExtensionPointName(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kPreEnqueue:
      return "PreEnqueue";
    case ExtensionPoint::kQueueSort:
      return "QueueSort";
    case ExtensionPoint::kPreFilter:
      return "PreFilter";
    case ExtensionPoint::kFilter:
      return "Filter";
    case ExtensionPoint::kPostFilter:
      return "PostFilter";
    case ExtensionPoint::kPreScore:
      return "PreScore";
    case ExtensionPoint::kScore:
      return "Score";
    case ExtensionPoint::kReserve:
      return "Reserve";
    case ExtensionPoint::kPermit:
      return "Permit";
    case ExtensionPoint::kPreBind:
      return "PreBind";
    case ExtensionPoint::kBind:
      return "Bind";
    case ExtensionPoint::kPostBind:
      return "PostBind";
  }
  return "";
}

}  // namespace trimaran::sched
