#include "scheduler/plugins/default_preemption/pick_node.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/plugins/default_preemption/disruption_budget.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakePod;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

std::shared_ptr<const kube::Pod> P(const std::string& name, int32_t priority,
                                   std::optional<absl::Time> start = std::nullopt) {
  auto w = MakePod().Name(name).Namespace("ns").Priority(priority);
  if (start.has_value()) w.StartTime(*start);
  return std::make_shared<const kube::Pod>(w.Obj());
}

Candidate C(std::string node, std::vector<std::shared_ptr<const kube::Pod>> pods,
            int64_t violations = 0) {
  return Candidate{std::move(node), Victims{std::move(pods), violations}};
}

std::string Pick(const std::vector<Candidate>& candidates) {
  const int i = PickOneNodeForPreemption(candidates, kNow);
  return i < 0 ? "" : candidates[i].node_name;
}

TEST(PickOneNodeForPreemptionTest, NoCandidate) { EXPECT_EQ(Pick({}), ""); }

// Criterion 1: fewer PDB violations wins even against lower-priority victims.
TEST(PickOneNodeForPreemptionTest, FewestPdbViolationsFirst) {
  EXPECT_EQ(Pick({C("m1", {P("a", 0)}, 1), C("m2", {P("b", 100), P("c", 100)}, 0)}), "m2");
}

// Criterion 2: lowest priority of the most important victim.
TEST(PickOneNodeForPreemptionTest, LowestTopVictim) {
  EXPECT_EQ(Pick({C("m1", {P("a", 100), P("b", 0)}), C("m2", {P("c", 0), P("d", 0), P("e", 0)})}),
            "m2");
}

// Criterion 3: the 2^31 shift makes fewer negative-priority victims win (spec E3).
TEST(PickOneNodeForPreemptionTest, ShiftedSumPrefersFewerVictims) {
  EXPECT_EQ(
      Pick({C("m1", {P("a", 100), P("b", 100), P("c", -100), P("d", -100)}),
            C("m2", {P("e", 100), P("f", -100)}), C("m3", {P("g", 100), P("h", 0), P("i", -100)})}),
      "m2");
}

// Criterion 4 after equal sums is unreachable with the shift unless sums tie exactly;
// equal sums and counts fall to criterion 5: the node whose highest-priority victims
// started most recently.
TEST(PickOneNodeForPreemptionTest, LatestStartTimeOfMostImportantVictims) {
  const absl::Time t0 = kNow - absl::Hours(3);
  const absl::Time t1 = kNow - absl::Hours(2);
  const absl::Time t2 = kNow - absl::Hours(1);
  EXPECT_EQ(
      Pick({C("m1", {P("a", 100, t0), P("b", 0, t2)}), C("m2", {P("c", 100, t1), P("d", 0, t0)}),
            C("m3", {P("e", 100, t0), P("f", 0, t1)})}),
      "m2");
  // Only the highest-priority victims count: m1's low-priority victim is the newest but
  // does not matter.
  EXPECT_EQ(Pick({C("m1", {P("a", 100, t0), P("b", 0, kNow)}),
                  C("m2", {P("c", 100, t1), P("d", 0, t0)})}),
            "m2");
}

TEST(PickOneNodeForPreemptionTest, FullTieTakesTheFirst) {
  EXPECT_EQ(Pick({C("m1", {P("a", 0)}), C("m2", {P("b", 0)})}), "m1");
  EXPECT_EQ(Pick({C("m2", {P("b", 0)}), C("m1", {P("a", 0)})}), "m2");
}

TEST(PickOneNodeForPreemptionTest, EarliestStartTimeOfMostImportant) {
  const absl::Time t0 = kNow - absl::Hours(3);
  const absl::Time t1 = kNow - absl::Hours(2);
  Victims v{{P("a", 0, t0), P("b", 100, t1), P("c", 100)}, 0};
  EXPECT_EQ(EarliestStartTimeOfMostImportant(v, kNow), t1);
  EXPECT_EQ(EarliestStartTimeOfMostImportant(Victims{}, kNow), std::nullopt);
  // A missing start time reads as now.
  EXPECT_EQ(EarliestStartTimeOfMostImportant(Victims{{P("x", 5)}, 0}, kNow), kNow);
}

// ---- SplitByDisruptionBudgets (spec §9.3 step 4) ----

PodInfo Labeled(const std::string& name, const std::string& app, const std::string& ns = "ns") {
  return PodInfo::Create(std::make_shared<const kube::Pod>(
      MakePod().Name(name).Namespace(ns).Label("app", app).Obj()));
}

DisruptionBudget Budget(const std::string& app, int32_t allowed, const std::string& ns = "ns") {
  DisruptionBudget b;
  b.namespace_name = ns;
  b.name = "pdb-" + app;
  kube::LabelSelector sel;
  sel.match_labels["app"] = app;
  b.selector = *helper::Selector::Compile(sel);
  b.disruptions_allowed = allowed;
  return b;
}

std::vector<std::string> Names(const std::vector<PodInfo>& pods) {
  std::vector<std::string> out;
  for (const PodInfo& p : pods) out.push_back(p.pod->metadata.name);
  return out;
}

TEST(SplitByDisruptionBudgetsTest, AllowanceIsSpentInOrder) {
  std::vector<PodInfo> violating, ok;
  const std::vector<PodInfo> pods = {Labeled("a", "web"), Labeled("b", "web"), Labeled("c", "web"),
                                     Labeled("d", "db")};
  SplitByDisruptionBudgets(pods, std::vector<DisruptionBudget>{Budget("web", 1)}, violating, ok);
  EXPECT_THAT(Names(ok), ::testing::ElementsAre("a", "d"));
  EXPECT_THAT(Names(violating), ::testing::ElementsAre("b", "c"));
}

TEST(SplitByDisruptionBudgetsTest, DisruptedPodsNamespacesAndEmptySelectors) {
  DisruptionBudget web = Budget("web", 0);
  web.disrupted_pods.insert("a");  // already processed by the apiserver
  DisruptionBudget everything = Budget("x", 0);
  everything.selector = helper::Selector::Everything();  // {} selects nothing here
  std::vector<PodInfo> violating, ok;
  SplitByDisruptionBudgets(
      std::vector<PodInfo>{Labeled("a", "web"), Labeled("b", "web"), Labeled("c", "web", "other"),
                           PodInfo::Create(std::make_shared<const kube::Pod>(
                               MakePod().Name("nolabels").Namespace("ns").Obj()))},
      std::vector<DisruptionBudget>{web, everything}, violating, ok);
  EXPECT_THAT(Names(violating), ::testing::ElementsAre("b"));
  EXPECT_THAT(Names(ok), ::testing::ElementsAre("a", "c", "nolabels"));
}

}  // namespace
}  // namespace trimaran::sched::plugins
