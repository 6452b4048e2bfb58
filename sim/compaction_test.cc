#include "sim/compaction.h"

#include <set>
#include <string>

#include "common/manual_clock.h"
#include "gtest/gtest.h"
#include "kube/api/quantity.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/simulator.h"

namespace trimaran::sim {
namespace {

// The default plugins, with LeastAllocated scoring: pods spread.
constexpr char kSpread[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: spread
)";

using NodePtr = std::shared_ptr<const kube::Node>;
using PodPtr = std::shared_ptr<const kube::Pod>;

class CompactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(sched::plugins::RegisterInTreePlugins(registry_).ok());
    absl::StatusOr<sched::config::SchedulerConfig> cfg = sched::config::ParseConfig(kSpread, "t");
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    ASSERT_TRUE(sched::config::Validate(*cfg, registry_).ok());
    absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
        sched::config::ExpandProfiles(*cfg, registry_);
    ASSERT_TRUE(profiles.ok()) << profiles.status();
    profile_ = profiles->front();
  }

  static NodePtr Node(const std::string& name, int64_t cpu, bool tainted = false) {
    kube::Node n;
    n.metadata.name = name;
    n.metadata.uid = name;
    n.metadata.labels["kubernetes.io/hostname"] = name;
    kube::ResourceList r;
    r[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(cpu);
    r[std::string(kube::kResourceMemory)] =
        kube::Quantity::FromValue(int64_t{16} << 30, kube::QuantityFormat::kBinarySI);
    r[std::string(kube::kResourcePods)] = kube::Quantity::FromValue(110);
    n.status.capacity = r;
    n.status.allocatable = r;
    if (tainted) n.spec.taints.push_back({"dedicated", "gpu", kube::TaintEffect::kNoSchedule, {}});
    return std::make_shared<const kube::Node>(std::move(n));
  }

  static PodPtr Pod(const std::string& name, int64_t cpu) {
    kube::Pod p;
    p.metadata.name = name;
    p.metadata.namespace_name = "default";
    p.metadata.uid = name;
    p.spec.scheduler_name = "spread";
    kube::Container c;
    c.name = "main";
    c.resources.requests[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(cpu);
    p.spec.containers.push_back(std::move(c));
    return std::make_shared<const kube::Pod>(std::move(p));
  }

  static std::vector<PodPtr> Pods(int n, int64_t cpu) {
    std::vector<PodPtr> out;
    for (int i = 0; i < n; ++i) out.push_back(Pod("p" + std::to_string(i), cpu));
    return out;
  }

  sched::Registry registry_;
  sched::ProfileConfig profile_;
  ManualClock clock_{absl::FromUnixSeconds(1767225600)};
};

TEST_F(CompactionTest, PlacesAllIsAFromScratchRepack) {
  const std::vector<NodePtr> two = {Node("a", 4000), Node("b", 4000)};
  // Four pods of 1.8 CPU: two per 4-CPU node.
  EXPECT_TRUE(*PlacesAll(two, Pods(4, 1800), profile_, registry_, clock_));
  EXPECT_FALSE(*PlacesAll(two, Pods(5, 1800), profile_, registry_, clock_));
  // Each call starts empty: the same pods fit again.
  EXPECT_TRUE(*PlacesAll(two, Pods(4, 1800), profile_, registry_, clock_));
}

TEST_F(CompactionTest, FourNodesWhosePodsFitOnTwoCompactToTwo) {
  const std::vector<NodePtr> nodes = {Node("a", 4000), Node("b", 4000), Node("c", 4000),
                                      Node("d", 4000)};
  std::mt19937_64 rng(7);
  int64_t repacks = 0;
  absl::StatusOr<std::optional<std::vector<int>>> sizes =
      CompactAt(nodes, Pods(4, 1800), profile_, registry_, clock_, 5, rng, &repacks);
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  ASSERT_TRUE(sizes->has_value());
  EXPECT_EQ(**sizes, std::vector<int>(5, 2));
  // One check of all four nodes, then two binary-search steps per trial (k=2: fits;
  // k=1: does not).
  EXPECT_EQ(repacks, 1 + 5 * 2);
}

TEST_F(CompactionTest, AFilterThatForbidsANodeChangesTheAnswer) {
  // Two pods of 1 CPU fit on one node, but not on the tainted one (the default profile's
  // TaintToleration filter): the prefix must reach the untainted node.
  const NodePtr clean = Node("clean", 4000);
  const NodePtr tainted = Node("tainted", 4000, /*tainted=*/true);
  const std::vector<PodPtr> pods = Pods(2, 1000);
  EXPECT_EQ(*SmallestPrefix({clean, tainted}, pods, profile_, registry_, clock_), 1);
  EXPECT_EQ(*SmallestPrefix({tainted, clean}, pods, profile_, registry_, clock_), 2);
  // Without the taint either order needs one node.
  EXPECT_EQ(*SmallestPrefix({Node("x", 4000), clean}, pods, profile_, registry_, clock_), 1);
  // Over many permutations both answers occur, and nothing else.
  std::mt19937_64 rng(1);
  absl::StatusOr<std::optional<std::vector<int>>> sizes =
      CompactAt({clean, tainted}, pods, profile_, registry_, clock_, 20, rng);
  ASSERT_TRUE(sizes.ok() && sizes->has_value());
  EXPECT_EQ(std::set<int>((*sizes)->begin(), (*sizes)->end()), (std::set<int>{1, 2}));
}

TEST_F(CompactionTest, NoAnswerWhenAllTheNodesDoNotPlaceEveryPod) {
  std::mt19937_64 rng(1);
  absl::StatusOr<std::optional<std::vector<int>>> sizes = CompactAt(
      {Node("a", 4000), Node("b", 4000)}, Pods(1, 6000), profile_, registry_, clock_, 3, rng);
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  EXPECT_FALSE(sizes->has_value());
}

TEST_F(CompactionTest, PlacesOntoKeepsTheBoundPodsAndAppliesTheProfilesFilters) {
  // Consolidation's fit check: "a" already holds 3 CPU; the moved 1.5-CPU pod fits by
  // requests only on "b", and the profile's TaintToleration refuses "b" once tainted.
  auto held = std::make_shared<kube::Pod>(*Pod("held", 3000));
  held->spec.node_name = "a";
  const std::vector<PodPtr> bound = {held};
  const std::vector<PodPtr> moved = {Pod("moved", 1500)};
  EXPECT_TRUE(
      *PlacesOnto({Node("a", 4000), Node("b", 4000)}, bound, moved, profile_, registry_, clock_));
  EXPECT_FALSE(*PlacesOnto({Node("a", 4000), Node("b", 4000, /*tainted=*/true)}, bound, moved,
                           profile_, registry_, clock_));
  // Without the bound pod, "a" takes it.
  EXPECT_TRUE(*PlacesOnto({Node("a", 4000), Node("b", 4000, /*tainted=*/true)}, {}, moved, profile_,
                          registry_, clock_));
}

TEST(SummarizeCompaction, NearestRankOverEveryTrial) {
  CompactionResult r;
  r.instants.push_back({0, "periodic", 10, 5, {5, 6, 7, 8, 9}});
  r.instants.push_back({60, "peak", 20, 5, {10, 10, 10, 10, 20}});
  SummarizeCompaction(r);
  EXPECT_EQ(r.nodes.min, 5);
  EXPECT_EQ(r.nodes.p50, 9);  // the 5th of 10 sorted: 5 6 7 8 9 10 10 10 10 20
  EXPECT_EQ(r.nodes.p90, 10);
  EXPECT_EQ(r.nodes.max, 20);
  EXPECT_DOUBLE_EQ(r.ratio.min, 0.5);  // 5/10 and 10/20
  EXPECT_DOUBLE_EQ(r.ratio.max, 1.0);  // 20/20
}

TEST_F(CompactionTest, TheSimulatorCompactsASpreadClusterToHalf) {
  ClusterSpec cluster = DefaultClusterSpec();  // m5.xlarge: 4 CPU
  cluster.groups[0].min = cluster.groups[0].initial = cluster.groups[0].max = 4;
  cluster.autoscaler.enabled = false;
  std::vector<TracePod> trace;
  for (int i = 0; i < 4; ++i) {
    TracePod p;
    p.name = "p" + std::to_string(i);
    p.creation_time = 0;
    p.cpu_milli = 1800;
    p.memory_mib = 1024;
    p.duration = 3 * 3600;
    trace.push_back(p);
  }
  SimOptions options;
  options.compaction_trials = 3;
  options.compaction_every = 3600;
  absl::StatusOr<ProfileResult> r = Simulate(trace, cluster, profile_, registry_, options);
  ASSERT_TRUE(r.ok()) << r.status();
  // LeastAllocated spreads the four pods over the four nodes; two would do.
  const CompactionResult& c = r->compaction;
  ASSERT_GE(c.instants.size(), 3u);  // hours 1, 2 and the peak
  for (const CompactionInstant& i : c.instants) {
    EXPECT_EQ(i.actual, 4);
    EXPECT_EQ(i.pods, 4);
    EXPECT_EQ(i.compacted, std::vector<int>(3, 2));
  }
  EXPECT_EQ(c.instants.back().why, "peak");
  EXPECT_DOUBLE_EQ(c.ratio.p50, 0.5);
  EXPECT_EQ(c.skipped, 0);
  // Off: no instants.
  options.compaction_trials = 0;
  r = Simulate(trace, cluster, profile_, registry_, options);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->compaction.instants.empty());
}

}  // namespace
}  // namespace trimaran::sim
