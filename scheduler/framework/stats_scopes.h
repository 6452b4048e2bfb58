#pragma once
// StatsScopes: where the scheduling library's components (Scheduler, queue, cache,
// frameworks, plugins, event recorder) register their stats. Every component names its
// families relative to the scope it is given and never adds to the prefix; only the
// composition root (the daemon, trimaranctl, a test) picks the prefixes:
//
//   sched::StatsScopes scopes{
//       .upstream = stats::Scope(registry, "scheduler_"),  // kube-scheduler's names
//       .own = stats::Scope(registry, "trimaran_"),         // ours
//   };
//
// `upstream` holds the families kube-scheduler also exports, under kube-scheduler's
// names minus its "scheduler_" subsystem: pending_pods, queue_incoming_pods_total,
// schedule_attempts_total, cache_size,
// framework_extension_point_duration_seconds, ... `own` holds the families only
// Trimaran has: cache_invalid_operations_total, events_total,
// plugin_metrics_fallback_total, ... The two must not register the same name in one
// registry; with the daemon's prefixes they cannot. docs/metrics.md lists every family.
//
// Thread-safety: immutable after construction; safe for concurrent use. The scopes'
// registries must outlive every component that registered in them.

#include "common/stats/scope.h"

namespace trimaran::sched {

struct StatsScopes {
  stats::Scope upstream;
  stats::Scope own;
};

}  // namespace trimaran::sched
