#include "scheduler/binding_pool.h"

#include <algorithm>
#include <utility>

namespace trimaran::sched {

BindingPool::BindingPool(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    threads_.emplace_back([this] { Loop(); });
  }
}

BindingPool::~BindingPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void BindingPool::Submit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  ++pending_;
  tasks_.push_back(std::move(task));
}

void BindingPool::Drain() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* pending) { return *pending == 0; }, &pending_));
}

void BindingPool::Loop() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](BindingPool* p)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return !p->tasks_.empty() || p->stopping_; },
          this));
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
    absl::MutexLock lock(&mu_);
    --pending_;
  }
}

}  // namespace trimaran::sched
