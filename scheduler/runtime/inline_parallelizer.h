#pragma once
// InlineParallelizer: a Parallelizer that runs every piece on the calling thread, in
// order, so results are deterministic (the offline tools, and tests). UntilRanges hands
// out ranges of at most range_size() pieces (0: one range, as the thread pool at
// parallelism 1).
//
// Thread-safety: Until/UntilRanges may be called concurrently (they share nothing);
// set_range_size must not race with them.

#include <algorithm>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched {

class InlineParallelizer final : public Parallelizer {
 public:
  explicit InlineParallelizer(int parallelism = 16) : parallelism_(parallelism) {}
  int parallelism() const override { return parallelism_; }
  void Until(int pieces, absl::FunctionRef<void(int piece)> work, absl::string_view) override {
    for (int i = 0; i < pieces; ++i) work(i);
  }
  void UntilRanges(int pieces, absl::FunctionRef<void(int begin, int end)> work,
                   absl::string_view) override {
    const int step = range_size_ > 0 ? range_size_ : std::max(pieces, 1);
    for (int begin = 0; begin < pieces; begin += step) work(begin, std::min(begin + step, pieces));
  }
  int range_size() const { return range_size_; }
  void set_range_size(int n) { range_size_ = n; }

 private:
  int parallelism_;
  int range_size_ = 0;
};

}  // namespace trimaran::sched
