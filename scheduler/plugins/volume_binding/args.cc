#include "scheduler/plugins/volume_binding/args.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {

absl::StatusOr<VolumeBindingArgs> DecodeVolumeBindingArgs(const PluginArgs& plugin_args) {
  VolumeBindingArgs args;
  helper::FieldErrors errors;
  helper::DecodeArgsFields(
      plugin_args, "VolumeBindingArgs", errors, [&](const helper::ArgsField& f) {
        if (f.key == "bindTimeoutSeconds") {
          const std::optional<int64_t> t = helper::DecodeInt(f.value, f.path, errors);
          if (t.has_value() && *t < 0) {
            errors.AddInvalidValue(f.path, *t,
                                   "invalid BindTimeoutSeconds, should not be a negative value");
          } else if (t.has_value()) {
            args.bind_timeout_seconds = *t;
          }
        } else if (f.key == "shape") {
          if (!f.value.IsNull()) {
            errors.Add(f.path,
                       "Invalid value: shape is only allowed with the VolumeCapacityPriority "
                       "feature gate, alpha and off by default upstream (kube-scheduler "
                       "rejects it the same way); trimaran-scheduler does not implement "
                       "that score");
          }
        } else {
          return false;
        }
        return true;
      });
  return errors.ToStatusOr(std::move(args));
}

}  // namespace trimaran::sched::plugins
