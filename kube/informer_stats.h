#pragma once
// InformerStats: exports one informer's counters (Informer<T>::counters()), read at
// scrape time, as callback counters labelled resource=`resource`, named relative to the
// Scope given (the daemon passes "trimaran_informer_", giving
// trimaran_informer_events_total, ...):
//
//   events_total{resource}        watch events received
//   watch_errors_total{resource}  failed watches (reconnects)
//   relists_total{resource}       re-lists after 410 Gone
//   short_watches_total{resource} very short watches (ended in under 1 s with no event;
//                                 each followed by a backoff)
//   list_restarts_total{resource} paged lists started again after an expired continue
//                                 token
//   resource_version_regressions_total{resource}
//                                 objects seen going back to an older resourceVersion
//                                 (a debug check: should stay 0)
//   decode_errors_total{resource} list items and watch events skipped because they do
//                                 not decode
//
//   kube::InformerStats pod_stats(scope, "pods", pod_informer.counters());
//
// Informers of different resources share the families. The callbacks read `counters`
// until the InformerStats is destroyed, which stops exporting them: destroy it before
// the informer.
//
// Thread-safety: construct and destroy from the owner; scrapes may run concurrently.

#include "absl/strings/string_view.h"
#include "common/stats/callback_metric.h"
#include "common/stats/scope.h"
#include "kube/informer.h"

namespace trimaran::kube {

class InformerStats {
 public:
  InformerStats(const stats::Scope& scope, absl::string_view resource,
                const InformerCounters& counters);
  ~InformerStats();
  InformerStats(const InformerStats&) = delete;
  InformerStats& operator=(const InformerStats&) = delete;

 private:
  stats::CallbackCounter& events_;
  stats::CallbackCounter& watch_errors_;
  stats::CallbackCounter& relists_;
  stats::CallbackCounter& short_watches_;
  stats::CallbackCounter& list_restarts_;
  stats::CallbackCounter& regressions_;
  stats::CallbackCounter& decode_errors_;
};

}  // namespace trimaran::kube
