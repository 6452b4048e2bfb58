#pragma once
// BindingPool: a fixed set of threads running queued tasks, the Scheduler's binding
// cycles that cannot wait and its failure-status patches (scheduler.h). The cycles that
// may wait run on DedicatedThreads (dedicated_threads.h) instead.
//
// Thread-safety: Submit and Drain are safe for concurrent use, also from the tasks
// themselves (a task may Submit another; it must not Drain).
//
// Ownership: the destructor lets the queued tasks run, then joins every thread.

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace trimaran::sched {

class BindingPool {
 public:
  // At least one thread.
  explicit BindingPool(int threads);
  ~BindingPool();
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  void Submit(std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until every submitted task (including ones they submit) has run.
  void Drain() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Loop() ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace trimaran::sched
