#include "kube/informer_stats.h"

namespace trimaran::kube {

InformerStats::InformerStats(const stats::Scope& scope, absl::string_view resource,
                             const InformerCounters& counters)
    : events_(scope
                  .CallbackCounterFamily("events_total", "Watch events received, by resource.",
                                         {"resource"})
                  .WithLabels({resource})),
      watch_errors_(scope
                        .CallbackCounterFamily("watch_errors_total",
                                               "Failed watches (reconnects), by resource.",
                                               {"resource"})
                        .WithLabels({resource})),
      relists_(scope
                   .CallbackCounterFamily("relists_total", "Re-lists after 410 Gone, by resource.",
                                          {"resource"})
                   .WithLabels({resource})),
      short_watches_(scope
                         .CallbackCounterFamily(
                             "short_watches_total",
                             "Watches that ended in under 1 s with no event (each followed by "
                             "a backoff), by resource.",
                             {"resource"})
                         .WithLabels({resource})),
      list_restarts_(scope
                         .CallbackCounterFamily("list_restarts_total",
                                                "Paged lists started again after an expired "
                                                "continue token, by resource.",
                                                {"resource"})
                         .WithLabels({resource})),
      regressions_(scope
                       .CallbackCounterFamily("resource_version_regressions_total",
                                              "Objects seen going back to an older "
                                              "resourceVersion (should stay 0), by resource.",
                                              {"resource"})
                       .WithLabels({resource})),
      decode_errors_(scope
                         .CallbackCounterFamily(
                             "decode_errors_total",
                             "List items and watch events skipped because they do not decode, "
                             "by resource.",
                             {"resource"})
                         .WithLabels({resource})) {
  const InformerCounters* c = &counters;
  events_.Set([c] { return static_cast<double>(c->events.load()); });
  watch_errors_.Set([c] { return static_cast<double>(c->watch_errors.load()); });
  relists_.Set([c] { return static_cast<double>(c->relists_gone.load()); });
  short_watches_.Set([c] { return static_cast<double>(c->short_watches.load()); });
  list_restarts_.Set([c] { return static_cast<double>(c->list_restarts.load()); });
  regressions_.Set([c] { return static_cast<double>(c->resource_version_regressions.load()); });
  decode_errors_.Set([c] { return static_cast<double>(c->decode_errors.load()); });
}

InformerStats::~InformerStats() {
  events_.Clear();
  watch_errors_.Clear();
  relists_.Clear();
  short_watches_.Clear();
  list_restarts_.Clear();
  regressions_.Clear();
  decode_errors_.Clear();
}

}  // namespace trimaran::kube
