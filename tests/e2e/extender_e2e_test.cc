// Extender mode end to end (issue 21 point 3, "How it is checked"): the real
// kube-scheduler (1.37, the control plane's) is the only scheduler and calls `trimaran-scheduler
// --extender` over HTTPS with mutual TLS (filterVerb, prioritizeVerb, weight 5, ignorable, caFile =
// the extender's self-signed certificate, certFile/keyFile = a client certificate of the
// CA given to --extender-client-ca-file, its name in --extender-allowed-names), which serves a
// TargetLoadPacking profile reading a load-watcher sidecar over a real Prometheus with a known CPU
// history:
//
//   1. Two identical 4-core nodes with equal requests, "cool" at 25 % CPU and "hot" at
//      75 % (target 50): TargetLoadPacking scores 75 and 25, the extender answers 8 and 3,
//      kube-scheduler adds 8 × 5 × 10 = 400 and 150 to totals its own plugins make equal
//      (±a few points), so every pod goes to "cool". The extender's /metrics shows the
//      filter and prioritize calls answered.
//   2. The extender process is stopped: with ignorable: true kube-scheduler skips it and
//      keeps binding pods.
//   3. With bindVerb and --extender-bind, the extender creates the Bindings.
//
// Run for both nodeCacheCapable values (names only; full Node objects echoed back).
// Everything on 127.0.0.1.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/curl_transport.h"
#include "common/http/testing/test_certs.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;
constexpr char kCpu[] = "instance:node_cpu:ratio";
constexpr char kMem[] = "instance:node_memory_utilisation:ratio";

// The sum of the samples of `family` whose labels contain every `labels` pair, in a
// Prometheus text exposition.
double Sample(const std::string& metrics, const std::string& family,
              const std::vector<std::string>& labels) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (!absl::StartsWith(line, absl::StrCat(family, "{"))) continue;
    bool match = true;
    for (const std::string& l : labels) match = match && absl::StrContains(line, l);
    if (!match) continue;
    const size_t sp = line.rfind(' ');
    double v = 0;
    if (sp != absl::string_view::npos && absl::SimpleAtod(line.substr(sp + 1), &v)) sum += v;
  }
  return sum;
}

// The extender's configuration: one profile scoring with TargetLoadPacking only, over
// the load-watcher sidecar (the default filters stay).
std::string ExtenderConfig(const std::string& watcher_url) {
  return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: trimaran-extender
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
                      watcher_url, "\n");
}

// kube-scheduler's extenders block for its default profile (docs/extender.md's snippet),
// with the client certificate kube-scheduler presents to the extender (mutual TLS).
std::string ExtenderYaml(int extender_port, const std::string& ca_file,
                         const http::testing::CertAndKey& client, bool node_cache_capable,
                         bool bind) {
  return absl::StrCat(R"(extenders:
  - urlPrefix: https://127.0.0.1:)",
                      extender_port, R"(
    filterVerb: filter
    prioritizeVerb: prioritize)",
                      bind ? "\n    bindVerb: bind" : "", R"(
    weight: 5
    nodeCacheCapable: )",
                      node_cache_capable ? "true" : "false", R"(
    ignorable: true
    enableHTTPS: true
    httpTimeout: 5s
    tlsConfig:
      caFile: )",
                      ca_file, R"(
      certFile: )",
                      client.cert_file, R"(
      keyFile: )",
                      client.key_file, "\n");
}

class ExtenderE2ETest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    auto cluster = Cluster::Start({.qps = 1000, .burst = 1000});
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
    kubeconfig_ = cluster_->kubeconfig();
  }

  void TearDown() override {
    if (HasFailure()) {
      for (auto& [name, p] : std::map<std::string, Subprocess*>{
               {"extender", extender_.get()},
               {"kube-scheduler", kube_ ? &kube_->process() : nullptr},
               {"load-watcher", watcher_.get()}}) {
        if (p != nullptr)
          std::fprintf(stderr, "--- %s ---\n%s\n", name.c_str(), p->LogTail().c_str());
      }
    }
    if (kube_) kube_->process().Stop();
    if (extender_) extender_->Stop();
    if (watcher_) watcher_->Stop();
  }

  std::string ExtenderUrl(const std::string& path) {
    return absl::StrCat("https://127.0.0.1:", extender_port_, path);
  }

  // A GET on the extender's port with the client certificate kube-scheduler uses (the
  // extender requires mutual TLS); "" and *status 0 when there is no answer.
  std::string ExtenderGet(const std::string& path, int* status = nullptr) {
    if (status != nullptr) *status = 0;
    absl::StatusOr<std::unique_ptr<http::CurlTransport>> curl =
        http::CurlTransport::Create({.tls = {.client_cert_file = pki_.client.cert_file,
                                             .client_key_file = pki_.client.key_file,
                                             .insecure_skip_verify = true}});
    if (!curl.ok()) return "";
    absl::StatusOr<http::HttpResponse> r =
        (*curl)->Send({.url = ExtenderUrl(path), .timeout = absl::Seconds(10)});
    if (!r.ok()) return "";
    if (status != nullptr) *status = r->status_code;
    return r->body;
  }

  // Node name per bound pod whose name starts with `prefix`.
  std::map<std::string, std::string> Placement(const std::string& prefix) {
    std::map<std::string, std::string> out;
    auto list = cluster_->client().ListPods("default", {});
    if (!list.ok()) return out;
    for (const kube::Pod& p : list->items) {
      if (absl::StartsWith(p.metadata.name, prefix) && !p.spec.node_name.empty()) {
        out[p.metadata.name] = p.spec.node_name;
      }
    }
    return out;
  }

  void CreatePods(const std::string& prefix, int n) {
    TRIMARAN_ASSERT_OK(cluster_->CreatePods(n, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "default-scheduler",
                      .cpu = "0",
                      .memory = "128Mi"};
    }));
  }

  // Nodes "cool" (25 % CPU) and "hot" (75 %) with Prometheus and the load-watcher
  // sidecar, the extender (serving /bind when `bind`), and kube-scheduler calling it
  // (bindVerb when `bind`; nodeCacheCapable = the test's parameter).
  void StartAll(bool bind) {
    // Two identical nodes (equal requests: none), different live load.
    TRIMARAN_ASSERT_OK(cluster_->AddNodes({"cool", "hot"}, {.cpu = "4", .memory = "16Gi"}));
    std::vector<PromSample> history;
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    for (const auto& [node, cpu] :
         std::vector<std::pair<std::string, double>>{{"cool", 0.25}, {"hot", 0.75}}) {
      for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
        history.push_back({kCpu, {{"instance", node}}, t, cpu});
        history.push_back({kMem, {{"instance", node}}, t, 0.30});
      }
    }
    auto prom = Prometheus::Start(history);
    ASSERT_TRUE(prom.ok()) << prom.status();
    prom_ = *std::move(prom);

    // The load-watcher sidecar (fetch every second).
    auto lw_port = PickFreePort();
    ASSERT_TRUE(lw_port.ok());
    auto lw = Subprocess::Start(
        {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", *lw_port),
         "--grpc-port=0", "--fetch-interval=1s", "--kubeconfig=" + kubeconfig_},
        cp_->dir() + "/load-watcher.log",
        {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()});
    ASSERT_TRUE(lw.ok()) << lw.status();
    watcher_ = *std::move(lw);
    const std::string watcher_url = absl::StrCat("http://127.0.0.1:", *lw_port);
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          const std::string body = Curl(watcher_url + "/watcher", &status);
          return status == 200 && absl::StrContains(body, "\"cool\"");
        },
        absl::Seconds(30)))
        << "load-watcher never served the nodes' metrics";

    // The extender.
    const std::string config = cp_->dir() + "/extender.yaml";
    std::ofstream(config) << ExtenderConfig(watcher_url);
    auto secure_port = PickFreePort();
    auto extender_port = PickFreePort();
    ASSERT_TRUE(secure_port.ok() && extender_port.ok());
    extender_port_ = *extender_port;
    const std::string cert_dir = cp_->dir() + "/extender-certs";
    // Mutual TLS (the extender's default): kube-scheduler's client certificate
    // (CN=test-client) is of the test CA, and its name is the one allowed.
    const std::string pki_dir = cp_->dir() + "/extender-pki";
    std::filesystem::create_directories(pki_dir);
    auto pki = http::testing::MakeTestPki(pki_dir);
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_ = *std::move(pki);
    auto ext = Subprocess::Start(
        {kSchedulerBin, "--extender", "--config=" + config, "--kubeconfig=" + kubeconfig_,
         "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", *secure_port),
         "--cert-dir=" + cert_dir, "--extender-client-ca-file=" + pki_.ca.cert_file,
         "--extender-allowed-names=test-client", "--extender-bind-address=127.0.0.1",
         absl::StrCat("--extender-port=", extender_port_), absl::StrCat("--extender-bind=", bind),
         "--v=2", kAdminOpenPathsFlag},
        cp_->dir() + "/extender.log");
    ASSERT_TRUE(ext.ok()) << ext.status();
    extender_ = *std::move(ext);
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          ExtenderGet("/readyz", &status);
          return status == 200;
        },
        absl::Seconds(30)))
        << "the extender never became ready";

    // kube-scheduler, configured to call it.
    auto kube = KubeScheduler::Start(
        *cp_, {.kubeconfig = kubeconfig_,
               .extra_yaml = ExtenderYaml(extender_port_, cert_dir + "/trimaran-scheduler.crt",
                                          pki_.client, GetParam(), bind),
               .qps = 1000});
    ASSERT_TRUE(kube.ok()) << kube.status();
    kube_ = *std::move(kube);
  }

  std::unique_ptr<Cluster> cluster_;
  ControlPlane* cp_ = nullptr;
  std::string kubeconfig_;
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_;
  std::unique_ptr<Subprocess> extender_;
  std::unique_ptr<KubeScheduler> kube_;
  int extender_port_ = 0;
  http::testing::TestPki pki_;
};

TEST_P(ExtenderE2ETest, PodsGoWhereLiveLoadIsLowestAndSchedulingSurvivesTheExtender) {
  ASSERT_NO_FATAL_FAILURE(StartAll(/*bind=*/false));
  // 1. Live load decides: every pod on "cool".
  CreatePods("live", 4);
  ASSERT_TRUE(Eventually([&] { return Placement("live-").size() == 4; }, absl::Seconds(90)))
      << "pods not bound";
  for (const auto& [pod, node] : Placement("live-")) EXPECT_EQ(node, "cool") << pod;
  const std::string metrics = ExtenderGet("/metrics");
  EXPECT_GE(
      Sample(metrics, "trimaran_extender_requests_total", {"verb=\"filter\"", "result=\"ok\""}), 4);
  EXPECT_GE(
      Sample(metrics, "trimaran_extender_requests_total", {"verb=\"prioritize\"", "result=\"ok\""}),
      4);
  EXPECT_EQ(Sample(metrics, "trimaran_extender_requests_total", {"result=\"error\""}), 0);
  EXPECT_EQ(Sample(metrics, "trimaran_extender_requests_total", {"result=\"bad_request\""}), 0);
  // Scored on live metrics, not on the requests fallback.
  EXPECT_EQ(Sample(metrics, "trimaran_plugin_metrics_fallback_total", {}), 0);

  // 2. The extender goes away: ignorable, so kube-scheduler keeps binding.
  extender_->Stop();
  CreatePods("after", 4);
  ASSERT_TRUE(Eventually([&] { return Placement("after-").size() == 4; }, absl::Seconds(90)))
      << "kube-scheduler stopped scheduling without the extender";
}

// bindVerb with --extender-bind: the extender creates the Bindings (kube-scheduler's
// bind plugins are skipped), still on the load-aware node.
TEST_P(ExtenderE2ETest, TheExtenderBindsWhenAskedTo) {
  ASSERT_NO_FATAL_FAILURE(StartAll(/*bind=*/true));
  CreatePods("bound", 3);
  ASSERT_TRUE(Eventually([&] { return Placement("bound-").size() == 3; }, absl::Seconds(90)))
      << "pods not bound";
  for (const auto& [pod, node] : Placement("bound-")) EXPECT_EQ(node, "cool") << pod;
  const std::string metrics = ExtenderGet("/metrics");
  EXPECT_EQ(Sample(metrics, "trimaran_extender_requests_total", {"verb=\"bind\"", "result=\"ok\""}),
            3);
}

INSTANTIATE_TEST_SUITE_P(NodeCacheCapable, ExtenderE2ETest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("NodeNames")
                                              : std::string("NodeObjects");
                         });

}  // namespace
}  // namespace trimaran::e2e
