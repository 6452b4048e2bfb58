#include "sim/load_windows.h"

#include "common/manual_clock.h"
#include "gtest/gtest.h"
#include "kube/api/quantity.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/explain/explainer.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sim {
namespace {

constexpr int64_t kT0 = 1767225600;

// One sample a minute for 15 minutes (t = 60..900): `first` millicores for the first
// ten, `last` for the last five.
std::deque<UsagePoint> Series(int64_t first, int64_t last) {
  std::deque<UsagePoint> out;
  for (int i = 1; i <= 15; ++i) out.push_back({60.0 * i, i <= 10 ? first : last, 1024});
  return out;
}

double Value(const lw::WatcherMetrics& m, const std::string& node, absl::string_view type,
             absl::string_view op) {
  for (const lw::Metric& x : m.data.node_metrics_map.at(node).metrics) {
    if (x.type == type && x.op == op) return x.value;
  }
  ADD_FAILURE() << "no " << type << " " << op;
  return -1;
}

TEST(LoadSnapshots, TheThreeWindowsDifferOnAChangingSeries) {
  LoadSnapshots b(kT0 + 900, 900);
  // 60 % of 4 CPUs for ten minutes, then idle.
  b.AddNode("a", Series(2400, 0), 4000, 16384);
  std::map<std::string, lw::WatcherMetrics> w = std::move(b).Take();
  ASSERT_EQ(w.size(), 3u);
  // 15m: 10 of 15 samples at 60 %; 10m (t > 300): 5 of 10; 5m (t > 600): none of 5.
  EXPECT_DOUBLE_EQ(Value(w["15m"], "a", lw::kTypeCpu, lw::kOpAvg), 40);
  EXPECT_DOUBLE_EQ(Value(w["10m"], "a", lw::kTypeCpu, lw::kOpAvg), 30);
  EXPECT_DOUBLE_EQ(Value(w["5m"], "a", lw::kTypeCpu, lw::kOpAvg), 0);
  // Population STD: sqrt(p (1 - p)) * 60 with p the share at 60 %.
  EXPECT_NEAR(Value(w["15m"], "a", lw::kTypeCpu, lw::kOpStd), 60 * std::sqrt(2.0 / 9), 1e-9);
  EXPECT_NEAR(Value(w["10m"], "a", lw::kTypeCpu, lw::kOpStd), 30, 1e-9);
  EXPECT_NEAR(Value(w["5m"], "a", lw::kTypeCpu, lw::kOpStd), 0, 1e-9);
  EXPECT_DOUBLE_EQ(Value(w["5m"], "a", lw::kTypeMemory, lw::kOpAvg), 6.25);
  // Windows and stamps as the real watcher's: {D, now - D, now}.
  EXPECT_EQ(w["10m"].window.duration, "10m");
  EXPECT_EQ(w["10m"].window.start, kT0 + 300);
  EXPECT_EQ(w["5m"].window.end, kT0 + 900);
  EXPECT_EQ(w["5m"].timestamp, kT0 + 900);
}

TEST(LoadSnapshots, ANodeWithNoSampleInAWindowIsNotListedThere) {
  LoadSnapshots b(kT0 + 900, 900);
  std::deque<UsagePoint> old = {{100, 1000, 100}, {400, 1000, 100}};
  b.AddNode("old", old, 4000, 16384);
  std::map<std::string, lw::WatcherMetrics> w = std::move(b).Take();
  EXPECT_TRUE(w["15m"].data.node_metrics_map.contains("old"));
  EXPECT_TRUE(w["10m"].data.node_metrics_map.contains("old"));  // 400 > 300
  EXPECT_FALSE(w["5m"].data.node_metrics_map.contains("old"));
}

constexpr char kTlp[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
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

std::shared_ptr<const kube::Node> Node(const std::string& name) {
  kube::Node n;
  n.metadata.name = name;
  n.metadata.uid = name;
  kube::ResourceList r;
  r[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(4000);
  r[std::string(kube::kResourceMemory)] =
      kube::Quantity::FromValue(int64_t{16} << 30, kube::QuantityFormat::kBinarySI);
  r[std::string(kube::kResourcePods)] = kube::Quantity::FromValue(110);
  n.status.capacity = r;
  n.status.allocatable = r;
  return std::make_shared<const kube::Node>(std::move(n));
}

// TargetLoadPacking reads the 15m window's CPU AVG: "a" averages 40 % over 15 minutes
// (closest below the 50 % target) but is idle over the last 5, where "b" is at 30 %.
TEST(LoadSnapshots, TargetLoadPackingScoresWithTheFifteenMinuteWindow) {
  sched::Registry registry;
  ASSERT_TRUE(sched::plugins::RegisterInTreePlugins(registry).ok());
  absl::StatusOr<sched::config::SchedulerConfig> cfg = sched::config::ParseConfig(kTlp, "t");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  ASSERT_TRUE(sched::config::Validate(*cfg, registry).ok());
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      sched::config::ExpandProfiles(*cfg, registry);
  ASSERT_TRUE(profiles.ok()) << profiles.status();
  ManualClock clock(absl::FromUnixSeconds(kT0 + 900));
  sched::explain::Explainer::Options eo;
  eo.registry = &registry;
  eo.clock = &clock;
  eo.metrics = lw::WatcherMetrics{};
  absl::StatusOr<std::unique_ptr<sched::explain::Explainer>> explainer =
      sched::explain::Explainer::Create(*profiles, eo);
  ASSERT_TRUE(explainer.ok()) << explainer.status();
  ASSERT_TRUE((*explainer)->cache().AddNode(Node("a")).ok());
  ASSERT_TRUE((*explainer)->cache().AddNode(Node("b")).ok());
  kube::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_name = "default";
  pod.metadata.uid = "p";
  pod.spec.scheduler_name = "tlp";
  kube::Container c;
  c.name = "main";
  c.resources.requests[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(100);
  pod.spec.containers.push_back(std::move(c));

  LoadSnapshots b(kT0 + 900, 900);
  b.AddNode("a", Series(2400, 0), 4000, 16384);  // 15m 40 %, 10m 30 %, 5m 0 %
  b.AddNode("b", Series(0, 1200), 4000, 16384);  // 15m 10 %, 10m 15 %, 5m 30 %
  std::map<std::string, lw::WatcherMetrics> w = std::move(b).Take();
  (*explainer)->SetMetricsByWindow(w);
  absl::StatusOr<sched::explain::Report> r = (*explainer)->Explain(pod, "tlp");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->chosen, "a");
  // A minute later (the plugins re-read their client once per refresh period), serve
  // the 5m statistics as the 15m window: the choice follows them.
  clock.Advance(absl::Seconds(60));
  lw::WatcherMetrics five = w["5m"];
  five.timestamp = kT0 + 960;
  five.window = {"15m", kT0 + 60, kT0 + 960};
  (*explainer)->SetMetricsByWindow({{"15m", five}});
  r = (*explainer)->Explain(pod, "tlp");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->chosen, "b");
}

}  // namespace
}  // namespace trimaran::sim
