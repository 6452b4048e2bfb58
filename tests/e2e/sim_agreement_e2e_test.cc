// The simulator and the daemon agree (issue 20, "How it is checked", first bullet): a
// trace of 240 pods (arrivals and deletions interleaved, varied requests; seeded) on a
// fixed cluster of 10 nodes is
//   1. simulated in-process (sim::Simulate, the library behind `trimaranctl simulate`;
//      ties go to the smallest node name), and
//   2. replayed through the real trimaran-scheduler binary (--tie-break=lowest-name, the
//      same rule) against a real kube-apiserver 1.37 + etcd: the nodes are created
//      with the same capacity and labels, then every trace event in order: a pod is
//      created (schedulerName trimaran) and the test waits until the API shows it bound
//      before the next event; a deleted pod is deleted with grace period 0 and gone
//      from the API before the next event,
// and every pod must land on the same node on both sides (a diff is printed otherwise).
//
// The daemon sees the same sequence as the simulator: the next pod is created only once
// the previous one is bound, and the daemon's single pod informer delivers a deletion
// before the creation of any later pod (one watch, in resourceVersion order), so its
// cache (and TargetLoadPacking's record of its placements) has dropped a deleted pod
// before the next pod is queued. Each pod fits at its arrival in the simulation
// (checked), so neither side ever retries a pod.
//
// Two profiles, the same KubeSchedulerConfiguration file given to both sides:
//   - MostAllocated: the default plugins with NodeResourcesFit's MostAllocated strategy.
//   - TargetLoadPacking (scoring alone, target 60 %) fed by the real load-watcher reading
//     a real Prometheus. Usage design: every node has a constant background CPU usage,
//     different across nodes (0 to 56 % of 8 CPUs, in steps of 1/16, so the percentages
//     are exact binary fractions on both sides), 25 % memory; the trace's pods use
//     nothing. Prometheus gets it as 20 minutes of history per node
//     (instance:node_cpu:ratio, instance:node_memory_utilisation:ratio); the simulator
//     as the node groups' backgroundCpuMilli/backgroundMemoryMiB (one group per node).
//     The watcher fetches once (--fetch-interval=1h) and the simulator samples once, at
//     t = 0 (sample_interval huge), and metricsMaxAge is 1h: the metrics window ends
//     before every pod's placement on both sides, so TargetLoadPacking's prediction of
//     a node is, on both sides, its background usage + 1.5 x the CPU requests of the
//     live pods the plugin placed there (its Reserve record) + the new pod's. Before
//     the replay, probe pods (created, bound, deleted) make sure the daemon's plugin has
//     read the watcher; no fallback may be counted during the replay.
// Sensitivity (checked by hand when this test was written): with --tie-break=random,
// 240 MostAllocated and 149 TargetLoadPacking placements of 240 differ; with the
// simulator running no Reserve plugins, 218 TargetLoadPacking placements; without its
// pod-deletion notices, 205.
// Limits: usage is constant per node; pods' own usage (which the real watcher could only
// see through a live scrape) and the watcher's refresh timing (real time vs virtual
// time) are not compared; no autoscaling, preemption, or unschedulable pods.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "rapidjson/document.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;
constexpr char kProfile[] = "trimaran";

constexpr int kNodes = 10;
constexpr int kPods = 240;
constexpr uint32_t kTraceSeed = 20;
constexpr int64_t kNodeCpuMilli = 8000;
constexpr int64_t kNodeMemoryMiB = 16384;
// Background CPU per node (millicores; multiples of 500m = 1/16 of the node).
constexpr int64_t kBackgroundCpuMilli[kNodes] = {1500, 0,    3000, 500,  2000,
                                                 1000, 4500, 0,    2500, 1000};
constexpr int64_t kBackgroundMemoryMiB = 4096;  // 25 %

constexpr char kMostAllocatedConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  qps: 1000
  burst: 1000
profiles:
  - schedulerName: trimaran
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)";

std::string TargetLoadPackingConfig(const std::string& watcher_url) {
  return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  qps: 1000
  burst: 1000
profiles:
  - schedulerName: trimaran
    plugins:
      multiPoint:
        enabled: [{name: TargetLoadPacking}]
      score:
        disabled: [{name: "*"}]
        enabled: [{name: TargetLoadPacking, weight: 1}]
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 60
          metricsMaxAge: 1h
          watcherAddress: )",
                      watcher_url, "\n");
}

// One node group per node ("n00" ... "n09", one node each, no autoscaling), each with
// its background usage.
sim::ClusterSpec FixedCluster() {
  sim::ClusterSpec c;
  c.autoscaler.enabled = false;
  for (int i = 0; i < kNodes; ++i) {
    sim::NodeGroup g;
    g.name = absl::StrFormat("n%02d", i);
    g.instance_type = g.name;
    g.cpu_milli = kNodeCpuMilli;
    g.memory_mib = kNodeMemoryMiB;
    g.min = g.max = g.initial = 1;
    g.startup_delay = 0;
    g.background_cpu_milli = kBackgroundCpuMilli[i];
    g.background_memory_mib = kBackgroundMemoryMiB;
    c.groups.push_back(g);
  }
  return c;
}

// The simulator's name of group g's only node.
std::string NodeName(const sim::NodeGroup& g) { return g.name + "-00000"; }

// kPods pods arriving one per second from t = 1 s, requests drawn from small sets; about
// 60 % are deleted 2-60 s after arrival (at half seconds, never at an arrival's time),
// the rest run to the end. Deletions after the last arrival are left out (they cannot
// change a placement).
std::vector<sim::TracePod> MakeTrace() {
  std::mt19937 rng(kTraceSeed);
  const int64_t cpus[] = {100, 200, 250, 300, 500, 750, 1000};
  const int64_t mems[] = {64, 128, 256, 512, 1024};
  std::vector<sim::TracePod> pods;
  for (int i = 0; i < kPods; ++i) {
    sim::TracePod p;
    p.name = absl::StrFormat("pod-%03d", i);
    p.creation_time = 1 + i;
    p.cpu_milli = cpus[rng() % std::size(cpus)];
    p.memory_mib = mems[rng() % std::size(mems)];
    p.cpu_use_milli = 0;
    p.memory_use_mib = 0;
    if (rng() % 10 < 6) {
      const double end = p.creation_time + 2 + static_cast<double>(rng() % 59) + 0.5;
      if (end < kPods) p.deletion_time = end;
    }
    pods.push_back(p);
  }
  return pods;
}

// The trace as the daemon replays it: arrivals and deletions in time order.
struct Event {
  double t = 0;
  bool create = true;
  size_t pod = 0;
};

std::vector<Event> Events(const std::vector<sim::TracePod>& pods) {
  std::vector<Event> out;
  for (size_t i = 0; i < pods.size(); ++i) {
    out.push_back({pods[i].creation_time, true, i});
    if (pods[i].deletion_time.has_value()) out.push_back({*pods[i].deletion_time, false, i});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Event& a, const Event& b) { return a.t < b.t; });
  return out;
}

// Sum of the trimaran_plugin_metrics_fallback_total samples of TargetLoadPacking in a
// Prometheus text exposition (0 when there are none).
double TargetLoadPackingFallbacks(const std::string& metrics) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (!absl::StartsWith(line, "trimaran_plugin_metrics_fallback_total{") ||
        !absl::StrContains(line, "plugin=\"TargetLoadPacking\"")) {
      continue;
    }
    double v = 0;
    const size_t sp = line.rfind(' ');
    if (sp != absl::string_view::npos && absl::SimpleAtod(line.substr(sp + 1), &v)) sum += v;
  }
  return sum;
}

absl::StatusOr<sched::ProfileConfig> ProfileFromYaml(const std::string& yaml,
                                                     const sched::Registry& registry) {
  TRIMARAN_ASSIGN_OR_RETURN(sched::config::SchedulerConfig cfg,
                            sched::config::ParseConfig(yaml, "config.yaml"));
  TRIMARAN_RETURN_IF_ERROR(sched::config::Validate(cfg, registry));
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                            sched::config::ExpandProfiles(cfg, registry));
  for (sched::ProfileConfig& p : profiles) {
    if (p.scheduler_name == kProfile) return p;
  }
  return absl::NotFoundError("no profile trimaran");
}

class SimAgreementE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK(sched::plugins::RegisterInTreePlugins(registry_));
    pods_ = MakeTrace();
    cluster_spec_ = FixedCluster();
  }

  // The control plane (etcd + kube-apiserver).
  void StartCluster() {
    ClusterOptions options;
    options.qps = 1000;
    options.burst = 1000;
    auto cluster = Cluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    client_ = &cluster_->client();
  }

  void TearDown() override {
    if (HasFailure()) {
      if (scheduler_)
        std::fprintf(stderr, "--- scheduler ---\n%s\n", scheduler_->LogTail().c_str());
      if (watcher_) std::fprintf(stderr, "--- load-watcher ---\n%s\n", watcher_->LogTail().c_str());
    }
    if (scheduler_) scheduler_->Stop();
    if (watcher_) watcher_->Stop();
  }

  // The simulator's placement of every pod (pod -> node), after checking that every pod
  // was bound at its arrival (so the replay never has to wait for room).
  std::map<std::string, std::string> Simulate(const std::string& config_yaml) {
    absl::StatusOr<sched::ProfileConfig> profile = ProfileFromYaml(config_yaml, registry_);
    EXPECT_TRUE(profile.ok()) << profile.status();
    if (!profile.ok()) return {};
    sim::SimOptions options;
    options.record_placements = true;
    // One load-watcher sample, at t = 0: the real watcher fetches once too.
    options.sample_interval = 1e9;
    const absl::Time start = absl::Now();
    absl::StatusOr<sim::ProfileResult> r =
        sim::Simulate(pods_, cluster_spec_, *profile, registry_, options);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return {};
    std::printf("simulated %zu pods in %s\n", pods_.size(),
                absl::FormatDuration(absl::Now() - start).c_str());
    EXPECT_EQ(r->scheduler_errors, 0) << r->first_scheduler_error;
    EXPECT_TRUE(r->fallbacks.empty()) << "the simulated watcher's metrics were not used";
    EXPECT_EQ(r->placements.size(), pods_.size());
    std::map<std::string, double> arrival;
    for (const sim::TracePod& p : pods_) arrival[p.name] = p.creation_time;
    std::map<std::string, std::string> out;
    for (const sim::Placement& p : r->placements) {
      EXPECT_EQ(p.t, arrival[p.pod]) << p.pod << " waited in the simulation";
      out[p.pod] = p.node;
    }
    return out;
  }

  // The nodes, as the simulator makes them: capacity = allocatable, the same labels.
  void CreateNodes() {
    ASSERT_NO_FATAL_FAILURE(StartCluster());
    for (const sim::NodeGroup& g : cluster_spec_.groups) {
      NodeShape shape{.cpu = absl::StrCat(g.cpu_milli, "m"),
                      .memory = absl::StrCat(g.memory_mib, "Mi"),
                      .pods = absl::StrCat(g.pods),
                      .labels = {{"node.kubernetes.io/instance-type", g.instance_type},
                                 {"trimaran.io/node-group", g.name}},
                      .hostname_label = true};
      TRIMARAN_ASSERT_OK(cluster_->AddNode(NodeName(g), shape));
    }
  }

  // Prometheus with every node's background usage as 20 minutes of history (every 15 s,
  // the last 5 s ago), then the load watcher fetching it once, serving a snapshot.
  void StartPrometheusAndWatcher() {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    std::vector<PromSample> history;
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    for (const sim::NodeGroup& g : cluster_spec_.groups) {
      const double cpu = static_cast<double>(g.background_cpu_milli) / g.cpu_milli;
      const double mem = static_cast<double>(g.background_memory_mib) / g.memory_mib;
      for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
        history.push_back({"instance:node_cpu:ratio", {{"instance", NodeName(g)}}, t, cpu});
        history.push_back(
            {"instance:node_memory_utilisation:ratio", {{"instance", NodeName(g)}}, t, mem});
      }
    }
    auto prom = Prometheus::Start(history);
    ASSERT_TRUE(prom.ok()) << prom.status();
    prom_ = *std::move(prom);
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok()) << port.status();
    watcher_url_ = absl::StrCat("http://127.0.0.1:", *port);
    auto lw = Subprocess::Start(
        {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", *port),
         "--grpc-port=0", "--fetch-interval=1h", "--kubeconfig=" + cluster_->kubeconfig()},
        cluster_->control_plane().dir() + "/load-watcher.log",
        {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()});
    ASSERT_TRUE(lw.ok()) << lw.status();
    watcher_ = *std::move(lw);
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          const std::string body = Curl(watcher_url_ + "/watcher", &status);
          if (status != 200) return false;
          rapidjson::Document d;
          d.Parse(body.c_str());
          return d.IsObject() && d.HasMember("timestamp") && d["timestamp"].IsInt64() &&
                 d["timestamp"].GetInt64() != 0;
        },
        absl::Seconds(30)))
        << "load-watcher never served a snapshot";
  }

  void StartScheduler(const std::string& config_yaml) {
    auto sched = StartSchedulerProcess({.binary = kSchedulerBin,
                                        .dir = cluster_->control_plane().dir(),
                                        .tag = "agree",
                                        .config_yaml = config_yaml,
                                        .kubeconfig = cluster_->kubeconfig(),
                                        .extra_args = {"--tie-break=lowest-name"}});
    ASSERT_TRUE(sched.ok()) << sched.status();
    scheduler_ = std::move(sched->process);
    secure_port_ = sched->secure_port;
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          Curl(absl::StrCat("https://127.0.0.1:", secure_port_, "/readyz"), &status);
          return status == 200;
        },
        absl::Seconds(30)))
        << "the scheduler never became ready";
  }

  // Creates pod `name` (schedulerName trimaran) and waits until the API shows it bound;
  // its node, or "" after a failure (recorded).
  std::string CreateAndWaitBound(const std::string& name, int64_t cpu_milli, int64_t memory_mib) {
    absl::Status created =
        cluster_->CreatePods(1,
                             [&](int) {
                               return PodShape{.name = name,
                                               .scheduler_name = kProfile,
                                               .cpu = absl::StrCat(cpu_milli, "m"),
                                               .memory = absl::StrCat(memory_mib, "Mi")};
                             },
                             {.parallelism = 1});
    EXPECT_TRUE(created.ok()) << created;
    if (!created.ok()) return "";
    std::string node;
    const bool bound = Eventually(
        [&] {
          absl::StatusOr<kube::Pod> pod = client_->GetPod("default", name);
          if (pod.ok()) node = pod->spec.node_name;
          return !node.empty();
        },
        absl::Seconds(30), absl::Milliseconds(5));
    EXPECT_TRUE(bound) << name << " was not bound within 30 s";
    return bound ? node : "";
  }

  // Deletes pod `name` (grace period 0: no kubelet runs here to confirm a graceful
  // deletion) and waits until the API no longer has it; false after a failure
  // (recorded).
  bool DeleteAndWaitGone(const std::string& name) {
    absl::StatusOr<std::string> r =
        client_->Raw("DELETE", absl::StrCat("/api/v1/namespaces/default/pods/", name),
                     R"({"gracePeriodSeconds":0})", "application/json");
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return false;
    const bool gone = Eventually(
        [&] {
          return client_->GetPod("default", name).status().code() == absl::StatusCode::kNotFound;
        },
        absl::Seconds(30), absl::Milliseconds(5));
    EXPECT_TRUE(gone) << name << " was not deleted within 30 s";
    return gone;
  }

  double SchedulerFallbacks() {
    return TargetLoadPackingFallbacks(
        Curl(absl::StrCat("https://127.0.0.1:", secure_port_, "/metrics")));
  }

  // TargetLoadPacking's first read of the watcher normally lands before the first cycle
  // (it starts when the plugin is built); to be sure, probe pods are created, bound and
  // deleted (leaving nothing behind: the cache and the plugin's record drop a deleted
  // pod) until one is scored without a fallback.
  void WaitUntilScoredOnMetrics() {
    int probe = 0;
    const bool on_metrics = Eventually(
        [&] {
          const double before = SchedulerFallbacks();
          const std::string name = absl::StrCat("probe-", probe++);
          if (CreateAndWaitBound(name, 100, 64).empty() || !DeleteAndWaitGone(name)) return false;
          return SchedulerFallbacks() == before;
        },
        absl::Seconds(30), absl::Milliseconds(200));
    ASSERT_TRUE(on_metrics) << "TargetLoadPacking never scored on the watcher's metrics";
  }

  // Replays the trace's events in order; returns pod -> node as the API shows it bound.
  std::map<std::string, std::string> Replay() {
    std::map<std::string, std::string> out;
    const absl::Time start = absl::Now();
    int deletions = 0;
    for (const Event& e : Events(pods_)) {
      const sim::TracePod& p = pods_[e.pod];
      if (e.create) {
        const std::string node = CreateAndWaitBound(p.name, p.cpu_milli, p.memory_mib);
        if (node.empty()) return out;
        out[p.name] = node;
      } else {
        if (!DeleteAndWaitGone(p.name)) return out;
        ++deletions;
      }
    }
    std::printf("replayed %zu pods and %d deletions through the daemon in %s\n", out.size(),
                deletions, absl::FormatDuration(absl::Now() - start).c_str());
    return out;
  }

  // Every pod on the same node on both sides; the differences listed otherwise.
  void ExpectSamePlacements(const std::map<std::string, std::string>& simulated,
                            const std::map<std::string, std::string>& daemon) {
    ASSERT_EQ(simulated.size(), pods_.size());
    ASSERT_EQ(daemon.size(), pods_.size());
    std::string diff;
    int differ = 0;
    std::map<std::string, int> per_node;
    for (const sim::TracePod& p : pods_) {
      const std::string& s = simulated.at(p.name);
      const std::string& d = daemon.at(p.name);
      ++per_node[s];
      if (s != d) {
        ++differ;
        absl::StrAppend(&diff, "  ", p.name, " (", p.cpu_milli, "m, ", p.memory_mib,
                        "Mi, t=", p.creation_time, "): simulator ", s, ", daemon ", d, "\n");
      }
    }
    EXPECT_EQ(differ, 0) << differ << " of " << pods_.size() << " pods placed differently:\n"
                         << diff;
    std::string spread;
    for (const auto& [node, n] : per_node) absl::StrAppend(&spread, " ", node, "=", n);
    std::printf("placements per node (pods ever bound):%s\n", spread.c_str());
    // The trace exercises the scoring: the pods do not all go to one node.
    EXPECT_GT(per_node.size(), 1u);
  }

  sched::Registry registry_;
  std::vector<sim::TracePod> pods_;
  sim::ClusterSpec cluster_spec_;
  std::unique_ptr<Cluster> cluster_;
  kube::RestClient* client_ = nullptr;  // owned by cluster_
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_;
  std::unique_ptr<Subprocess> scheduler_;
  std::string watcher_url_;
  int secure_port_ = 0;
};

TEST_F(SimAgreementE2ETest, TraceHasArrivalsAndDeletionsInterleaved) {
  int deletions = 0;
  bool interleaved = false;
  const std::vector<Event> events = Events(pods_);
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].create) continue;
    ++deletions;
    if (i + 1 < events.size() && events[i + 1].create) interleaved = true;
  }
  EXPECT_GE(pods_.size(), 200u);
  EXPECT_GE(deletions, 50);
  EXPECT_TRUE(interleaved);
}

TEST_F(SimAgreementE2ETest, MostAllocatedPlacesEveryPodOnTheSameNode) {
  const std::map<std::string, std::string> simulated = Simulate(kMostAllocatedConfig);
  ASSERT_FALSE(HasFailure());
  ASSERT_NO_FATAL_FAILURE(CreateNodes());
  ASSERT_NO_FATAL_FAILURE(StartScheduler(kMostAllocatedConfig));
  ExpectSamePlacements(simulated, Replay());
}

TEST_F(SimAgreementE2ETest, TargetLoadPackingOnPrometheusPlacesEveryPodOnTheSameNode) {
  ASSERT_NO_FATAL_FAILURE(CreateNodes());
  ASSERT_NO_FATAL_FAILURE(StartPrometheusAndWatcher());
  if (IsSkipped()) return;
  const std::string config = TargetLoadPackingConfig(watcher_url_);
  const std::map<std::string, std::string> simulated = Simulate(config);
  ASSERT_FALSE(HasFailure());
  ASSERT_NO_FATAL_FAILURE(StartScheduler(config));
  ASSERT_NO_FATAL_FAILURE(WaitUntilScoredOnMetrics());
  const double fallbacks_before = SchedulerFallbacks();
  ExpectSamePlacements(simulated, Replay());
  // Scored on the watcher's metrics throughout, not on a fallback.
  const std::string metrics = Curl(absl::StrCat("https://127.0.0.1:", secure_port_, "/metrics"));
  ASSERT_THAT(metrics, ::testing::HasSubstr("trimaran_plugin_metrics_fallback_total"));
  EXPECT_EQ(TargetLoadPackingFallbacks(metrics), fallbacks_before) << metrics;
}

}  // namespace
}  // namespace trimaran::e2e
