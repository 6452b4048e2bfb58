#include "sim/simulator.h"

#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/pod_file_reader.h"
#include "sim/pod_source.h"
#include "sim/report.h"
#include "sim/trace_writer.h"

namespace trimaran::sim {
namespace {

constexpr char kMostAllocated[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: binpack
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: NodeResourcesFit, weight: 1}]
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
  - schedulerName: spread
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: NodeResourcesFit, weight: 1}]
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: LeastAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)";

constexpr char kTargetLoadPacking[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: tlp
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: TargetLoadPacking, weight: 1}]
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 50
          metricProvider: {type: Prometheus, address: "http://prometheus:9090"}
)";

// TargetLoadPacking at every extension point it implements (PreScore, Score and Reserve,
// which records its placements), scoring alone.
constexpr char kTargetLoadPackingEverywhere[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: tlp
    plugins:
      multiPoint:
        enabled: [{name: TargetLoadPacking}]
      score:
        disabled: [{name: "*"}]
        enabled: [{name: TargetLoadPacking, weight: 1}]
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 50
          metricProvider: {type: Prometheus, address: "http://prometheus:9090"}
)";

class SimulatorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(sched::plugins::RegisterInTreePlugins(registry_).ok()); }

  sched::ProfileConfig Profile(const char* config, const std::string& name) {
    absl::StatusOr<sched::config::SchedulerConfig> cfg = sched::config::ParseConfig(config, "t");
    EXPECT_TRUE(cfg.ok()) << cfg.status();
    EXPECT_TRUE(sched::config::Validate(*cfg, registry_).ok());
    absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
        sched::config::ExpandProfiles(*cfg, registry_);
    EXPECT_TRUE(profiles.ok()) << profiles.status();
    for (const sched::ProfileConfig& p : *profiles) {
      if (p.scheduler_name == name) return p;
    }
    ADD_FAILURE() << "no profile " << name;
    return {};
  }

  static ClusterSpec Fixed(int nodes) {
    ClusterSpec c = DefaultClusterSpec();
    c.groups[0].min = nodes;
    c.groups[0].initial = nodes;
    c.groups[0].max = nodes;
    c.autoscaler.enabled = false;
    return c;
  }

  static TracePod Pod(const std::string& name, double at, int64_t cpu, int64_t mem = 1024) {
    TracePod p;
    p.name = name;
    p.creation_time = at;
    p.cpu_milli = cpu;
    p.memory_mib = mem;
    return p;
  }

  ProfileResult Run(const std::vector<TracePod>& pods, const ClusterSpec& cluster,
                    const sched::ProfileConfig& profile) {
    SimOptions options;
    options.record_placements = true;
    absl::StatusOr<ProfileResult> r = Simulate(pods, cluster, profile, registry_, options);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : ProfileResult{};
  }

  sched::Registry registry_;
};

std::map<std::string, std::string> Nodes(const ProfileResult& r) {
  std::map<std::string, std::string> out;
  for (const Placement& p : r.placements) out[p.pod] = p.node;
  return out;
}

TEST_F(SimulatorTest, PlacementsFollowTheProfilesRealScoring) {
  std::vector<TracePod> pods = {Pod("a", 0, 1000), Pod("b", 10, 1000), Pod("c", 20, 1000)};
  for (TracePod& p : pods) p.duration = 100;
  const ProfileResult pack = Run(pods, Fixed(3), Profile(kMostAllocated, "binpack"));
  const ProfileResult spread = Run(pods, Fixed(3), Profile(kMostAllocated, "spread"));
  // MostAllocated stacks on the first node (ties go to the smallest name)...
  EXPECT_EQ(Nodes(pack),
            (std::map<std::string, std::string>{
                {"a", "default-00000"}, {"b", "default-00000"}, {"c", "default-00000"}}));
  // ...LeastAllocated spreads.
  EXPECT_EQ(Nodes(spread),
            (std::map<std::string, std::string>{
                {"a", "default-00000"}, {"b", "default-00001"}, {"c", "default-00002"}}));
  EXPECT_EQ(pack.scheduled, 3);
  EXPECT_EQ(pack.never_scheduled, 0);
}

TEST_F(SimulatorTest, LargeClustersSampleNodesAsTheDaemonDoes) {
  // 200 nodes: the daemon's adaptive percentageOfNodesToScore looks for 100 feasible
  // nodes from a start index that rotates, so a spreading profile's second pod sees nodes
  // 100..199 (all empty, the smallest name wins) instead of the first node's neighbour.
  // A packing profile scores every node.
  std::vector<TracePod> pods = {Pod("a", 0, 1000), Pod("b", 10, 1000)};
  for (TracePod& p : pods) p.duration = 100;
  const ProfileResult spread = Run(pods, Fixed(200), Profile(kMostAllocated, "spread"));
  EXPECT_EQ(Nodes(spread),
            (std::map<std::string, std::string>{{"a", "default-00000"}, {"b", "default-00100"}}));
  const ProfileResult pack = Run(pods, Fixed(200), Profile(kMostAllocated, "binpack"));
  EXPECT_EQ(Nodes(pack),
            (std::map<std::string, std::string>{{"a", "default-00000"}, {"b", "default-00000"}}));
}

TEST_F(SimulatorTest, CyclesWithoutRoomAreDecidedWithoutTheFramework) {
  // "huge" asks more CPU than any node has: every cycle for it is decided by the free
  // room (NodeResourcesFit would reject every node); "small" pods still place.
  TracePod huge = Pod("huge", 0, 5000);
  std::vector<TracePod> pods = {huge};
  for (int i = 0; i < 3; ++i) {
    TracePod p = Pod("small" + std::to_string(i), 10.0 * (i + 1), 1000);
    p.duration = 20;
    pods.push_back(p);
  }
  const ProfileResult r = Run(pods, Fixed(2), Profile(kMostAllocated, "binpack"));
  EXPECT_EQ(r.scheduled, 3);
  EXPECT_EQ(r.never_scheduled, 1);
  // huge: tried at arrival and after each small pod ended (3 cluster changes).
  EXPECT_EQ(r.cycles_without_room, 4);
  EXPECT_EQ(r.scheduling_cycles, 3 + 4);
}

TEST_F(SimulatorTest, NodeHourLowerBoundForOneNodeGroup) {
  // 4-CPU / 16 GiB nodes. For an hour: 3 × 3 CPU (CPU-bound: ⌈9/4⌉ = 3 nodes), then
  // for an hour 3 × 10 GiB (memory-bound: ⌈30/16⌉ = 2 nodes).
  std::vector<TracePod> pods;  // in arrival order, as the parsers return them
  for (int i = 0; i < 3; ++i) {
    pods.push_back(Pod("cpu" + std::to_string(i), 0, 3000, 1024));
    pods.back().duration = 3600;
  }
  for (int i = 0; i < 3; ++i) {
    pods.push_back(Pod("mem" + std::to_string(i), 3600, 500, 10240));
    pods.back().duration = 3600;
  }
  const ProfileResult r = Run(pods, Fixed(3), Profile(kMostAllocated, "binpack"));
  EXPECT_EQ(r.never_scheduled, 0);
  EXPECT_NEAR(r.lower_bound_node_hours, 3 + 2, 1e-9);
  EXPECT_NEAR(r.node_hours, 3 * r.end_time / 3600, 1e-9);
  EXPECT_NEAR(r.node_hours_over_lower_bound, r.node_hours / 5, 1e-9);
}

TEST_F(SimulatorTest, APodThatDoesNotFitWaitsUntilCapacityFrees) {
  TracePod big = Pod("big", 0, 3000);
  big.duration = 500;
  TracePod waiter = Pod("waiter", 100, 3000);
  waiter.duration = 50;
  const ProfileResult r = Run({big, waiter}, Fixed(1), Profile(kMostAllocated, "binpack"));
  ASSERT_EQ(r.placements.size(), 2u);
  EXPECT_EQ(r.placements[1].pod, "waiter");
  EXPECT_DOUBLE_EQ(r.placements[1].t, 500);  // bound when "big" ended
  EXPECT_DOUBLE_EQ(r.pending_max, 400);
  EXPECT_DOUBLE_EQ(r.end_time, 550);
}

TEST_F(SimulatorTest, AutoscalerAddsNodesForPendingPodsAndRemovesThemLater) {
  ClusterSpec cluster = DefaultClusterSpec();  // 0 nodes, 180 s start-up, CA defaults
  std::vector<TracePod> pods;
  for (int i = 0; i < 6; ++i) {
    TracePod p = Pod("p" + std::to_string(i), 0, 1500);
    p.duration = 3600;
    pods.push_back(p);
  }
  const ProfileResult r = Run(pods, cluster, Profile(kMostAllocated, "binpack"));
  // 6 × 1.5 CPU on 4-CPU nodes: 2 per node, 3 nodes, in one scale-up at t=0.
  EXPECT_EQ(r.scale_up_events, 1);
  EXPECT_EQ(r.nodes_added, 3);
  EXPECT_EQ(r.peak_nodes, 3);
  EXPECT_EQ(r.scheduled, 6);
  EXPECT_DOUBLE_EQ(r.pending_p50, 180);  // the start-up delay
  // Pods end at 3780; the empty nodes go 600 s later, at the first scan at or after 4380.
  EXPECT_EQ(r.nodes_removed, 3);
  EXPECT_EQ(r.scale_down_events, 1);
  EXPECT_DOUBLE_EQ(r.end_time, 4380);
  EXPECT_NEAR(r.node_hours, 3 * 4380.0 / 3600, 1e-9);
  EXPECT_NEAR(r.cost, r.node_hours * 0.192, 1e-9);
  EXPECT_GT(r.packing_efficiency, 0);
  EXPECT_LE(r.packing_efficiency, 1);
}

TEST_F(SimulatorTest, LoadAwarePluginsReadTheSimulatedWatcher) {
  // "hog" requests little but uses 90 % of its node; "probe" arrives after a few samples.
  TracePod hog = Pod("hog", 0, 100);
  hog.cpu_use_milli = 3600;
  TracePod probe = Pod("probe", 600, 100);
  probe.cpu_use_milli = 100;
  const sched::ProfileConfig tlp = Profile(kTargetLoadPacking, "tlp");
  const ProfileResult hot = Run({hog, probe}, Fixed(2), tlp);
  // No metrics at t=0: a tie, the smallest name. At 600 s node 0 is above the 50 %
  // target, so TargetLoadPacking sends the probe to the idle node.
  EXPECT_EQ(Nodes(hot).at("hog"), "default-00000");
  EXPECT_EQ(Nodes(hot).at("probe"), "default-00001");
  EXPECT_GT(hot.above_100_cpu_node_minutes + hot.hot_node_minutes, -1);  // computed
  EXPECT_NEAR(hot.peak_node_cpu_usage, 0.9, 1e-9);
  // At t=0 the snapshot is empty and old: both nodes were scored by the fallback.
  EXPECT_GE(hot.fallbacks.size(), 1u);
  int64_t total = 0;
  for (const auto& [what, n] : hot.fallbacks) {
    EXPECT_EQ(what.rfind("TargetLoadPacking/", 0), 0u) << what;
    total += n;
  }
  EXPECT_GE(total, 2);
  // With a light hog, node 0 is below target and the probe packs onto it.
  hog.cpu_use_milli = 400;
  const ProfileResult light = Run({hog, probe}, Fixed(2), tlp);
  EXPECT_EQ(Nodes(light).at("probe"), "default-00000");
}

TEST_F(SimulatorTest, BackgroundUsageOfAGroupIsPartOfItsNodesLoad) {
  // Two one-node groups; "busy" runs 90 % of its CPU outside the trace.
  ClusterSpec cluster = Fixed(1);
  cluster.groups[0].name = "busy";
  cluster.groups[0].background_cpu_milli = 3600;
  cluster.groups.push_back(cluster.groups[0]);
  cluster.groups[1].name = "idle";
  cluster.groups[1].background_cpu_milli = 0;
  TracePod probe = Pod("probe", 120, 100);
  probe.cpu_use_milli = 0;
  const ProfileResult r = Run({probe}, cluster, Profile(kTargetLoadPacking, "tlp"));
  // "busy-00000" would win a tie by name; its background load puts it above the target.
  EXPECT_EQ(Nodes(r).at("probe"), "idle-00000");
  EXPECT_NEAR(r.peak_node_cpu_usage, 0.9, 1e-9);
}

TEST_F(SimulatorTest, TargetLoadPackingCountsThePodsItPlacedUntilTheyGo) {
  // Two idle 4-CPU nodes; the only sample before the pods (t = 0) shows them idle, so
  // only the plugin's own record of its placements (Reserve, as in the daemon) tells
  // the nodes apart. Each pod predicts 1500m (1000m x 1.5).
  TracePod a = Pod("a", 10, 1000);
  TracePod b = Pod("b", 11, 1000);
  b.deletion_time = 20;
  TracePod c = Pod("c", 30, 1000);
  const ProfileResult r = Run({a, b, c}, Fixed(2), Profile(kTargetLoadPackingEverywhere, "tlp"));
  // a: both nodes at 37.5 % with it, a tie: the smallest name. b: node 0 would be at
  // 75 % (above the 50 % target), node 1 at 37.5 %. c, after b was deleted: node 1 is
  // idle again (37.5 % with c), node 0 still holds a (75 %).
  EXPECT_EQ(Nodes(r), (std::map<std::string, std::string>{
                          {"a", "default-00000"}, {"b", "default-00001"}, {"c", "default-00001"}}));
}

TEST_F(SimulatorTest, HotNodeMinutesNeedTheMinimumDuration) {
  TracePod burn = Pod("burn", 0, 100);
  burn.duration = 1200;
  burn.usage = {{0, 3800, 100}, {600, 100, 100}};  // 95 % for 10 minutes, then idle
  const ProfileResult r = Run({burn}, Fixed(1), Profile(kMostAllocated, "binpack"));
  // Samples at 0, 60, ..., 540 s are hot: 10 samples of one minute each.
  EXPECT_DOUBLE_EQ(r.hot_node_minutes, 10);
  EXPECT_DOUBLE_EQ(r.above_100_cpu_node_minutes, 0);
}

TEST_F(SimulatorTest, SameSeedSameReport) {
  ClusterSpec cluster = DefaultClusterSpec();
  std::vector<TracePod> pods;
  for (int i = 0; i < 40; ++i) {
    TracePod p = Pod("p" + std::to_string(i), i * 37 % 900, 300 + (i * 97) % 1500, 512 + i * 64);
    p.duration = 600 + (i * 131) % 3000;
    pods.push_back(p);
  }
  const sched::ProfileConfig profile = Profile(kMostAllocated, "binpack");
  const ProfileResult a = Run(pods, cluster, profile);
  const ProfileResult b = Run(pods, cluster, profile);
  SimReportInput ia{"t", "", 1, &cluster, {a}};
  SimReportInput ib{"t", "", 1, &cluster, {b}};
  EXPECT_EQ(FormatSimReportJson(ia), FormatSimReportJson(ib));
  EXPECT_EQ(a.scheduled, 40);
}

TEST_F(SimulatorTest, ConsolidationReplacesAnOversizedNodeWithACheaperOne) {
  ClusterSpec cluster;
  NodeGroup big;
  big.name = "big";
  big.cpu_milli = 16000;
  big.memory_mib = 65536;
  big.price_per_hour = 0.768;
  big.max = 5;
  big.initial = 1;
  NodeGroup small = big;
  small.name = "small";
  small.cpu_milli = 2000;
  small.memory_mib = 8192;
  small.price_per_hour = 0.096;
  small.initial = 0;
  cluster.groups = {big, small};
  cluster.autoscaler.consolidation = Consolidation::kWhenEmptyOrUnderutilized;
  TracePod p = Pod("p", 0, 1000);
  p.duration = 3600;
  const ProfileResult r = Run({p}, cluster, Profile(kMostAllocated, "binpack"));
  // Bound on big-00000 at 0; the scan at 0 starts small-00000 (ready at 180); then
  // big-00000 is drained and the pod moves there with 3420 s left.
  EXPECT_EQ(r.consolidation_replacements, 1);
  EXPECT_GT(r.consolidation_fit_checks, 0);  // the move was checked through the profile
  EXPECT_EQ(r.evicted, 1);
  ASSERT_EQ(r.placements.size(), 2u);
  EXPECT_EQ(r.placements[0].node, "big-00000");
  EXPECT_EQ(r.placements[1].node, "small-00000");
  EXPECT_DOUBLE_EQ(r.placements[1].t, 180);
  // big ran 180 s; small from the decision at 0 until its pod ended (180 + 3420 = 3600)
  // and the empty node was consolidated at once (consolidateAfter 0).
  EXPECT_DOUBLE_EQ(r.end_time, 3600);
  EXPECT_NEAR(r.cost, 0.768 * 180 / 3600 + 0.096 * 3600 / 3600, 1e-9);
}

// A long trace made on the fly: one pod every 10 s, each running 25 s.
class ManyShortPods : public PodSource {
 public:
  explicit ManyShortPods(int n) : n_(n) {}
  absl::StatusOr<std::optional<TracePod>> Next() override {
    if (made_ >= n_) return std::nullopt;
    TracePod p;
    p.name = absl::StrCat("p", made_);
    p.creation_time = 10.0 * made_;
    p.duration = 25;
    p.cpu_milli = 500;
    p.memory_mib = 512;
    ++made_;
    return p;
  }

 private:
  const int n_;
  int made_ = 0;
};

TEST_F(SimulatorTest, HeldPodsFollowTheLivePodsNotTheTraceLength) {
  const sched::ProfileConfig profile = Profile(kMostAllocated, "binpack");
  ManyShortPods source(20000);
  SimOptions options;
  options.compaction_trials = 0;
  absl::StatusOr<ProfileResult> r = Simulate(source, Fixed(2), profile, registry_, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pods, 20000);
  EXPECT_EQ(r->scheduled, 20000);
  EXPECT_EQ(r->never_scheduled, 0);
  // At most 3 pods run at once (25 s each, one every 10 s), plus the one read ahead.
  EXPECT_GE(r->peak_pods_held, 3);
  EXPECT_LE(r->peak_pods_held, 4);
}

TEST_F(SimulatorTest, PodsPastMaxTimeCountAsNeverScheduledAndAreNotHeld) {
  const sched::ProfileConfig profile = Profile(kMostAllocated, "binpack");
  ManyShortPods source(1000);
  SimOptions options;
  options.compaction_trials = 0;
  options.max_time = 995;  // pods 0..99 arrive
  absl::StatusOr<ProfileResult> r = Simulate(source, Fixed(2), profile, registry_, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pods, 1000);
  EXPECT_EQ(r->scheduled, 100);
  EXPECT_EQ(r->never_scheduled, 900);
  EXPECT_LE(r->peak_pods_held, 4);
}

TEST_F(SimulatorTest, AStreamedFileGivesTheInMemoryResult) {
  const sched::ProfileConfig profile = Profile(kMostAllocated, "binpack");
  std::vector<TracePod> pods;
  for (int i = 0; i < 40; ++i) {
    TracePod p = Pod(absl::StrCat("p", i), 30.0 * i, 700 + 100 * (i % 5), 1024 * (1 + i % 3));
    p.duration = 600 + 60 * (i % 7);
    p.usage = {{0, 300, 512}, {120, 900, 1024}};
    pods.push_back(p);
  }
  const std::string path = ::testing::TempDir() + "/streamed.csv";
  std::ofstream(path, std::ios::binary) << FormatPodsCsv(pods);
  absl::StatusOr<std::unique_ptr<PodFileReader>> reader = PodFileReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  SimOptions options;
  options.record_placements = true;
  absl::StatusOr<ProfileResult> streamed =
      Simulate(**reader, DefaultClusterSpec(), profile, registry_, options);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  const ProfileResult whole = Run(pods, DefaultClusterSpec(), profile);
  EXPECT_EQ(Nodes(*streamed), Nodes(whole));
  EXPECT_EQ(streamed->pods, 40);
  EXPECT_EQ(streamed->cost, whole.cost);
  EXPECT_EQ(streamed->pending_p99, whole.pending_p99);
  EXPECT_EQ(streamed->peak_nodes, whole.peak_nodes);
  EXPECT_LT(streamed->peak_pods_held, 40);
}

TEST_F(SimulatorTest, AnUnsortedSourceIsAnErrorAnUnsortedVectorIsSorted) {
  const sched::ProfileConfig profile = Profile(kMostAllocated, "binpack");
  std::vector<TracePod> pods = {Pod("a", 10, 100), Pod("b", 5, 100)};
  for (TracePod& p : pods) p.duration = 30;
  VectorPodSource source(pods);
  absl::StatusOr<ProfileResult> r = Simulate(source, Fixed(1), profile, registry_, SimOptions{});
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("sorted by creation_time"));
  const ProfileResult unsorted = Run(pods, Fixed(1), profile);
  const ProfileResult sorted = Run({pods[1], pods[0]}, Fixed(1), profile);
  ASSERT_EQ(unsorted.placements.size(), 2u);
  EXPECT_EQ(unsorted.placements[0].pod, "b");
  EXPECT_EQ(unsorted.placements[0].t, 5);
  EXPECT_EQ(unsorted.end_time, sorted.end_time);
  EXPECT_EQ(unsorted.scheduled, 2);
}

TEST(LowerBoundCostPerHour, SingleTypesAndPairs) {
  NodeGroup cpu_heavy;
  cpu_heavy.name = "c";
  cpu_heavy.cpu_milli = 8000;
  cpu_heavy.memory_mib = 8192;
  cpu_heavy.price_per_hour = 1;
  NodeGroup mem_heavy;
  mem_heavy.name = "m";
  mem_heavy.cpu_milli = 2000;
  mem_heavy.memory_mib = 32768;
  mem_heavy.price_per_hour = 1;
  EXPECT_EQ(LowerBoundCostPerHour({cpu_heavy}, 0, 0), 0);
  // One type: the L1 fraction times the price.
  EXPECT_DOUBLE_EQ(LowerBoundCostPerHour({cpu_heavy}, 16000, 4096), 2);
  // Demand 10 CPU / 40 GiB: c alone needs 5, m alone needs 5, one of each covers it
  // exactly (8+2 CPU, 8+32 GiB): cost 2.
  EXPECT_DOUBLE_EQ(LowerBoundCostPerHour({cpu_heavy, mem_heavy}, 10000, 40960), 2);
}

}  // namespace
}  // namespace trimaran::sim
