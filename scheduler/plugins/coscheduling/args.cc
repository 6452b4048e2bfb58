#include "scheduler/plugins/coscheduling/args.h"

#include <optional>
#include <utility>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "CoschedulingArgs";
constexpr absl::string_view kPermit = "permitWaitingTimeSeconds";
constexpr absl::string_view kBackoff = "podGroupBackoffSeconds";
constexpr absl::string_view kReject = "podGroupRejectPercentage";

}  // namespace

absl::StatusOr<CoschedulingArgs> DecodeCoschedulingArgs(const PluginArgs& plugin_args) {
  CoschedulingArgs args;
  const int64_t max_wait = absl::ToInt64Seconds(kMaxPermitTimeout);
  helper::FieldErrors errors;
  helper::DecodeArgsFields(plugin_args, kKind, errors, [&](const helper::ArgsField& f) {
    if (f.key == kPermit) {
      args.permit_waiting_time_seconds =
          helper::DecodeIntInRange(f.value, f.path, 1, max_wait, errors)
              .value_or(args.permit_waiting_time_seconds);
    } else if (f.key == kBackoff) {
      args.pod_group_backoff_seconds =
          helper::DecodeIntInRange(f.value, f.path, 0, max_wait, errors)
              .value_or(args.pod_group_backoff_seconds);
    } else if (f.key == kReject) {
      if (std::optional<int64_t> v = helper::DecodeIntInRange(f.value, f.path, 0, 100, errors)) {
        args.pod_group_reject_percentage = static_cast<int32_t>(*v);
      }
    } else {
      return false;
    }
    return true;
  });
  return errors.ToStatusOr(std::move(args));
}

}  // namespace trimaran::sched::plugins
