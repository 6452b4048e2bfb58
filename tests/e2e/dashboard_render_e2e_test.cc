// The dashboard page at the scale (docs/benchmarks.md): 5,000 nodes and 150,000
// pods (30 per node, as PodTotals) with a load-watcher snapshot for every node, served by
// the real DashboardService and HttpServer, loaded by headless Chromium without virtual
// time (so performance.now() is real time). The page records data-first-render-ms when
// its first rows are in the DOM; the budget is 1 s (issue 19). Also checks that the list
// is virtualised (only the visible rows exist in the DOM).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "dashboard/web/service.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "tests/e2e/harness/chromium.h"

namespace trimaran::e2e {
namespace {

using dashboard::ClusterInputs;
using dashboard::ClusterSource;

constexpr int kNodes = 5000;
constexpr int kPodsPerNode = 30;

class SyntheticSource final : public ClusterSource {
 public:
  SyntheticSource() {
    const absl::Time now = absl::Now();
    const char* types[] = {"m6i.xlarge", "c6i.2xlarge", "r6g.large", "m7g.4xlarge"};
    auto m = lw::testing::MakeWatcherMetrics()
                 .Timestamp(absl::ToUnixSeconds(now) - 20)
                 .Window("15m")
                 .Source("Prometheus");
    for (int i = 0; i < kNodes; ++i) {
      const std::string name = absl::StrCat("ip-10-0-", i / 250, "-", i % 250, ".ec2.internal");
      kube::Node n = kube::testing::MakeNode()
                         .Name(name)
                         .Label("node.kubernetes.io/instance-type", types[i % 4])
                         .Label("karpenter.sh/capacity-type", i % 5 == 0 ? "spot" : "on-demand")
                         .Label("topology.kubernetes.io/zone",
                                absl::StrCat("us-east-1", std::string(1, "abc"[i % 3])))
                         .Capacity({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}})
                         .Condition("Ready", kube::ConditionStatus::kTrue)
                         .Obj();
      n.metadata.creation_timestamp = now - absl::Minutes(i);
      in_.nodes.push_back(std::move(n));
      if (i % 50 != 7) m.Node(name).Cpu(lw::kOpAvg, i % 97).Memory(lw::kOpAvg, (i * 7) % 89);
      for (int p = 0; p < kPodsPerNode; ++p) {
        in_.pods.Add(dashboard::SummarizePod(kube::testing::MakePod()
                                                 .Name(absl::StrCat("pod-", i, "-", p))
                                                 .Namespace("default")
                                                 .NodeName(name)
                                                 .Req({{"cpu", absl::StrCat(100 + p * 10, "m")},
                                                       {"memory", absl::StrCat(128 + p, "Mi")}})
                                                 .Phase(kube::PodPhase::kRunning)
                                                 .Obj()));
      }
    }
    in_.metrics = std::make_shared<const lw::WatcherMetrics>(m.Obj());
  }
  absl::StatusOr<ClusterInputs> Fetch() override { return in_; }

 private:
  ClusterInputs in_;
};

std::string Attribute(const std::string& dom, const std::string& name) {
  const std::string key = name + "=\"";
  const size_t at = dom.find(key);
  if (at == std::string::npos) return "";
  const size_t v = at + key.size();
  return dom.substr(v, dom.find('"', v) - v);
}

TEST(DashboardRenderE2ETest, FiveThousandNodesFirstRenderWithinOneSecond) {
  TRIMARAN_REQUIRE_CHROMIUM();
  SyntheticSource source;
  namespace web = dashboard::web;
  web::DashboardOptions options;
  options.view.resources = {"cpu", "memory"};
  options.view.target_percent = {{"cpu", 60}};
  options.targets = options.view.target_percent;
  options.access.token = web::MakeFixedToken("render-e2e-token");
  web::DashboardService service(source, dashboard::PriceTable::Builtin(), options,
                                RealClock::Get());
  const absl::Time t0 = absl::Now();
  ASSERT_TRUE(service.Refresh().ok());
  std::fprintf(stderr, "model + JSON for %d nodes: %.0f ms, %zu bytes\n", kNodes,
               absl::ToDoubleMilliseconds(absl::Now() - t0), service.NodesJson()->size());
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Create({});
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(service.AddRoutes(**server, "").ok());
  ASSERT_TRUE((*server)->Start().ok());

  // Warm-up load (Chromium's own first start reads its files), then three measured ones.
  ChromiumOptions o;
  o.width = 1400;
  o.height = 900;
  o.virtual_time = absl::ZeroDuration();
  // The token URL: the dashboard sets its cookie and redirects to "/" (dashboard/web/guard.h).
  const std::string page = (*server)->url() + "/?token=render-e2e-token";
  ASSERT_TRUE(ChromiumDumpDom(page, o).ok());
  std::vector<double> ms;
  std::string dom;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::string> d = ChromiumDumpDom(page, o);
    ASSERT_TRUE(d.ok()) << d.status();
    dom = *d;
    double v = 0;
    ASSERT_TRUE(absl::SimpleAtod(Attribute(dom, "data-first-render-ms"), &v))
        << dom.substr(0, 2000);
    ms.push_back(v);
  }
  std::sort(ms.begin(), ms.end());
  std::fprintf(stderr,
               "first render of %d nodes in headless Chromium: median %.1f ms (%.1f..%.1f)\n",
               kNodes, ms[1], ms[0], ms[2]);
  EXPECT_LE(ms[1], 1000) << "the page's first render must take at most 1 s (issue 19)";

  // Filtering and sorting 5,000 nodes in the browser (state from the URL fragment).
  absl::StatusOr<std::string> filtered =
      ChromiumDumpDom(page + "#filter=us-east-1a&sort=cpu-usage&order=dsc", o);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  double view_ms = 0;
  ASSERT_TRUE(absl::SimpleAtod(Attribute(*filtered, "data-view-ms"), &view_ms));
  std::fprintf(stderr, "filter + sort + render of %d nodes: %.1f ms\n", kNodes, view_ms);
  EXPECT_LE(view_ms, 200) << "filtering must stay interactive";
  EXPECT_NE(filtered->find("1667 of 5000 nodes"), std::string::npos);

  // Virtualised: the DOM holds the visible rows (plus a few), not 5,000.
  int rendered = 0;
  ASSERT_TRUE(absl::SimpleAtoi(Attribute(dom, "data-rendered-rows"), &rendered));
  EXPECT_GT(rendered, 5);
  EXPECT_LT(rendered, 60);
  EXPECT_NE(dom.find("5000 nodes"), std::string::npos);
  (*server)->Stop();
}

}  // namespace
}  // namespace trimaran::e2e
