// TargetLoadPacking end to end (issue 7, "How it is checked"): the real trimaran-scheduler
// and load-watcher binaries against a real kube-apiserver + etcd and a real Prometheus
// loaded with a known per-node CPU history.
//
//   1. One pod goes to the node closest below the target (the KEP example: 4-core nodes
//      using 1, 2 and 3 cores, target 50 -> scores 75, 100, 25 -> the 2-core node).
//   2. A burst of 50 pods spreads over the nodes below the target: every node's
//      predicted load (history + 750m per pod) stays within the target; the hot nodes
//      above it get none.
//   4. (issue 18) The same placement with the load watcher secured: HTTPS and TLS gRPC
//      with a bearer token; the scheduler reads it through watcherAddress https:// (and
//      grpcs://) with watcherCAFile and watcherTokenFile.
//   3. Prometheus stops: once the watcher's last good snapshot is older than
//      metricsMaxAge, scheduling continues on the Requests fallback and
//      trimaran_plugin_metrics_fallback_total{reason="stale"} counts it; Prometheus
//      restarts: the counter stops moving (back on metrics).
//
// The scheduler reads a load-watcher sidecar (watcherAddress) fetching every second:
// the in-process watcher's fetch interval (60 s) is not configurable from plugin args.
// Every profile here scores with TargetLoadPacking alone (score.disabled "*"), so the
// placement is the plugin's.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/testing/test_certs.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "rapidjson/document.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;
constexpr char kCpu[] = "instance:node_cpu:ratio";
constexpr char kMem[] = "instance:node_memory_utilisation:ratio";

// Sum of trimaran_plugin_metrics_fallback_total{...,reason="<reason>",...} samples in a
// Prometheus text exposition (0 when absent).
double FallbackCount(const std::string& metrics, const std::string& reason) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (absl::StartsWith(line, "#")) continue;
    if (!absl::StartsWith(line, "trimaran_plugin_metrics_fallback_total{")) continue;
    if (!absl::StrContains(line, absl::StrCat("reason=\"", reason, "\""))) continue;
    if (!absl::StrContains(line, "plugin=\"TargetLoadPacking\"")) continue;
    const size_t sp = line.rfind(' ');
    double v = 0;
    if (sp != absl::string_view::npos && absl::SimpleAtod(line.substr(sp + 1), &v)) sum += v;
  }
  return sum;
}

// Node i's history: 20 minutes of constant CPU (`cpu`, a fraction) and 30 % memory
// utilisation every 15 s, the last sample at `now` - 5 s. Constant values make every
// window's average exactly `cpu` x 100 percent.
void AddHistory(const std::string& node, double cpu, int64_t now, std::vector<PromSample>* out) {
  for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
    out->push_back({kCpu, {{"instance", node}}, t, cpu});
    out->push_back({kMem, {{"instance", node}}, t, 0.30});
  }
}

// One profile "tlp" scoring with TargetLoadPacking only.
std::string SchedulerConfig(const std::string& watcher_url, const std::string& extra_args) {
  return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  qps: 1000
  burst: 1000
profiles:
  - schedulerName: tlp
    plugins:
      multiPoint:
        enabled:
          - name: TargetLoadPacking
      score:
        disabled:
          - name: "*"
        enabled:
          - name: TargetLoadPacking
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 50
          watcherAddress: )",
                      watcher_url, "\n", extra_args);
}

class TrimaranPluginsE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    ClusterOptions options;
    options.qps = 1000;
    options.burst = 1000;
    auto cluster = Cluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
    client_ = &cluster_->client();
    kubeconfig_ = cluster_->kubeconfig();
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

  // Nodes `names[i]` with `cpu` cores and 16Gi, Ready and untainted, and Prometheus
  // with node i using cpu_fraction[i] of its CPU.
  void CreateNodesAndHistory(const std::vector<std::string>& names, const std::string& cpu,
                             const std::vector<double>& cpu_fraction) {
    ASSERT_EQ(names.size(), cpu_fraction.size());
    std::vector<PromSample> history;
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    TRIMARAN_ASSERT_OK(cluster_->AddNodes(names, {.cpu = cpu, .memory = "16Gi"}));
    for (size_t i = 0; i < names.size(); ++i) {
      AddHistory(names[i], cpu_fraction[i], now, &history);
    }
    auto prom = Prometheus::Start(history);
    ASSERT_TRUE(prom.ok()) << prom.status();
    prom_ = *std::move(prom);
  }

  // The snapshot timestamp (unix seconds) the load-watcher serves; 0 when it serves none.
  int64_t WatcherTimestamp() {
    int status = 0;
    const std::string body = Curl(watcher_url_ + "/watcher", &status, auth_header_);
    if (status != 200) return 0;
    rapidjson::Document d;
    d.Parse(body.c_str());
    if (!d.IsObject() || !d.HasMember("timestamp") || !d["timestamp"].IsInt64()) return 0;
    return d["timestamp"].GetInt64();
  }

  // Starts the load-watcher sidecar (Prometheus provider, a fetch every second) and
  // waits until it serves a snapshot, then the scheduler with `extra_args` added to
  // TargetLoadPacking's args, waiting until it is ready.
  //
  // `secure`: the watcher serves HTTPS and TLS gRPC with a test PKI's server
  // certificate and requires a bearer token; the scheduler reads it over https://
  // (`grpc`: grpcs://) with watcherCAFile and watcherTokenFile.
  //
  // `provider_env` replaces the Prometheus provider's environment (default: plain HTTP
  // to prom_); with `wait_for_snapshot` false the scheduler starts even though the
  // watcher serves nothing yet (a broken provider).
  void StartWatcherAndScheduler(const std::string& extra_args = "", bool secure = false,
                                bool grpc = false, std::vector<std::string> provider_env = {},
                                bool wait_for_snapshot = true) {
    auto lw_port = PickFreePort();
    ASSERT_TRUE(lw_port.ok());
    auto grpc_port = PickFreePort();
    ASSERT_TRUE(grpc_port.ok());
    std::vector<std::string> args = {kLoadWatcherBin,
                                     "--bind-address=127.0.0.1",
                                     absl::StrCat("--port=", *lw_port),
                                     absl::StrCat("--grpc-port=", grpc ? *grpc_port : 0),
                                     "--fetch-interval=1s",
                                     "--kubeconfig=" + kubeconfig_};
    std::string watcher_args;
    if (secure) {
      const std::string pki_dir = cp_->dir() + "/watcher-pki";
      std::filesystem::create_directories(pki_dir);
      auto pki = http::testing::MakeTestPki(pki_dir);
      ASSERT_TRUE(pki.ok()) << pki.status();
      const std::string token_file = cp_->dir() + "/watcher-token";
      std::ofstream(token_file) << "e2e-watcher-token\n";
      auth_header_ = "Authorization: Bearer e2e-watcher-token";
      args.push_back("--tls-cert-file=" + pki->server.cert_file);
      args.push_back("--tls-private-key-file=" + pki->server.key_file);
      args.push_back("--token-file=" + token_file);
      watcher_args = absl::StrCat("          watcherCAFile: ", pki->ca.cert_file,
                                  "\n          watcherTokenFile: ", token_file, "\n");
    }
    if (provider_env.empty()) provider_env = {"METRICS_PROVIDER_ADDRESS=" + prom_->url()};
    provider_env.push_back("METRICS_PROVIDER_NAME=Prometheus");
    auto lw = Subprocess::Start(args, cp_->dir() + "/load-watcher.log", provider_env);
    ASSERT_TRUE(lw.ok()) << lw.status();
    watcher_ = *std::move(lw);
    watcher_url_ = absl::StrCat(secure ? "https" : "http", "://127.0.0.1:", *lw_port);
    if (wait_for_snapshot) {
      ASSERT_TRUE(Eventually([&] { return WatcherTimestamp() != 0; }, absl::Seconds(30)))
          << "load-watcher never served a snapshot";
    }

    const std::string config = cp_->dir() + "/tlp.yaml";
    const std::string scheduler_watcher_url =
        grpc ? absl::StrCat(secure ? "grpcs" : "grpc", "://127.0.0.1:", *grpc_port) : watcher_url_;
    std::ofstream(config) << SchedulerConfig(scheduler_watcher_url,
                                             absl::StrCat(watcher_args, extra_args));
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok());
    secure_port_ = *port;
    auto sched =
        Subprocess::Start({kSchedulerBin, "--config=" + config, "--kubeconfig=" + kubeconfig_,
                           "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", *port),
                           "--cert-dir=" + cp_->dir() + "/certs", "--v=2", kAdminOpenPathsFlag},
                          cp_->dir() + "/scheduler.log");
    ASSERT_TRUE(sched.ok()) << sched.status();
    scheduler_ = *std::move(sched);
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          Curl(absl::StrCat("https://127.0.0.1:", secure_port_, "/readyz"), &status);
          return status == 200;
        },
        absl::Seconds(30)));
  }

  std::string SchedulerMetrics() {
    return Curl(absl::StrCat("https://127.0.0.1:", secure_port_, "/metrics"));
  }

  // Creates pods <prefix>-<i> (schedulerName tlp) requesting `cpu` and 128Mi, no limits.
  void CreatePods(const std::string& prefix, int n, const std::string& cpu) {
    TRIMARAN_ASSERT_OK(cluster_->CreatePods(n, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "tlp",
                      .cpu = cpu,
                      .memory = "128Mi"};
    }));
  }

  // Node name per bound pod whose name starts with `prefix`.
  std::map<std::string, std::string> Placement(const std::string& prefix) {
    std::map<std::string, std::string> out;
    auto list = client_->ListPods("default", {});
    EXPECT_TRUE(list.ok()) << list.status();
    if (!list.ok()) return out;
    for (const kube::Pod& p : list->items) {
      if (absl::StartsWith(p.metadata.name, prefix) && !p.spec.node_name.empty()) {
        out[p.metadata.name] = p.spec.node_name;
      }
    }
    return out;
  }

  bool AllBound(const std::string& prefix, size_t n) {
    return Eventually([&] { return Placement(prefix).size() == n; }, absl::Seconds(60));
  }

  std::unique_ptr<Cluster> cluster_;
  ControlPlane* cp_ = nullptr;          // owned by cluster_
  kube::RestClient* client_ = nullptr;  // owned by cluster_
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_;
  std::unique_ptr<Subprocess> scheduler_;
  std::string kubeconfig_;
  std::string watcher_url_;
  std::string auth_header_;  // "Authorization: Bearer ..." for a secured watcher
  int secure_port_ = 0;
};

TEST_F(TrimaranPluginsE2ETest, PodGoesToTheNodeClosestBelowTarget) {
  // The KEP example: 4-core nodes using 1, 2 and 3 cores (25, 50, 75 %), target 50.
  CreateNodesAndHistory({"uses-1-core", "uses-2-cores", "uses-3-cores"}, "4", {0.25, 0.50, 0.75});
  ASSERT_NO_FATAL_FAILURE(StartWatcherAndScheduler());
  // Pods requesting 0 CPU predict 0 (0 x 1.5), so each node's utilisation with the pod
  // is its history and the tracker adds nothing for the pods placed before:
  //   u = 25: (100 - 50) x 25 / 50 + 50 = 75
  //   u = 50: (100 - 50) x 50 / 50 + 50 = 100
  //   u = 75: 50 x (100 - 75) / (100 - 50) = 25
  // so all three go to uses-2-cores (by chance: 1 in 27).
  CreatePods("kep", 3, "0");
  ASSERT_TRUE(AllBound("kep-", 3));
  for (const auto& [pod, node] : Placement("kep-")) EXPECT_EQ(node, "uses-2-cores") << pod;
  // Scored on metrics, not on the fallback.
  const std::string metrics = SchedulerMetrics();
  // The exported name (docs/metrics.md).
  ASSERT_THAT(metrics, ::testing::HasSubstr("trimaran_plugin_metrics_fallback_total{"));
  for (const char* reason : {"no_metrics", "node_missing", "no_usable_metric", "stale"}) {
    EXPECT_EQ(FallbackCount(metrics, reason), 0) << reason;
  }
}

// (4) The KEP placement, with the watcher secured (TLS + bearer token) and the scheduler
// reading it over https:// and then grpcs:// with watcherCAFile and watcherTokenFile:
// every pod lands on the node the live load picks, scored on metrics (no fallback), and
// the watcher refuses a request without the token.
class SecuredWatcherE2ETest : public TrimaranPluginsE2ETest,
                              public ::testing::WithParamInterface<bool> {};

TEST_P(SecuredWatcherE2ETest, SchedulerPlacesPodOnLiveLoadThroughTlsAndToken) {
  const bool grpc = GetParam();
  CreateNodesAndHistory({"uses-1-core", "uses-2-cores", "uses-3-cores"}, "4", {0.25, 0.50, 0.75});
  ASSERT_NO_FATAL_FAILURE(StartWatcherAndScheduler("", /*secure=*/true, grpc));
  int status = 0;
  Curl(watcher_url_ + "/watcher", &status);
  EXPECT_EQ(status, 401) << "the watcher must refuse a request without the token";
  CreatePods("kep", 3, "0");
  ASSERT_TRUE(AllBound("kep-", 3));
  for (const auto& [pod, node] : Placement("kep-")) EXPECT_EQ(node, "uses-2-cores") << pod;
  const std::string metrics = SchedulerMetrics();
  ASSERT_THAT(metrics, ::testing::HasSubstr("trimaran_plugin_metrics_fallback_total{"));
  for (const char* reason : {"no_metrics", "node_missing", "no_usable_metric", "stale"}) {
    EXPECT_EQ(FallbackCount(metrics, reason), 0) << reason;
  }
  // The watcher counted exactly the one refusal above (the scheduler's calls all passed).
  const std::string watcher_metrics = Curl(watcher_url_ + "/metrics", &status, auth_header_);
  ASSERT_EQ(status, 200);
  EXPECT_THAT(
      watcher_metrics,
      ::testing::HasSubstr("trimaran_loadwatcher_unauthenticated_requests_total{api=\"rest\"} 1"));
  EXPECT_THAT(
      watcher_metrics,
      ::testing::HasSubstr("trimaran_loadwatcher_unauthenticated_requests_total{api=\"grpc\"} 0"));
}

INSTANTIATE_TEST_SUITE_P(Rest, SecuredWatcherE2ETest, ::testing::Values(false));
INSTANTIATE_TEST_SUITE_P(Grpc, SecuredWatcherE2ETest, ::testing::Values(true));

// (5) Prometheus over HTTPS (the e2e fault proxy terminates TLS with a test PKI's
// certificate in front of the real Prometheus and answers 401 unless the request carries
// the token the token file holds NOW): the watcher verifies the server with
// METRICS_PROVIDER_CA_FILE and reads METRICS_PROVIDER_TOKEN_FILE at every fetch. The
// token rotates mid-test and the provider keeps working (placements on live load, no
// fallback). Then a watcher given the wrong CA fails every fetch with a clear TLS error
// (logged, counted in trimaran_loadwatcher_fetch_errors_total) and the scheduler falls
// back (trimaran_plugin_metrics_fallback_total{reason="no_metrics"}).
TEST_F(TrimaranPluginsE2ETest, PrometheusHttpsWithRotatingTokenAndWrongCaFallsBack) {
  CreateNodesAndHistory({"uses-1-core", "uses-2-cores", "uses-3-cores"}, "4", {0.25, 0.50, 0.75});
  const std::string pki_dir = cp_->dir() + "/prom-pki";
  std::filesystem::create_directories(pki_dir);
  auto pki = http::testing::MakeTestPki(pki_dir);
  ASSERT_TRUE(pki.ok()) << pki.status();
  const std::string token_file = cp_->dir() + "/prom-token";
  auto write_token = [&](const std::string& token) {
    std::ofstream(token_file + ".tmp", std::ios::trunc) << token << "\n";
    ASSERT_EQ(std::rename((token_file + ".tmp").c_str(), token_file.c_str()), 0);
  };
  ASSERT_NO_FATAL_FAILURE(write_token("prom-token-1"));
  auto proxy = FaultProxy::Start({.upstream = prom_->url(),
                                  .tls_cert_file = pki->server.cert_file,
                                  .tls_key_file = pki->server.key_file});
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  auto current_token = [token_file] {
    std::ifstream in(token_file);
    std::string token;
    std::getline(in, token);
    return token;
  };
  auto unauthorized = (*proxy)->AddRule(FaultRule::Respond(
      {.predicate =
           [current_token](const ProxiedRequest& r) {
             return r.headers.GetOr("Authorization") != "Bearer " + current_token();
           }},
      CannedResponse{.status = 401, .body = "bad token\n"}));
  ASSERT_TRUE(unauthorized.ok()) << unauthorized.status();
  const RequestMatch with_token_2 = {.predicate = [](const ProxiedRequest& r) {
    return r.headers.GetOr("Authorization") == "Bearer prom-token-2";
  }};

  ASSERT_NO_FATAL_FAILURE(StartWatcherAndScheduler("", false, false,
                                                   {"METRICS_PROVIDER_ADDRESS=" + (*proxy)->url(),
                                                    "METRICS_PROVIDER_CA_FILE=" + pki->ca.cert_file,
                                                    "METRICS_PROVIDER_TOKEN_FILE=" + token_file}));
  CreatePods("before", 3, "0");
  ASSERT_TRUE(AllBound("before-", 3));
  for (const auto& [pod, node] : Placement("before-")) EXPECT_EQ(node, "uses-2-cores") << pod;

  // Rotate: from the next fetch on only the new token is accepted.
  ASSERT_NO_FATAL_FAILURE(write_token("prom-token-2"));
  const int64_t rotated_at = absl::ToUnixSeconds(absl::Now());
  const int64_t mark = (*proxy)->NextSeq();
  ASSERT_TRUE(Eventually([&] { return (*proxy)->CountRequests(with_token_2, mark) >= 4; },
                         absl::Seconds(30)))
      << "the watcher never sent the rotated token";
  ASSERT_TRUE(Eventually([&] { return WatcherTimestamp() > rotated_at + 1; }, absl::Seconds(30)))
      << "no fresh snapshot after the rotation";
  // At most one fetch in flight across the rename can have carried the old token.
  EXPECT_LE((*proxy)->Hits(*unauthorized), 1);
  CreatePods("after", 3, "0");
  ASSERT_TRUE(AllBound("after-", 3));
  for (const auto& [pod, node] : Placement("after-")) EXPECT_EQ(node, "uses-2-cores") << pod;
  std::string metrics = SchedulerMetrics();
  ASSERT_THAT(metrics, ::testing::HasSubstr("trimaran_plugin_metrics_fallback_total{"));
  for (const char* reason : {"no_metrics", "node_missing", "no_usable_metric", "stale"}) {
    EXPECT_EQ(FallbackCount(metrics, reason), 0) << reason;
  }

  // The wrong CA: a fresh watcher and scheduler.
  scheduler_->Stop();
  watcher_->Stop();
  ASSERT_NO_FATAL_FAILURE(
      StartWatcherAndScheduler("", false, false,
                               {"METRICS_PROVIDER_ADDRESS=" + (*proxy)->url(),
                                "METRICS_PROVIDER_CA_FILE=" + pki->other_ca.cert_file,
                                "METRICS_PROVIDER_TOKEN_FILE=" + token_file},
                               /*wait_for_snapshot=*/false));
  int status = 0;
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string m = Curl(watcher_url_ + "/metrics", &status);
        return absl::StrContains(m, "trimaran_loadwatcher_fetch_errors_total{") &&
               !absl::StrContains(
                   m, "trimaran_loadwatcher_fetch_errors_total{provider=\"Prometheus\"} 0");
      },
      absl::Seconds(30)))
      << "wrong-CA fetch errors are not counted";
  EXPECT_EQ(WatcherTimestamp(), 0) << "no snapshot through an unverified server";
  EXPECT_THAT(watcher_->LogTail(), ::testing::ContainsRegex("(certificate|SSL|TLS)"));
  CreatePods("wrongca", 2, "0");
  ASSERT_TRUE(AllBound("wrongca-", 2));
  ASSERT_TRUE(Eventually([&] { return FallbackCount(SchedulerMetrics(), "no_metrics") >= 2; },
                         absl::Seconds(30)))
      << SchedulerMetrics();
}

TEST_F(TrimaranPluginsE2ETest, BurstSpreadsOverNodesBelowTarget) {
  // Ten 16-core nodes: two hot (70 %, 80 %: above the target of 50), eight cool.
  const std::vector<double> used = {0.70, 0.80, 0.10, 0.15, 0.20, 0.25, 0.10, 0.15, 0.20, 0.25};
  std::vector<std::string> names;
  for (size_t i = 0; i < used.size(); ++i) names.push_back(absl::StrCat("node-", i));
  CreateNodesAndHistory(names, "16", used);
  ASSERT_NO_FATAL_FAILURE(StartWatcherAndScheduler());
  // 50 pods of 500m without limits, created at once: each predicts 500m x 1.5 = 750m =
  // 4.6875 % of a 16-core node, and the plugin adds the pods it placed (not yet in the
  // metrics) to the node's load. A node from u0 % takes floor((50 - u0) / 4.6875) pods
  // within the target: 10 % -> 8, 15 % -> 7, 20 % -> 6, 25 % -> 5, i.e. 2 x 26 = 52 >= 50
  // in all, so no node has to go above the target: a node that can stay within it
  // scores >= 50 + u > 50, one that would exceed it < 50.
  CreatePods("burst", 50, "500m");
  ASSERT_TRUE(AllBound("burst-", 50));
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : Placement("burst-")) ++per_node[node];
  int max_per_node = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const int k = per_node[names[i]];
    max_per_node = std::max(max_per_node, k);
    const double predicted = 100 * used[i] + 4.6875 * k;
    SCOPED_TRACE(absl::StrCat(names[i], ": ", k, " pods, predicted ", predicted, " %"));
    if (used[i] > 0.5) {
      EXPECT_EQ(k, 0);
    } else {
      EXPECT_LE(predicted, 50.0);
    }
  }
  std::string row;
  for (const std::string& n : names) absl::StrAppend(&row, " ", n, "=", per_node[n]);
  std::printf("burst placement:%s\n", row.c_str());
  EXPECT_LE(max_per_node, 8);  // the 10 % nodes' share; request-only packing piles 50.
  EXPECT_EQ(FallbackCount(SchedulerMetrics(), "stale"), 0);
  EXPECT_EQ(FallbackCount(SchedulerMetrics(), "no_metrics"), 0);
}

TEST_F(TrimaranPluginsE2ETest, StoppedPrometheusFallsBackToRequestsAndRecovers) {
  CreateNodesAndHistory({"node-a", "node-b", "node-c"}, "8", {0.20, 0.40, 0.60});
  constexpr int kNodes = 3;
  // metricsMaxAge 10 s: the snapshot the scheduler holds is at most ~7 s old while
  // Prometheus is up (the watcher fetches every 1 s, the plugin re-reads every 5 s).
  ASSERT_NO_FATAL_FAILURE(
      StartWatcherAndScheduler("          metricsMaxAge: 10s\n          fallback: Requests\n"));

  // (a) On metrics: no fallback.
  CreatePods("fresh", 5, "100m");
  ASSERT_TRUE(AllBound("fresh-", 5));
  EXPECT_EQ(FallbackCount(SchedulerMetrics(), "stale"), 0);
  EXPECT_EQ(FallbackCount(SchedulerMetrics(), "no_metrics"), 0);

  // (b) Prometheus disappears: the watcher keeps serving its last good snapshot, whose
  // age grows. 12 s after the stop it is older than metricsMaxAge (10 s).
  prom_->Stop();
  const absl::Time stopped = absl::Now();
  const int64_t last_good = WatcherTimestamp();
  ASSERT_NE(last_good, 0);
  absl::SleepFor(absl::Seconds(12));
  EXPECT_LE(WatcherTimestamp(), absl::ToUnixSeconds(stopped) + 1)
      << "the watcher got fresh data with Prometheus stopped";
  CreatePods("stale", 10, "100m");
  ASSERT_TRUE(AllBound("stale-", 10)) << "scheduling stopped on stale metrics";
  const double stale_count = FallbackCount(SchedulerMetrics(), "stale");
  // Every pod is scored on every node by the fallback: >= 10 x 3.
  EXPECT_GE(stale_count, 10 * kNodes);
  std::printf("stale fallbacks after 10 pods on %d nodes: %.0f\n", kNodes, stale_count);
  const absl::Time stale_done = absl::Now();

  // (c) Prometheus is back: the watcher's next fetch (1 s) is fresh; the plugin re-reads
  // at its first cycle >= 5 s after its last read, so we let 6 s pass since (b).
  ASSERT_TRUE(prom_->Restart().ok());
  const absl::Time restarted = absl::Now();
  ASSERT_TRUE(Eventually([&] { return WatcherTimestamp() >= absl::ToUnixSeconds(restarted); },
                         absl::Seconds(30)))
      << "the watcher never recovered";
  const absl::Duration since = absl::Now() - stale_done;
  if (since < absl::Seconds(6)) absl::SleepFor(absl::Seconds(6) - since);
  CreatePods("recovered", 10, "100m");
  ASSERT_TRUE(AllBound("recovered-", 10));
  const std::string metrics = SchedulerMetrics();
  EXPECT_EQ(FallbackCount(metrics, "stale"), stale_count) << "still on the fallback";
  EXPECT_EQ(FallbackCount(metrics, "no_metrics"), 0);

  // SIGTERM: graceful.
  scheduler_->Signal(SIGTERM);
  auto code = scheduler_->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
  scheduler_.reset();
}

}  // namespace
}  // namespace trimaran::e2e
