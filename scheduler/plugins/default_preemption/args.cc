#include "scheduler/plugins/default_preemption/args.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "DefaultPreemptionArgs";
constexpr absl::string_view kPercentage = "minCandidateNodesPercentage";
constexpr absl::string_view kAbsolute = "minCandidateNodesAbsolute";

// Reads an int32 field; false (with an error) when it is not one.
bool ReadInt32(const helper::ArgsField& f, helper::FieldErrors& errors, int32_t& out) {
  const std::optional<int64_t> v = helper::ParseInt(f.value);
  if (!v.has_value() || *v < INT32_MIN || *v > INT32_MAX) {
    errors.Add(f.path, "must be a 32-bit integer");
    return false;
  }
  out = static_cast<int32_t>(*v);
  return true;
}

}  // namespace

absl::StatusOr<DefaultPreemptionArgs> DecodeDefaultPreemptionArgs(const PluginArgs& plugin_args) {
  DefaultPreemptionArgs args;
  const absl::string_view path = plugin_args.path;
  helper::FieldErrors errors;
  bool typed_ok = true;
  const bool decoded =
      helper::DecodeArgsFields(plugin_args, kKind, errors, [&](const helper::ArgsField& f) {
        if (f.key == kPercentage) {
          typed_ok &= ReadInt32(f, errors, args.min_candidate_nodes_percentage);
        } else if (f.key == kAbsolute) {
          typed_ok &= ReadInt32(f, errors, args.min_candidate_nodes_absolute);
        } else {
          return false;
        }
        return true;
      });
  // Upstream ValidateDefaultPreemptionArgs.
  if (decoded && typed_ok) {
    const int32_t pct = args.min_candidate_nodes_percentage;
    const int32_t abs = args.min_candidate_nodes_absolute;
    if (pct < 0 || pct > 100) {
      errors.AddInvalidValue(helper::ChildPath(path, kPercentage), pct,
                             "not in valid range [0, 100]");
    }
    if (abs < 0) {
      errors.AddInvalidValue(helper::ChildPath(path, kAbsolute), abs,
                             "not in valid range [0, inf)");
    }
    if (pct == 0 && abs == 0) {
      errors.AddInvalidValue(helper::ChildPath(path, kPercentage), 0,
                             absl::StrCat("cannot be zero at the same time as ", kAbsolute));
    }
  }
  return errors.ToStatusOr(std::move(args));
}

int32_t NumCandidates(const DefaultPreemptionArgs& args, int32_t num_nodes) {
  int64_t n = static_cast<int64_t>(num_nodes) * args.min_candidate_nodes_percentage / 100;
  n = std::max<int64_t>(n, args.min_candidate_nodes_absolute);
  return static_cast<int32_t>(std::min<int64_t>(n, num_nodes));
}

}  // namespace trimaran::sched::plugins
