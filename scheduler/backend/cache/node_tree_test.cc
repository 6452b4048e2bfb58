#include "scheduler/backend/cache/node_tree.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

kube::Node Node(const std::string& name, const kube::StringMap& labels = {}) {
  return MakeNode().Name(name).Labels(labels).Obj();
}

std::vector<std::string> List(const NodeTree& tree) {
  std::vector<std::string> names;
  tree.ForEach([&](const std::string& name) { names.push_back(name); });
  return names;
}

TEST(GetZoneKeyTest, Labels) {
  struct TestCase {
    std::string name;
    kube::StringMap labels;
    std::string want;
  };
  const std::string sep(":\0:", 3);
  const std::vector<TestCase> cases = {
      {"no labels", {}, ""},
      {"zone only", {{"topology.kubernetes.io/zone", "z1"}}, sep + "z1"},
      {"region only", {{"topology.kubernetes.io/region", "r1"}}, "r1" + sep},
      {"both",
       {{"topology.kubernetes.io/region", "r1"}, {"topology.kubernetes.io/zone", "z1"}},
       "r1" + sep + "z1"},
      {"deprecated beta labels",
       {{"failure-domain.beta.kubernetes.io/region", "r2"},
        {"failure-domain.beta.kubernetes.io/zone", "z2"}},
       "r2" + sep + "z2"},
      {"GA label wins over beta",
       {{"failure-domain.beta.kubernetes.io/zone", "old"}, {"topology.kubernetes.io/zone", "new"}},
       sep + "new"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(GetZoneKey(Node("n", tc.labels)), tc.want);
  }
}

TEST(NodeTreeTest, InterleavesZonesAndKeepsOrderOnRemoval) {
  const kube::StringMap a = {{"topology.kubernetes.io/zone", "a"}};
  const kube::StringMap b = {{"topology.kubernetes.io/zone", "b"}};
  NodeTree tree;
  tree.AddNode(Node("a1", a));
  tree.AddNode(Node("a2", a));
  tree.AddNode(Node("a3", a));
  tree.AddNode(Node("b1", b));
  tree.AddNode(Node("a1", a));  // duplicate: ignored
  EXPECT_EQ(tree.NumNodes(), 4u);
  // Round 0: a1 b1; rounds 1, 2: zone b is exhausted.
  EXPECT_THAT(List(tree), ElementsAre("a1", "b1", "a2", "a3"));

  EXPECT_THAT(tree.RemoveNode(Node("a2", a)), IsOk());
  EXPECT_THAT(List(tree), ElementsAre("a1", "b1", "a3"));
  EXPECT_THAT(tree.RemoveNode(Node("a2", a)), StatusIs(absl::StatusCode::kNotFound));
  // Wrong zone: not found there.
  EXPECT_THAT(tree.RemoveNode(Node("b1", a)), StatusIs(absl::StatusCode::kNotFound));

  // The last node of zone a leaves, so a re-added zone a comes after b.
  EXPECT_THAT(tree.RemoveNode(Node("a1", a)), IsOk());
  EXPECT_THAT(tree.RemoveNode(Node("a3", a)), IsOk());
  tree.AddNode(Node("a4", a));
  tree.AddNode(Node("b2", b));
  EXPECT_THAT(List(tree), ElementsAre("b1", "a4", "b2"));

  // Zone change moves the node to the end of its new zone.
  tree.UpdateNode(Node("b1", b), Node("b1", a));
  EXPECT_THAT(List(tree), ElementsAre("b2", "a4", "b1"));
  EXPECT_EQ(tree.NumNodes(), 3u);
}

}  // namespace
}  // namespace trimaran::sched
