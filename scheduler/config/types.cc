#include "scheduler/config/types.h"

#include <algorithm>

namespace trimaran::sched::config {

absl::string_view ApiVersionString(ApiVersion version) {
  switch (version) {
    case ApiVersion::kV1:
      return kApiVersionV1;
    case ApiVersion::kV1beta3:
      return kApiVersionV1beta3;
    case ApiVersion::kV1beta2:
      return kApiVersionV1beta2;
  }
  return kApiVersionV1;
}

absl::string_view ExtensionPointField(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kPreEnqueue:
      return "preEnqueue";
    case ExtensionPoint::kQueueSort:
      return "queueSort";
    case ExtensionPoint::kPreFilter:
      return "preFilter";
    case ExtensionPoint::kFilter:
      return "filter";
    case ExtensionPoint::kPostFilter:
      return "postFilter";
    case ExtensionPoint::kPreScore:
      return "preScore";
    case ExtensionPoint::kScore:
      return "score";
    case ExtensionPoint::kReserve:
      return "reserve";
    case ExtensionPoint::kPermit:
      return "permit";
    case ExtensionPoint::kPreBind:
      return "preBind";
    case ExtensionPoint::kBind:
      return "bind";
    case ExtensionPoint::kPostBind:
      return "postBind";
  }
  return "";
}

bool PluginSet::DisablesAll() const { return IsDisabled("*"); }

bool PluginSet::IsDisabled(absl::string_view name) const {
  return std::find(disabled.begin(), disabled.end(), name) != disabled.end();
}

PluginSet& Plugins::At(ExtensionPoint point) {
  return const_cast<PluginSet&>(static_cast<const Plugins&>(*this).At(point));
}

const PluginSet& Plugins::At(ExtensionPoint point) const {
  switch (point) {
    case ExtensionPoint::kPreEnqueue:
      return pre_enqueue;
    case ExtensionPoint::kQueueSort:
      return queue_sort;
    case ExtensionPoint::kPreFilter:
      return pre_filter;
    case ExtensionPoint::kFilter:
      return filter;
    case ExtensionPoint::kPostFilter:
      return post_filter;
    case ExtensionPoint::kPreScore:
      return pre_score;
    case ExtensionPoint::kScore:
      return score;
    case ExtensionPoint::kReserve:
      return reserve;
    case ExtensionPoint::kPermit:
      return permit;
    case ExtensionPoint::kPreBind:
      return pre_bind;
    case ExtensionPoint::kBind:
      return bind;
    case ExtensionPoint::kPostBind:
      return post_bind;
  }
  return multi_point;
}

}  // namespace trimaran::sched::config
