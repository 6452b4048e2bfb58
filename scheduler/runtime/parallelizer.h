#pragma once
// ThreadPoolParallelizer: the scheduler's Parallelizer (scheduler/framework/handle.h)
// over a fixed pool of `parallelism` worker threads, like upstream's
// parallelize.Parallelizer (which uses workqueue.ParallelizeUntil with chunking).
//
// Until(pieces, work) (and UntilRanges, which hands each chunk to one call) splits
// [0, pieces) into chunks of ChunkSize(pieces, parallelism)
// pieces (≈ sqrt(pieces), as upstream's chunkSizeFor), publishes the job to the
// workers, claims chunks on the calling thread too, and returns once every chunk has
// run. Small jobs (one chunk, or parallelism 1) run inline on the caller.
//
// Cost: a call allocates nothing. The job descriptor lives on the caller's stack and is
// linked into an intrusive list of active jobs; chunks are claimed with one atomic
// fetch_add each, so the pool's mutex is taken O(workers) times per call, never per
// piece.
//
// Thread-safety: safe for concurrent use; concurrent Until calls share the workers (each
// caller always makes progress on its own job, so no call waits for another's work).
// `work` runs concurrently on several threads and must be thread-safe. Until must not be
// called from inside `work` of the same pool with the expectation that workers help
// (it still completes, on the calling thread).
//
// Lifetime: the destructor stops and joins the workers; no Until call may be running.

#include <atomic>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched {

class ThreadPoolParallelizer final : public Parallelizer {
 public:
  // Upstream's default `parallelism`.
  static constexpr int kDefaultParallelism = 16;

  // Starts `parallelism` (>= 1) workers.
  explicit ThreadPoolParallelizer(int parallelism = kDefaultParallelism);
  ~ThreadPoolParallelizer() override;
  ThreadPoolParallelizer(const ThreadPoolParallelizer&) = delete;
  ThreadPoolParallelizer& operator=(const ThreadPoolParallelizer&) = delete;

  int parallelism() const override { return parallelism_; }
  void Until(int pieces, absl::FunctionRef<void(int piece)> work,
             absl::string_view operation) override;
  // Ranges are the chunks (one range [0, pieces) when the job runs inline).
  void UntilRanges(int pieces, absl::FunctionRef<void(int begin, int end)> work,
                   absl::string_view operation) override;

  // Pieces per chunk: sqrt(pieces), capped at pieces/parallelism + 1, at least 1
  // (upstream chunkSizeFor).
  static int ChunkSize(int pieces, int parallelism);

 private:
  struct Job {
    Job(absl::FunctionRef<void(int, int)> w, int p, int c) : work(w), pieces(p), chunk(c) {}
    absl::FunctionRef<void(int, int)> work;  // [begin, end)
    const int pieces;
    const int chunk;
    std::atomic<int> next_piece{0};
    // Guarded by the pool's mu_: workers currently running chunks of this job.
    int users = 0;
    bool queued = false;
    // Signalled when `users` drops to 0 after the job left the list.
    absl::CondVar done;
    Job* prev = nullptr;
    Job* next = nullptr;
  };

  // Runs chunks of `job` until none is left.
  static void RunChunks(Job& job);
  void WorkerLoop();
  void Unlink(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int parallelism_;
  absl::Mutex mu_;
  // Intrusive list of jobs that still have unclaimed chunks.
  Job* head_ ABSL_GUARDED_BY(mu_) = nullptr;
  Job* tail_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Signalled once per chunk-worth of new work (wakes only the workers a job can use).
  absl::CondVar work_available_;
  std::vector<std::jthread> workers_;
};

}  // namespace trimaran::sched
