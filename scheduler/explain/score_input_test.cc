#include "scheduler/explain/score_input.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loadwatcher/client.h"
#include "scheduler/decisions/testing/golden.h"
#include "scheduler/explain/report_format.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sched::explain {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;
using ScoreReport = Report;
using decisions::testing::ReadFile;
using decisions::testing::TestData;

// ---- JSON builders for small inputs ----

std::string NodeJson(const std::string& name, const std::string& cpu, const std::string& memory,
                     const std::string& extra_spec = "") {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"("},"spec":{)", extra_spec,
                      R"(},"status":{"capacity":{"cpu":")", cpu, R"(","memory":")", memory,
                      R"(","pods":"110"},"allocatable":{"cpu":")", cpu, R"(","memory":")", memory,
                      R"(","pods":"110"}}})");
}

std::string PodJson(const std::string& name, const std::string& node, const std::string& cpu,
                    const std::string& memory, const std::string& phase = "Running") {
  return absl::StrCat(R"({"metadata":{"name":")", name,
                      R"(","namespace":"default"},"spec":{"nodeName":")", node,
                      R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")", cpu,
                      R"(","memory":")", memory, R"("}}}]},"status":{"phase":")", phase, R"("}})");
}

// A v1 config whose only scorer is NodeResourcesFit MostAllocated over `resources`.
std::string MostAllocatedConfig(const std::string& resources = "[{name: cpu, weight: 1}]",
                                const std::string& name = "binpack") {
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: ",
      name,
      "\n"
      "    plugins:\n"
      "      score:\n"
      "        disabled: [{name: \"*\"}]\n"
      "        enabled: [{name: NodeResourcesFit, weight: 1}]\n"
      "    pluginConfig:\n"
      "      - name: NodeResourcesFit\n"
      "        args:\n"
      "          scoringStrategy:\n"
      "            type: MostAllocated\n"
      "            resources: ",
      resources, "\n");
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string InputJson(const std::vector<std::string>& nodes, const std::vector<std::string>& pods,
                      const std::string& pod, const std::string& config,
                      const std::string& extra = "") {
  return absl::StrCat(R"({"nodes":[)", absl::StrJoin(nodes, ","), R"(],"pods":[)",
                      absl::StrJoin(pods, ","), R"(],"pod":)", pod, R"(,"schedulerConfig":)",
                      JsonString(config), extra, "}");
}

absl::StatusOr<ScoreReport> Score(const std::string& json, ScoreOptions options = {}) {
  absl::StatusOr<ScoreInput> input = ParseScoreInput(json);
  if (!input.ok()) return input.status();
  return RunScore(*input, options);
}

const NodeReport& Node(const ScoreReport& r, const std::string& name) {
  for (const NodeReport& n : r.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  static const NodeReport kNone;
  return kNone;
}

std::vector<std::string> Names(const ScoreReport& r) {
  std::vector<std::string> out;
  for (const NodeReport& n : r.nodes) out.push_back(n.name);
  return out;
}

// ---- The golden example: NodeResourcesFit MostAllocated + TaintToleration ----

// testdata/most_allocated.json: nodes of 4 cpu / 8Gi (node-d: 2 cpu / 4Gi); the pending
// pod requests cpu 1, memory 2Gi; profile "binpack": NodeResourcesFit MostAllocated
// (cpu 1, memory 1) weight 1, TaintToleration weight 3.
//
// MostAllocated per resource = (requested + pod) × 100 / allocatable (integer division),
// then the weighted mean (integer division):
//   node-a (2 cpu, 4Gi used): cpu 3000×100/4000 = 75, memory 6Gi×100/8Gi = 75 -> 150/2 = 75
//   node-b (1 cpu, 1Gi used): cpu 2000×100/4000 = 50, memory 3Gi×100/8Gi = 37 (37.5)
//                             -> 87/2 = 43 (exact: (50 + 37.5)/2 = 43.75)
//   node-c (3 cpu, 6Gi used): cpu 4000×100/4000 = 100, memory 8Gi×100/8Gi = 100 -> 100
//   node-d (1.5 cpu used of 2): 1500m + 1000m > 2000m -> Insufficient cpu (filtered)
//   node-e: spec.unschedulable -> NodeUnschedulable rejects it
// TaintToleration counts intolerable PreferNoSchedule taints (node-c: 1, others 0) and
// normalizes in reverse: 100 − count×100/max -> node-a 100, node-b 100, node-c 0.
// Totals (1 × NRF + 3 × TT): node-a 75 + 300 = 375, node-b 43 + 300 = 343,
// node-c 100 + 0 = 100. Chosen: node-a.
TEST(ScoreTest, MostAllocatedExampleByHand) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport r, Score(ReadFile(TestData("most_allocated.json"))));
  EXPECT_EQ(r.profile, "binpack");
  EXPECT_EQ(r.now_source, "now");
  EXPECT_THAT(Names(r), ElementsAre("node-a", "node-b", "node-c", "node-d", "node-e"));
  struct Want {
    std::string node;
    int rank;
    int64_t nrf;
    int64_t tt;
    int64_t total;
  };
  for (const Want& w : {Want{"node-a", 1, 75, 100, 375}, Want{"node-b", 2, 43, 100, 343},
                        Want{"node-c", 3, 100, 0, 100}}) {
    SCOPED_TRACE(w.node);
    const NodeReport& n = Node(r, w.node);
    EXPECT_TRUE(n.feasible);
    EXPECT_EQ(n.rank, w.rank);
    ASSERT_EQ(n.scores.size(), 2u);
    EXPECT_EQ(n.scores[0].plugin, "NodeResourcesFit");
    EXPECT_EQ(n.scores[0].weight, 1);
    EXPECT_EQ(n.scores[0].score, w.nrf);
    EXPECT_EQ(n.scores[1].plugin, "TaintToleration");
    EXPECT_EQ(n.scores[1].weight, 3);
    EXPECT_EQ(n.scores[1].score, w.tt);
    EXPECT_EQ(n.total, w.total);
  }
  ASSERT_TRUE(Node(r, "node-b").scores[0].exact.has_value());
  EXPECT_DOUBLE_EQ(*Node(r, "node-b").scores[0].exact, 43.75);

  const NodeReport& d = Node(r, "node-d");
  EXPECT_FALSE(d.feasible);
  EXPECT_EQ(d.code, "Unschedulable");
  EXPECT_EQ(d.plugin, "NodeResourcesFit");
  EXPECT_THAT(d.reasons, ElementsAre("Insufficient cpu"));
  const NodeReport& e = Node(r, "node-e");
  EXPECT_EQ(e.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(e.plugin, "NodeUnschedulable");

  EXPECT_EQ(r.chosen, "node-a");
  EXPECT_EQ(r.decided_by, "highest-total");
  EXPECT_TRUE(r.tied.empty());
}

// ---- TargetLoadPacking: the KEP example ----

// testdata/kep_target_load_packing.json: T = 50, three 4-core nodes using 1, 2 and 3
// cores (CPU AVG 25 %, 50 %, 75 %), a pod predicting 0 (cpu limit 0).
//   U ≤ T: round((100 − T) × U / T + T):  node-1 U=25 -> 50×25/50 + 50 = 75
//                                        node-2 U=50 -> 50×50/50 + 50 = 100
//   U > T: round(T × (100 − U) / (100 − T)): node-3 U=75 -> 50×25/50 = 25
TEST(ScoreTest, TargetLoadPackingKepExample) {
  sched::Registry registry;
  ASSERT_THAT(sched::plugins::RegisterInTreePlugins(registry), IsOk());
  if (!registry.Contains("TargetLoadPacking")) {
    GTEST_SKIP() << "TargetLoadPacking is not registered in this build";
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport r,
                                Score(ReadFile(TestData("kep_target_load_packing.json"))));
  EXPECT_EQ(r.profile, "trimaran");
  // No `now` in the file: the clock is the metrics timestamp (age 0, fresh).
  EXPECT_EQ(r.now_source, "metrics.timestamp");
  EXPECT_EQ(r.now, absl::FromUnixSeconds(1714564800));
  for (const auto& [node, score] : std::vector<std::pair<std::string, int64_t>>{
           {"node-1", 75}, {"node-2", 100}, {"node-3", 25}}) {
    SCOPED_TRACE(node);
    const NodeReport& n = Node(r, node);
    ASSERT_EQ(n.scores.size(), 1u);
    EXPECT_EQ(n.scores[0].plugin, "TargetLoadPacking");
    EXPECT_EQ(n.scores[0].score, score);
    EXPECT_EQ(n.total, score);
  }
  EXPECT_EQ(r.chosen, "node-2");
  EXPECT_THAT(Names(r), ElementsAre("node-2", "node-1", "node-3"));
  EXPECT_THAT(absl::StrJoin(r.notes, "\n"), HasSubstr("metricProvider {type: Prometheus"));
}

// ---- Tie-breaks ----

// cpu-only MostAllocated, pod 1 cpu:
//   node-x: 3 cpu, empty:            1000×100/3000 = 33 (exact 33.33…)
//   node-y: 100 cpu, 32 cpu used:    33000×100/100000 = 33 (exact 33.0)
//   node-z: 3 cpu, empty (= node-x)
// node-x and node-z tie on the integer total 33 with node-y, beat it on the exact total,
// and tie with each other on both: the smallest name, node-x, wins.
TEST(ScoreTest, TiesBrokenByExactTotalThenName) {
  struct Case {
    std::string name;
    std::vector<std::string> nodes;
    std::string want_chosen;
    std::string want_decided_by;
    std::vector<std::string> want_tied;
  };
  const std::vector<Case> cases = {
      {"exact total decides", {"node-x", "node-y"}, "node-x", "exact-total", {"node-x", "node-y"}},
      {"name decides",
       {"node-z", "node-x", "node-y"},
       "node-x",
       "node-name",
       {"node-x", "node-z", "node-y"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> nodes;
    for (const std::string& n : c.nodes) {
      nodes.push_back(n == "node-y" ? NodeJson(n, "100", "64Gi") : NodeJson(n, "3", "64Gi"));
    }
    const std::string pod =
        R"({"metadata":{"name":"p","namespace":"default"},"spec":{"schedulerName":"binpack","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        ScoreReport r, Score(InputJson(nodes, {PodJson("big", "node-y", "32", "1Gi")}, pod,
                                       MostAllocatedConfig())));
    EXPECT_EQ(r.chosen, c.want_chosen);
    EXPECT_EQ(r.decided_by, c.want_decided_by);
    EXPECT_EQ(r.tied, c.want_tied);
    for (const NodeReport& n : r.nodes) EXPECT_EQ(n.total, 33) << n.name;
    const bool noted = absl::StrContains(absl::StrJoin(r.notes, "\n"), "at random");
    EXPECT_EQ(noted, c.want_decided_by == "node-name");
  }
}

// ---- The Handle: file metrics reach plugins through the runtime ----

// A Score plugin that reports what its Handle gives it: the CPU value of the node in
// load_watcher(), plus 1 when load_watcher_sources() serves the same value through a
// remote source, and the clock's unix seconds mod 100 in the exact score.
class MetricsProbe final : public sched::ScorePlugin {
 public:
  static constexpr char kName[] = "MetricsProbe";
  explicit MetricsProbe(sched::Handle& handle) : handle_(handle) {}
  absl::string_view Name() const override { return kName; }
  sched::ScoreResult Score(const sched::CycleState&, const kube::Pod&,
                           const sched::NodeInfo& node) const override {
    sched::ScoreResult r;
    r.exact = static_cast<double>(absl::ToUnixSeconds(handle_.clock().Now()) % 100);
    lw::Client* client = handle_.load_watcher();
    if (client == nullptr) return r;
    lw::MetricsRequest request;
    request.hosts = {node.name()};
    absl::StatusOr<lw::WatcherMetricsPtr> m = client->GetLatestMetrics(request);
    if (!m.ok() || (*m)->data.node_metrics_map.size() != 1) return r;
    const double cpu = (*m)->data.node_metrics_map.begin()->second.metrics.at(0).value;
    r.score = static_cast<int64_t>(cpu);
    if (lw::SourcePool* pool = handle_.load_watcher_sources()) {
      absl::StatusOr<lw::Client*> remote = pool->Remote("grpc://127.0.0.1:1");
      if (remote.ok() && (*remote)->GetLatestMetrics(request).ok()) r.score += 1;
    }
    return r;
  }

 private:
  sched::Handle& handle_;
};

TEST(ScoreTest, PluginsSeeTheFileMetricsAndClock) {
  sched::Registry registry;
  ASSERT_THAT(sched::plugins::RegisterInTreePlugins(registry), IsOk());
  ASSERT_THAT(registry.Register(
                  MetricsProbe::kName,
                  sched::PluginDescriptor{.factory = [](const sched::PluginArgs&, sched::Handle& h)
                                              -> absl::StatusOr<std::unique_ptr<sched::Plugin>> {
                                            return std::make_unique<MetricsProbe>(h);
                                          },
                                          .extension_points = {sched::ExtensionPoint::kScore}}),
              IsOk());
  ScoreOptions options;
  options.registry = &registry;
  const std::string config =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: probe\n"
      "    plugins:\n"
      "      score:\n"
      "        disabled: [{name: \"*\"}]\n"
      "        enabled: [{name: MetricsProbe}]\n";
  const std::string pod =
      R"({"metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c"}]}})";
  // Unix time 1714564842: mod 100 = 42. node-1 CPU 30 %, node-2 CPU 60 %.
  const std::string metrics =
      R"(,"metrics":{"timestamp":1714564842,"window":{"duration":"15m","start":1714563942,"end":1714564842},"source":"Prometheus","data":{"NodeMetricsMap":{"node-1":{"metrics":[{"name":"","type":"CPU","operator":"AVG","rollup":"","value":30}]},"node-2":{"metrics":[{"name":"","type":"CPU","operator":"AVG","rollup":"","value":60}]}}}})";
  const std::vector<std::string> nodes = {NodeJson("node-1", "4", "8Gi"),
                                          NodeJson("node-2", "4", "8Gi")};
  {
    SCOPED_TRACE("with metrics: load_watcher() 30/60, +1 through load_watcher_sources()");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport r,
                                  Score(InputJson(nodes, {}, pod, config, metrics), options));
    EXPECT_EQ(Node(r, "node-1").scores.at(0).score, 31);
    EXPECT_EQ(Node(r, "node-2").scores.at(0).score, 61);
    EXPECT_EQ(Node(r, "node-2").scores.at(0).exact, 42.0);  // clock = metrics timestamp
    EXPECT_EQ(r.chosen, "node-2");
    EXPECT_THAT(absl::StrJoin(r.notes, "\n"), HasSubstr("watcherAddress grpc://127.0.0.1:1"));
  }
  {
    SCOPED_TRACE("`now` overrides the metrics timestamp for the clock");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        ScoreReport r,
        Score(InputJson(nodes, {}, pod, config, absl::StrCat(metrics, R"(,"now":1714564807)")),
              options));
    EXPECT_EQ(r.now_source, "now");
    EXPECT_EQ(Node(r, "node-1").scores.at(0).exact, 7.0);
  }
  {
    SCOPED_TRACE("without metrics both accessors are null: score 0");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport r, Score(InputJson(nodes, {}, pod, config), options));
    EXPECT_EQ(r.now_source, "default");
    EXPECT_EQ(Node(r, "node-1").scores.at(0).score, 0);
    EXPECT_EQ(Node(r, "node-2").scores.at(0).score, 0);
  }
}

// ---- Input handling ----

TEST(ScoreTest, PodsAndProfilesAreResolvedAsDocumented) {
  const std::string two_profiles =
      MostAllocatedConfig("[{name: cpu, weight: 1}]", "first") + "  - schedulerName: second\n";
  // The pending pod is bound already (nodeName) and listed among the pods: both ignored.
  const std::string pod =
      R"({"metadata":{"name":"web","namespace":"default"},"spec":{"nodeName":"node-1","schedulerName":"nobody","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";
  const std::vector<std::string> pods = {
      PodJson("web", "node-1", "1", "1Gi"),                // the pending pod itself
      PodJson("done", "node-1", "3", "1Gi", "Succeeded"),  // terminal: no resources
      PodJson("elsewhere", "node-9", "1", "1Gi"),          // unknown node
      PodJson("pending", "", "1", "1Gi", "Pending"),       // unassigned
      PodJson("running", "node-2", "2", "1Gi"),
  };
  const std::string json = InputJson(
      {NodeJson("node-1", "4", "8Gi"), NodeJson("node-2", "4", "8Gi")}, pods, pod, two_profiles);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport r, Score(json));
  EXPECT_EQ(r.profile, "first");  // schedulerName "nobody" names no profile
  // cpu only: node-1 1000×100/4000 = 25 (the terminal pod's 3 cpu do not count);
  //           node-2 (1000 + 2000)×100/4000 = 75.
  EXPECT_EQ(Node(r, "node-1").total, 25);
  EXPECT_EQ(Node(r, "node-2").total, 75);
  EXPECT_EQ(r.chosen, "node-2");
  const std::string notes = absl::StrJoin(r.notes, "\n");
  EXPECT_THAT(notes, HasSubstr("\"nobody\" names no profile"));
  EXPECT_THAT(notes, HasSubstr("pod.spec.nodeName \"node-1\" ignored"));
  EXPECT_THAT(notes, HasSubstr("pods[0] is the pod being scored"));
  EXPECT_THAT(notes, HasSubstr("1 terminal pod(s)"));
  EXPECT_THAT(notes, HasSubstr("pods[2] (default/elsewhere) is on node \"node-9\""));
  EXPECT_THAT(notes, HasSubstr("1 pod(s) without spec.nodeName"));

  ScoreOptions second;
  second.profile = "second";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, Score(json, second));
  EXPECT_EQ(r.profile, "second");
  ScoreOptions missing;
  missing.profile = "third";
  EXPECT_THAT(Score(json, missing), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("no profile named \"third\"")));
}

TEST(ScoreTest, NoNodeFitsNominatedAndSingleNode) {
  const std::string config = MostAllocatedConfig();
  const std::string big =
      R"({"metadata":{"name":"big","namespace":"default"},"spec":{"schedulerName":"binpack","containers":[{"name":"c","resources":{"requests":{"cpu":"64"}}}]}})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ScoreReport r,
      Score(InputJson({NodeJson("node-1", "4", "8Gi"), NodeJson("node-2", "4", "8Gi")}, {}, big,
                      config)));
  EXPECT_EQ(r.chosen, "");
  EXPECT_EQ(r.decided_by, "");
  for (const NodeReport& n : r.nodes) {
    EXPECT_FALSE(n.feasible);
    EXPECT_EQ(n.code, "UnschedulableAndUnresolvable");  // 64 > the node's total 4
    EXPECT_THAT(n.reasons, ElementsAre("Insufficient cpu"));
  }
  EXPECT_THAT(FormatTable(r), HasSubstr("Chosen: none: no node fits the pod"));
  EXPECT_THAT(FormatJson(r), HasSubstr(R"("chosen":null)"));

  // node-1 would win on score (more full), but the pod is nominated to node-2, which fits.
  const std::string nominated =
      R"({"metadata":{"name":"n","namespace":"default"},"spec":{"schedulerName":"binpack","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]},"status":{"nominatedNodeName":"node-2"}})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      r, Score(InputJson({NodeJson("node-1", "2", "8Gi"), NodeJson("node-2", "4", "8Gi")}, {},
                         nominated, config)));
  EXPECT_EQ(r.chosen, "node-2");
  EXPECT_EQ(r.decided_by, "nominated");
  EXPECT_EQ(Node(r, "node-1").total, 50);  // still scored: 1000×100/2000
  EXPECT_EQ(Node(r, "node-2").total, 25);

  const std::string one =
      R"({"metadata":{"name":"o","namespace":"default"},"spec":{"schedulerName":"binpack","containers":[{"name":"c","resources":{"requests":{"cpu":"3"}}}]}})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      r, Score(InputJson({NodeJson("node-1", "2", "8Gi"), NodeJson("node-2", "4", "8Gi")}, {}, one,
                         config)));
  EXPECT_EQ(r.chosen, "node-2");
  EXPECT_EQ(r.decided_by, "only-feasible-node");
  EXPECT_EQ(Node(r, "node-2").total, 75);  // 3000×100/4000
}

// A pod no node fits: the report says what DefaultPreemption would do (a dry run).
TEST(ScoreTest, PreemptionPreviewWhenNoNodeFits) {
  const std::string config = MostAllocatedConfig();
  auto pod_with_priority = [](const std::string& name, const std::string& node,
                              const std::string& cpu, int priority) {
    return absl::StrCat(
        R"({"metadata":{"name":")", name,
        R"(","namespace":"default"},"spec":{"schedulerName":"binpack","nodeName":")", node,
        R"(","priority":)", priority,
        R"(,"containers":[{"name":"c","resources":{"requests":{"cpu":")", cpu,
        R"("}}}]},"status":{"phase":"Running"}})");
  };
  // node-1 holds a priority-0 pod, node-2 a priority-50 one: evicting the less important
  // one is upstream's second criterion.
  const std::string pending = pod_with_priority("urgent", "", "3", 100);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ScoreReport r,
      Score(InputJson(
          {NodeJson("node-1", "4", "8Gi"), NodeJson("node-2", "4", "8Gi")},
          {pod_with_priority("low", "node-1", "3", 0), pod_with_priority("mid", "node-2", "3", 50)},
          pending, config)));
  EXPECT_EQ(r.chosen, "");
  ASSERT_TRUE(r.preemption.has_value());
  EXPECT_TRUE(r.preemption->would_preempt);
  EXPECT_EQ(r.preemption->node, "node-1");
  EXPECT_THAT(r.preemption->victims, ElementsAre("default/low"));
  EXPECT_EQ(r.preemption->candidates, 2);
  EXPECT_THAT(FormatTable(r),
              HasSubstr("Preemption: would nominate node-1 and evict default/low (0 "
                        "PodDisruptionBudget violation(s))"));
  EXPECT_THAT(FormatJson(r), HasSubstr(R"("preemption":{"wouldPreempt":true,"node":"node-1",)"
                                       R"("victims":["default/low"],"pdbViolations":0,)"
                                       R"("candidateNodes":2,)"));
  // The dry run wrote nothing: both pods are still in the report's cluster.
  EXPECT_EQ(Node(r, "node-1").code, "Unschedulable");

  // Equal priority everywhere: nobody can be evicted for it.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      r, Score(InputJson({NodeJson("node-1", "4", "8Gi")},
                         {pod_with_priority("peer", "node-1", "3", 100)}, pending, config)));
  ASSERT_TRUE(r.preemption.has_value());
  EXPECT_FALSE(r.preemption->would_preempt);
  EXPECT_THAT(r.preemption->message, HasSubstr("preemption: "));
  EXPECT_THAT(FormatTable(r), HasSubstr("Preemption: would not help: preemption: "));
}

// The default profile's InterPodAffinity and PodTopologySpread, with the input's
// namespaces and services.
TEST(ScoreTest, AffinityAndSpreadReadNamespacesAndServices) {
  auto labelled = [](const std::string& pod_json, const std::string& labels) {
    std::string out = pod_json;
    out.replace(out.find(R"("namespace":"default")"), 21,
                absl::StrCat(R"("namespace":"default","labels":)", labels));
    return out;
  };
  std::vector<std::string> host_nodes;
  for (const char* name : {"node-a", "node-b"}) {
    std::string n = NodeJson(name, "8", "16Gi");
    n.replace(n.find(R"("name":")"), 8,
              absl::StrCat(R"("labels":{"kubernetes.io/hostname":")", name, R"("},"name":")"));
    host_nodes.push_back(n);
  }
  const std::vector<std::string> pods = {
      labelled(PodJson("web-1", "node-a", "100m", "100Mi"), R"({"app":"web"})"),
      labelled(PodJson("web-2", "node-a", "100m", "100Mi"), R"({"app":"web"})")};
  const std::string pending = labelled(PodJson("web-3", "", "100m", "100Mi"), R"({"app":"web"})");

  // Without a Service nothing selects the pod: PodTopologySpread skips.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport plain, Score(InputJson(host_nodes, pods, pending, "")));
  // With one, the hostname default (maxSkew 3) prefers the node without web pods.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ScoreReport spread,
      Score(InputJson(host_nodes, pods, pending, "",
                      R"(,"services":{"items":[{"metadata":{"name":"web","namespace":"default"},)"
                      R"("spec":{"selector":{"app":"web"}}}]})")));
  auto pts = [](const ScoreReport& r, const std::string& node) -> const PluginScore& {
    for (const PluginScore& ps : Node(r, node).scores) {
      if (ps.plugin == "PodTopologySpread") return ps;
    }
    ADD_FAILURE() << "no PodTopologySpread score on " << node;
    static const PluginScore kNone;
    return kNone;
  };
  EXPECT_EQ(pts(plain, "node-a").score, 0);
  EXPECT_EQ(pts(plain, "node-b").score, 0);
  EXPECT_LT(pts(spread, "node-a").score, pts(spread, "node-b").score);
  EXPECT_EQ(pts(spread, "node-b").score, 100);

  // Required anti-affinity to web pods in namespaces labelled team=a: the input's
  // namespaces decide whether "default" is one of them.
  std::string anti = pending;
  anti.replace(
      anti.find(R"("spec":{)"), 8,
      R"("spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"web"}},"namespaceSelector":)"
      R"({"matchLabels":{"team":"a"}},"topologyKey":"kubernetes.io/hostname"}]}},)");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ScoreReport team_a,
      Score(InputJson(host_nodes, pods, anti, "",
                      R"(,"namespaces":[{"metadata":{"name":"default","labels":{"team":"a"}}}])")));
  EXPECT_FALSE(Node(team_a, "node-a").feasible);
  EXPECT_EQ(Node(team_a, "node-a").plugin, "InterPodAffinity");
  EXPECT_TRUE(Node(team_a, "node-b").feasible);
  // The counts behind the verdict: two matching pods on node-a's hostname.
  auto state_of = [](const ScoreReport& r, const std::string& plugin) {
    for (const auto& [name, rows] : r.plugin_state) {
      if (name == plugin) return rows;
    }
    return std::vector<sched::StateCount>();
  };
  EXPECT_THAT(state_of(team_a, "InterPodAffinity"),
              ::testing::Contains(sched::StateCount{.table = "antiAffinity",
                                                    .key = "kubernetes.io/hostname",
                                                    .value = "node-a",
                                                    .count = 2}));
  EXPECT_THAT(FormatJson(team_a),
              HasSubstr(R"("pluginState":{"InterPodAffinity":[{"table":"antiAffinity",)"
                        R"("key":"kubernetes.io/hostname","value":"node-a","count":2})"));
  // PodTopologySpread's System defaults: nodes without a zone share the "" zone (both
  // web pods), the hostname constraint has no rows (counted per node in Score).
  EXPECT_THAT(
      state_of(spread, "PodTopologySpread"),
      ::testing::ElementsAre(sched::StateCount{
          .table = "score[1]", .key = "topology.kubernetes.io/zone", .value = "", .count = 2}));
  EXPECT_TRUE(state_of(plain, "PodTopologySpread").empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ScoreReport team_b,
      Score(InputJson(host_nodes, pods, anti, "",
                      R"(,"namespaces":[{"metadata":{"name":"default","labels":{"team":"b"}}}])")));
  EXPECT_TRUE(Node(team_b, "node-a").feasible);
  EXPECT_THAT(ParseScoreInput(InputJson(host_nodes, pods, anti, "",
                                        R"(,"services":[{"metadata":{"namespace":"x"}}])"))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("services[0].metadata.name: required")));
}

TEST(ScoreTest, BadInputNamesTheJsonPath) {
  const std::string node = NodeJson("node-1", "4", "8Gi");
  const std::string pod = R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})";
  struct Case {
    std::string name;
    std::string json;
    std::string want_prefix;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{", "invalid JSON at offset 1"},
      {"not an object", "[]", "$: expected an object"},
      {"unknown field", R"({"nodez":[]})", "nodez: unknown field"},
      {"no nodes", absl::StrCat(R"({"pod":)", pod, "}"), "nodes: required"},
      {"nodes not an array", absl::StrCat(R"({"nodes":3,"pod":)", pod, "}"),
       "nodes: expected an array"},
      {"bad quantity",
       absl::StrCat(R"({"nodes":[)", node,
                    R"(,{"metadata":{"name":"n2"},"status":{"capacity":{"cpu":"1.5.3"}}}],"pod":)",
                    pod, "}"),
       "nodes[1].status.capacity.cpu"},
      {"List form, bad item",
       absl::StrCat(R"({"nodes":{"items":[)", node, R"(,{"metadata":{"name":7}}]},"pod":)", pod,
                    "}"),
       "nodes.items[1].metadata.name"},
      {"duplicate node", absl::StrCat(R"({"nodes":[)", node, ",", node, R"(],"pod":)", pod, "}"),
       "nodes[1].metadata.name: duplicate node \"node-1\""},
      {"no pod", absl::StrCat(R"({"nodes":[)", node, "]}"), "pod: required"},
      {"bad pod", absl::StrCat(R"({"nodes":[)", node, R"(],"pod":{"spec":{"containers":3}}})"),
       "pod.spec.containers"},
      {"bad pods entry",
       absl::StrCat(R"({"nodes":[)", node, R"(],"pods":[{"metadata":[]}],"pod":)", pod, "}"),
       "pods[0].metadata"},
      {"bad metrics",
       absl::StrCat(R"({"nodes":[)", node, R"(],"pod":)", pod, R"(,"metrics":{"timestamp":"x"}})"),
       "metrics.timestamp"},
      {"bad now", absl::StrCat(R"({"nodes":[)", node, R"(],"pod":)", pod, R"(,"now":"yesterday"})"),
       "now:"},
      {"config unknown field",
       absl::StrCat(
           R"({"nodes":[)", node, R"(],"pod":)", pod,
           R"(,"schedulerConfig":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profilez":[]}})"),
       "schedulerConfig: "},
      {"config invalid args",
       absl::StrCat(R"({"nodes":[)", node, R"(],"pod":)", pod, R"(,"schedulerConfig":)",
                    JsonString(MostAllocatedConfig("[{name: cpu, weight: -1}]")), "}"),
       "schedulerConfig: "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<ScoreReport> r = Score(c.json);
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.want_prefix)));
  }
  // The config errors carry the loader's field paths.
  EXPECT_THAT(Score(cases[cases.size() - 2].json).status().message(), HasSubstr("profilez"));
  EXPECT_THAT(Score(cases.back().json).status().message(),
              HasSubstr("scoringStrategy.resources[0].weight"));
}

}  // namespace
}  // namespace trimaran::sched::explain
