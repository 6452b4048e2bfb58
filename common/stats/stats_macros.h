#pragma once
// Envoy-style X-macros to declare a component's stats in one place and get a struct of
// references to their families, so that no metric name is spelled twice.
//
// 1. Declare the list once, in the component's header. Each entry names the stat (the
//    C++ member and the metric name, after the scope's prefix), its help text and its
//    label names in parentheses; a histogram adds its bucket bounds:
//
//      #define TRIMARAN_QUEUE_STATS(COUNTER, GAUGE, HISTOGRAM)
//        COUNTER(incoming_pods_total, "Pods added to the queues.", ("event", "queue"))
//        GAUGE(pending_pods, "Pods waiting, by queue.", ("queue"))
//        HISTOGRAM(wait_seconds, "Time from enqueue to pop.", (),
//                  ::trimaran::stats::ExponentialBuckets(0.001, 2, 15))
//
//    (with a backslash ending every line but the last). Labels `()` mean none.
//    A bucket expression with a top-level comma (a braced list) must be parenthesized:
//    `(std::vector<double>{0.1, 1, 10})`.
//
// 2. Declare the struct, one `Family<T>&` member per entry:
//
//      struct QueueStats {
//        TRIMARAN_QUEUE_STATS(TRIMARAN_STATS_COUNTER_MEMBER, TRIMARAN_STATS_GAUGE_MEMBER,
//                             TRIMARAN_STATS_HISTOGRAM_MEMBER)
//      };
//
// 3. Build it from a Scope (or a Registry):
//
//      QueueStats stats{TRIMARAN_QUEUE_STATS(TRIMARAN_STATS_COUNTER_INIT(scope),
//                                            TRIMARAN_STATS_GAUGE_INIT(scope),
//                                            TRIMARAN_STATS_HISTOGRAM_INIT(scope))};
//      stats.incoming_pods_total.WithLabels({"PodAdd", "active"}).Inc();
//
// Registration errors are fatal (Registry::CounterFamily). A list need not use all
// three kinds, but the three parameters are always there.
// Callback gauges are not part of the list: their callbacks need the component itself,
// so register them in its constructor.
//
// Thread-safety: the struct holds references; see family.h.

#include "common/stats/family.h"  // IWYU pragma: export

// Turns a parenthesized label list `("a", "b")` or `()` into `{"a", "b"}` or `{}`.
#define TRIMARAN_STATS_LABELS_(...) \
  { __VA_ARGS__ }

#define TRIMARAN_STATS_COUNTER_MEMBER(NAME, HELP, LABELS) \
  ::trimaran::stats::Family<::trimaran::stats::Counter>& NAME;
#define TRIMARAN_STATS_GAUGE_MEMBER(NAME, HELP, LABELS) \
  ::trimaran::stats::Family<::trimaran::stats::Gauge>& NAME;
#define TRIMARAN_STATS_HISTOGRAM_MEMBER(NAME, HELP, LABELS, BUCKETS) \
  ::trimaran::stats::Family<::trimaran::stats::Histogram>& NAME;

// `TRIMARAN_STATS_COUNTER_INIT(scope)(name, help, labels)` expands to
// `(scope).CounterFamily("name", help, {labels}),`: the _INIT macro leaves the name of a
// function-like macro that the list then calls with the entry's arguments (Envoy's
// POOL_COUNTER trick).
#define TRIMARAN_STATS_COUNTER_INIT(SCOPE) (SCOPE).CounterFamily TRIMARAN_STATS_FINISH_
#define TRIMARAN_STATS_GAUGE_INIT(SCOPE) (SCOPE).GaugeFamily TRIMARAN_STATS_FINISH_
#define TRIMARAN_STATS_HISTOGRAM_INIT(SCOPE) \
  (SCOPE).HistogramFamily TRIMARAN_STATS_FINISH_HISTOGRAM_

#define TRIMARAN_STATS_FINISH_(NAME, HELP, LABELS) (#NAME, HELP, TRIMARAN_STATS_LABELS_ LABELS),
#define TRIMARAN_STATS_FINISH_HISTOGRAM_(NAME, HELP, LABELS, BUCKETS) \
  (#NAME, HELP, TRIMARAN_STATS_LABELS_ LABELS, BUCKETS),
