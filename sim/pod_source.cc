#include "sim/pod_source.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sim {

absl::StatusOr<std::optional<TracePod>> VectorPodSource::Next() {
  if (next_ >= pods_.size()) return std::nullopt;
  if (next_ > 0 && pods_[next_].creation_time < pods_[next_ - 1].creation_time) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod \"", pods_[next_].name, "\": creation_time ", pods_[next_].creation_time,
                     " before the previous pod's ", pods_[next_ - 1].creation_time,
                     " (the trace must be sorted by creation_time)"));
  }
  return pods_[next_++];
}

}  // namespace trimaran::sim
