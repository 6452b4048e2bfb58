#pragma once
// DedicatedThreads: runs each task on a thread of its own, started at once, so that a
// task that blocks for a long time (a binding cycle held at Permit or waiting in
// PreBind) never delays another (kube-scheduler's goroutine per binding cycle). The
// Scheduler uses it for the binding cycles that may wait; the others run on its fixed
// binding pool (scheduler.h).
//
// A thread exists only while its task runs: a finished thread is joined by the next
// Start or by Drain, so the number of threads alive is the number of tasks running
// (plus, briefly, the ones that just returned). Each thread is an OS thread with the
// default stack reservation; only the pages it touches are resident (a parked binding
// cycle uses a few tens of KiB).
//
// Thread-safety: Start, Drain and running() are safe for concurrent use, also from the
// tasks themselves (a task may Start another; it must not Drain).
//
// Ownership: the destructor drains (waits for every task) and joins every thread.

#include <functional>
#include <list>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace trimaran::sched {

class DedicatedThreads {
 public:
  DedicatedThreads() = default;
  ~DedicatedThreads();
  DedicatedThreads(const DedicatedThreads&) = delete;
  DedicatedThreads& operator=(const DedicatedThreads&) = delete;

  // Starts `*task` on a new thread (moving it out of *task) and returns at once.
  // ResourceExhausted when the system refuses another thread (RLIMIT_NPROC, a pids
  // cgroup limit): *task is then left untouched, for the caller to run elsewhere.
  absl::Status Start(std::function<void()>* task) ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until every task started so far (and every task they start) has returned,
  // then joins their threads.
  void Drain() ABSL_LOCKS_EXCLUDED(mu_);
  // Tasks running now.
  int running() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using ThreadList = std::list<std::thread>;
  // Joins the threads whose task returned (they only unlock mu_ and exit after that).
  void JoinFinishedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  ThreadList threads_ ABSL_GUARDED_BY(mu_);
  std::vector<ThreadList::iterator> finished_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trimaran::sched
