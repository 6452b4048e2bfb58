#pragma once
// AsyncEventRecorder: the scheduler's EventRecorder (scheduler/framework/handle.h) over
// kube::Client::CreateEvent (events.k8s.io/v1), like client-go's events broadcaster.
//
// Eventf never blocks on the API: it builds the Event, applies the dedup rule and
// pushes it onto a bounded queue; one writer thread sends the queued events in order.
// When the queue is full the event is dropped and counted.
//
// Dedup (upstream-like, for the FailedScheduling storm of an unschedulable pod): an
// event with the same regarding object (uid, else namespace/name), type, reason and
// note as one written less than `dedup_window` (10 min) ago is not written again; it
// only increments the `deduplicated` counter. After the window the event is written
// again (a fresh observation). The remembered keys are pruned oldest first (a FIFO, so
// an event costs O(1) amortized, not a scan of the map), and at most
// `dedup_capacity` are kept.
//
// Events carry reportingController = the regarding pod's spec.schedulerName (its
// profile's name, as upstream's per-profile recorders), or options.reporting_controller
// ("trimaran-scheduler") for a pod without one, reportingInstance = options.reporting_instance, the
// given action ("Scheduling", "Binding"), eventTime = clock.Now(), and the note truncated to 1 KiB.
// Event names are "<pod>.<hex nanos>" as client-go's.
//
// Stats, named relative to the given scope (a StatsScopes::own; the daemon's "trimaran_"
// gives trimaran_events_total):
//   events_total{result = written|failed|dropped|deduplicated}   counter
//
// Thread-safety: Eventf and Flush are safe for concurrent use. Ownership: the Client,
// the Clock and the Scope's registry must outlive the recorder; the destructor writes
// what is still queued and joins the writer thread.

#include <cstdint>
#include <deque>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/stats.h"
#include "kube/api/event.h"
#include "kube/client.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched {

struct EventRecorderOptions {
  std::string reporting_controller = "trimaran-scheduler";
  std::string reporting_instance = "trimaran-scheduler";
  // Events waiting to be written beyond this are dropped.
  size_t queue_capacity = 4096;
  absl::Duration dedup_window = absl::Minutes(10);
  // Dedup keys remembered at most; beyond it the oldest are forgotten first (their
  // events may then be written again: harmless).
  size_t dedup_capacity = 16384;
};

class AsyncEventRecorder final : public EventRecorder {
 public:
  AsyncEventRecorder(kube::Client& client, const Clock& clock, const stats::Scope& scope,
                     EventRecorderOptions options = {});
  ~AsyncEventRecorder() override;
  AsyncEventRecorder(const AsyncEventRecorder&) = delete;
  AsyncEventRecorder& operator=(const AsyncEventRecorder&) = delete;

  void Eventf(const kube::Pod& regarding, const kube::Pod* related, EventType type,
              absl::string_view reason, absl::string_view action, absl::string_view note) override;

  // Blocks until every event queued before the call has been written (or failed).
  void Flush();
  // Flush for at most `timeout` (real time: the writer's API calls take real time), then
  // drops what is still queued (counted as dropped); returns how many were dropped. For
  // a shutdown that must not wait on a backlog of best-effort events (issue 30).
  size_t FlushFor(absl::Duration timeout);

 private:
  void WriterLoop();

  kube::Client& client_;
  const Clock& clock_;
  const EventRecorderOptions options_;
  stats::Counter& written_;
  stats::Counter& failed_;
  stats::Counter& dropped_;
  stats::Counter& deduplicated_;

  absl::Mutex mu_;
  std::deque<kube::Event> queue_ ABSL_GUARDED_BY(mu_);
  // Events taken off the queue but not yet written.
  int writing_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Dedup key -> when that event was last written (queued).
  absl::flat_hash_map<std::string, absl::Time> recent_ ABSL_GUARDED_BY(mu_);
  // recent_'s insertions, oldest first (a key re-inserted later has a newer entry here
  // too; an entry whose time no longer matches recent_ is stale and only popped).
  std::deque<std::pair<std::string, absl::Time>> recent_order_ ABSL_GUARDED_BY(mu_);
  uint64_t sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread writer_;
};

}  // namespace trimaran::sched
