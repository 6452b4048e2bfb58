#include "scheduler/backend/cache/snapshot.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sched {

absl::StatusOr<const NodeInfo*> Snapshot::Get(absl::string_view node_name) const {
  const auto it = node_info_map_.find(node_name);
  if (it == node_info_map_.end()) {
    return absl::NotFoundError(
        absl::StrCat("nodeinfo not found for node name \"", node_name, "\""));
  }
  return it->second.get();
}

}  // namespace trimaran::sched
