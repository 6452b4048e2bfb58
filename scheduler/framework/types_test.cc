#include "scheduler/framework/types.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using ::trimaran::kube::testing::MakeNode;

PreFilterResult Names(std::vector<std::string> names) {
  PreFilterResult r;
  r.node_names.emplace(names.begin(), names.end());
  return r;
}

TEST(PreFilterResultTest, Merge) {
  const PreFilterResult all;
  EXPECT_TRUE(all.AllNodes());
  EXPECT_TRUE(all.Merge(all).AllNodes());

  const PreFilterResult ab = Names({"a", "b"});
  const PreFilterResult bc = Names({"b", "c", "d"});
  EXPECT_THAT(*all.Merge(ab).node_names, UnorderedElementsAre("a", "b"));
  EXPECT_THAT(*ab.Merge(all).node_names, UnorderedElementsAre("a", "b"));
  EXPECT_THAT(*ab.Merge(bc).node_names, UnorderedElementsAre("b"));
  EXPECT_THAT(*bc.Merge(ab).node_names, UnorderedElementsAre("b"));
  const PreFilterResult none = ab.Merge(Names({"x"}));
  ASSERT_FALSE(none.AllNodes());
  EXPECT_TRUE(none.node_names->empty()) << "empty, not all nodes";
}

TEST(ScoreResultTest, Factories) {
  const ScoreResult plain = ScoreResult::Of(42);
  EXPECT_EQ(plain.score, 42);
  EXPECT_FALSE(plain.exact.has_value());
  EXPECT_TRUE(plain.status.IsSuccess());

  const ScoreResult exact = ScoreResult::Of(42, 42.7);
  EXPECT_EQ(exact.score, 42);
  EXPECT_DOUBLE_EQ(*exact.exact, 42.7);

  const ScoreResult failed = ScoreResult::Failed(Status::Error("no state"));
  EXPECT_TRUE(failed.status.IsError());
}

TEST(NodeToStatusTest, ExplicitAndAbsent) {
  NodeToStatus m;
  EXPECT_EQ(m.absent_nodes_status().code(), Code::kUnschedulableAndUnresolvable);
  m.Set("n1", Status::Unschedulable("Insufficient cpu"));
  m.Set("n2", Status::UnschedulableAndUnresolvable("node(s) were unschedulable"));
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.Contains("n1"));
  EXPECT_EQ(m.Get("n1"), Status::Unschedulable("Insufficient cpu"));
  EXPECT_EQ(m.Get("n3").code(), Code::kUnschedulableAndUnresolvable);
  m.set_absent_nodes_status(Status::Unschedulable("x"));
  EXPECT_EQ(m.Get("n3"), Status::Unschedulable("x"));

  std::vector<std::string> seen;
  m.ForEachExplicitNode([&](absl::string_view name, const Status&) { seen.emplace_back(name); });
  EXPECT_THAT(seen, UnorderedElementsAre("n1", "n2"));
}

TEST(NodeToStatusTest, NodesForStatusCode) {
  std::vector<std::unique_ptr<NodeInfo>> infos;
  std::vector<const NodeInfo*> list;
  for (const char* name : {"n1", "n2", "n3", "n4"}) {
    infos.push_back(std::make_unique<NodeInfo>(
        std::make_shared<const kube::Node>(MakeNode().Name(name).Obj())));
    list.push_back(infos.back().get());
  }
  NodeToStatus m;
  m.Set("n1", Status::Unschedulable("a"));
  m.Set("n2", Status::UnschedulableAndUnresolvable("b"));
  m.Set("n4", Status::Unschedulable("c"));
  // n3 is absent: UnschedulableAndUnresolvable by default.
  std::vector<std::string> got;
  for (const NodeInfo* n : m.NodesForStatusCode(list, Code::kUnschedulable)) {
    got.push_back(n->name());
  }
  EXPECT_THAT(got, ElementsAre("n1", "n4"));
  got.clear();
  for (const NodeInfo* n : m.NodesForStatusCode(list, Code::kUnschedulableAndUnresolvable)) {
    got.push_back(n->name());
  }
  EXPECT_THAT(got, ElementsAre("n2", "n3"));
}

TEST(FitErrorMessageTest, Table) {
  struct TestCase {
    std::string name;
    int num_all_nodes;
    Diagnosis diagnosis;
    std::string want;
  };
  std::vector<TestCase> cases;
  {
    // The spec's example (§6.2): histogram entries sorted as strings.
    TestCase tc{"histogram", 3, {}, ""};
    tc.diagnosis.node_to_status.Set(
        "cp", Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)"));
    tc.diagnosis.node_to_status.Set("w1", Status::Unschedulable("Insufficient cpu"));
    tc.diagnosis.node_to_status.Set("w2", Status::Unschedulable("Insufficient cpu"));
    tc.want = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.";
    cases.push_back(std::move(tc));
  }
  {
    // Several reasons per node are all counted; "10 ..." sorts before "2 ...".
    TestCase tc{"multiple reasons, string order", 12, {}, ""};
    for (int i = 0; i < 10; ++i) {
      tc.diagnosis.node_to_status.Set(absl::StrCat("a", i), Status::Unschedulable("Too many pods"));
    }
    tc.diagnosis.node_to_status.Set(
        "b1", Status::Unschedulable({"Insufficient cpu", "Insufficient memory"}));
    tc.diagnosis.node_to_status.Set(
        "b2", Status::Unschedulable({"Insufficient cpu", "Insufficient memory"}));
    tc.want =
        "0/12 nodes are available: 10 Too many pods, 2 Insufficient cpu, 2 Insufficient memory.";
    cases.push_back(std::move(tc));
  }
  {
    // Nodes a PreFilterResult excluded share the absent status.
    TestCase tc{"absent nodes", 3, {}, ""};
    tc.diagnosis.node_to_status.Set(
        "n1", Status::Unschedulable("node(s) didn't have free ports for the requested pod ports"));
    tc.diagnosis.node_to_status.set_absent_nodes_status(
        Status::UnschedulableAndUnresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"));
    tc.want =
        "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod "
        "ports, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].";
    cases.push_back(std::move(tc));
  }
  {
    TestCase tc{"prefilter message replaces the histogram", 5, {}, ""};
    tc.diagnosis.pre_filter_msg = "pod affinity terms conflict";
    tc.diagnosis.node_to_status.set_absent_nodes_status(
        Status::UnschedulableAndUnresolvable("pod affinity terms conflict"));
    tc.want = "0/5 nodes are available: pod affinity terms conflict.";
    cases.push_back(std::move(tc));
  }
  {
    TestCase tc{"postfilter message appended", 1, {}, ""};
    tc.diagnosis.node_to_status.Set("n1", Status::Unschedulable("Insufficient cpu"));
    tc.diagnosis.post_filter_msg =
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    tc.want =
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
        "No preemption victims found for incoming pod.";
    cases.push_back(std::move(tc));
  }
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(FitErrorMessage(tc.num_all_nodes, tc.diagnosis), tc.want);
  }
}

}  // namespace
}  // namespace trimaran::sched
