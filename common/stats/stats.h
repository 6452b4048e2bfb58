#pragma once
// Trimaran's stats: counters, gauges, histograms and callback metrics in labelled
// families, owned by a Registry that writes the Prometheus text format for /metrics.
// Start here; this header includes the whole public API:
//
//   counter.h, gauge.h, histogram.h   the metrics (lock-free updates)
//   callback_metric.h                 values computed at scrape time (CallbackGauge)
//   family.h                          one name + label names -> a child per label values
//   registry.h                        owns families; PrometheusText(); DefaultRegistry()
//   scope.h                           a Registry plus a name prefix, given to components
//   stats_macros.h                    declare a component's stats once (X-macros)
//   text_format.h                     content type, name rules, escaping, number format
//
// Naming (docs/metrics.md): a component registers names relative to the Scope it gets
// and only the composition root picks prefixes; kube-scheduler's and client-go's names
// where they have the metric, trimaran_<component>_<what>_<unit> otherwise; counters end
// in _total, units are base units (_seconds, _bytes).
//
// Thread-safety: everything here is safe for concurrent use.

#include "common/stats/callback_metric.h"  // IWYU pragma: export
#include "common/stats/counter.h"          // IWYU pragma: export
#include "common/stats/family.h"           // IWYU pragma: export
#include "common/stats/gauge.h"            // IWYU pragma: export
#include "common/stats/histogram.h"        // IWYU pragma: export
#include "common/stats/metric_type.h"      // IWYU pragma: export
#include "common/stats/registry.h"         // IWYU pragma: export
#include "common/stats/scope.h"            // IWYU pragma: export
#include "common/stats/stats_macros.h"     // IWYU pragma: export
#include "common/stats/text_format.h"      // IWYU pragma: export
