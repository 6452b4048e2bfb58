#include "scheduler/plugins/helper/pod_requests_state.h"

namespace trimaran::sched::plugins::helper {

Status RequestsMismatchError(absl::string_view plugin) {
  return Status::Error("PreScore state does not match the scoring resources").WithPlugin(plugin);
}

}  // namespace trimaran::sched::plugins::helper
