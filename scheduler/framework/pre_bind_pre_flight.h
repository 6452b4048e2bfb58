#pragma once
// PreBindPreFlightExtension: optional, for PreBind plugins whose PreBind can block
// (upstream's PreBindPreFlight). Asked after Permit, on the scheduling thread, whether
// PreBind has anything to do for this pod. Skip means it will return at once without
// blocking; anything else means it may work and wait, so the scheduler runs the pod's
// binding cycle on a thread of its own instead of its binding pool (scheduler.h). A
// PreBind plugin without this interface is taken as "may wait". The runtime discovers it
// next to the plugin's other interfaces (Framework::BindingCycleMayWait).
//
// A PreBind that blocks must also end when Handle::shutdown_token() is requested.
//
// Thread-safety: called on the scheduling thread, concurrently with other pods' binding
// cycles.

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched {

class PreBindPreFlightExtension {
 public:
  virtual ~PreBindPreFlightExtension() = default;
  virtual Status PreBindPreFlight(CycleState& state, const kube::Pod& pod,
                                  absl::string_view node_name) = 0;
};

}  // namespace trimaran::sched
