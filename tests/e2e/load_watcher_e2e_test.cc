// The load watcher against a real Prometheus (issue 6, "How it is checked"):
//   (a) PrometheusProvider + Watcher: the 15m/5m AVG and STD equal the values computed
//       here from the history written into Prometheus; the startup check names a node
//       without series.
//   (b) the real load-watcher binary: /watcher (+ ?host= known / unknown), /watcher/health,
//       gRPC GetLatestMetrics, /metrics, /healthz, SIGTERM -> exit 0.
//   (c) bad backends: Prometheus disappears under the running daemon (last good data
//       kept, age grows, errors counted, no crash); a backend that hangs past the
//       per-query timeout (Watcher keeps its snapshot, counts the failure).
//   (d) issue 18: the daemon with --tls-cert-file/--tls-private-key-file/--token-file:
//       REST and gRPC succeed with the token over TLS and fail without it (401 /
//       UNAUTHENTICATED, counted); /healthz stays open; the certificate files and the
//       token file rotate under the running daemon and the new ones are served/required.
// Garbage JSON and HTTP 500 are covered by the providers' unit tests.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "common/http/curl_transport.h"
#include "common/http/testing/test_certs.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loadwatcher/grpc_client.h"
#include "loadwatcher/json.h"
#include "loadwatcher/watcher.h"
#include "providers/prometheus/prometheus_provider.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using providers::prometheus::NodeRef;
using providers::prometheus::PrometheusOptions;
using providers::prometheus::PrometheusProvider;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

constexpr char kCpu[] = "instance:node_cpu:ratio";
constexpr char kMem[] = "instance:node_memory_utilisation:ratio";
constexpr int kStep = 15;      // seconds between samples
constexpr int kSamples = 80;   // 80 x 15 s = 20 minutes
constexpr int kOffset = 1193;  // first sample at T - 1193: no sample on a window edge

// The nodes and the `instance` label each series carries: a bare name, IP-style
// "name:port" and an FQDN, all of which the provider maps back to the node name.
const std::vector<std::pair<std::string, std::string>>& Nodes() {
  static const auto* const kNodes = new std::vector<std::pair<std::string, std::string>>{
      {"node-a", "node-a"}, {"node-b", "node-b:9100"}, {"node-c", "node-c.example.com"}};
  return *kNodes;
}

double CpuValue(int node, int k) { return 0.1 + 0.1 * node + 0.05 * ((k * 7 + node) % 5); }
double MemValue(int node, int k) { return 0.3 + 0.02 * ((k * 3 + node) % 7) + 0.001 * k; }

// 20 minutes of both series for every node, the last sample 8 s before `t`.
std::vector<PromSample> History(int64_t t) {
  std::vector<PromSample> out;
  for (size_t i = 0; i < Nodes().size(); ++i) {
    for (int k = 0; k < kSamples; ++k) {
      const int64_t ts = t - kOffset + int64_t{k} * kStep;
      const int n = static_cast<int>(i);
      out.push_back({kCpu, {{"instance", Nodes()[i].second}}, ts, CpuValue(n, k)});
      out.push_back({kMem, {{"instance", Nodes()[i].second}}, ts, MemValue(n, k)});
    }
  }
  return out;
}

struct Expected {
  double avg = 0;  // percent
  double std = 0;  // percent (population standard deviation, as stddev_over_time)
};

// avg and stddev x 100 of the samples of node `node` within [t - window_s, t].
Expected Compute(double (*value)(int, int), int node, int64_t t, int64_t window_s) {
  std::vector<double> v;
  for (int k = 0; k < kSamples; ++k) {
    const int64_t ts = t - kOffset + int64_t{k} * kStep;
    if (ts >= t - window_s && ts <= t) v.push_back(value(node, k));
  }
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return {100 * mean, 100 * std::sqrt(sq / static_cast<double>(v.size()))};
}

const lw::Metric* FindMetric(const lw::NodeMetrics& nm, absl::string_view name,
                             absl::string_view op) {
  for (const lw::Metric& m : nm.metrics) {
    if (m.name == name && m.op == op) return &m;
  }
  return nullptr;
}

std::unique_ptr<http::CurlTransport> NewTransport() {
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> t = http::CurlTransport::Create();
  TRIMARAN_CHECK(t.ok());
  return *std::move(t);
}

absl::StatusOr<http::HttpResponse> Get(http::HttpTransport& transport, const std::string& url) {
  http::HttpRequest req;
  req.url = url;
  req.timeout = absl::Seconds(10);
  return transport.Send(req);
}

// The value of the first exposition line starting with `series` ("name{labels}").
std::optional<double> ScrapeValue(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, series + " ")) {
      double v = 0;
      if (absl::SimpleAtod(line.substr(series.size() + 1), &v)) return v;
    }
  }
  return std::nullopt;
}

class LoadWatcherE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Prometheus::Available()) return;
    t0_ = absl::ToUnixSeconds(absl::Now());
    absl::StatusOr<std::unique_ptr<Prometheus>> p = Prometheus::Start(History(t0_));
    if (!p.ok()) {
      start_error_ = new absl::Status(p.status());
      return;
    }
    prom_ = p->release();
  }
  static void TearDownTestSuite() {
    delete prom_;
    prom_ = nullptr;
  }
  void SetUp() override {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    ASSERT_NE(prom_, nullptr) << (start_error_ ? start_error_->ToString() : "");
  }

  // Starts the daemon against `prom_url`; waits until GET /watcher answers 200.
  // `extra_args` are added to its flags; `ready` (default: a plain GET /watcher)
  // answers whether it serves.
  void StartDaemon(const std::string& prom_url, std::vector<std::string> extra_args = {},
                   std::function<bool()> ready = nullptr) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(port_, PickFreePort());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(grpc_port_, PickFreePort());
    std::vector<std::string> args = {
        TRIMARAN_LOAD_WATCHER_BIN, "--bind-address=127.0.0.1", absl::StrCat("--port=", port_),
        absl::StrCat("--grpc-port=", grpc_port_), "--fetch-interval=1s"};
    const bool tls = std::any_of(extra_args.begin(), extra_args.end(), [](const std::string& a) {
      return absl::StartsWith(a, "--tls-cert-file");
    });
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        daemon_, Subprocess::Start(args, ::testing::TempDir() + "/load-watcher.log",
                                   {"METRICS_PROVIDER_NAME=Prometheus",
                                    absl::StrCat("METRICS_PROVIDER_ADDRESS=", prom_url),
                                    "KUBERNETES_SERVICE_HOST=", "KUBE_CONFIG="}));
    base_ = absl::StrCat(tls ? "https" : "http", "://127.0.0.1:", port_);
    if (!ready) {
      ready = [this] {
        absl::StatusOr<http::HttpResponse> r = Get(*transport_, base_ + "/watcher");
        return r.ok() && r->status_code == 200;
      };
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      ASSERT_TRUE(daemon_->Running()) << daemon_->LogTail();
      if (ready()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "no 200 from /watcher in 30 s\n" << daemon_->LogTail();
  }

  static inline Prometheus* prom_ = nullptr;
  static inline absl::Status* start_error_ = nullptr;
  static inline int64_t t0_ = 0;
  std::unique_ptr<http::CurlTransport> transport_ = NewTransport();
  std::unique_ptr<Subprocess> daemon_;
  int port_ = 0;
  int grpc_port_ = 0;
  std::string base_;
};

// (a) The windows' AVG and STD equal the history's, for every node and label style.
TEST_F(LoadWatcherE2eTest, WatcherAveragesAndDeviationsMatchTheHistory) {
  PrometheusOptions options;
  options.address = prom_->url();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<PrometheusProvider> provider,
                                PrometheusProvider::Create(options, transport_.get()));
  trimaran::testing::FakeClock clock(absl::FromUnixSeconds(t0_));
  stats::Registry registry;
  lw::Watcher watcher(*provider, clock, stats::Scope(registry));
  TRIMARAN_ASSERT_OK(watcher.FetchOnce());

  for (const auto& [window, seconds] :
       std::vector<std::pair<std::string, int64_t>>{{"15m", 900}, {"10m", 600}, {"5m", 300}}) {
    SCOPED_TRACE(window);
    std::vector<lw::Snapshot> history = watcher.History(window);
    ASSERT_EQ(history.size(), 1u);
    const lw::WatcherMetrics& m = *history[0].metrics;
    EXPECT_EQ(m.source, "Prometheus");
    EXPECT_EQ(m.window, (lw::Window{window, t0_ - seconds, t0_}));
    ASSERT_EQ(m.data.node_metrics_map.size(), Nodes().size());
    for (size_t i = 0; i < Nodes().size(); ++i) {
      const std::string& node = Nodes()[i].first;
      SCOPED_TRACE(node);
      auto it = m.data.node_metrics_map.find(node);
      ASSERT_NE(it, m.data.node_metrics_map.end());
      const int n = static_cast<int>(i);
      // 15m: the 60 samples at T-893 .. T-8; 5m: the 20 samples at T-293 .. T-8.
      const Expected cpu = Compute(CpuValue, n, t0_, seconds);
      const Expected mem = Compute(MemValue, n, t0_, seconds);
      struct Want {
        const char* name;
        absl::string_view op;
        double value;
      };
      for (const Want& w : {Want{kCpu, lw::kOpAvg, cpu.avg}, Want{kCpu, lw::kOpStd, cpu.std},
                            Want{kMem, lw::kOpAvg, mem.avg}, Want{kMem, lw::kOpStd, mem.std}}) {
        SCOPED_TRACE(absl::StrCat(w.name, " ", w.op));
        const lw::Metric* got = FindMetric(it->second, w.name, w.op);
        ASSERT_NE(got, nullptr);
        EXPECT_NEAR(got->value, w.value, 1e-9);
        EXPECT_EQ(got->rollup, window);
      }
    }
  }
  // The watcher's own view agrees: 15m is served first.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Snapshot latest, watcher.Latest());
  EXPECT_EQ(latest.metrics->window.duration, "15m");
}

// (a) The startup check names the node that has no series.
TEST_F(LoadWatcherE2eTest, StartupCheckNamesNodeWithoutSeries) {
  PrometheusOptions options;
  options.address = prom_->url();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<PrometheusProvider> provider,
                                PrometheusProvider::Create(options, transport_.get()));
  const std::vector<NodeRef> nodes = {{"node-a", {"10.0.0.1"}},
                                      {"node-b", {"10.0.0.2"}},
                                      {"node-c.example.com", {}},
                                      {"node-d", {"10.0.0.4"}}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(providers::prometheus::StartupReport report,
                                provider->StartupCheck(nodes, "15m", t0_));
  EXPECT_THAT(report.nodes_without_series, ElementsAre("node-d"));
  EXPECT_TRUE(report.empty_queries.empty());
  EXPECT_TRUE(report.failed_queries.empty());
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.Summary(static_cast<int>(nodes.size())), HasSubstr("node-d"));
}

// (b) The real daemon: REST, gRPC, /metrics, /healthz, graceful SIGTERM.
TEST_F(LoadWatcherE2eTest, DaemonServesRestGrpcMetricsAndStopsOnSigterm) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(prom_->url()));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse all, Get(*transport_, base_ + "/watcher"));
  ASSERT_EQ(all.status_code, 200);
  EXPECT_EQ(all.headers.GetOr("Content-Type"), "application/json");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetrics m, lw::DecodeWatcherMetricsJson(all.body));
  EXPECT_EQ(m.source, "Prometheus");
  EXPECT_EQ(m.window.duration, "15m");
  std::vector<std::string> names;
  for (const auto& [name, nm] : m.data.node_metrics_map) {
    names.push_back(name);
    EXPECT_EQ(nm.metrics.size(), 4u) << name;  // CPU/memory x AVG/STD
  }
  EXPECT_THAT(names, ElementsAre("node-a", "node-b", "node-c"));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse one,
                                Get(*transport_, base_ + "/watcher?host=node-b"));
  ASSERT_EQ(one.status_code, 200);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetrics only, lw::DecodeWatcherMetricsJson(one.body));
  ASSERT_EQ(only.data.node_metrics_map.size(), 1u);
  EXPECT_TRUE(only.data.node_metrics_map.contains("node-b"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse unknown,
                                Get(*transport_, base_ + "/watcher?host=node-z"));
  EXPECT_EQ(unknown.status_code, 404);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse health,
                                Get(*transport_, base_ + "/watcher/health"));
  EXPECT_EQ(health.status_code, 200);

  lw::GrpcClient grpc(
      {.target = absl::StrCat("127.0.0.1:", grpc_port_), .timeout = absl::Seconds(10)});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr via_grpc,
                                grpc.GetLatestMetrics({.window = "5m", .hosts = {"node-a"}}));
  EXPECT_EQ(via_grpc->window.duration, "5m");
  EXPECT_EQ(via_grpc->source, "Prometheus");
  ASSERT_EQ(via_grpc->data.node_metrics_map.size(), 1u);
  EXPECT_EQ(via_grpc->data.node_metrics_map.begin()->second.metrics.size(), 4u);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse metrics, Get(*transport_, base_ + "/metrics"));
  EXPECT_EQ(metrics.status_code, 200);
  EXPECT_THAT(metrics.headers.GetOr("Content-Type"), HasSubstr("version=0.0.4"));
  EXPECT_THAT(metrics.body, HasSubstr("trimaran_loadwatcher_fetches_total{"));
  EXPECT_THAT(metrics.body, HasSubstr("trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"}"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse healthz, Get(*transport_, base_ + "/healthz"));
  EXPECT_EQ(healthz.status_code, 200);
  EXPECT_EQ(healthz.body, "ok");

  daemon_->Signal(SIGTERM);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(int code, daemon_->Wait(absl::Seconds(15)));
  EXPECT_EQ(code, 0) << daemon_->LogTail();
}

// (d) TLS + bearer token on REST and gRPC; certificate and token rotate under the daemon.
class SecuredLoadWatcherE2eTest : public LoadWatcherE2eTest {
 protected:
  void SetUp() override {
    LoadWatcherE2eTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    dir_ = ::testing::TempDir() + "/secured-load-watcher";
    std::filesystem::remove_all(dir_);
    for (const char* sub : {"a", "b", "live"})
      std::filesystem::create_directories(dir_ + "/" + sub);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(a_, http::testing::MakeTestPki(dir_ + "/a"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(b_, http::testing::MakeTestPki(dir_ + "/b"));
    cert_ = dir_ + "/live/tls.crt";
    key_ = dir_ + "/live/tls.key";
    token_file_ = dir_ + "/live/token";
    Replace(cert_, a_.server.cert_pem);
    Replace(key_, a_.server.key_pem);
    Replace(token_file_, "token-one\n");
  }

  // Replaces `path` atomically (write + rename), as a Secret volume update does.
  static void Replace(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp";
    std::ofstream(tmp, std::ios::trunc) << content;
    TRIMARAN_CHECK(std::rename(tmp.c_str(), path.c_str()) == 0);
  }

  // GET over a fresh connection verified with `ca_file`, with `token` when not empty.
  absl::StatusOr<http::HttpResponse> SecureGet(const std::string& path, const std::string& ca_file,
                                               const std::string& token) {
    std::unique_ptr<http::CurlTransport> transport = NewTransport();
    http::HttpRequest req;
    req.url = base_ + path;
    req.timeout = absl::Seconds(10);
    req.tls = http::TlsOptions{.ca_file = ca_file};
    if (!token.empty()) req.headers.Set("Authorization", "Bearer " + token);
    return transport->Send(req);
  }

  // A gRPC client over TLS verified with `ca_pem`, sending the token in `token_file`
  // ("" = no token).
  std::unique_ptr<lw::GrpcClient> GrpcTls(const std::string& ca_pem,
                                          const std::string& token_file) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ca_pem;
    return std::make_unique<lw::GrpcClient>(
        lw::GrpcClientOptions{.target = absl::StrCat("127.0.0.1:", grpc_port_),
                              .timeout = absl::Seconds(5),
                              .credentials = grpc::SslCredentials(ssl),
                              .token_file = token_file});
  }

  std::string dir_, cert_, key_, token_file_;
  http::testing::TestPki a_, b_;
};

TEST_F(SecuredLoadWatcherE2eTest, RestAndGrpcNeedTheTokenOverTlsAndFollowRotation) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(prom_->url(),
                                      {"--tls-cert-file=" + cert_, "--tls-private-key-file=" + key_,
                                       "--token-file=" + token_file_, "--tls-reload-interval=1s"},
                                      [this] {
                                        absl::StatusOr<http::HttpResponse> r =
                                            SecureGet("/watcher", a_.ca.cert_file, "token-one");
                                        return r.ok() && r->status_code == 200;
                                      }));

  // REST: the token opens /watcher and /metrics; without it, or with another, 401.
  for (const char* path : {"/watcher", "/watcher/health", "/metrics", "/"}) {
    SCOPED_TRACE(path);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse ok,
                                  SecureGet(path, a_.ca.cert_file, "token-one"));
    EXPECT_EQ(ok.status_code, 200);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse none, SecureGet(path, a_.ca.cert_file, ""));
    EXPECT_EQ(none.status_code, 401);
    EXPECT_EQ(none.headers.GetOr("WWW-Authenticate"), "Bearer");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse wrong,
                                  SecureGet(path, a_.ca.cert_file, "token-two"));
    EXPECT_EQ(wrong.status_code, 401);
  }
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    SCOPED_TRACE(path);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse open, SecureGet(path, a_.ca.cert_file, ""));
    EXPECT_EQ(open.status_code, 200);
  }
  // The wrong CA does not verify.
  EXPECT_FALSE(SecureGet("/watcher", b_.ca.cert_file, "token-one").ok());

  // gRPC: TLS + token works; without the token UNAUTHENTICATED; plaintext fails.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr m,
                                GrpcTls(a_.ca.cert_pem, token_file_)->GetLatestMetrics());
  EXPECT_EQ(m->source, "Prometheus");
  EXPECT_THAT(GrpcTls(a_.ca.cert_pem, "")->GetLatestMetrics(),
              StatusIs(absl::StatusCode::kUnauthenticated));
  lw::GrpcClient plain({.target = absl::StrCat("127.0.0.1:", grpc_port_),
                        .timeout = absl::Seconds(5),
                        .token_file = token_file_});
  EXPECT_FALSE(plain.GetLatestMetrics().ok());

  // Refusals are counted per API.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse scrape,
                                SecureGet("/metrics", a_.ca.cert_file, "token-one"));
  EXPECT_THAT(
      ScrapeValue(scrape.body, "trimaran_loadwatcher_unauthenticated_requests_total{api=\"rest\"}"),
      ::testing::Optional(8.0));
  EXPECT_THAT(
      ScrapeValue(scrape.body, "trimaran_loadwatcher_unauthenticated_requests_total{api=\"grpc\"}"),
      ::testing::Optional(1.0));

  // Rotation: a new certificate (another CA) and a new token, no restart.
  Replace(key_, b_.server.key_pem);
  Replace(cert_, b_.server.cert_pem);
  Replace(token_file_, "token-two\n");
  // REST checks the files at every handshake: the new CA verifies at once.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse rotated,
                                SecureGet("/watcher", b_.ca.cert_file, "token-two"));
  EXPECT_EQ(rotated.status_code, 200);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse old_token,
                                SecureGet("/watcher", b_.ca.cert_file, "token-one"));
  EXPECT_EQ(old_token.status_code, 401);
  EXPECT_FALSE(SecureGet("/watcher", a_.ca.cert_file, "token-two").ok());
  // gRPC re-reads them every --tls-reload-interval (1 s): a new channel verified by the
  // new CA succeeds within a few seconds, with the rotated token file.
  absl::Status grpc_status = absl::UnknownError("not tried");
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline) {
    grpc_status = GrpcTls(b_.ca.cert_pem, token_file_)->GetLatestMetrics().status();
    if (grpc_status.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  TRIMARAN_EXPECT_OK(grpc_status);
  EXPECT_FALSE(GrpcTls(a_.ca.cert_pem, token_file_)->GetLatestMetrics().ok());
  EXPECT_TRUE(daemon_->Running()) << daemon_->LogTail();
}

// (c) Prometheus disappears under the running daemon.
TEST_F(LoadWatcherE2eTest, BackendDisappearsDaemonKeepsLastGoodData) {
  // A Prometheus of this test's own, so stopping it does not disturb the others.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Prometheus> prom,
                                Prometheus::Start(History(absl::ToUnixSeconds(absl::Now()))));
  ASSERT_NO_FATAL_FAILURE(StartDaemon(prom->url()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse before, Get(*transport_, base_ + "/watcher"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetrics good, lw::DecodeWatcherMetricsJson(before.body));

  prom->Stop();
  // Fetches now fail (connection refused) every second: wait until errors are counted
  // and the 15m snapshot is more than 3 s old.
  const std::string errors_series =
      "trimaran_loadwatcher_fetch_errors_total{provider=\"Prometheus\"}";
  const std::string age_series = "trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"}";
  std::optional<double> errors, age;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    ASSERT_TRUE(daemon_->Running()) << daemon_->LogTail();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse scrape, Get(*transport_, base_ + "/metrics"));
    errors = ScrapeValue(scrape.body, errors_series);
    age = ScrapeValue(scrape.body, age_series);
    if (errors.value_or(0) > 0 && age.value_or(0) > 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(errors.has_value() && age.has_value());
  EXPECT_GT(*errors, 0);
  EXPECT_GT(*age, 3);

  // The last good data is still served, unchanged (same fetch timestamp).
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse after, Get(*transport_, base_ + "/watcher"));
  ASSERT_EQ(after.status_code, 200);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetrics kept, lw::DecodeWatcherMetricsJson(after.body));
  EXPECT_EQ(kept.timestamp, good.timestamp);
  EXPECT_EQ(kept.data.node_metrics_map.size(), Nodes().size());
  // Health reports the backend is gone.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse health,
                                Get(*transport_, base_ + "/watcher/health"));
  EXPECT_EQ(health.status_code, 503);
  // ... but the watcher stays Ready (degraded, saying why): an unready pod would hang the
  // rollout and hold the PDB while the scheduler packs by requests (issue 34, trap 1).
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse ready, Get(*transport_, base_ + "/readyz"));
  EXPECT_EQ(ready.status_code, 200);
  EXPECT_THAT(ready.body, ::testing::StartsWith("ok (degraded: metrics provider not answering"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse verbose,
                                Get(*transport_, base_ + "/readyz?verbose"));
  EXPECT_EQ(verbose.status_code, 200);
  EXPECT_THAT(verbose.body, ::testing::HasSubstr("[-]metrics-provider degraded: "));
  EXPECT_THAT(verbose.body, ::testing::EndsWith("readyz check passed\n"));

  daemon_->Signal(SIGTERM);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(int code, daemon_->Wait(absl::Seconds(15)));
  EXPECT_EQ(code, 0) << daemon_->LogTail();
}

// Sends to the real Prometheus, or (once `hang` is set) to a socket that accepts TCP
// connections but never answers, so curl's per-request timeout fires for real.
class SwitchingTransport final : public http::HttpTransport {
 public:
  SwitchingTransport(http::HttpTransport& real, std::string from, std::string to)
      : real_(real), from_(std::move(from)), to_(std::move(to)) {}
  std::atomic<bool> hang{false};
  absl::StatusOr<http::HttpResponse> Send(const http::HttpRequest& request) override {
    if (!hang.load()) return real_.Send(request);
    http::HttpRequest copy = request;
    copy.url = to_ + copy.url.substr(from_.size());
    return real_.Send(copy);
  }

 private:
  http::HttpTransport& real_;
  const std::string from_, to_;
};

// (c) A backend that hangs past the per-query timeout.
TEST_F(LoadWatcherE2eTest, BackendHangsPastTimeoutWatcherKeepsSnapshot) {
  // A listening socket nobody accepts on: the kernel completes the handshake, the
  // request is sent, no answer ever comes.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 64), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string hang_url = absl::StrCat("http://127.0.0.1:", ntohs(addr.sin_port));

  SwitchingTransport transport(*transport_, prom_->url(), hang_url);
  PrometheusOptions options;
  options.address = prom_->url();
  options.query_timeout = absl::Milliseconds(300);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<PrometheusProvider> provider,
                                PrometheusProvider::Create(options, &transport));
  trimaran::testing::FakeClock clock(absl::FromUnixSeconds(t0_));
  stats::Registry registry;
  lw::Watcher watcher(*provider, clock, stats::Scope(registry, "trimaran_loadwatcher_"));
  TRIMARAN_ASSERT_OK(watcher.FetchOnce());

  transport.hang = true;
  clock.Advance(absl::Seconds(60));
  const absl::Time start = absl::Now();
  const absl::Status failed = watcher.FetchOnce();
  const absl::Duration took = absl::Now() - start;
  ::close(fd);
  EXPECT_EQ(failed.code(), absl::StatusCode::kDeadlineExceeded) << failed;
  // 3 windows x 4 queries, each cut at 300 ms (~3.6 s), far below a hang.
  EXPECT_LT(took, absl::Seconds(20));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Snapshot kept, watcher.Latest("15m"));
  EXPECT_EQ(kept.metrics->timestamp, t0_);
  EXPECT_EQ(kept.Age(clock.Now()), absl::Seconds(60));
  EXPECT_EQ(kept.metrics->data.node_metrics_map.size(), Nodes().size());
  const std::vector<lw::WindowStatus> status = watcher.Status();
  ASSERT_EQ(status.size(), 3u);
  for (const lw::WindowStatus& s : status) {
    SCOPED_TRACE(s.window);
    EXPECT_EQ(s.fetches, 2);
    EXPECT_EQ(s.failed_fetches, 1);
    EXPECT_EQ(s.consecutive_failures, 1);
    EXPECT_EQ(s.last_error.code(), absl::StatusCode::kDeadlineExceeded);
  }
  const std::string text = registry.PrometheusText();
  // 3 failed fetches of the Prometheus provider (one per window).
  EXPECT_EQ(ScrapeValue(text, "trimaran_loadwatcher_fetch_errors_total{provider=\"Prometheus\"}"),
            3);
  EXPECT_EQ(ScrapeValue(text, "trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"}"), 60);
}

}  // namespace
}  // namespace trimaran::e2e
