#include "providers/prometheus/prometheus_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/http/testing/fake_transport.h"
#include "common/testing/status_matchers.h"

namespace trimaran::providers::prometheus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::http::testing::FakeTransport;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr char kAddr[] = "http://prom:9090";
constexpr char kQueryUrl[] = "http://prom:9090/api/v1/query";
constexpr char kCpuAvg[] = "avg_over_time(instance:node_cpu:ratio[15m])";
constexpr char kMemAvg[] = "avg_over_time(instance:node_memory_utilisation:ratio[15m])";
constexpr char kCpuStd[] = "stddev_over_time(instance:node_cpu:ratio[15m])";
constexpr char kMemStd[] = "stddev_over_time(instance:node_memory_utilisation:ratio[15m])";

std::string Testdata(const std::string& name) {
  std::ifstream in(absl::StrCat(TRIMARAN_PROMETHEUS_TESTDATA, "/", name));
  EXPECT_TRUE(in.good()) << "missing testdata " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string PercentDecode(absl::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else if (in[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

// The decoded "query" parameter of a POST body or GET URL.
std::string QueryOf(const http::HttpRequest& req) {
  absl::string_view params = req.body;
  if (req.method == "GET") {
    size_t q = req.url.find('?');
    params = q == std::string::npos ? "" : absl::string_view(req.url).substr(q + 1);
  }
  for (absl::string_view kv : absl::StrSplit(params, '&')) {
    if (absl::StartsWith(kv, "query=")) return PercentDecode(kv.substr(6));
  }
  return "";
}

struct Answer {
  int code = 200;
  std::string body;
  absl::Status error = absl::OkStatus();
};

// Answers POST (and GET) /api/v1/query from `answers` keyed by the decoded query;
// unknown queries get an empty vector.
void Serve(FakeTransport& fake, std::map<std::string, Answer> answers, std::string method = "") {
  fake.AddHandler(std::move(method), kQueryUrl,
                  [answers](const http::HttpRequest& req) -> absl::StatusOr<http::HttpResponse> {
                    auto it = answers.find(QueryOf(req));
                    if (it == answers.end()) {
                      return http::HttpResponse{.status_code = 200, .body = Testdata("empty.json")};
                    }
                    if (!it->second.error.ok()) return it->second.error;
                    return http::HttpResponse{.status_code = it->second.code,
                                              .body = it->second.body};
                  });
}

std::unique_ptr<PrometheusProvider> NewProvider(FakeTransport* fake,
                                                PrometheusOptions options = {}) {
  if (options.address == kDefaultAddress) options.address = kAddr;
  auto p = PrometheusProvider::Create(std::move(options), fake);
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

const lw::Window kWindow{.duration = "15m", .start = 1699999160, .end = 1700000060};

std::vector<NodeRef> Nodes() {
  return {{.name = "node-1", .addresses = {"10.0.0.1"}},
          {.name = "node-2", .addresses = {"10.0.0.2"}},
          {.name = "node-3", .addresses = {"10.0.0.3"}},
          {.name = "node-4", .addresses = {"fd00::4"}}};
}

const lw::Metric* Find(const lw::HostsMetrics& m, const std::string& node, absl::string_view type,
                       absl::string_view op) {
  auto it = m.nodes.find(node);
  if (it == m.nodes.end()) return nullptr;
  for (const lw::Metric& metric : it->second.metrics) {
    if (metric.type == type && metric.op == op) return &metric;
  }
  return nullptr;
}

TEST(PrometheusOptionsTest, DefaultQueriesGolden) {
  std::vector<std::string> exprs, names, types, ops;
  for (const QuerySpec& q : DefaultQueries()) {
    exprs.push_back(ExpandQuery(q.expr, "15m"));
    names.push_back(q.name);
    types.push_back(q.type);
    ops.push_back(q.op);
    EXPECT_EQ(q.scale, 100);
  }
  EXPECT_THAT(exprs, ElementsAre(kCpuAvg, kMemAvg, kCpuStd, kMemStd));
  EXPECT_THAT(names,
              ElementsAre("instance:node_cpu:ratio", "instance:node_memory_utilisation:ratio",
                          "instance:node_cpu:ratio", "instance:node_memory_utilisation:ratio"));
  EXPECT_THAT(types, ElementsAre("CPU", "Memory", "CPU", "Memory"));
  EXPECT_THAT(ops, ElementsAre("AVG", "AVG", "STD", "STD"));
  EXPECT_EQ(ExpandQuery(DefaultQueries()[0].expr, "5m"),
            "avg_over_time(instance:node_cpu:ratio[5m])");
}

TEST(PrometheusProviderTest, CreateValidates) {
  FakeTransport fake;
  struct Case {
    std::string name;
    PrometheusOptions options;
  };
  std::vector<Case> cases = {
      {"no scheme", {.address = "prom:9090"}},
      {"token and file", {.address = kAddr, .bearer_token = "a", .bearer_token_file = "/f"}},
      {"zero timeout", {.address = kAddr, .query_timeout = absl::ZeroDuration()}},
      {"no queries", {.address = kAddr, .queries = {}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(PrometheusProvider::Create(c.options, &fake).status(),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  EXPECT_THAT(PrometheusProvider::Create({}, nullptr).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(PrometheusProviderTest, PostBodyHeadersTimeoutAndTls) {
  FakeTransport fake;
  Serve(fake, {});
  PrometheusOptions options;
  options.bearer_token = "s3cr3t";
  options.query_timeout = absl::Seconds(7);
  options.tls.insecure_skip_verify = true;
  auto provider = NewProvider(&fake, options);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics m, provider->FetchAllHostsMetrics(kWindow));
  EXPECT_TRUE(m.nodes.empty());
  EXPECT_TRUE(m.partial_errors.empty());
  std::vector<http::HttpRequest> reqs = fake.Requests();
  ASSERT_EQ(reqs.size(), 4u);  // one per default query
  const http::HttpRequest& r = reqs[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, kQueryUrl);
  EXPECT_EQ(r.body,
            "query=avg_over_time%28instance%3Anode_cpu%3Aratio%5B15m%5D%29&time=1700000060");
  EXPECT_EQ(r.headers.GetOr("Content-Type"), "application/x-www-form-urlencoded");
  EXPECT_EQ(r.headers.GetOr("Authorization"), "Bearer s3cr3t");
  EXPECT_EQ(r.timeout, absl::Seconds(7));
  ASSERT_TRUE(r.tls.has_value());
  EXPECT_TRUE(r.tls->insecure_skip_verify);
  EXPECT_EQ(QueryOf(reqs[3]), kMemStd);
}

TEST(PrometheusProviderTest, ExtraHeadersAndOtherSeries) {
  FakeTransport fake;
  Serve(fake, {});
  PrometheusOptions options;
  options.headers = {{"X-Scope-OrgID", "tenant-1"}};
  options.queries = QueriesFor("node:cpu:ratio", "node:mem:ratio");
  auto provider = NewProvider(&fake, options);
  ASSERT_THAT(provider->FetchAllHostsMetrics(kWindow).status(), IsOk());
  std::vector<http::HttpRequest> reqs = fake.Requests();
  ASSERT_EQ(reqs.size(), 4u);
  for (const http::HttpRequest& r : reqs) EXPECT_EQ(r.headers.GetOr("X-Scope-OrgID"), "tenant-1");
  EXPECT_EQ(QueryOf(reqs[0]), "avg_over_time(node:cpu:ratio[15m])");
  EXPECT_EQ(QueryOf(reqs[3]), "stddev_over_time(node:mem:ratio[15m])");
  EXPECT_EQ(QueriesFor(kDefaultCpuMetric, kDefaultMemoryMetric), DefaultQueries());
}

TEST(PrometheusProviderTest, NoTokenNoAuthorizationNoTls) {
  FakeTransport fake;
  Serve(fake, {});
  auto provider = NewProvider(&fake);
  ASSERT_THAT(provider->FetchAllHostsMetrics(kWindow).status(), IsOk());
  auto r = fake.LastRequest();
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->headers.Has("Authorization"));
  EXPECT_FALSE(r->tls.has_value());
}

TEST(PrometheusProviderTest, TokenFileIsReadAndTrimmed) {
  const std::string path = ::testing::TempDir() + "/prom_token";
  {
    std::ofstream out(path);
    out << "from-file\n";
  }
  FakeTransport fake;
  Serve(fake, {});
  PrometheusOptions options;
  options.bearer_token_file = path;
  auto provider = NewProvider(&fake, options);
  ASSERT_THAT(provider->FetchAllHostsMetrics(kWindow).status(), IsOk());
  EXPECT_EQ(fake.LastRequest()->headers.GetOr("Authorization"), "Bearer from-file");
  std::remove(path.c_str());
  EXPECT_THAT(provider->FetchAllHostsMetrics(kWindow).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(PrometheusProviderTest, MapsLabelValuesToNodes) {
  FakeTransport fake;
  auto provider = NewProvider(&fake);
  struct Case {
    std::string value;
    std::string want;
  };
  // Without known nodes: port and domain are removed, IPs kept whole.
  for (const Case& c : std::vector<Case>{{"node-1", "node-1"},
                                         {"node-1.example.com:9100", "node-1"},
                                         {"10.0.0.2:9100", "10.0.0.2"}}) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(provider->MapLabelForTest(c.value), c.want);
  }
  provider->SetNodes(Nodes());
  for (const Case& c : std::vector<Case>{{"node-1", "node-1"},
                                         {"10.0.0.2", "node-2"},
                                         {"10.0.0.2:9100", "node-2"},
                                         {"node-3.example.com", "node-3"},
                                         {"node-3.example.com:9100", "node-3"},
                                         {"[fd00::4]:9100", "node-4"},
                                         {"fd00::4", "node-4"},
                                         {"stranger", ""},
                                         {"10.0.0.9:9100", ""}}) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(provider->MapLabelForTest(c.value), c.want);
  }
}

TEST(PrometheusProviderTest, FetchMapsAndScalesToPercentages) {
  FakeTransport fake;
  Serve(fake, {{kCpuAvg, {.body = Testdata("cpu_avg.json")}},
               {kMemAvg, {.body = Testdata("mem_avg.json")}}});
  auto provider = NewProvider(&fake);
  provider->SetNodes(Nodes());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics m, provider->FetchAllHostsMetrics(kWindow));
  EXPECT_TRUE(m.partial_errors.empty());
  EXPECT_EQ(m.nodes.size(), 3u);  // node-1, node-2 (by IP:port and IP), node-3 (FQDN)
  EXPECT_FALSE(m.nodes.contains("stranger"));
  struct Case {
    std::string node;
    std::string type;
    double want;
  };
  for (const Case& c : std::vector<Case>{{"node-1", "CPU", 23.5},     // 0.235 x 100
                                         {"node-1", "Memory", 41.2},  // 0.412 x 100
                                         {"node-2", "CPU", 50},       // 0.5 x 100
                                         {"node-2", "Memory", 25},    // 0.25 x 100
                                         {"node-3", "CPU", 12.5}}) {  // 0.125 x 100
    SCOPED_TRACE(c.node + " " + c.type);
    const lw::Metric* metric = Find(m, c.node, c.type, "AVG");
    ASSERT_NE(metric, nullptr);
    EXPECT_NEAR(metric->value, c.want, 1e-9);
    EXPECT_EQ(metric->rollup, "15m");
  }
  const lw::Metric* cpu = Find(m, "node-1", "CPU", "AVG");
  EXPECT_EQ(cpu->name, "instance:node_cpu:ratio");
  EXPECT_EQ(Find(m, "node-3", "Memory", "AVG"), nullptr);
}

TEST(PrometheusProviderTest, CustomNodeLabel) {
  FakeTransport fake;
  Serve(fake, {{kCpuAvg, {.body = Testdata("custom_label.json")}}});
  PrometheusOptions options;
  options.node_labels = {"node", "kubernetes_node", "instance"};
  auto provider = NewProvider(&fake, options);
  provider->SetNodes(Nodes());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics m, provider->FetchAllHostsMetrics(kWindow));
  ASSERT_NE(Find(m, "node-2", "CPU", "AVG"), nullptr);            // by kubernetes_node
  EXPECT_NEAR(Find(m, "node-2", "CPU", "AVG")->value, 75, 1e-9);  // 0.75 x 100
  ASSERT_NE(Find(m, "node-1", "CPU", "AVG"), nullptr);            // by node
  EXPECT_NEAR(Find(m, "node-1", "CPU", "AVG")->value, 10, 1e-9);  // 0.1 x 100
}

TEST(PrometheusProviderTest, OneFailingQueryKeepsTheOthers) {
  struct Case {
    std::string name;
    Answer cpu;
    absl::StatusCode want;
    std::string want_text;
  };
  std::vector<Case> cases = {
      {"http 500", {.code = 500, .body = "internal"}, absl::StatusCode::kUnavailable, "HTTP 500"},
      {"http 400 api error",
       {.code = 400, .body = Testdata("error_bad_data.json")},
       absl::StatusCode::kInvalidArgument,
       "bad_data"},
      {"garbage", {.body = "<html>oops"}, absl::StatusCode::kDataLoss, "not a JSON object"},
      // Issue 30: nesting past the shared depth limit is refused, never a crash.
      {"million brackets",
       {.body = std::string(1'000'000, '[')},
       absl::StatusCode::kDataLoss,
       "nested deeper than 512 levels"},
      {"status error",
       {.body = Testdata("error_bad_data.json")},
       absl::StatusCode::kFailedPrecondition,
       "parse error"},
      {"scalar", {.body = Testdata("scalar.json")}, absl::StatusCode::kInvalidArgument, "scalar"},
      {"timeout",
       {.error = absl::DeadlineExceededError("POST http://prom:9090/api/v1/query: timed out")},
       absl::StatusCode::kDeadlineExceeded,
       "timed out"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeTransport fake;
    Serve(fake, {{kCpuAvg, c.cpu}, {kMemAvg, {.body = Testdata("mem_avg.json")}}});
    auto provider = NewProvider(&fake);
    provider->SetNodes(Nodes());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics m, provider->FetchAllHostsMetrics(kWindow));
    ASSERT_EQ(m.partial_errors.size(), 1u);
    EXPECT_EQ(m.partial_errors[0].code(), c.want) << m.partial_errors[0];
    EXPECT_THAT(m.partial_errors[0].message(), HasSubstr(kCpuAvg));
    EXPECT_THAT(m.partial_errors[0].message(), HasSubstr(c.want_text));
    EXPECT_EQ(Find(m, "node-1", "CPU", "AVG"), nullptr);
    ASSERT_NE(Find(m, "node-1", "Memory", "AVG"), nullptr);  // memory survived
    EXPECT_NEAR(Find(m, "node-1", "Memory", "AVG")->value, 41.2, 1e-9);
  }
}

TEST(PrometheusProviderTest, AllQueriesFailingIsAnError) {
  FakeTransport fake;
  fake.AddError("", kQueryUrl, absl::UnavailableError("connection refused"));
  auto provider = NewProvider(&fake);
  EXPECT_THAT(provider->FetchAllHostsMetrics(kWindow).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("all 4 queries failed")));
}

TEST(PrometheusProviderTest, FallsBackToGetOn405) {
  FakeTransport fake;
  fake.AddResponse("POST", kQueryUrl, 405, "method not allowed");
  Serve(fake, {{kCpuAvg, {.body = Testdata("cpu_avg.json")}}}, "GET");
  auto provider = NewProvider(&fake);
  provider->SetNodes(Nodes());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics m, provider->FetchAllHostsMetrics(kWindow));
  EXPECT_TRUE(m.partial_errors.empty());
  ASSERT_NE(Find(m, "node-1", "CPU", "AVG"), nullptr);
  std::vector<http::HttpRequest> reqs = fake.Requests();
  ASSERT_EQ(reqs.size(), 8u);  // POST + GET per query
  EXPECT_EQ(reqs[1].method, "GET");
  EXPECT_EQ(reqs[1].url,
            absl::StrCat(kQueryUrl,
                         "?query=avg_over_time%28instance%3Anode_cpu%3Aratio%5B15m%5D%29"
                         "&time=1700000060"));
  EXPECT_TRUE(reqs[1].body.empty());
}

TEST(PrometheusProviderTest, FetchHostMetrics) {
  FakeTransport fake;
  Serve(fake, {{kCpuAvg, {.body = Testdata("cpu_avg.json")}}});
  auto provider = NewProvider(&fake);
  provider->SetNodes(Nodes());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<lw::Metric> metrics,
                                provider->FetchHostMetrics("node-2", kWindow));
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_NEAR(metrics[0].value, 50, 1e-9);  // 0.5 x 100
  EXPECT_THAT(provider->FetchHostMetrics("node-4", kWindow).status(),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(PrometheusProviderTest, Health) {
  {
    FakeTransport fake;
    fake.AddResponse("GET", "http://prom:9090/-/healthy", 200, "Prometheus Server is Healthy.\n");
    EXPECT_THAT(NewProvider(&fake)->Health(), IsOk());
  }
  {
    FakeTransport fake;
    fake.AddResponse("GET", "http://prom:9090/-/healthy", 503, "not ready");
    EXPECT_THAT(NewProvider(&fake)->Health(), StatusIs(absl::StatusCode::kUnavailable));
  }
  {
    SCOPED_TRACE("404 falls back to a trivial query");
    FakeTransport fake;
    fake.AddResponse("GET", "http://prom:9090/-/healthy", 404, "404 page not found");
    Serve(fake, {{"vector(1)", {.body = Testdata("empty.json")}}});
    EXPECT_THAT(NewProvider(&fake)->Health(), IsOk());
    EXPECT_EQ(QueryOf(*fake.LastRequest()), "vector(1)");
  }
}

TEST(PrometheusProviderTest, StartupCheckNamesNodesWithoutSeries) {
  FakeTransport fake;
  const char* cpu5 = "avg_over_time(instance:node_cpu:ratio[5m])";
  const char* mem5 = "avg_over_time(instance:node_memory_utilisation:ratio[5m])";
  const char* cpustd5 = "stddev_over_time(instance:node_cpu:ratio[5m])";
  Serve(fake, {{cpu5, {.body = Testdata("cpu_avg.json")}},
               {mem5, {.body = Testdata("mem_avg.json")}},
               {cpustd5, {.code = 500, .body = "boom"}}});
  auto provider = NewProvider(&fake);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StartupReport report, provider->StartupCheck(Nodes(), "5m"));
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.nodes_without_series, ElementsAre("node-4"));
  EXPECT_THAT(report.empty_queries,
              ElementsAre("stddev_over_time(instance:node_memory_utilisation:ratio[5m])"));
  EXPECT_THAT(report.failed_queries, ElementsAre(cpustd5));
  EXPECT_THAT(report.unmapped_labels, ElementsAre("stranger"));
  ASSERT_EQ(report.queries.size(), 4u);
  EXPECT_EQ(report.queries[0].series, 4);         // 4 samples in cpu_avg.json
  EXPECT_EQ(report.queries[0].mapped_series, 3);  // all but "stranger"
  EXPECT_THAT(report.queries[2].status, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(report.Summary(4),
              HasSubstr("3/4 nodes have series; nodes without series: [node-4]"));
}

}  // namespace
}  // namespace trimaran::providers::prometheus
