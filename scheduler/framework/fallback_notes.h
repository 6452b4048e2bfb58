#pragma once
// FallbackNotes: optional, for Score plugins that can fall back from what they normally
// score by (the load-aware plugins, when load-watcher metrics are missing or stale; see
// scheduler/plugins/load_aware/fallback.h). The runtime discovers it next to a plugin's
// other interfaces (Framework::AppendFallbackNotes); the scheduler asks for it after a
// cycle's Score, only when it records decisions (scheduler/decisions/), so that
// `trimaranctl explain` can say which fallbacks the decision used.
//
// Thread-safety: called on the scheduling thread after Score has finished, with the
// cycle's state; it must not change the plugin's scoring.

#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"

namespace trimaran::sched {

class FallbackNotes {
 public:
  virtual ~FallbackNotes() = default;
  // Appends one line per kind of fallback used in the cycle of `state` (nothing when
  // none), e.g. "TargetLoadPacking: metrics stale on 12 node(s), used requests".
  virtual void AppendFallbackNotes(const CycleState& state,
                                   std::vector<std::string>& out) const = 0;
};

}  // namespace trimaran::sched
