#include "scheduler/runtime/parallelizer.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace trimaran::sched {

ThreadPoolParallelizer::ThreadPoolParallelizer(int parallelism)
    : parallelism_(std::max(1, parallelism)) {
  workers_.reserve(parallelism_);
  for (int i = 0; i < parallelism_; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPoolParallelizer::~ThreadPoolParallelizer() {
  {
    absl::MutexLock lock(&mu_);
    TRIMARAN_CHECK(head_ == nullptr) << "ThreadPoolParallelizer destroyed during Until";
    stopping_ = true;
  }
  work_available_.SignalAll();
  workers_.clear();  // joins
}

int ThreadPoolParallelizer::ChunkSize(int pieces, int parallelism) {
  int size = static_cast<int>(std::sqrt(static_cast<double>(std::max(pieces, 0))));
  const int cap = pieces / std::max(parallelism, 1) + 1;
  if (size > cap) size = cap;
  return std::max(size, 1);
}

void ThreadPoolParallelizer::RunChunks(Job& job) {
  while (true) {
    const int begin = job.next_piece.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.pieces) return;
    job.work(begin, std::min(begin + job.chunk, job.pieces));
  }
}

void ThreadPoolParallelizer::Unlink(Job& job) {
  if (!job.queued) return;
  (job.prev != nullptr ? job.prev->next : head_) = job.next;
  (job.next != nullptr ? job.next->prev : tail_) = job.prev;
  job.prev = job.next = nullptr;
  job.queued = false;
}

void ThreadPoolParallelizer::WorkerLoop() {
  absl::MutexLock lock(&mu_);
  while (true) {
    while (!stopping_ && head_ == nullptr) work_available_.Wait(&mu_);
    if (stopping_) return;
    Job& job = *head_;
    ++job.users;
    mu_.Unlock();
    RunChunks(job);
    mu_.Lock();
    // Every chunk is claimed: nobody else needs to pick this job up.
    Unlink(job);
    if (--job.users == 0) job.done.Signal();
  }
}

void ThreadPoolParallelizer::Until(int pieces, absl::FunctionRef<void(int piece)> work,
                                   absl::string_view operation) {
  UntilRanges(
      pieces,
      [&work](int begin, int end) {
        for (int i = begin; i < end; ++i) work(i);
      },
      operation);
}

void ThreadPoolParallelizer::UntilRanges(int pieces,
                                         absl::FunctionRef<void(int begin, int end)> work,
                                         absl::string_view /*operation*/) {
  if (pieces <= 0) return;
  const int chunk = ChunkSize(pieces, parallelism_);
  const int num_chunks = (pieces + chunk - 1) / chunk;
  if (parallelism_ == 1 || num_chunks == 1) {
    work(0, pieces);
    return;
  }
  Job job(work, pieces, chunk);
  {
    absl::MutexLock lock(&mu_);
    job.prev = tail_;
    (tail_ != nullptr ? tail_->next : head_) = &job;
    tail_ = &job;
    job.queued = true;
  }
  // The caller takes one chunk-stream itself; wake only the workers the rest can use.
  const int helpers = std::min(parallelism_, num_chunks - 1);
  for (int i = 0; i < helpers; ++i) work_available_.Signal();
  RunChunks(job);
  absl::MutexLock lock(&mu_);
  Unlink(job);
  while (job.users > 0) job.done.Wait(&mu_);
}

}  // namespace trimaran::sched
