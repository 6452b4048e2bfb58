#include "scheduler/plugins/inter_pod_affinity/args.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "scheduler/plugins/helper/args_decoding.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {

absl::StatusOr<InterPodAffinityArgs> DecodeInterPodAffinityArgs(const PluginArgs& plugin_args) {
  InterPodAffinityArgs args;
  helper::FieldErrors errors;
  helper::DecodeArgsFields(
      plugin_args, "InterPodAffinityArgs", errors, [&](const helper::ArgsField& f) {
        if (f.key == "hardPodAffinityWeight") {
          const std::optional<int64_t> w = helper::DecodeInt(f.value, f.path, errors);
          if (w.has_value() && (*w < 0 || *w > 100)) {
            errors.AddInvalidValue(f.path, *w, "not in valid range [0-100]");
          } else if (w.has_value()) {
            args.hard_pod_affinity_weight = static_cast<int32_t>(*w);
          }
        } else if (f.key == "ignorePreferredTermsOfExistingPods") {
          bool b = false;
          if (!f.value.IsScalar() || !YAML::convert<bool>::decode(f.value, b)) {
            errors.Add(f.path, "must be a boolean");
          } else {
            args.ignore_preferred_terms_of_existing_pods = b;
          }
        } else {
          return false;
        }
        return true;
      });
  return errors.ToStatusOr(std::move(args));
}

}  // namespace trimaran::sched::plugins
