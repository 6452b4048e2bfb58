#include "scheduler/decisions/decision_ring.h"

#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace trimaran::sched::decisions {
namespace {

Decision For(absl::string_view pod, int n) {
  Decision d;
  d.pod = std::string(pod);
  d.node = absl::StrCat("node-", n);
  d.evaluated_nodes = n;
  return d;
}

std::vector<int> Evaluated(const std::vector<std::shared_ptr<const Decision>>& list) {
  std::vector<int> out;
  for (const auto& d : list) out.push_back(d->evaluated_nodes);
  return out;
}

TEST(DecisionRingTest, EmptyRingListsNothing) {
  DecisionRing ring(3);
  EXPECT_EQ(ring.capacity(), 3u);
  EXPECT_TRUE(ring.List("", 0).empty());
  EXPECT_EQ(ring.recorded(), 0u);
}

TEST(DecisionRingTest, NewestFirstAndBoundedByCapacity) {
  DecisionRing ring(3);
  for (int i = 1; i <= 5; ++i) ring.Record(For("ns/a", i));
  EXPECT_EQ(Evaluated(ring.List("", 0)), (std::vector<int>{5, 4, 3}));
  EXPECT_EQ(ring.recorded(), 5u);
}

TEST(DecisionRingTest, FiltersByPodAndLimits) {
  DecisionRing ring(10);
  ring.Record(For("ns/a", 1));
  ring.Record(For("ns/b", 2));
  ring.Record(For("ns/a", 3));
  ring.Record(For("other/a", 4));
  EXPECT_EQ(Evaluated(ring.List("ns/a", 0)), (std::vector<int>{3, 1}));
  EXPECT_EQ(Evaluated(ring.List("ns/a", 1)), (std::vector<int>{3}));
  EXPECT_EQ(Evaluated(ring.List("", 2)), (std::vector<int>{4, 3}));
  EXPECT_TRUE(ring.List("ns/unknown", 0).empty());
}

TEST(DecisionRingTest, ListedDecisionsSurviveBeingReplaced) {
  DecisionRing ring(1);
  ring.Record(For("ns/a", 1));
  std::vector<std::shared_ptr<const Decision>> held = ring.List("", 0);
  ring.Record(For("ns/b", 2));
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0]->pod, "ns/a");
  EXPECT_EQ(Evaluated(ring.List("", 0)), (std::vector<int>{2}));
}

TEST(DecisionRingTest, ConcurrentWritersAndReaders) {
  DecisionRing ring(64);
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 500;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&ring, w] {
      for (int i = 0; i < kPerWriter; ++i) ring.Record(For(absl::StrCat("ns/w", w), i));
    });
  }
  size_t max_seen = 0;
  for (int r = 0; r < 100; ++r) {
    const auto list = ring.List("", 0);
    max_seen = std::max(max_seen, list.size());
    for (const auto& d : list) ASSERT_NE(d, nullptr);
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(max_seen, 64u);
  EXPECT_EQ(ring.recorded(), static_cast<uint64_t>(kWriters * kPerWriter));
  EXPECT_EQ(ring.List("", 0).size(), 64u);
  // Each writer's own decisions stay in its recording order (newest first).
  for (int w = 0; w < kWriters; ++w) {
    const std::vector<int> mine = Evaluated(ring.List(absl::StrCat("ns/w", w), 0));
    for (size_t i = 1; i < mine.size(); ++i) EXPECT_GT(mine[i - 1], mine[i]);
  }
}

TEST(DecisionTest, BoundedMessageCutsLongMessagesOnACharacterBoundary) {
  EXPECT_EQ(BoundedMessage("short"), "short");
  std::string long_message(kMaxMessageBytes - 7, 'x');
  long_message += "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";  // "éééé"
  const std::string cut = BoundedMessage(long_message);
  EXPECT_LE(cut.size(), kMaxMessageBytes);
  EXPECT_TRUE(absl::EndsWith(cut, " [...]"));
  // The byte before the mark starts no cut sequence: it is plain 'x' or a whole é.
  const std::string body = cut.substr(0, cut.size() - 6);
  EXPECT_NE(static_cast<unsigned char>(body.back()) & 0xC0, 0xC0);
}

}  // namespace
}  // namespace trimaran::sched::decisions
