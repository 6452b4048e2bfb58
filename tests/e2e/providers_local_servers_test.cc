// The metrics-server and SignalFx providers over real HTTPS (issue 6, "How it is
// checked"): a local HttpServer on 127.0.0.1 (TLS from a test PKI) answers at the real
// API paths with the recorded response shapes of providers/*/testdata, and the REAL
// provider code runs over a real CurlTransport (metrics-server: a real kube::RestClient
// built from a RestConfig pointing at the server) under an lw::Watcher. What is checked
// is the watcher's snapshot (exact percentages worked out here from the served data) and
// the requests the server received. The bad-backend cases answer 500 or garbage for one
// fetch: the watcher keeps its last good snapshot, counts the error and recovers.
//
// The unit tests (providers/*/*_provider_test.cc) cover the same arithmetic through a
// FakeTransport / FakeClient; these cover the wire: URL building and percent-encoding,
// headers, TLS, the RestClient's paging, retries and error mapping.
#include <stdlib.h>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/http/testing/test_certs.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/status_macros.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/watcher.h"
#include "providers/metrics_server/metrics_server_provider.h"
#include "providers/signalfx/signalfx_provider.h"

// Readable failure messages for the snapshot comparisons (gtest finds these by ADL).
namespace trimaran::lw {
void PrintTo(const Metric& m, std::ostream* os) {
  *os << "{" << m.name << " " << m.type << " " << m.op << " rollup=" << m.rollup << " " << m.value
      << "}";
}
void PrintTo(const NodeMetrics& n, std::ostream* os) {
  *os << "[";
  for (const Metric& m : n.metrics) PrintTo(m, os);
  *os << "] dataCenter=" << n.data_center;
}
}  // namespace trimaran::lw

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::trimaran::testing::IsOk;

constexpr int64_t kT0 = 1'700'000'000;  // the FakeClock's start (unix seconds)

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------------------------
// A local backend: an HTTPS HttpServer on 127.0.0.1:<ephemeral> that answers every
// path through `serve`, records every request, and can be told to answer one kind of
// request badly (a Fault) instead.

struct Fault {
  std::string path_prefix;  // requests whose path starts with this ...
  std::string query_has;    // ... and whose "query" parameter contains this ("" = any)
  int status = 500;
  std::string body;
};

class LocalBackend {
 public:
  using Serve = std::function<void(const http::ServerRequest&, http::ServerResponse&)>;

  // Makes a fresh PKI in a temp dir and starts the server with it.
  static absl::StatusOr<std::unique_ptr<LocalBackend>> Start(Serve serve) {
    std::string tmpl = ::testing::TempDir() + "/lw-providers-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) return absl::InternalError("mkdtemp failed");
    auto backend = std::unique_ptr<LocalBackend>(new LocalBackend(std::move(serve)));
    TRIMARAN_ASSIGN_OR_RETURN(backend->pki_, http::testing::MakeTestPki(tmpl));
    http::HttpServerOptions options;
    options.name = "fake-backend";
    options.tls_cert_file = backend->pki_.server.cert_file;
    options.tls_key_file = backend->pki_.server.key_file;
    options.worker_threads = 2;
    options.index = false;
    TRIMARAN_ASSIGN_OR_RETURN(backend->server_, http::HttpServer::Create(options));
    LocalBackend* self = backend.get();
    TRIMARAN_RETURN_IF_ERROR(backend->server_->AddRoute(
        http::Route{.path = "/",
                    .prefix = true,
                    .methods = {"GET"},
                    .help = "the recorded backend",
                    .handler = [self](const http::ServerRequest& req, http::ServerResponse& resp) {
                      self->Handle(req, resp);
                    }}));
    TRIMARAN_RETURN_IF_ERROR(backend->server_->Start());
    return backend;
  }

  std::string url() const { return server_->url(); }
  const http::testing::TestPki& pki() const { return pki_; }

  void SetFault(std::optional<Fault> fault) {
    absl::MutexLock lock(&mu_);
    fault_ = std::move(fault);
  }
  // The requests received since the last call, in arrival order.
  std::vector<http::ServerRequest> TakeRequests() {
    absl::MutexLock lock(&mu_);
    return std::exchange(requests_, {});
  }

 private:
  explicit LocalBackend(Serve serve) : serve_(std::move(serve)) {}

  void Handle(const http::ServerRequest& req, http::ServerResponse& resp) {
    std::optional<Fault> fault;
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(req);
      fault = fault_;
    }
    if (fault.has_value() && absl::StartsWith(req.path, fault->path_prefix) &&
        absl::StrContains(req.Query("query"), fault->query_has)) {
      resp.status = fault->status;
      resp.content_type = "application/json";
      resp.body = fault->body;
      return;
    }
    serve_(req, resp);
  }

  const Serve serve_;
  http::testing::TestPki pki_;
  http::HttpServerPtr server_;
  absl::Mutex mu_;
  std::vector<http::ServerRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::optional<Fault> fault_ ABSL_GUARDED_BY(mu_);
};

// The windows of one FetchOnce at kT0: {name, start} (end = kT0).
struct WindowSpec {
  std::string name;
  int64_t start;
};
const std::vector<WindowSpec>& Windows() {
  static const auto* const kWindows =
      new std::vector<WindowSpec>{{"15m", kT0 - 900}, {"10m", kT0 - 600}, {"5m", kT0 - 300}};
  return *kWindows;
}

lw::Metric MakeMetric(absl::string_view name, absl::string_view type, absl::string_view op,
                      double value) {
  return lw::Metric{.name = std::string(name),
                    .type = std::string(type),
                    .op = std::string(op),
                    .rollup = "",
                    .value = value};
}

// Every window's newest snapshot; fails the test when one is missing.
std::map<std::string, lw::Snapshot> LatestOfEachWindow(const lw::Watcher& watcher) {
  std::map<std::string, lw::Snapshot> out;
  for (const WindowSpec& w : Windows()) {
    std::vector<lw::Snapshot> history = watcher.History(w.name);
    EXPECT_FALSE(history.empty()) << w.name;
    if (!history.empty()) out.emplace(w.name, history.back());
  }
  return out;
}

// After a failed FetchOnce: every window still serves the snapshot of `good` (the same
// object), its age has grown by `age`, and exactly one failure is counted per window.
void ExpectKeptLastGood(const lw::Watcher& watcher, const stats::Registry& registry,
                        const std::map<std::string, lw::Snapshot>& good, absl::Duration age,
                        absl::string_view provider, int64_t errors_total) {
  for (const WindowSpec& w : Windows()) {
    SCOPED_TRACE(w.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Snapshot latest, watcher.Latest(w.name));
    EXPECT_EQ(latest.metrics, good.at(w.name).metrics);
    EXPECT_EQ(latest.fetch_time, absl::FromUnixSeconds(kT0));
    EXPECT_EQ(latest.Age(watcher.clock().Now()), age);
  }
  for (const lw::WindowStatus& s : watcher.Status()) {
    SCOPED_TRACE(s.window);
    EXPECT_EQ(s.fetches, 2);
    EXPECT_EQ(s.failed_fetches, 1);
    EXPECT_EQ(s.consecutive_failures, 1);
    EXPECT_FALSE(s.last_error.ok());
    EXPECT_EQ(s.last_good_fetch, absl::FromUnixSeconds(kT0));
  }
  const std::string text = registry.PrometheusText();
  EXPECT_THAT(
      text, HasSubstr(absl::StrFormat("trimaran_loadwatcher_fetch_errors_total{provider=\"%s\"} %d",
                                      provider, errors_total)));
  EXPECT_THAT(text, HasSubstr(absl::StrFormat("trimaran_loadwatcher_fetches_total{provider=\"%s\","
                                              "window=\"15m\",result=\"error\"} 1",
                                              provider)));
  EXPECT_THAT(
      text, HasSubstr(absl::StrFormat("trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"} %d",
                                      absl::ToInt64Seconds(age))));
}

// ---------------------------------------------------------------------------------
// SignalFx: /v1/timeserieswindow and /v2/metrictimeseries, answered with
// providers/signalfx/testdata.

constexpr char kSfxToken[] = "sfx-e2e-token";

class SignalFxLocalServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = TRIMARAN_SIGNALFX_TESTDATA;
    for (const char* file : {"timeserieswindow_cpu.json", "timeserieswindow_memory.json",
                             "metrictimeseries_cpu.json", "metrictimeseries_memory.json"}) {
      bodies_[file] = ReadFile(absl::StrCat(dir, "/", file));
      ASSERT_FALSE(bodies_[file].empty()) << file;
    }
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        backend_, LocalBackend::Start([this](const http::ServerRequest& req,
                                             http::ServerResponse& resp) { Serve(req, resp); }));
    http::CurlTransportOptions topts;
    topts.tls.ca_file = backend_->pki().ca.cert_file;  // HTTPS, verified against the test CA
    TRIMARAN_ASSERT_OK_AND_ASSIGN(transport_, http::CurlTransport::Create(topts));
  }

  // Answers as SignalFx does: the series of the metric named in the query.
  void Serve(const http::ServerRequest& req, http::ServerResponse& resp) {
    const absl::string_view query = req.Query("query");
    const std::string metric = absl::StrContains(query, "cpu.utilization")      ? "cpu"
                               : absl::StrContains(query, "memory.utilization") ? "memory"
                                                                                : "";
    std::string file;
    if (req.path == "/v1/timeserieswindow" && !metric.empty()) {
      file = absl::StrCat("timeserieswindow_", metric, ".json");
    } else if (req.path == "/v2/metrictimeseries" && !metric.empty()) {
      file = absl::StrCat("metrictimeseries_", metric, ".json");
    } else {
      resp.status = 404;
      resp.content_type = "application/json";
      resp.body = R"({"code":404,"message":"not found"})";
      return;
    }
    resp.content_type = "application/json";
    resp.body = bodies_.at(file);
  }

  std::unique_ptr<providers::signalfx::SignalFxProvider> NewProvider(std::string suffix,
                                                                     std::string cluster) {
    providers::signalfx::Options o;
    o.address = backend_->url() + "/";  // the trailing "/" is dropped
    o.token = kSfxToken;
    o.host_name_suffix = std::move(suffix);
    o.cluster_name = std::move(cluster);
    o.timeout = absl::Seconds(5);
    auto p = providers::signalfx::SignalFxProvider::Create(*transport_, std::move(o));
    EXPECT_THAT(p.status(), IsOk());
    return p.ok() ? std::move(*p) : nullptr;
  }

  // The snapshot data of the served testdata (the same for every window: the recorded
  // answers do not depend on startMs/endMs).
  //   CPU (timeserieswindow_cpu.json joined with metrictimeseries_cpu.json):
  //     AAAAAcpu001 host alpha.dev.k8s.com: 10, 20, 30           -> alpha
  //     AAAAAcpu002 host beta.dev.k8s.com:  50, null (skipped), 55 -> beta
  //     AAAAAcpu003 host beta.dev.k8s.com:  60                    -> beta (pooled)
  //     AAAAAcpu004: no metadata; AAAAAcpu005 (gamma): no points   -> skipped (1 partial error)
  //     alpha = (10 + 20 + 30) / 3 = 20;  beta = (50 + 55 + 60) / 3 = 55
  //   Memory: AAAAAmem001 alpha: (40.5 + 41.5) / 2 = 41; AAAAAmem002 host "beta": 70;
  //     AAAAAmem003 (delta) has no data -> not a node.
  static lw::NodeMetricsMap ExpectedNodes() {
    constexpr absl::string_view kCpu = providers::signalfx::kCpuMetric;
    constexpr absl::string_view kMem = providers::signalfx::kMemoryMetric;
    lw::NodeMetricsMap m;
    m["alpha"].metrics = {MakeMetric(kCpu, "CPU", "AVG", 20),
                          MakeMetric(kMem, "Memory", "AVG", 41)};
    m["beta"].metrics = {MakeMetric(kCpu, "CPU", "AVG", 55), MakeMetric(kMem, "Memory", "AVG", 70)};
    return m;
  }

  std::map<std::string, std::string> bodies_;
  std::unique_ptr<LocalBackend> backend_;
  std::unique_ptr<http::CurlTransport> transport_;
  trimaran::testing::FakeClock clock_{absl::FromUnixSeconds(kT0)};
  stats::Registry registry_;
};

TEST_F(SignalFxLocalServerTest, WatcherSnapshotAndRequestsOverHttps) {
  struct Case {
    std::string name;
    std::string suffix;
    std::string cluster;
    std::string want_query_prefix;  // the decoded `query` before the metric term
  };
  const std::vector<Case> cases = {
      {"suffix and cluster filters", ".dev.k8s.com", "dev",
       "host:*.dev.k8s.com AND cluster:dev AND "},
      {"no filters", "", "", "host:* AND "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    stats::Registry registry;
    auto provider = NewProvider(c.suffix, c.cluster);
    ASSERT_NE(provider, nullptr);
    lw::Watcher watcher(*provider, clock_, stats::Scope(registry, "trimaran_loadwatcher_"));
    backend_->TakeRequests();

    ASSERT_THAT(watcher.FetchOnce(), IsOk());

    // The snapshot of every window: exact values, source, window bounds.
    for (const auto& [window, snap] : LatestOfEachWindow(watcher)) {
      SCOPED_TRACE(window);
      EXPECT_EQ(snap.metrics->source, "SignalFx");
      EXPECT_EQ(snap.metrics->timestamp, kT0);
      EXPECT_EQ(snap.metrics->window.duration, window);
      EXPECT_EQ(snap.metrics->window.end, kT0);
      EXPECT_EQ(snap.metrics->data.node_metrics_map, ExpectedNodes());
    }
    // One partial error per window (the two skipped CPU series), counted.
    for (const lw::WindowStatus& s : watcher.Status()) {
      EXPECT_EQ(s.partial_errors, 1) << s.window;
      EXPECT_THAT(s.last_error.message(), HasSubstr("skipped 2 series")) << s.window;
    }
    EXPECT_THAT(registry.PrometheusText(),
                HasSubstr("trimaran_loadwatcher_fetch_errors_total{provider=\"SignalFx\"} 3"));

    // The requests: per window (15m, 10m, 5m) CPU data, CPU metadata, memory data,
    // memory metadata; startMs/endMs = the window in milliseconds.
    const std::vector<http::ServerRequest> reqs = backend_->TakeRequests();
    ASSERT_THAT(reqs, SizeIs(3 * 4));
    size_t i = 0;
    for (const WindowSpec& w : Windows()) {
      for (absl::string_view metric :
           {providers::signalfx::kCpuMetric, providers::signalfx::kMemoryMetric}) {
        SCOPED_TRACE(absl::StrCat(w.name, " ", metric));
        const std::string want_query = absl::StrCat(c.want_query_prefix, metric);
        const http::ServerRequest& data = reqs[i++];
        const http::ServerRequest& meta = reqs[i++];
        EXPECT_EQ(data.method, "GET");
        EXPECT_EQ(data.path, "/v1/timeserieswindow");
        EXPECT_EQ(data.Query("query"), want_query);
        EXPECT_EQ(data.Query("startMs"), absl::StrCat(w.start * 1000));  // 15m: 1699999100000
        EXPECT_EQ(data.Query("endMs"), absl::StrCat(kT0 * 1000));        // 1700000000000
        EXPECT_EQ(data.Query("resolution"), "60000");
        EXPECT_EQ(data.query.size(), 4u);
        EXPECT_EQ(meta.method, "GET");
        EXPECT_EQ(meta.path, "/v2/metrictimeseries");
        EXPECT_EQ(meta.Query("query"), want_query);
        EXPECT_EQ(meta.Query("limit"), "10000");
        EXPECT_EQ(meta.query.size(), 2u);
        for (const http::ServerRequest* r : {&data, &meta}) {
          EXPECT_EQ(r->headers.GetOr("X-SF-Token"), kSfxToken);
          EXPECT_EQ(r->headers.GetOr("Content-Type"), "application/json");
        }
      }
    }
  }
}

TEST_F(SignalFxLocalServerTest, BadBackendKeepsLastGoodSnapshotAndCountsErrors) {
  struct Case {
    std::string name;
    Fault fault;
    std::string want_error;
  };
  const std::vector<Case> cases = {
      {"HTTP 500 on every request",
       {.path_prefix = "/", .status = 500, .body = R"({"code":500,"message":"boom"})"},
       "(HTTP 500)"},
      {"garbage 200 bodies",
       {.path_prefix = "/", .status = 200, .body = "<html>maintenance</html>"},
       "decode signalfx"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    clock_.SetTime(absl::FromUnixSeconds(kT0));
    stats::Registry registry;
    auto provider = NewProvider(".dev.k8s.com", "dev");
    ASSERT_NE(provider, nullptr);
    lw::Watcher watcher(*provider, clock_, stats::Scope(registry, "trimaran_loadwatcher_"));
    backend_->SetFault(std::nullopt);
    ASSERT_THAT(watcher.FetchOnce(), IsOk());
    const std::map<std::string, lw::Snapshot> good = LatestOfEachWindow(watcher);

    // Both metrics fail -> the whole fetch fails for every window.
    backend_->SetFault(c.fault);
    clock_.Advance(absl::Seconds(30));
    const absl::Status bad = watcher.FetchOnce();
    EXPECT_FALSE(bad.ok());
    EXPECT_THAT(bad.message(), HasSubstr(c.want_error));
    EXPECT_THAT(bad.message(), HasSubstr("fetch window 15m from SignalFx"));
    // Errors: 3 partial (first fetch, one per window) + 3 failed fetches = 6.
    ExpectKeptLastGood(watcher, registry, good, absl::Seconds(30), "SignalFx", 6);

    // The backend recovers: the next fetch stores a new snapshot.
    backend_->SetFault(std::nullopt);
    clock_.Advance(absl::Seconds(30));
    ASSERT_THAT(watcher.FetchOnce(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Snapshot latest, watcher.Latest("15m"));
    EXPECT_EQ(latest.fetch_time, absl::FromUnixSeconds(kT0 + 60));
    EXPECT_EQ(latest.metrics->data.node_metrics_map, ExpectedNodes());
  }
}

TEST_F(SignalFxLocalServerTest, OneMetricFailingKeepsTheOther) {
  auto provider = NewProvider(".dev.k8s.com", "dev");
  ASSERT_NE(provider, nullptr);
  lw::Watcher watcher(*provider, clock_, stats::Scope(registry_, "trimaran_loadwatcher_"));
  // Only the CPU data query answers 503.
  backend_->SetFault(Fault{.path_prefix = "/v1/timeserieswindow",
                           .query_has = "cpu.utilization",
                           .status = 503,
                           .body = R"({"message":"try later"})"});
  ASSERT_THAT(watcher.FetchOnce(), IsOk());
  // Memory alone: alpha 41, beta 70 (see ExpectedNodes); the CPU failure is the one
  // partial error of each window.
  lw::NodeMetricsMap want;
  want["alpha"].metrics = {MakeMetric(providers::signalfx::kMemoryMetric, "Memory", "AVG", 41)};
  want["beta"].metrics = {MakeMetric(providers::signalfx::kMemoryMetric, "Memory", "AVG", 70)};
  for (const auto& [window, snap] : LatestOfEachWindow(watcher)) {
    EXPECT_EQ(snap.metrics->data.node_metrics_map, want) << window;
  }
  for (const lw::WindowStatus& s : watcher.Status()) {
    EXPECT_EQ(s.partial_errors, 1) << s.window;
    EXPECT_THAT(s.last_error.message(), HasSubstr("(HTTP 503)")) << s.window;
  }
}

// ---------------------------------------------------------------------------------
// metrics-server: GET /apis/metrics.k8s.io/v1beta1/nodes (providers/metrics_server/
// testdata/node_metrics.json) and GET /api/v1/nodes (capacities), served as a
// kube-apiserver would: a bearer token is required, and the node list comes in two
// pages joined by a continue token.

constexpr char kKubeToken[] = "kube-e2e-token";
constexpr char kContinue[] =
    "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTkzLCJzdGFydCI6Im5vZGUtYlx1MDAwMCJ9";

// One item of a NodeList, in the shape of kube/api/testdata/apiserver-1.37/node_list.json.
std::string NodeJson(absl::string_view name, int rv, absl::string_view cpu, absl::string_view mem,
                     absl::string_view alloc_cpu, absl::string_view alloc_mem) {
  return absl::StrFormat(
      R"({"metadata":{"name":"%s","uid":"6377e475-d0b5-4c49-8eb2-16884739%04d","resourceVersion":"%d",)"
      R"("creationTimestamp":"2026-11-22T00:33:07Z","labels":{"kubernetes.io/hostname":"%s"}},)"
      R"("spec":{},)"
      R"("status":{"capacity":{"cpu":"%s","ephemeral-storage":"100Gi","memory":"%s","pods":"110"},)"
      R"("allocatable":{"cpu":"%s","ephemeral-storage":"95Gi","memory":"%s","pods":"110"},)"
      R"("conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-11-21T10:00:00Z",)"
      R"("lastTransitionTime":"2026-11-21T09:00:00Z","reason":"KubeletReady",)"
      R"("message":"kubelet is posting ready status"}],)"
      R"("addresses":[{"type":"InternalIP","address":"10.0.1.%d"},{"type":"Hostname","address":"%s"}],)"
      R"("daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},)"
      R"("nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"5.10.0",)"
      R"("osImage":"Debian GNU/Linux 12","containerRuntimeVersion":"containerd://1.4.3",)"
      R"("kubeletVersion":"v1.37.2","kubeProxyVersion":"v1.37.2","operatingSystem":"linux",)"
      R"("architecture":"amd64"}}})",
      name, rv, rv, name, cpu, mem, alloc_cpu, alloc_mem, rv, name);
}

std::string NodeListJson(const std::vector<std::string>& items, absl::string_view continue_token,
                         int remaining) {
  std::string meta = R"("resourceVersion":"193")";
  if (!continue_token.empty()) {
    absl::StrAppend(&meta, R"(,"continue":")", continue_token, R"(","remainingItemCount":)",
                    remaining);
  }
  std::string out =
      absl::StrCat(R"({"kind":"NodeList","apiVersion":"v1","metadata":{)", meta, R"(},"items":[)");
  for (size_t i = 0; i < items.size(); ++i) absl::StrAppend(&out, i ? "," : "", items[i]);
  absl::StrAppend(&out, "]}");
  return out;
}

std::string StatusJson(int code, absl::string_view reason, absl::string_view message) {
  return absl::StrFormat(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                         R"("message":"%s","reason":"%s","code":%d})",
                         message, reason, code);
}

class MetricsServerLocalServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metrics_body_ = ReadFile(std::string(TRIMARAN_METRICS_SERVER_TESTDATA) + "/node_metrics.json");
    ASSERT_FALSE(metrics_body_.empty());
    // Page 1: node-a (4 cores, 8Gi), node-b (2 cores, 4Gi); page 2: node-bad and
    // node-new (4 cores, 8Gi each). Allocatable differs from capacity, which the
    // provider must not use by default.
    page1_ = NodeListJson({NodeJson("node-a", 101, "4", "8Gi", "3900m", "7Gi"),
                           NodeJson("node-b", 102, "2", "4Gi", "1", "2Gi")},
                          kContinue, 2);
    page2_ = NodeListJson({NodeJson("node-bad", 103, "4", "8Gi", "4", "8Gi"),
                           NodeJson("node-new", 104, "4", "8Gi", "4", "8Gi")},
                          "", 0);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        backend_, LocalBackend::Start([this](const http::ServerRequest& req,
                                             http::ServerResponse& resp) { Serve(req, resp); }));
    kube::RestConfig config;
    config.server = backend_->url();
    config.tls.ca_file = backend_->pki().ca.cert_file;
    config.bearer_token = kKubeToken;
    config.source = "e2e";
    kube::RestClientOptions options;
    options.max_retries = 1;  // a 5xx GET is retried once
    options.initial_backoff = absl::Milliseconds(1);
    options.max_backoff = absl::Milliseconds(1);
    options.request_timeout = absl::Seconds(5);
    // The RestClient sleeps its backoff on this clock: real time (1 ms).
    TRIMARAN_ASSERT_OK_AND_ASSIGN(client_,
                                  kube::RestClient::Create(config, RealClock::Get(), options));
    provider_ = std::make_unique<providers::metrics_server::MetricsServerProvider>(*client_);
  }

  void Serve(const http::ServerRequest& req, http::ServerResponse& resp) {
    resp.content_type = "application/json";
    if (req.headers.GetOr("Authorization") != absl::StrCat("Bearer ", kKubeToken)) {
      resp.status = 401;
      resp.body = StatusJson(401, "Unauthorized", "Unauthorized");
      return;
    }
    if (req.path == providers::metrics_server::kNodeMetricsPath) {
      resp.body = metrics_body_;
    } else if (req.path == "/api/v1/nodes" && !req.HasQuery("continue")) {
      resp.body = page1_;
    } else if (req.path == "/api/v1/nodes" && req.Query("continue") == kContinue) {
      resp.body = page2_;
    } else {
      resp.status = 404;
      resp.body = StatusJson(404, "NotFound", "the server could not find the requested resource");
    }
  }

  // node_metrics.json over the served capacities (node.status.capacity):
  //   node-a: cpu 500000000n = 500m of 4 cores = 4000m -> 100 * 500 / 4000 = 12.5
  //           memory 2097152Ki = 2Gi of 8Gi             -> 100 * 2 / 8 = 25
  //   node-b: cpu 1234567n -> 2m (MilliValue rounds up) of 2000m -> 100 * 2 / 2000 = 0.1
  //           memory 2048Ki = 2097152 B of 4Gi = 4294967296 B
  //                                            -> 100 * 2097152 / 4294967296 = 0.048828125
  //   node-gone (not a node), node-bad (cpu "lots"), node-new (no metrics): not in the
  //   snapshot; 3 partial errors per window.
  static lw::NodeMetricsMap ExpectedNodes() {
    lw::NodeMetricsMap m;
    m["node-a"].metrics = {MakeMetric("", "CPU", "Latest", 12.5),
                           MakeMetric("", "Memory", "Latest", 25)};
    m["node-b"].metrics = {MakeMetric("", "CPU", "Latest", 0.1),
                           MakeMetric("", "Memory", "Latest", 0.048828125)};
    return m;
  }

  std::string metrics_body_, page1_, page2_;
  std::unique_ptr<LocalBackend> backend_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<providers::metrics_server::MetricsServerProvider> provider_;
  trimaran::testing::FakeClock clock_{absl::FromUnixSeconds(kT0)};
};

TEST_F(MetricsServerLocalServerTest, WatcherSnapshotAndRequestsOverHttps) {
  stats::Registry registry;
  lw::Watcher watcher(*provider_, clock_, stats::Scope(registry, "trimaran_loadwatcher_"));
  ASSERT_THAT(watcher.FetchOnce(), IsOk());

  for (const auto& [window, snap] : LatestOfEachWindow(watcher)) {
    SCOPED_TRACE(window);
    EXPECT_EQ(snap.metrics->source, "KubernetesMetricsServer");
    EXPECT_EQ(snap.metrics->timestamp, kT0);
    EXPECT_EQ(snap.metrics->window.end, kT0);
    EXPECT_EQ(snap.metrics->data.node_metrics_map, ExpectedNodes());
  }
  for (const lw::WindowStatus& s : watcher.Status()) {
    EXPECT_EQ(s.partial_errors, 3) << s.window;
    EXPECT_EQ(s.failed_fetches, 0) << s.window;
  }
  // 3 partial errors x 3 windows.
  EXPECT_THAT(registry.PrometheusText(),
              HasSubstr("trimaran_loadwatcher_fetch_errors_total{provider="
                        "\"KubernetesMetricsServer\"} 9"));

  // Per window: the metrics list, then both node pages (limit=500, then the continue
  // token); every request authenticated and asking for JSON.
  const std::vector<http::ServerRequest> reqs = backend_->TakeRequests();
  ASSERT_THAT(reqs, SizeIs(3 * 3));
  for (size_t w = 0; w < 3; ++w) {
    SCOPED_TRACE(Windows()[w].name);
    const http::ServerRequest& metrics = reqs[3 * w];
    const http::ServerRequest& first = reqs[3 * w + 1];
    const http::ServerRequest& second = reqs[3 * w + 2];
    EXPECT_EQ(metrics.path, "/apis/metrics.k8s.io/v1beta1/nodes");
    EXPECT_TRUE(metrics.query.empty());
    EXPECT_EQ(first.path, "/api/v1/nodes");
    EXPECT_EQ(first.Query("limit"), "500");
    EXPECT_FALSE(first.HasQuery("continue"));
    EXPECT_EQ(second.path, "/api/v1/nodes");
    EXPECT_EQ(second.Query("limit"), "500");
    EXPECT_EQ(second.Query("continue"), kContinue);
    for (const http::ServerRequest* r : {&metrics, &first, &second}) {
      EXPECT_EQ(r->method, "GET");
      EXPECT_EQ(r->headers.GetOr("Authorization"), absl::StrCat("Bearer ", kKubeToken));
      EXPECT_EQ(r->headers.GetOr("Accept"), "application/json");
    }
  }
  EXPECT_THAT(provider_->Health(), IsOk());
}

TEST_F(MetricsServerLocalServerTest, BadBackendKeepsLastGoodSnapshotAndCountsErrors) {
  struct Case {
    std::string name;
    Fault fault;
    std::string want_error;
    size_t requests_per_window;  // in the failed fetch
  };
  const std::vector<Case> cases = {
      // A 500 is retried once by the RestClient, then the fetch fails.
      {"metrics API 500",
       {.path_prefix = "/apis/metrics.k8s.io/",
        .status = 500,
        .body = StatusJson(500, "InternalError", "metrics-server unavailable")},
       "list node metrics",
       2},
      {"metrics API garbage",
       {.path_prefix = "/apis/metrics.k8s.io/", .status = 200, .body = "{\"items\": [tru"},
       "decode NodeMetricsList",
       1},
      // The metrics list succeeds; the node list fails (500, retried once).
      {"node list 500",
       {.path_prefix = "/api/v1/nodes",
        .status = 500,
        .body = StatusJson(500, "InternalError", "etcdserver: leader changed")},
       "list nodes for capacities",
       3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    clock_.SetTime(absl::FromUnixSeconds(kT0));
    stats::Registry registry;
    lw::Watcher watcher(*provider_, clock_, stats::Scope(registry, "trimaran_loadwatcher_"));
    backend_->SetFault(std::nullopt);
    ASSERT_THAT(watcher.FetchOnce(), IsOk());
    const std::map<std::string, lw::Snapshot> good = LatestOfEachWindow(watcher);
    backend_->TakeRequests();

    backend_->SetFault(c.fault);
    clock_.Advance(absl::Seconds(30));
    const absl::Status bad = watcher.FetchOnce();
    EXPECT_FALSE(bad.ok());
    EXPECT_THAT(bad.message(), HasSubstr(c.want_error));
    EXPECT_THAT(bad.message(), HasSubstr("fetch window 15m from KubernetesMetricsServer"));
    EXPECT_THAT(backend_->TakeRequests(), SizeIs(3 * c.requests_per_window));
    // Errors: 9 partial (first fetch, 3 per window) + 3 failed fetches = 12.
    ExpectKeptLastGood(watcher, registry, good, absl::Seconds(30), "KubernetesMetricsServer", 12);

    backend_->SetFault(std::nullopt);
    clock_.Advance(absl::Seconds(30));
    ASSERT_THAT(watcher.FetchOnce(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Snapshot latest, watcher.Latest("15m"));
    EXPECT_EQ(latest.fetch_time, absl::FromUnixSeconds(kT0 + 60));
    EXPECT_EQ(latest.metrics->data.node_metrics_map, ExpectedNodes());
  }
}

}  // namespace
}  // namespace trimaran::e2e
