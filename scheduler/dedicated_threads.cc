#include "scheduler/dedicated_threads.h"

#include <memory>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {

DedicatedThreads::~DedicatedThreads() { Drain(); }

absl::Status DedicatedThreads::Start(std::function<void()>* task) {
  absl::MutexLock lock(&mu_);
  JoinFinishedLocked();
  // The new thread cannot reach mu_ before this scope ends, so `it` is set by then.
  const ThreadList::iterator it = threads_.emplace(threads_.end());
  auto shared = std::make_shared<std::function<void()>>(std::move(*task));
  try {
    *it = std::thread([this, it, shared] {
      (*shared)();
      *shared = nullptr;  // what the task captured goes now, not at the join
      absl::MutexLock done(&mu_);
      finished_.push_back(it);
      --running_;
    });
  } catch (const std::system_error& e) {
    threads_.erase(it);
    *task = std::move(*shared);
    return absl::ResourceExhaustedError(absl::StrCat("cannot start a thread: ", e.what()));
  }
  ++running_;
  return absl::OkStatus();
}

void DedicatedThreads::Drain() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* running) { return *running == 0; }, &running_));
  JoinFinishedLocked();
}

int DedicatedThreads::running() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

void DedicatedThreads::JoinFinishedLocked() {
  for (ThreadList::iterator it : finished_) {
    it->join();
    threads_.erase(it);
  }
  finished_.clear();
}

}  // namespace trimaran::sched
