#include "providers/registry.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/http/testing/fake_transport.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"

namespace trimaran::providers {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

constexpr char kVectorAnswer[] =
    R"({"status":"success","data":{"resultType":"vector","result":[)"
    R"({"metric":{"instance":"node-a"},"value":[1700000000,"0.25"]}]}})";

// A factory handing out one FakeTransport and recording the specs it was asked for.
struct FakeFactory {
  std::shared_ptr<http::testing::FakeTransport> transport =
      std::make_shared<http::testing::FakeTransport>();
  std::vector<lw::ProviderSpec> specs;
  TransportFactory Get() {
    return
        [this](
            const lw::ProviderSpec& spec) -> absl::StatusOr<std::shared_ptr<http::HttpTransport>> {
          specs.push_back(spec);
          return std::shared_ptr<http::HttpTransport>(transport);
        };
  }
};

TEST(CanonicalProviderTypeTest, KnownUnsetAndUnknown) {
  struct Case {
    std::string type;
    std::string want;  // "" = error
  };
  const std::vector<Case> cases = {
      {"", "KubernetesMetricsServer"},  // upstream's default
      {"KubernetesMetricsServer", "KubernetesMetricsServer"},
      {"Prometheus", "Prometheus"},
      {"SignalFx", "SignalFx"},
      {"prometheus", ""},  // case-sensitive, as upstream
      {"Datadog", ""},     // upstream HEAD only; Trimaran does not accept it
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    absl::StatusOr<std::string> got = CanonicalProviderType(c.type);
    if (c.want.empty()) {
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("metricProvider.type (METRICS_PROVIDER_NAME)")));
    } else {
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(*got, c.want);
    }
  }
}

TEST(BuildProviderTest, ValidationNamesTheField) {
  kube::testing::FakeClient kube;
  struct Case {
    std::string name;
    lw::ProviderSpec spec;
    bool with_kube;
    std::string want_error;  // "" = builds; else a substring of the InvalidArgument
    std::string want_name;   // the built provider's Name()
  };
  const std::vector<Case> cases = {
      {"unknown type", {.type = "Datadog"}, true, "metricProvider.type", ""},
      {"metrics-server without kube client",
       {.type = "KubernetesMetricsServer"},
       false,
       "no Kubernetes client",
       ""},
      {"unset type is metrics-server", {.type = ""}, true, "", "KubernetesMetricsServer"},
      {"prometheus address without scheme",
       {.type = "Prometheus", .address = "prom:9090"},
       true,
       "metricProvider.address (METRICS_PROVIDER_ADDRESS)",
       ""},
      {"prometheus address scheme only",
       {.type = "Prometheus", .address = "http://"},
       true,
       "metricProvider.address",
       ""},
      {"prometheus default address", {.type = "Prometheus"}, false, "", "Prometheus"},
      {"prometheus https + token",
       {.type = "Prometheus",
        .address = "https://p:9090",
        .token = "t",
        .insecure_skip_verify = true},
       false,
       "",
       "Prometheus"},
      {"signalfx without token",
       {.type = "SignalFx"},
       false,
       "metricProvider.token (METRICS_PROVIDER_TOKEN)",
       ""},
      {"signalfx ftp address",
       {.type = "SignalFx", .address = "ftp://x", .token = "t"},
       false,
       "metricProvider.address",
       ""},
      {"signalfx default address", {.type = "SignalFx", .token = "t"}, false, "", "SignalFx"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeFactory factory;
    ProviderExtras extras;
    extras.kube_client = c.with_kube ? &kube : nullptr;
    extras.transport_factory = factory.Get();
    absl::StatusOr<BuiltProvider> built = BuildProvider(c.spec, extras);
    if (!c.want_error.empty()) {
      EXPECT_THAT(built, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.want_error)));
      continue;
    }
    ASSERT_TRUE(built.ok()) << built.status();
    ASSERT_NE(built->provider, nullptr);
    EXPECT_EQ(built->provider->Name(), c.want_name);
    EXPECT_EQ(built->prometheus != nullptr, c.want_name == "Prometheus");
    // HTTP providers send through the injected transport, asked for once with the spec.
    if (c.want_name == "KubernetesMetricsServer") {
      EXPECT_EQ(built->transport, nullptr);
      EXPECT_TRUE(factory.specs.empty());
    } else {
      EXPECT_EQ(built->transport, factory.transport);
      ASSERT_EQ(factory.specs.size(), 1u);
      EXPECT_EQ(factory.specs[0].insecure_skip_verify, c.spec.insecure_skip_verify);
    }
  }
}

TEST(BuildProviderTest, PrometheusUsesSpecAddressTokenAndTls) {
  FakeFactory factory;
  factory.transport->AddResponse("", "http://prom.example:9090/api/v1/query", 200, kVectorAnswer);
  ProviderExtras extras;
  extras.transport_factory = factory.Get();
  extras.prometheus.query_timeout = absl::Seconds(3);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BuiltProvider built,
                                BuildProvider({.type = "Prometheus",
                                               .address = "http://prom.example:9090",
                                               .token = "secret",
                                               .insecure_skip_verify = true},
                                              extras));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      lw::HostsMetrics got, built.provider->FetchAllHostsMetrics({"15m", 1699999100, 1700000000}));
  // Four default queries, each answered with node-a at 0.25 -> 25 (percent).
  ASSERT_TRUE(got.nodes.contains("node-a"));
  ASSERT_EQ(got.nodes["node-a"].metrics.size(), 4u);
  EXPECT_DOUBLE_EQ(got.nodes["node-a"].metrics[0].value, 25);
  const std::vector<http::HttpRequest> requests = factory.transport->Requests();
  ASSERT_EQ(requests.size(), 4u);
  for (const http::HttpRequest& r : requests) {
    EXPECT_TRUE(absl::StartsWith(r.url, "http://prom.example:9090/api/v1/query")) << r.url;
    EXPECT_EQ(r.headers.GetOr("Authorization"), "Bearer secret");
    ASSERT_TRUE(r.tls.has_value());
    EXPECT_TRUE(r.tls->insecure_skip_verify);
    EXPECT_EQ(r.timeout, absl::Seconds(3));  // from the extras' base options
  }
}

TEST(BuildProviderTest, PrometheusWithAKubeClientKeepsItsNodeTableThroughItsUpkeep) {
  FakeFactory factory;
  ProviderExtras extras;
  extras.transport_factory = factory.Get();
  // Without a kube client there is nothing to keep up.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BuiltProvider plain, BuildProvider({.type = "Prometheus"}, extras));
  EXPECT_FALSE(plain.upkeep.before_first_fetch);
  EXPECT_FALSE(plain.upkeep.periodic);

  kube::testing::FakeClient kube;
  TRIMARAN_ASSERT_OK(kube.CreateNode(kube::testing::MakeNode().Name("node-x").Obj()).status());
  extras.kube_client = &kube;
  extras.prometheus_startup_check = false;
  extras.prometheus_node_resync_interval = absl::Minutes(1);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BuiltProvider built, BuildProvider({.type = "Prometheus"}, extras));
  ASSERT_TRUE(built.upkeep.before_first_fetch);
  ASSERT_TRUE(built.upkeep.periodic);
  EXPECT_EQ(built.upkeep.interval, absl::Minutes(1));
  ASSERT_NE(built.prometheus, nullptr);
  // Before the first fetch: the listed nodes become the mapping table.
  built.upkeep.before_first_fetch();
  EXPECT_EQ(built.prometheus->MapLabelForTest("node-x"), "node-x");
  EXPECT_EQ(built.prometheus->MapLabelForTest("node-y"), "");
  // Periodically: nodes that joined since are mapped too.
  TRIMARAN_ASSERT_OK(kube.CreateNode(kube::testing::MakeNode().Name("node-y").Obj()).status());
  built.upkeep.periodic();
  EXPECT_EQ(built.prometheus->MapLabelForTest("node-y"), "node-y");
  EXPECT_TRUE(factory.transport->Requests().empty()) << "no startup check asked for";

  // metrics-server needs no upkeep.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BuiltProvider ms, BuildProvider({}, extras));
  EXPECT_FALSE(ms.upkeep.before_first_fetch);
  EXPECT_FALSE(ms.upkeep.periodic);
}

TEST(BuildProviderTest, SignalFxUsesSuffixClusterAndToken) {
  FakeFactory factory;
  factory.transport->AddResponse("GET", "https://sfx.example/v1/timeserieswindow", 200,
                                 R"({"data":{"ts1":[[1,10],[2,30]]},"errors":[]})");
  factory.transport->AddResponse("GET", "https://sfx.example/v2/metrictimeseries", 200,
                                 R"({"results":[{"id":"ts1","dimensions":{"host":"n1.dev"}}]})");
  ProviderExtras extras;
  extras.transport_factory = factory.Get();
  extras.signalfx_host_name_suffix = ".dev";
  extras.signalfx_cluster_name = "blue";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      BuiltProvider built,
      BuildProvider({.type = "SignalFx", .address = "https://sfx.example", .token = "sfx-token"},
                    extras));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      lw::HostsMetrics got, built.provider->FetchAllHostsMetrics({"15m", 1699999100, 1700000000}));
  // Mean of 10 and 30 = 20, for both CPU and memory (same canned answer).
  ASSERT_TRUE(got.nodes.contains("n1"));
  EXPECT_DOUBLE_EQ(got.nodes["n1"].metrics[0].value, 20);
  const std::vector<http::HttpRequest> requests = factory.transport->Requests();
  ASSERT_FALSE(requests.empty());
  for (const http::HttpRequest& r : requests) {
    EXPECT_EQ(r.headers.GetOr("X-SF-Token"), "sfx-token");
    // host:*.dev AND cluster:blue, URL-encoded.
    EXPECT_THAT(r.url, HasSubstr(".dev"));
    EXPECT_THAT(r.url, HasSubstr("blue"));
  }
}

TEST(BuildProviderTest, TransportFactoryErrorIsReturned) {
  ProviderExtras extras;
  extras.transport_factory =
      [](const lw::ProviderSpec&) -> absl::StatusOr<std::shared_ptr<http::HttpTransport>> {
    return absl::FailedPreconditionError("no TLS");
  };
  EXPECT_THAT(BuildProvider({.type = "Prometheus"}, extras),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no TLS")));
}

}  // namespace
}  // namespace trimaran::providers
