#include "providers/signalfx/signalfx_provider.h"

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/testing/fake_transport.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::providers::signalfx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::trimaran::http::testing::FakeTransport;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr char kAddr[] = "https://sfx.test";
// host:*.dev.k8s.com AND cluster:dev AND sf_metric:"cpu.utilization", percent-encoded.
constexpr char kCpuQuery[] =
    "host%3A%2A.dev.k8s.com%20AND%20cluster%3Adev%20AND%20sf_metric%3A%22cpu.utilization%22";
constexpr char kMemQuery[] =
    "host%3A%2A.dev.k8s.com%20AND%20cluster%3Adev%20AND%20sf_metric%3A%22memory.utilization%22";

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(TRIMARAN_SIGNALFX_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

lw::Metric Avg(absl::string_view name, absl::string_view type, double value) {
  return lw::Metric{.name = std::string(name),
                    .type = std::string(type),
                    .op = "AVG",
                    .rollup = "",
                    .value = value};
}

// 15m window ending at 1700000000: startMs 1699999100000, endMs 1700000000000.
lw::Window Window15m() { return lw::Window{"15m", 1700000000 - 900, 1700000000}; }

Options TestOptions() {
  Options o;
  o.address = std::string(kAddr) + "/";
  o.token = "secret-token";
  o.host_name_suffix = ".dev.k8s.com";
  o.cluster_name = "dev";
  return o;
}

class SignalFxProviderTest : public ::testing::Test {
 protected:
  void ServeAll() {
    fake_.AddResponse("GET", absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kCpuQuery), 200,
                      ReadTestdata("timeserieswindow_cpu.json"));
    fake_.AddResponse("GET", absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kCpuQuery), 200,
                      ReadTestdata("metrictimeseries_cpu.json"));
    fake_.AddResponse("GET", absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kMemQuery), 200,
                      ReadTestdata("timeserieswindow_memory.json"));
    fake_.AddResponse("GET", absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kMemQuery), 200,
                      ReadTestdata("metrictimeseries_memory.json"));
  }
  std::unique_ptr<SignalFxProvider> NewProvider(Options o = TestOptions()) {
    auto p = SignalFxProvider::Create(fake_, std::move(o));
    EXPECT_THAT(p.status(), IsOk());
    return p.ok() ? std::move(*p) : nullptr;
  }

  FakeTransport fake_;
};

TEST_F(SignalFxProviderTest, JoinsSeriesWithHostsAndAveragesTheWindow) {
  ServeAll();
  auto provider = NewProvider();
  ASSERT_NE(provider, nullptr);
  EXPECT_EQ(provider->Name(), "SignalFx");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider->FetchAllHostsMetrics(Window15m()));
  ASSERT_THAT(got.nodes, SizeIs(2));
  // alpha: CPU (10 + 20 + 30) / 3 = 20; Memory (40.5 + 41.5) / 2 = 41.
  EXPECT_THAT(got.nodes["alpha"].metrics,
              ElementsAre(Avg(kCpuMetric, "CPU", 20), Avg(kMemoryMetric, "Memory", 41)));
  // beta: two CPU series pooled, the null point ignored: (50 + 55 + 60) / 3 = 55;
  // Memory 70 (host dimension "beta" has no domain).
  EXPECT_THAT(got.nodes["beta"].metrics,
              ElementsAre(Avg(kCpuMetric, "CPU", 55), Avg(kMemoryMetric, "Memory", 70)));
  // cpu004 has no metadata, cpu005 (gamma) no points; delta has metadata but no data.
  ASSERT_THAT(got.partial_errors, SizeIs(1));
  EXPECT_THAT(got.partial_errors[0],
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("skipped 2 series without host metadata or points: "
                                 "AAAAAcpu004, AAAAAcpu005")));
}

TEST_F(SignalFxProviderTest, SendsTheUpstreamRequests) {
  ServeAll();
  auto provider = NewProvider();
  ASSERT_NE(provider, nullptr);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider->FetchAllHostsMetrics(Window15m()));
  std::vector<http::HttpRequest> reqs = fake_.Requests();
  ASSERT_THAT(reqs, SizeIs(4));
  std::vector<std::string> urls;
  for (const http::HttpRequest& r : reqs) {
    SCOPED_TRACE(r.url);
    EXPECT_EQ(r.method, "GET");
    EXPECT_EQ(r.headers.GetOr("X-SF-Token", ""), "secret-token");
    EXPECT_EQ(r.headers.GetOr("Content-Type", ""), "application/json");
    EXPECT_EQ(r.timeout, absl::Seconds(55));
    EXPECT_FALSE(r.tls.has_value());
    urls.push_back(r.url);
  }
  EXPECT_THAT(
      urls,
      ElementsAre(absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kCpuQuery,
                               "&startMs=1699999100000&endMs=1700000000000"
                               "&resolution=60000"),
                  absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kCpuQuery, "&limit=10000"),
                  absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kMemQuery,
                               "&startMs=1699999100000&endMs=1700000000000"
                               "&resolution=60000"),
                  absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kMemQuery, "&limit=10000")));
}

TEST(BuildQueryTest, Filters) {
  struct Case {
    const char* suffix;
    const char* cluster;
    const char* want;
  };
  const Case cases[] = {
      {".dev.k8s.com", "dev",
       R"(host:*.dev.k8s.com AND cluster:dev AND sf_metric:"cpu.utilization")"},
      {"", "prod", R"(host:* AND cluster:prod AND sf_metric:"cpu.utilization")"},
      // No cluster configured: no cluster term (upstream sends "cluster:").
      {".corp", "", R"(host:*.corp AND sf_metric:"cpu.utilization")"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    Options o;
    o.host_name_suffix = c.suffix;
    o.cluster_name = c.cluster;
    EXPECT_EQ(BuildQuery(o, kCpuMetric), c.want);
  }
}

TEST(NodeNameFromHostTest, CutsAtTheFirstDot) {
  EXPECT_EQ(NodeNameFromHost("alpha.dev.k8s.com"), "alpha");
  EXPECT_EQ(NodeNameFromHost("alpha"), "alpha");
  EXPECT_EQ(NodeNameFromHost(".weird"), "");
  EXPECT_EQ(NodeNameFromHost(""), "");
}

TEST(SignalFxCreateTest, Validation) {
  FakeTransport fake;
  Options o;
  EXPECT_THAT(SignalFxProvider::Create(fake, o).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("token")));
  o.token = "t";
  o.address = "api.signalfx.com";
  EXPECT_THAT(SignalFxProvider::Create(fake, o).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("address")));
  // Empty address: the default, used by Health().
  o.address = "";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto p, SignalFxProvider::Create(fake, o));
  fake.AddResponse("HEAD", "https://api.signalfx.com", 200, "");
  EXPECT_THAT(p->Health(), IsOk());
  ASSERT_TRUE(fake.LastRequest().has_value());
  EXPECT_EQ(fake.LastRequest()->url, "https://api.signalfx.com");
}

TEST_F(SignalFxProviderTest, OneMetricFailingKeepsTheOther) {
  struct Case {
    const char* name;
    std::function<void(FakeTransport&)> setup;
    absl::StatusCode code;
  };
  const Case cases[] = {
      {"http 500",
       [](FakeTransport& f) {
         f.AddResponse("GET", absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kMemQuery), 500,
                       "boom");
       },
       absl::StatusCode::kUnavailable},
      {"transport error",
       [](FakeTransport& f) {
         f.AddError("GET", absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kMemQuery),
                    absl::DeadlineExceededError("timed out"));
       },
       absl::StatusCode::kDeadlineExceeded},
      {"garbage json",
       [](FakeTransport& f) {
         f.AddResponse("GET", absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kMemQuery), 200,
                       "{\"results\": [");
       },
       absl::StatusCode::kInternal},
      {"million brackets",  // issue 30: depth-limited, never a crash
       [](FakeTransport& f) {
         f.AddResponse("GET", absl::StrCat(kAddr, "/v2/metrictimeseries?query=", kMemQuery), 200,
                       std::string(1'000'000, '['));
       },
       absl::StatusCode::kInternal},
      {"wrong shape",
       [](FakeTransport& f) {
         f.AddResponse("GET", absl::StrCat(kAddr, "/v1/timeserieswindow?query=", kMemQuery), 200,
                       R"({"data": [1, 2]})");
       },
       absl::StatusCode::kInternal},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fake_.ClearRules();
    c.setup(fake_);  // first matching rule wins
    ServeAll();
    auto provider = NewProvider();
    ASSERT_NE(provider, nullptr);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got,
                                  provider->FetchAllHostsMetrics(Window15m()));
    EXPECT_THAT(got.nodes["alpha"].metrics, ElementsAre(Avg(kCpuMetric, "CPU", 20)));
    ASSERT_THAT(got.partial_errors, SizeIs(2));  // cpu skips + the memory failure
    EXPECT_THAT(got.partial_errors[1], StatusIs(c.code, HasSubstr("memory.utilization")));
  }
}

TEST_F(SignalFxProviderTest, EveryMetricFailingFailsTheFetch) {
  fake_.AddResponse("GET", absl::StrCat(kAddr, "/v1/"), 401, R"({"message":"bad token"})");
  auto provider = NewProvider();
  ASSERT_NE(provider, nullptr);
  EXPECT_THAT(provider->FetchAllHostsMetrics(Window15m()).status(),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("cpu.utilization")));
}

TEST_F(SignalFxProviderTest, EmptyAnswers) {
  fake_.AddResponse("GET", absl::StrCat(kAddr, "/v1/"), 200, R"({"data": {}, "errors": []})");
  fake_.AddResponse("GET", absl::StrCat(kAddr, "/v2/"), 200, R"({"count": 0, "results": []})");
  auto provider = NewProvider();
  ASSERT_NE(provider, nullptr);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider->FetchAllHostsMetrics(Window15m()));
  EXPECT_THAT(got.nodes, IsEmpty());
  EXPECT_THAT(got.partial_errors, IsEmpty());
}

TEST_F(SignalFxProviderTest, FetchHostMetrics) {
  ServeAll();
  auto provider = NewProvider();
  ASSERT_NE(provider, nullptr);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<lw::Metric> got,
                                provider->FetchHostMetrics("beta.dev.k8s.com", Window15m()));
  EXPECT_THAT(got, ElementsAre(Avg(kCpuMetric, "CPU", 55), Avg(kMemoryMetric, "Memory", 70)));
  EXPECT_THAT(provider->FetchHostMetrics("gamma", Window15m()).status(),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(SignalFxProviderTest, HealthAndTls) {
  Options o = TestOptions();
  o.insecure_skip_verify = true;
  auto provider = NewProvider(o);
  ASSERT_NE(provider, nullptr);
  fake_.AddResponse("HEAD", kAddr, 503, "", {}, /*times=*/1);
  fake_.AddResponse("HEAD", kAddr, 200, "");
  EXPECT_THAT(provider->Health(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(provider->Health(), IsOk());
  ASSERT_TRUE(fake_.LastRequest().has_value());
  http::HttpRequest last = *fake_.LastRequest();
  EXPECT_EQ(last.method, "HEAD");
  EXPECT_EQ(last.url, kAddr);
  EXPECT_EQ(last.headers.GetOr("X-SF-Token", ""), "secret-token");
  ASSERT_TRUE(last.tls.has_value());
  EXPECT_TRUE(last.tls->insecure_skip_verify);
}

}  // namespace
}  // namespace trimaran::providers::signalfx
