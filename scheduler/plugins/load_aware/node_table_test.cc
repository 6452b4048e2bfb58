#include "scheduler/plugins/load_aware/node_table.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/metrics.h"

namespace trimaran::sched::plugins::load_aware {
namespace {

struct Record {
  const kube::Node* key = nullptr;
  std::string made_for;  // the node name `make` saw
  int generation = 0;    // which Build made it
};

struct Maker {
  int generation = 0;
  int calls = 0;
  static void Make(const void* ctx, const MetricsView*, const NodeInfo& info, Record& out) {
    auto* self = const_cast<Maker*>(static_cast<const Maker*>(ctx));
    ++self->calls;
    out.made_for = info.name();
    out.generation = self->generation;
  }
};

std::vector<std::unique_ptr<NodeInfo>> MakeInfos(int n, const std::string& prefix = "n") {
  std::vector<std::unique_ptr<NodeInfo>> infos;
  for (int i = 0; i < n; ++i) {
    infos.push_back(std::make_unique<NodeInfo>(std::make_shared<const kube::Node>(
        kube::testing::MakeNode().Name(absl::StrCat(prefix, i)).Obj())));
  }
  return infos;
}

std::vector<const NodeInfo*> Pointers(const std::vector<std::unique_ptr<NodeInfo>>& infos) {
  std::vector<const NodeInfo*> out;
  for (const auto& i : infos) out.push_back(i.get());
  return out;
}

TEST(NodeTableTest, FindsEveryNodeInOrderOutOfOrderAndNotUnknownOnes) {
  auto infos = MakeInfos(100);
  Maker maker;
  auto table = NodeTable<Record>::Build(nullptr, Pointers(infos), nullptr, &Maker::Make, &maker);
  EXPECT_EQ(maker.calls, 100);
  EXPECT_EQ(table->size(), 100u);
  // In order with a caller cursor: each hit moves the cursor past it.
  size_t cursor = 0;
  for (int i = 0; i < 100; ++i) {
    const Record* r = table->Find(infos[i]->node(), cursor);
    ASSERT_NE(r, nullptr) << i;
    EXPECT_EQ(r->made_for, infos[i]->name());
    EXPECT_EQ(cursor, static_cast<size_t>(i + 1));
    table->Prefetch(cursor + 8);  // a hint only, also past the end
  }
  // Out of order (the hash path), with the caller cursor and the thread-local one.
  for (int i : {57, 3, 99, 0, 42}) {
    size_t c = 10;
    ASSERT_NE(table->Find(infos[i]->node(), c), nullptr);
    EXPECT_EQ(table->Find(infos[i]->node(), c) == nullptr, false);
    EXPECT_EQ(table->Find(infos[i]->node())->made_for, infos[i]->name());
  }
  // A Node object the table never saw (e.g. an updated node): not found.
  auto other = MakeInfos(1, "other");
  size_t c = 0;
  EXPECT_EQ(table->Find(other[0]->node(), c), nullptr);
  EXPECT_EQ(table->Find(other[0]->node()), nullptr);
  // A replaced object of a known node name is a different key.
  NodeInfo replaced(std::make_shared<const kube::Node>(*infos[5]->node()));
  EXPECT_EQ(table->Find(replaced.node()), nullptr);
  EXPECT_FALSE(table->had_misses());
  table->NoteMiss();
  EXPECT_TRUE(table->had_misses());
}

TEST(NodeTableTest, RebuildReusesUnchangedRecordsOfTheSameViewOnly) {
  auto infos = MakeInfos(10);
  auto view = std::make_shared<const MetricsView>(lw::WatcherMetrics{});
  Maker maker;
  auto first = NodeTable<Record>::Build(view, Pointers(infos), nullptr, &Maker::Make, &maker);
  EXPECT_EQ(maker.calls, 10);
  // Same view, two nodes replaced by new objects and one new node: make runs for those
  // three only; the others keep the first build's records.
  maker.generation = 1;
  maker.calls = 0;
  auto ptrs = Pointers(infos);
  NodeInfo updated(std::make_shared<const kube::Node>(
      kube::testing::MakeNode().Name("n2").Capacity({{"cpu", "8"}}).Obj()));
  NodeInfo updated7(std::make_shared<const kube::Node>(
      kube::testing::MakeNode().Name("n7").Capacity({{"cpu", "8"}}).Obj()));
  auto added = MakeInfos(1, "new");
  ptrs[2] = &updated;
  ptrs[7] = &updated7;
  ptrs.push_back(added[0].get());
  auto second = NodeTable<Record>::Build(view, ptrs, first.get(), &Maker::Make, &maker);
  EXPECT_EQ(maker.calls, 3);
  EXPECT_EQ(second->Find(infos[0]->node())->generation, 0);
  EXPECT_EQ(second->Find(updated.node())->generation, 1);
  EXPECT_EQ(second->Find(added[0]->node())->generation, 1);
  // The old objects of n2/n7 stay findable (absent from this list: a Filter may have
  // dropped them for one pod), as long as the table stays small.
  EXPECT_NE(second->Find(infos[2]->node()), nullptr);

  // Another view: nothing is reused.
  maker.calls = 0;
  auto other_view = std::make_shared<const MetricsView>(lw::WatcherMetrics{});
  auto third = NodeTable<Record>::Build(other_view, ptrs, second.get(), &Maker::Make, &maker);
  EXPECT_EQ(maker.calls, 11);
  EXPECT_EQ(third->view(), other_view.get());
}

TEST(NodeTableTest, NullNodesAreSkipped) {
  NodeInfo empty;  // the cache's placeholder for pods whose node is unknown
  auto infos = MakeInfos(2);
  std::vector<const NodeInfo*> ptrs = {infos[0].get(), &empty, infos[1].get()};
  Maker maker;
  auto table = NodeTable<Record>::Build(nullptr, ptrs, nullptr, &Maker::Make, &maker);
  EXPECT_EQ(table->size(), 2u);
  EXPECT_EQ(maker.calls, 2);
}

}  // namespace
}  // namespace trimaran::sched::plugins::load_aware
