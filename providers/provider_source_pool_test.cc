#include "providers/provider_source_pool.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/http/testing/fake_transport.h"
#include "common/stats/registry.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_metrics_provider.h"

namespace trimaran::providers {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

// Waits (real time, event-driven) until the watcher has stored `n` snapshots.
bool AwaitSnapshots(const lw::Watcher& watcher, uint64_t n) {
  uint64_t seen = watcher.generation();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (seen < n && absl::Now() < deadline) {
    seen = watcher.AwaitGeneration(seen, absl::Seconds(1));
  }
  return seen >= n;
}

class ProviderSourcePoolTest : public ::testing::Test {
 protected:
  ProviderSourcePoolTest() : clock_(absl::FromUnixSeconds(1700000000)) {}

  // A factory making FakeMetricsProviders that answer every window with `node`.
  ProviderFactory FakeFactory(std::string node = "n1") {
    return [this, node](const lw::ProviderSpec& spec) -> absl::StatusOr<BuiltProvider> {
      ++factory_calls_;
      if (spec.type == "Broken") return absl::InvalidArgumentError("broken provider");
      auto provider = std::make_unique<lw::testing::FakeMetricsProvider>(spec.type);
      for (const std::string& w : lw::Watcher::Windows()) {
        provider->SetNodes(
            w, lw::testing::MakeWatcherMetrics().Node(node).Cpu(lw::kOpAvg, 40).Nodes());
      }
      BuiltProvider built;
      built.provider = std::move(provider);
      return built;
    };
  }

  trimaran::testing::FakeClock clock_;
  stats::Registry registry_;
  std::atomic<int> factory_calls_{0};
};

TEST_F(ProviderSourcePoolTest, InProcessDeduplicatesPerSpecAndRunsTheWatcher) {
  ProviderSourcePool pool(clock_, stats::Scope(registry_, "trimaran_loadwatcher_"), nullptr, {},
                          FakeFactory());
  const lw::ProviderSpec a{.type = "Prometheus", .address = "http://a:9090"};
  const lw::ProviderSpec b{.type = "Prometheus", .address = "http://b:9090"};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * a1, pool.InProcess(a));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * a2, pool.InProcess(a));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * b1, pool.InProcess(b));
  EXPECT_EQ(a1, a2);
  EXPECT_NE(a1, b1);
  EXPECT_EQ(factory_calls_.load(), 2);  // one provider per distinct spec
  EXPECT_EQ(pool.in_process_count(), 2u);

  lw::Watcher* watcher = pool.FindWatcher(a);
  ASSERT_NE(watcher, nullptr);
  // The watcher thread fetches the three windows at once (fake time does not move).
  ASSERT_TRUE(AwaitSnapshots(*watcher, 3));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr got, a1->GetLatestMetrics());
  EXPECT_EQ(got->window.duration, "15m");
  EXPECT_TRUE(got->data.node_metrics_map.contains("n1"));
  EXPECT_EQ(pool.FindWatcher({.type = "SignalFx"}), nullptr);
}

TEST_F(ProviderSourcePoolTest, UnsetTypeIsMetricsServerForDedup) {
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr, {}, FakeFactory());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * unset, pool.InProcess({.type = ""}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * named,
                                pool.InProcess({.type = "KubernetesMetricsServer"}));
  EXPECT_EQ(unset, named);
  EXPECT_EQ(factory_calls_.load(), 1);
}

TEST_F(ProviderSourcePoolTest, FactoryErrorIsReturnedAndNotCached) {
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr, {}, FakeFactory());
  EXPECT_THAT(pool.InProcess({.type = "Broken"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("broken provider")));
  EXPECT_THAT(pool.InProcess({.type = "Broken"}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(factory_calls_.load(), 2);
  EXPECT_EQ(pool.in_process_count(), 0u);
}

TEST_F(ProviderSourcePoolTest, RealRegistryRejectsUnknownType) {
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr);
  EXPECT_THAT(pool.InProcess({.type = "Datadog"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("metricProvider.type")));
  // metrics-server without a kube client cannot work: refused up front.
  EXPECT_THAT(pool.InProcess({}), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ProviderSourcePoolTest, StopJoinsWatchersAndClientsKeepTheirData) {
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr, {}, FakeFactory());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * client, pool.InProcess({.type = "Prometheus"}));
  ASSERT_TRUE(AwaitSnapshots(*pool.FindWatcher({.type = "Prometheus"}), 3));
  pool.Stop();  // returns: the watcher thread saw the stop while waiting on the FakeClock
  pool.Stop();  // idempotent
  EXPECT_THAT(pool.InProcess({.type = "SignalFx"}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  TRIMARAN_EXPECT_OK(client->GetLatestMetrics().status());
}

TEST_F(ProviderSourcePoolTest, RemoteChoosesTheClientByScheme) {
  auto transport = std::make_shared<http::testing::FakeTransport>();
  transport->AddResponse(
      "GET", "http://lw.example:2020/watcher", 200,
      R"({"timestamp":1700000000,"window":{"duration":"15m","start":1699999100,)"
      R"("end":1700000000},"source":"Prometheus","data":{"NodeMetricsMap":{"n9":{"metrics":[],)"
      R"("tags":{},"metadata":{"dataCenter":""}}}}})");
  ProviderSourcePoolOptions options;
  options.remote_transport = transport;
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr, options);

  struct Case {
    std::string address;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"http://lw.example:2020", true},
      {"https://lw.example:2020/", true},
      {"grpc://127.0.0.1:2021", true},
      {"dns:///load-watcher.ns.svc:2021", true},
      {"lw.example:2020", false},  // no scheme
      {"ftp://lw.example", false},
      {"grpc://", false},
      {"http://", false},
      {"", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.address);
    absl::StatusOr<lw::Client*> got = pool.Remote(c.address);
    if (!c.ok) {
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("watcherAddress")));
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * again, pool.Remote(c.address));
    EXPECT_EQ(*got, again);  // deduplicated per address
  }
  EXPECT_EQ(pool.remote_count(), 4u);

  // The HTTP client goes through the injected transport to {address}/watcher.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * http_client, pool.Remote("http://lw.example:2020"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr got, http_client->GetLatestMetrics());
  EXPECT_TRUE(got->data.node_metrics_map.contains("n9"));
}

// A secured remote watcher: CA file and token file reach the HTTPS client's request;
// the CA file needs a TLS scheme and must be readable; specs are deduplicated whole.
TEST_F(ProviderSourcePoolTest, ConnectRemoteSendsCaAndTokenToASecuredWatcher) {
  trimaran::testing::TempDirForTest dir;
  const std::string ca = dir.Write("ca.crt", "-----BEGIN CERTIFICATE-----\n");
  const std::string token = dir.Write("token", "s3cret\n");
  auto transport = std::make_shared<http::testing::FakeTransport>();
  transport->AddResponse(
      "GET", "https://lw.example:2020/watcher", 200,
      R"({"timestamp":1700000000,"window":{"duration":"15m","start":1699999100,)"
      R"("end":1700000000},"source":"Prometheus","data":{"NodeMetricsMap":{}}})");
  ProviderSourcePoolOptions options;
  options.remote_transport = transport;
  ProviderSourcePool pool(clock_, stats::Scope(registry_), nullptr, options);

  const lw::RemoteSpec spec{
      .address = "https://lw.example:2020", .ca_file = ca, .token_file = token};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * client, pool.ConnectRemote(spec));
  TRIMARAN_ASSERT_OK(client->GetLatestMetrics().status());
  std::optional<http::HttpRequest> sent = transport->LastRequest();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->headers.GetOr("Authorization"), "Bearer s3cret");
  ASSERT_TRUE(sent->tls.has_value());
  EXPECT_EQ(sent->tls->ca_file, ca);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * again, pool.ConnectRemote(spec));
  EXPECT_EQ(client, again);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * plain, pool.Remote("https://lw.example:2020"));
  EXPECT_NE(client, plain);  // another spec, another client
  TRIMARAN_EXPECT_OK(
      pool.ConnectRemote({.address = "grpcs://127.0.0.1:2021", .ca_file = ca, .token_file = token})
          .status());

  EXPECT_THAT(pool.ConnectRemote({.address = "http://lw.example:2020", .ca_file = ca}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not TLS")));
  EXPECT_THAT(pool.ConnectRemote({.address = "grpc://127.0.0.1:2021", .ca_file = ca}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not TLS")));
  EXPECT_THAT(
      pool.ConnectRemote({.address = "https://lw.example:2020", .ca_file = dir.Path("missing")}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing")));
}

TEST_F(ProviderSourcePoolTest, PrometheusWithKubeClientMapsSeriesToListedNodes) {
  kube::testing::FakeClient kube(clock_);
  TRIMARAN_ASSERT_OK(
      kube.CreateNode(
              kube::testing::MakeNode().Name("node-a").Address("InternalIP", "10.0.0.1").Obj())
          .status());
  TRIMARAN_ASSERT_OK(kube.CreateNode(kube::testing::MakeNode().Name("node-b").Obj()).status());
  auto transport = std::make_shared<http::testing::FakeTransport>();
  // Every query: one series labelled with node-a's IP:port, one with an unknown host.
  transport->AddResponse("", "http://prom:9090/api/v1/query", 200,
                         R"({"status":"success","data":{"resultType":"vector","result":[)"
                         R"({"metric":{"instance":"10.0.0.1:9100"},"value":[1700000000,"0.5"]},)"
                         R"({"metric":{"instance":"stranger"},"value":[1700000000,"0.9"]}]}})");
  ProviderSourcePoolOptions options;
  options.extras.transport_factory =
      [transport](const lw::ProviderSpec&) -> absl::StatusOr<std::shared_ptr<http::HttpTransport>> {
    return transport;
  };
  ProviderSourcePool pool(clock_, stats::Scope(registry_), &kube, options);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      lw::Client * client, pool.InProcess({.type = "Prometheus", .address = "http://prom:9090"}));
  ASSERT_TRUE(
      AwaitSnapshots(*pool.FindWatcher({.type = "Prometheus", .address = "http://prom:9090"}), 3));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr got, client->GetLatestMetrics());
  // 10.0.0.1:9100 -> node-a (InternalIP); "stranger" matches no node and is dropped.
  ASSERT_EQ(got->data.node_metrics_map.size(), 1u);
  ASSERT_TRUE(got->data.node_metrics_map.contains("node-a"));
  EXPECT_DOUBLE_EQ(got->data.node_metrics_map.at("node-a").metrics[0].value, 50);  // 0.5 x 100
  // Startup check (4 queries over 5m) ran before the 3 windows x 4 queries.
  const std::vector<http::HttpRequest> requests = transport->Requests();
  ASSERT_GE(requests.size(), 16u);
  EXPECT_THAT(requests[0].body + requests[0].url, HasSubstr("5m"));
}

}  // namespace
}  // namespace trimaran::providers
