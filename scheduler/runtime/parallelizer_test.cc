#include "scheduler/runtime/parallelizer.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

TEST(ThreadPoolParallelizerTest, ChunkSize) {
  struct TestCase {
    const char* name;
    int pieces;
    int parallelism;
    int want;
  };
  const std::vector<TestCase> cases = {
      {"zero pieces", 0, 16, 1},
      {"one piece", 1, 16, 1},
      // sqrt(100) = 10; cap 100/16 + 1 = 7.
      {"capped by parallelism", 100, 16, 7},
      // sqrt(5000) = 70; cap 5000/16 + 1 = 313.
      {"sqrt", 5000, 16, 70},
      // sqrt(5000) = 70; cap 5000/100 + 1 = 51.
      {"many workers", 5000, 100, 51},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(ThreadPoolParallelizer::ChunkSize(tc.pieces, tc.parallelism), tc.want);
  }
}

TEST(ThreadPoolParallelizerTest, RunsEveryPieceExactlyOnce) {
  for (int parallelism : {1, 2, 4, 16}) {
    ThreadPoolParallelizer pool(parallelism);
    EXPECT_EQ(pool.parallelism(), parallelism);
    for (int pieces : {0, 1, 2, 7, 100, 5000}) {
      SCOPED_TRACE(::testing::Message() << "parallelism=" << parallelism << " pieces=" << pieces);
      std::vector<std::atomic<int>> hits(pieces);
      pool.Until(
          pieces, [&](int i) { hits[i].fetch_add(1); }, "Test");
      for (int i = 0; i < pieces; ++i) ASSERT_EQ(hits[i].load(), 1) << "piece " << i;
    }
  }
}

TEST(ThreadPoolParallelizerTest, UntilRangesCoversEveryPieceOnceInChunks) {
  for (int parallelism : {1, 2, 16}) {
    ThreadPoolParallelizer pool(parallelism);
    for (int pieces : {0, 1, 7, 100, 5000}) {
      SCOPED_TRACE(::testing::Message() << "parallelism=" << parallelism << " pieces=" << pieces);
      std::vector<std::atomic<int>> hits(pieces);
      std::atomic<int> calls{0};
      std::atomic<int> widest{0};
      pool.UntilRanges(
          pieces,
          [&](int begin, int end) {
            ASSERT_LT(begin, end);
            calls.fetch_add(1);
            int w = widest.load();
            while (end - begin > w && !widest.compare_exchange_weak(w, end - begin)) {
            }
            for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
          },
          "Test");
      for (int i = 0; i < pieces; ++i) ASSERT_EQ(hits[i].load(), 1) << "piece " << i;
      if (pieces == 0) {
        EXPECT_EQ(calls.load(), 0);
      } else if (parallelism == 1) {
        // Inline: one call over everything.
        EXPECT_EQ(calls.load(), 1);
        EXPECT_EQ(widest.load(), pieces);
      } else {
        // Chunks of ChunkSize pieces (the last may be shorter): 5000 pieces at
        // parallelism 2 -> sqrt = 70 per chunk, 72 calls.
        const int chunk = ThreadPoolParallelizer::ChunkSize(pieces, parallelism);
        EXPECT_EQ(widest.load(), std::min(chunk, pieces));
        EXPECT_EQ(calls.load(), (pieces + chunk - 1) / chunk);
      }
    }
  }
}

TEST(ThreadPoolParallelizerTest, DefaultUntilRangesIsOnePieceRanges) {
  // The interface's default (for Parallelizers that only implement Until).
  class PerPiece final : public Parallelizer {
   public:
    int parallelism() const override { return 1; }
    void Until(int pieces, absl::FunctionRef<void(int)> work, absl::string_view) override {
      for (int i = 0; i < pieces; ++i) work(i);
    }
  } per_piece;
  std::vector<std::pair<int, int>> ranges;
  per_piece.UntilRanges(
      3, [&](int begin, int end) { ranges.emplace_back(begin, end); }, "Test");
  EXPECT_EQ(ranges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(ThreadPoolParallelizerTest, ConcurrentCallers) {
  ThreadPoolParallelizer pool(3);
  std::atomic<int64_t> total{0};
  {
    std::vector<std::jthread> callers;
    for (int c = 0; c < 4; ++c) {
      callers.emplace_back([&] {
        for (int round = 0; round < 50; ++round) {
          std::atomic<int> local{0};
          pool.Until(
              257, [&](int) { local.fetch_add(1); }, "Test");
          ASSERT_EQ(local.load(), 257);  // Until returned only after all pieces ran
          total.fetch_add(local.load());
        }
      });
    }
  }
  EXPECT_EQ(total.load(), 4 * 50 * 257);
}

}  // namespace
}  // namespace trimaran::sched
