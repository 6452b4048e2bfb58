// `trimaranctl nodes` end to end (issue 19): the real trimaranctl binary against a real
// kube-apiserver + etcd, the real load-watcher binary and a real Prometheus.
//   (a) `nodes -o json`: every node's CPU and memory requests equal the sum of its pods'
//       requests read back from the apiserver, its usage equals the /watcher percentage
//       × capacity, and the summary equals the sums; a node the watcher does not know is
//       "missing" with null usage (never 0).
//   (b) the live view under tmux (informers against the real apiserver): the first
//       screen shows the nodes, `S` changes the sort shown on the help line and the row
//       order, `/` filters the rows by name, `q` quits (the process exits 0).
//   (c) `trimaranctl dashboard`: its api/nodes carries the figures of `nodes -o json`;
//       the page loaded in headless Chromium shows them in the node rows and the
//       summary (missing usage as n/a), the usage history fills, the decisions panel
//       lists a fake scheduler's /debug/decisions (the contract, with its bearer token);
//       a second dashboard on the same port fails clearly; every request needs the
//       token of the URL it printed. Screenshots of the page and of the coloured
//       terminal view go to build/screenshots/.
//   (d) `load-watcher --dashboard` serves the same data at /dashboard/, with the token
//       it logged.
//   (e) `kubectl trimaran`: the real kubectl runs it as a plugin with --context; colour
//       only on a terminal and never with NO_COLOR.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/http_server.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod_resources.h"
#include "kube/rest_client.h"
#include "rapidjson/document.h"
#include "tests/e2e/harness/chromium.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

constexpr char kTrimaranctlBin[] = TRIMARANCTL_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;
constexpr char kScreenshotDir[] = TRIMARAN_SCREENSHOT_DIR;
constexpr char kCpu[] = "instance:node_cpu:ratio";
constexpr char kMem[] = "instance:node_memory_utilisation:ratio";

// Runs `argv` to completion; its standard output, or "" with `*code` != 0.
std::string RunCapture(const std::vector<std::string>& argv, int* code) {
  const std::string cmd = absl::StrCat(absl::StrJoin(argv, " "), " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (p == nullptr) {
    *code = -1;
    return out;
  }
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// Runs `cmd` (a shell command line) to completion; its stdout and stderr.
std::string RunCaptureAll(const std::string& cmd, int* code) {
  FILE* p = popen(absl::StrCat(cmd, " 2>&1").c_str(), "r");
  std::string out;
  if (p == nullptr) {
    *code = -1;
    return out;
  }
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// The value of attribute `name` in the start tag that contains `anchor` (e.g.
// `data-node="node-1"`), or nullopt.
std::optional<std::string> TagAttribute(const std::string& dom, const std::string& anchor,
                                        const std::string& name) {
  const size_t at = dom.find(anchor);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = dom.rfind('<', at);
  const size_t end = dom.find('>', at);
  const std::string tag = dom.substr(start, end - start);
  const std::string key = absl::StrCat(" ", name, "=\"");
  const size_t k = tag.find(key);
  if (k == std::string::npos) return std::nullopt;
  const size_t v = k + key.size();
  return tag.substr(v, tag.find('"', v) - v);
}

// The text after `anchor` up to the next '<' (the content of a leaf element).
std::string TextAfter(const std::string& dom, size_t from, const std::string& anchor) {
  const size_t at = dom.find(anchor, from);
  if (at == std::string::npos) return "";
  const size_t gt = dom.find('>', at) + 1;
  return dom.substr(gt, dom.find('<', gt) - gt);
}

// The node rows of a dumped page, top to bottom.
std::vector<std::string> RowOrder(const std::string& dom) {
  std::vector<std::string> names;
  const std::string key = "data-node=\"";
  for (size_t at = dom.find(key); at != std::string::npos; at = dom.find(key, at + 1)) {
    const size_t v = at + key.size();
    names.push_back(dom.substr(v, dom.find('"', v) - v));
  }
  return names;
}

// The dashboard token of the URL a dashboard logged at start ("...?token=HEX"), or ""
// once 30 s pass without it.
std::string TokenFromLog(const Subprocess& process) {
  std::string token;
  Eventually(
      [&] {
        const std::string log = process.LogTail(100000);
        const size_t at = log.find("?token=");
        if (at == std::string::npos) return false;
        size_t end = at + 7;
        while (end < log.size() && absl::ascii_isxdigit(log[end])) ++end;
        token = log.substr(at + 7, end - at - 7);
        return !token.empty();
      },
      absl::Seconds(30));
  return token;
}

double Number(const std::string& text) {
  double v = std::nan("");
  std::string t = text;
  t.erase(std::remove(t.begin(), t.end(), ','), t.end());
  if (!t.empty() && t.back() == '%') t.pop_back();
  if (!absl::SimpleAtod(t, &v)) return std::nan("");
  return v;
}

// A stand-in for the scheduler's admin port: GET /debug/decisions as the contract
// (docs/trimaranctl.md "dashboard") describes, 401 without the bearer token.
std::unique_ptr<http::HttpServer> FakeDecisionsServer(const std::string& token) {
  http::HttpServerOptions o;
  o.name = "fake-scheduler";
  auto server = http::HttpServer::Create(o);
  if (!server.ok()) return nullptr;
  absl::Status s = (*server)->AddRoute(
      {.path = "/debug/decisions",
       .help = "recent decisions",
       .handler = [token](const http::ServerRequest& req, http::ServerResponse& r) {
         if (req.headers.GetOr("Authorization") != absl::StrCat("Bearer ", token)) {
           r.status = 401;
           r.body = "Unauthorized";
           return;
         }
         r.content_type = "application/json";
         r.body = R"({"capacity":1000,"decisions":[
{"time":"2026-11-26T21:00:02.123Z","pod":"default/spark-exec-2","uid":"u2","profile":"trimaran",
 "result":"Unschedulable","node":"","evaluatedNodes":4,"feasibleNodes":0,"fallbacks":[],
 "message":"0/4 nodes are available: 4 Insufficient cpu.","top":[]},
{"time":"2026-11-26T21:00:01.000Z","pod":"default/spark-exec-1","uid":"u1","profile":"trimaran",
 "result":"Bound","node":"node-2","evaluatedNodes":4,"feasibleNodes":4,
 "fallbacks":["TargetLoadPacking: metrics stale, used requests"],"message":"",
 "top":[{"node":"node-2","total":185,"scores":{"TargetLoadPacking":97,"NodeResourcesFit":88}},
        {"node":"node-1","total":150,"scores":{"TargetLoadPacking":70,"NodeResourcesFit":80}}]}]})";
       }});
  if (!s.ok() || !(*server)->Start().ok()) return nullptr;
  return *std::move(server);
}

class TrimaranctlNodesE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    auto cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    kubeconfig_ = cluster_->kubeconfig();

    // node-1..3 with usage in Prometheus; node-4 has none (the watcher omits it).
    // Instance types and capacity types as EKS labels them (node-3 is spot: no spot price
    // is configured, so its price is unknown).
    for (const auto& [node, capacity, zone] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"node-1", "on-demand", "us-east-1a"},
             {"node-2", "on-demand", "us-east-1b"},
             {"node-3", "spot", "us-east-1a"},
             {"node-4", "on-demand", "us-east-1b"}}) {
      TRIMARAN_ASSERT_OK(
          cluster_->AddNodes({node}, {.cpu = "4",
                                      .memory = "16Gi",
                                      .labels = {{"node.kubernetes.io/instance-type", "m6i.xlarge"},
                                                 {"karpenter.sh/capacity-type", capacity},
                                                 {"topology.kubernetes.io/zone", zone}}}));
    }
    const std::map<std::string, std::pair<double, double>> usage = {
        {"node-1", {0.50, 0.25}}, {"node-2", {0.10, 0.40}}, {"node-3", {0.80, 0.60}}};
    std::vector<PromSample> history;
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    for (const auto& [node, u] : usage) {
      for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
        history.push_back({kCpu, {{"instance", node}}, t, u.first});
        history.push_back({kMem, {{"instance", node}}, t, u.second});
      }
    }
    auto prom = Prometheus::Start(history);
    ASSERT_TRUE(prom.ok()) << prom.status();
    prom_ = *std::move(prom);

    // Pods bound directly (no scheduler): 3 on node-1, 1 on node-2, 2 on node-4, and one
    // pending.
    const std::vector<std::pair<std::string, std::string>> placement = {
        {"node-1", "500m"}, {"node-1", "1"},    {"node-1", "250m"}, {"node-2", "2"},
        {"node-4", "100m"}, {"node-4", "300m"}, {"", "1"}};
    TRIMARAN_ASSERT_OK(cluster_->CreatePods(static_cast<int>(placement.size()), [&](int i) {
      return PodShape{.name = absl::StrCat("p-", i),
                      .scheduler_name = "nobody",
                      .cpu = placement[static_cast<size_t>(i)].second,
                      .memory = absl::StrCat(128 * (i + 1), "Mi"),
                      .node_name = placement[static_cast<size_t>(i)].first};
    }));

    auto lw_port = PickFreePort();
    ASSERT_TRUE(lw_port.ok());
    auto lw = Subprocess::Start(
        {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", *lw_port),
         "--grpc-port=0", "--fetch-interval=1s", "--kubeconfig=" + kubeconfig_},
        cluster_->control_plane().dir() + "/load-watcher.log",
        {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()});
    ASSERT_TRUE(lw.ok()) << lw.status();
    watcher_ = *std::move(lw);
    watcher_url_ = absl::StrCat("http://127.0.0.1:", *lw_port);
    ASSERT_TRUE(Eventually(
        [&] {
          int status = 0;
          const std::string body = Curl(watcher_url_ + "/watcher", &status);
          return status == 200 && absl::StrContains(body, "node-3");
        },
        absl::Seconds(30)))
        << "load-watcher never served a snapshot";
  }

  void TearDown() override {
    if (HasFailure() && watcher_) {
      std::fprintf(stderr, "--- load-watcher ---\n%s\n", watcher_->LogTail().c_str());
    }
    if (watcher_) watcher_->Stop();
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_;
  std::string kubeconfig_;
  std::string watcher_url_;
};

TEST_F(TrimaranctlNodesE2ETest, JsonEqualsApiRequestsAndWatcherUsage) {
  int code = 0;
  const std::string out =
      RunCapture({kTrimaranctlBin, "nodes", "-o", "json", "--resources", "cpu,memory",
                  "--kubeconfig", kubeconfig_, "--watcher", watcher_url_},
                 &code);
  ASSERT_EQ(code, 0) << out;
  rapidjson::Document got;
  got.Parse(out.c_str());
  ASSERT_FALSE(got.HasParseError()) << out;

  // Requests per node, from the apiserver.
  auto pods = cluster_->client().ListPods("", {});
  ASSERT_TRUE(pods.ok()) << pods.status();
  std::map<std::string, kube::Resource> requested;
  int64_t pending = 0;
  for (const kube::Pod& p : pods->items) {
    if (p.spec.node_name.empty()) {
      ++pending;
      continue;
    }
    requested[p.spec.node_name].Add(kube::ComputePodRequests(p));
  }
  // Usage from /watcher (percent of capacity: 4 cores, 16Gi).
  const std::string body = Curl(watcher_url_ + "/watcher");
  rapidjson::Document w;
  w.Parse(body.c_str());
  ASSERT_TRUE(w.IsObject()) << body;
  const rapidjson::Value& hosts = w["data"]["NodeMetricsMap"];
  auto watcher_pct = [&](const std::string& node, const char* type) -> std::optional<double> {
    if (!hosts.HasMember(node.c_str())) return std::nullopt;
    for (const rapidjson::Value& m : hosts[node.c_str()]["metrics"].GetArray()) {
      if (std::string(m["type"].GetString()) == type &&
          std::string(m["operator"].GetString()) == "AVG") {
        return m["value"].GetDouble();
      }
    }
    return std::nullopt;
  };

  const rapidjson::Value& nodes = got["nodes"];
  ASSERT_EQ(nodes.Size(), 4u);
  double sum_cpu = 0;
  double sum_mem = 0;
  double used_cpu = 0;
  for (const rapidjson::Value& n : nodes.GetArray()) {
    const std::string name = n["name"].GetString();
    SCOPED_TRACE(name);
    const rapidjson::Value& cpu = n["resources"]["cpu"];
    const rapidjson::Value& mem = n["resources"]["memory"];
    EXPECT_EQ(cpu["requested"].GetDouble(), static_cast<double>(requested[name].milli_cpu));
    EXPECT_EQ(mem["requested"].GetDouble(), static_cast<double>(requested[name].memory));
    EXPECT_EQ(cpu["allocatable"].GetDouble(), 4000);
    sum_cpu += cpu["requested"].GetDouble();
    sum_mem += mem["requested"].GetDouble();
    const std::optional<double> cpu_pct = watcher_pct(name, "CPU");
    const std::optional<double> mem_pct = watcher_pct(name, "Memory");
    if (name == "node-4") {
      EXPECT_FALSE(cpu_pct.has_value());
      EXPECT_STREQ(n["usage"].GetString(), "missing");
      EXPECT_TRUE(cpu["used"].IsNull());
      continue;
    }
    ASSERT_TRUE(cpu_pct.has_value() && mem_pct.has_value());
    EXPECT_STREQ(n["usage"].GetString(), "ok");
    EXPECT_NEAR(cpu["used"].GetDouble(), *cpu_pct / 100 * 4000, 1e-6);
    EXPECT_NEAR(mem["used"].GetDouble(), *mem_pct / 100 * 16.0 * (1 << 30), 1);
    used_cpu += cpu["used"].GetDouble();
  }
  // Prometheus held constant values, so the 15m averages are those values.
  EXPECT_NEAR(*watcher_pct("node-1", "CPU"), 50, 1e-6);
  const rapidjson::Value& summary = got["summary"];
  EXPECT_EQ(summary["nodes"].GetInt(), 4);
  EXPECT_EQ(summary["pods"].GetInt(), 6);
  EXPECT_EQ(summary["pendingPods"].GetInt(), pending);
  EXPECT_EQ(summary["resources"]["cpu"]["requested"].GetDouble(), sum_cpu);
  EXPECT_EQ(summary["resources"]["memory"]["requested"].GetDouble(), sum_mem);
  EXPECT_NEAR(summary["resources"]["cpu"]["used"].GetDouble(), used_cpu, 1e-6);
  EXPECT_EQ(summary["resources"]["cpu"]["measuredAllocatable"].GetDouble(), 12000);
  EXPECT_EQ(summary["nodesWithoutUsage"].GetInt(), 1);
  EXPECT_TRUE(got["metrics"]["available"].GetBool());
  EXPECT_STREQ(got["metrics"]["source"].GetString(), "Prometheus");
}

// tmux helpers: every call is a separate `tmux` process on a private socket.
class Tmux {
 public:
  explicit Tmux(std::string socket) : socket_(std::move(socket)) {}
  ~Tmux() { Run({"kill-server"}); }
  int Run(const std::vector<std::string>& args, std::string* out = nullptr) {
    std::vector<std::string> argv = {"tmux", "-S", socket_};
    for (const std::string& a : args) argv.push_back("'" + a + "'");
    int code = 0;
    std::string o = RunCapture(argv, &code);
    if (out != nullptr) *out = std::move(o);
    return code;
  }
  std::string Capture() {
    std::string out;
    Run({"capture-pane", "-p", "-t", "nodes"}, &out);
    return out;
  }

 private:
  std::string socket_;
};

TEST_F(TrimaranctlNodesE2ETest, LiveViewUnderTmuxSortsAndQuits) {
  if (system("tmux -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "tmux not on PATH";
  const std::string dir = cluster_->control_plane().dir();
  Tmux tmux(dir + "/tmux.sock");
  const std::string exit_file = dir + "/nodes.exit";
  const std::string cmd =
      absl::StrCat(kTrimaranctlBin, " nodes --no-color --refresh 1s --resources cpu --kubeconfig ",
                   kubeconfig_, " --watcher ", watcher_url_, "; echo $? > ", exit_file);
  ASSERT_EQ(tmux.Run({"new-session", "-d", "-s", "nodes", "-x", "220", "-y", "30", cmd}), 0);

  std::string screen;
  ASSERT_TRUE(Eventually(
      [&] {
        screen = tmux.Capture();
        return absl::StrContains(screen, "node-4") && absl::StrContains(screen, "4 nodes");
      },
      absl::Seconds(20)))
      << screen;
  EXPECT_THAT(screen, ::testing::HasSubstr("S: sort (creation=dsc)"));
  EXPECT_THAT(screen, ::testing::HasSubstr("▕"));

  // S: sort by CPU requests, highest first: node-2 (2 cores) above node-1 (1750m).
  ASSERT_EQ(tmux.Run({"send-keys", "-t", "nodes", "S"}), 0);
  ASSERT_TRUE(Eventually(
      [&] {
        screen = tmux.Capture();
        return absl::StrContains(screen, "S: sort (cpu-requests=dsc)");
      },
      absl::Seconds(10)))
      << screen;
  const size_t n2 = screen.find("node-2 ");
  const size_t n1 = screen.find("node-1 ");
  const size_t n4 = screen.find("node-4 ");
  ASSERT_NE(n2, std::string::npos);
  ASSERT_NE(n1, std::string::npos);
  EXPECT_LT(n2, n1);
  EXPECT_LT(n1, n4);
  EXPECT_THAT(screen, ::testing::HasSubstr("no metrics"));  // node-4, never idle

  // "/" filter: only node-2's row is left; the summary still counts 4 nodes.
  ASSERT_EQ(tmux.Run({"send-keys", "-t", "nodes", "/", "node-2", "Enter"}), 0);
  ASSERT_TRUE(Eventually(
      [&] {
        screen = tmux.Capture();
        return absl::StrContains(screen, "nodes 1-1 of 1  filter: node-2");
      },
      absl::Seconds(10)))
      << screen;
  EXPECT_THAT(screen, ::testing::HasSubstr("4 nodes"));
  EXPECT_THAT(screen, ::testing::Not(::testing::HasSubstr("node-1 ")));

  ASSERT_EQ(tmux.Run({"send-keys", "-t", "nodes", "q"}), 0);
  std::string exit_code;
  ASSERT_TRUE(Eventually(
      [&] {
        std::ifstream in(exit_file);
        std::getline(in, exit_code);
        return !exit_code.empty();
      },
      absl::Seconds(10)));
  EXPECT_EQ(exit_code, "0");
}

TEST_F(TrimaranctlNodesE2ETest, DashboardPageShowsTheSameFiguresAsJson) {
  TRIMARAN_REQUIRE_CHROMIUM();
  const std::vector<std::string> source = {
      "--resources", "cpu,memory", "--kubeconfig",         kubeconfig_,
      "--watcher",   watcher_url_, "--target-utilization", "60"};
  std::vector<std::string> once = {kTrimaranctlBin, "nodes", "-o", "json"};
  once.insert(once.end(), source.begin(), source.end());
  int code = 0;
  const std::string json = RunCapture(once, &code);
  ASSERT_EQ(code, 0) << json;
  rapidjson::Document want;
  want.Parse(json.c_str());
  ASSERT_FALSE(want.HasParseError()) << json;

  const std::string dir = cluster_->control_plane().dir();
  const std::string token_file = dir + "/scheduler.token";
  std::ofstream(token_file) << "e2e-token\n";
  std::unique_ptr<http::HttpServer> scheduler = FakeDecisionsServer("e2e-token");
  ASSERT_NE(scheduler, nullptr);

  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  const std::string listen = absl::StrCat("127.0.0.1:", *port);
  std::vector<std::string> argv = {kTrimaranctlBin, "dashboard",      "--listen",
                                   listen,          "--refresh",      "1s",
                                   "--scheduler",   scheduler->url(), "--scheduler-token-file",
                                   token_file};
  argv.insert(argv.end(), source.begin(), source.end());
  auto dashboard = Subprocess::Start(argv, dir + "/dashboard.log");
  ASSERT_TRUE(dashboard.ok()) << dashboard.status();
  const std::string url = absl::StrCat("http://", listen, "/");
  // The token of the URL the dashboard printed: curl sends it as a bearer header, the
  // browser opens the token URL (which sets the cookie and redirects to `url`).
  const std::string token = TokenFromLog(**dashboard);
  ASSERT_EQ(token.size(), 64u) << (*dashboard)->LogTail();
  const std::string auth = "Authorization: Bearer " + token;
  const std::string page = url + "?token=" + token;
  int refused = 0;
  Curl(url + "api/nodes", &refused);
  EXPECT_EQ(refused, 401);  // no token
  std::string body;
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        body = Curl(url + "api/nodes", &status, auth);
        return status == 200 && absl::StrContains(body, "node-4");
      },
      absl::Seconds(30)))
      << body << (*dashboard)->LogTail();

  // api/nodes: the figures of `nodes -o json` (the same writer over the same cluster).
  rapidjson::Document got;
  got.Parse(body.c_str());
  ASSERT_FALSE(got.HasParseError()) << body;
  ASSERT_EQ(got["nodes"].Size(), want["nodes"].Size());
  std::map<std::string, const rapidjson::Value*> want_nodes;
  for (const rapidjson::Value& n : want["nodes"].GetArray()) want_nodes[n["name"].GetString()] = &n;
  for (const rapidjson::Value& n : got["nodes"].GetArray()) {
    const std::string name = n["name"].GetString();
    SCOPED_TRACE(name);
    ASSERT_TRUE(want_nodes.count(name));
    const rapidjson::Value& w = *want_nodes[name];
    EXPECT_STREQ(n["usage"].GetString(), w["usage"].GetString());
    for (const char* res : {"cpu", "memory"}) {
      const rapidjson::Value& a = n["resources"][res];
      const rapidjson::Value& b = w["resources"][res];
      EXPECT_EQ(a["requested"].GetDouble(), b["requested"].GetDouble()) << res;
      EXPECT_EQ(a["allocatable"].GetDouble(), b["allocatable"].GetDouble()) << res;
      EXPECT_EQ(a["used"].IsNull(), b["used"].IsNull()) << res;
      if (!b["used"].IsNull()) {
        EXPECT_NEAR(a["used"].GetDouble(), b["used"].GetDouble(), 1) << res;
      }
    }
  }
  EXPECT_EQ(got["summary"]["pods"].GetInt(), want["summary"]["pods"].GetInt());
  EXPECT_EQ(got["targetUtilizationPercent"]["cpu"].GetDouble(), 60);

  // The history fills as the watcher's snapshots change (it fetches every second).
  ASSERT_TRUE(Eventually(
      [&] {
        body = Curl(url + "api/history?node=node-1", nullptr, auth);
        return absl::StrContains(body, "],[");
      },
      absl::Seconds(30)))
      << body;

  // The page in headless Chromium: rows and summary show the `-o json` figures.
  auto dom = ChromiumDumpDom(page);
  ASSERT_TRUE(dom.ok()) << dom.status();
  EXPECT_TRUE(TagAttribute(*dom, "data-first-render-ms", "data-first-render-ms").has_value())
      << *dom;
  for (const rapidjson::Value& w : want["nodes"].GetArray()) {
    const std::string name = w["name"].GetString();
    SCOPED_TRACE(name);
    const std::string anchor = absl::StrCat("data-node=\"", name, "\"");
    const size_t row = dom->find(anchor);
    ASSERT_NE(row, std::string::npos) << *dom;
    EXPECT_EQ(TagAttribute(*dom, anchor, "data-usage"), w["usage"].GetString());
    for (const std::string res : {"cpu", "memory"}) {
      const rapidjson::Value& r = w["resources"][res.c_str()];
      EXPECT_EQ(Number(*TagAttribute(*dom, anchor, "data-" + res + "-requested")),
                r["requested"].GetDouble());
      EXPECT_EQ(Number(*TagAttribute(*dom, anchor, "data-" + res + "-allocatable")),
                r["allocatable"].GetDouble());
      // The visible percentages (rounded to whole percent on the page).
      EXPECT_NEAR(Number(TextAfter(*dom, row, "data-k=\"" + res + "-requested-percent\"")),
                  r["requestedPercent"].GetDouble(), 0.51);
      const std::string used = TextAfter(*dom, row, "data-k=\"" + res + "-used-percent\"");
      if (r["used"].IsNull()) {
        EXPECT_EQ(used, "n/a");  // never shown as idle
        EXPECT_EQ(TagAttribute(*dom, anchor, "data-" + res + "-used"), "");
      } else {
        EXPECT_NEAR(Number(used), r["usedPercent"].GetDouble(), 0.51);
        EXPECT_NEAR(Number(*TagAttribute(*dom, anchor, "data-" + res + "-used")),
                    r["used"].GetDouble(), 1);
      }
    }
  }
  EXPECT_THAT(*dom, ::testing::HasSubstr("no metrics"));  // node-4's usage bar
  const rapidjson::Value& sum = want["summary"];
  EXPECT_EQ(Number(TextAfter(*dom, 0, "id=\"sum-nodes\"")), sum["nodes"].GetInt());
  EXPECT_EQ(Number(TextAfter(*dom, 0, "id=\"sum-pods\"")),
            sum["pendingPods"].GetInt() + sum["runningPods"].GetInt() + sum["boundPods"].GetInt());
  EXPECT_NEAR(Number(TextAfter(*dom, 0, "id=\"sum-price-month\"")),
              sum["pricePerMonth"].GetDouble(), 0.0005);
  for (const std::string res : {"cpu", "memory"}) {
    const rapidjson::Value& r = sum["resources"][res.c_str()];
    EXPECT_NEAR(Number(TextAfter(*dom, 0, "id=\"sum-" + res + "-requested-percent\"")),
                r["requestedPercent"].GetDouble(), 0.051);
    EXPECT_NEAR(Number(TextAfter(*dom, 0, "id=\"sum-" + res + "-used-percent\"")),
                r["usedPercent"].GetDouble(), 0.051);
  }
  EXPECT_NEAR(Number(TextAfter(*dom, 0, "id=\"sum-price-hour\"")), sum["pricePerHour"].GetDouble(),
              0.0005);
  // The decisions panel: the fake scheduler's decisions, with scores and fallbacks.
  EXPECT_THAT(*dom, ::testing::HasSubstr("data-pod=\"default/spark-exec-1\""));
  EXPECT_THAT(*dom, ::testing::HasSubstr("TargetLoadPacking</bdi> 97"));
  EXPECT_THAT(*dom, ::testing::HasSubstr("TargetLoadPacking: metrics stale, used requests"));
  EXPECT_THAT(*dom, ::testing::HasSubstr("0/4 nodes are available"));

  // Sort and filter controls, set through the page's URL fragment (bookmarkable views).
  auto sorted = ChromiumDumpDom(page + "#sort=cpu-requests&order=dsc");
  ASSERT_TRUE(sorted.ok()) << sorted.status();
  // CPU requests: node-2 2000m, node-1 1750m, node-4 400m, node-3 none.
  EXPECT_THAT(RowOrder(*sorted), ::testing::ElementsAre("node-2", "node-1", "node-4", "node-3"));
  auto ascending = ChromiumDumpDom(page + "#sort=cpu-usage&order=asc");
  ASSERT_TRUE(ascending.ok()) << ascending.status();
  // CPU usage: node-2 10 %, node-1 50 %, node-3 80 %; node-4 has none: last.
  EXPECT_THAT(RowOrder(*ascending), ::testing::ElementsAre("node-2", "node-1", "node-3", "node-4"));
  auto spot = ChromiumDumpDom(page + "#filter=spot");
  ASSERT_TRUE(spot.ok()) << spot.status();
  EXPECT_THAT(RowOrder(*spot), ::testing::ElementsAre("node-3"));
  EXPECT_THAT(*spot, ::testing::HasSubstr("1 of 4 nodes"));
  auto no_usage = ChromiumDumpDom(page + "#na=1");
  ASSERT_TRUE(no_usage.ok()) << no_usage.status();
  EXPECT_THAT(RowOrder(*no_usage), ::testing::ElementsAre("node-4"));
  auto hot = ChromiumDumpDom(page + "#hot=1");  // --hot-threshold 80: node-3's CPU
  ASSERT_TRUE(hot.ok()) << hot.status();
  EXPECT_THAT(RowOrder(*hot), ::testing::ElementsAre("node-3"));

  const std::string png = std::string(kScreenshotDir) + "/dashboard.png";
  ASSERT_TRUE(ChromiumScreenshot(page, png, {.width = 1400, .height = 820}).ok());
  EXPECT_GT(std::filesystem::file_size(png), 10000u);

  // The port is taken: a clear error, exit 1.
  std::string again_cmd =
      absl::StrCat(kTrimaranctlBin, " dashboard --listen ", listen, " --kubeconfig ", kubeconfig_);
  const std::string again = RunCaptureAll(again_cmd, &code);
  EXPECT_EQ(code, 1) << again;
  EXPECT_THAT(again, ::testing::HasSubstr("address already in use"));
  EXPECT_THAT(again, ::testing::HasSubstr("--listen"));
  (*dashboard)->Stop();
}

TEST_F(TrimaranctlNodesE2ETest, LoadWatcherServesTheDashboard) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  auto lw = Subprocess::Start(
      {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", *port), "--grpc-port=0",
       "--fetch-interval=1s", "--dashboard", "--kubeconfig=" + kubeconfig_},
      cluster_->control_plane().dir() + "/load-watcher-dashboard.log",
      {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()});
  ASSERT_TRUE(lw.ok()) << lw.status();
  const std::string base = absl::StrCat("http://127.0.0.1:", *port, "/dashboard/");
  // Without --token-file the load watcher makes a dashboard token and logs the URL.
  const std::string token = TokenFromLog(**lw);
  ASSERT_EQ(token.size(), 64u) << (*lw)->LogTail();
  const std::string auth = "Authorization: Bearer " + token;
  std::string body;
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        body = Curl(base + "api/nodes", &status, auth);
        return status == 200 && absl::StrContains(body, "\"usage\": \"ok\"");
      },
      absl::Seconds(30)))
      << body << (*lw)->LogTail();
  rapidjson::Document got;
  got.Parse(body.c_str());
  ASSERT_FALSE(got.HasParseError()) << body;
  EXPECT_EQ(got["summary"]["nodes"].GetInt(), 4);
  EXPECT_EQ(got["summary"]["pods"].GetInt(), 6);
  for (const rapidjson::Value& n : got["nodes"].GetArray()) {
    if (std::string(n["name"].GetString()) == "node-1") {
      EXPECT_EQ(n["resources"]["cpu"]["requested"].GetDouble(), 1750);
      EXPECT_NEAR(n["resources"]["cpu"]["used"].GetDouble(), 2000, 1e-6);  // 50 % of 4 cores
    }
  }
  int status = 0;
  EXPECT_THAT(Curl(base, &status, auth), ::testing::HasSubstr("<title>Trimaran nodes</title>"));
  EXPECT_EQ(status, 200);
  Curl(base, &status);
  EXPECT_EQ(status, 401);
  EXPECT_THAT(Curl(base + "api/decisions", nullptr, auth),
              ::testing::HasSubstr("\"enabled\":false"));
  // The watcher's own API is unchanged.
  Curl(absl::StrCat("http://127.0.0.1:", *port, "/watcher"), &status);
  EXPECT_EQ(status, 200);
  (*lw)->Stop();
}

// The coloured live view as a PNG (docs/img/nodes-terminal.png): tmux's capture with its
// escape sequences, rendered as HTML by Chromium.
TEST_F(TrimaranctlNodesE2ETest, TerminalViewScreenshot) {
  if (system("tmux -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "tmux not on PATH";
  TRIMARAN_REQUIRE_CHROMIUM();
  const std::string dir = cluster_->control_plane().dir();
  Tmux tmux(dir + "/tmux-color.sock");
  const std::string cmd = absl::StrCat(
      "TERM=xterm-256color ", kTrimaranctlBin,
      " nodes --refresh 1s --resources cpu,memory --target-utilization 60 --kubeconfig ",
      kubeconfig_, " --watcher ", watcher_url_);
  ASSERT_EQ(tmux.Run({"new-session", "-d", "-s", "nodes", "-x", "150", "-y", "16", cmd}), 0);
  std::string screen;
  ASSERT_TRUE(Eventually(
      [&] {
        screen = tmux.Capture();
        return absl::StrContains(screen, "node-4") && absl::StrContains(screen, "4 nodes") &&
               absl::StrContains(screen, "usage: Prometheus");
      },
      absl::Seconds(20)))
      << screen;
  std::string ansi;
  ASSERT_EQ(tmux.Run({"capture-pane", "-e", "-p", "-t", "nodes"}, &ansi), 0);
  EXPECT_THAT(ansi, ::testing::HasSubstr("\x1b["));  // coloured
  const std::string html_path = std::string(kScreenshotDir) + "/nodes-terminal.html";
  std::filesystem::create_directories(kScreenshotDir);
  std::ofstream(html_path) << AnsiToHtml(ansi, "trimaranctl nodes");
  const std::string png = std::string(kScreenshotDir) + "/nodes-terminal.png";
  ASSERT_TRUE(ChromiumScreenshot("file://" + html_path, png,
                                 {.width = 1180, .height = 300, .virtual_time = absl::Seconds(1)})
                  .ok());
  EXPECT_GT(std::filesystem::file_size(png), 5000u);
  tmux.Run({"send-keys", "-t", "nodes", "q"});
}

// `kubectl trimaran` (issue 34): the real kubectl finds trimaranctl on PATH as the plugin
// kubectl-trimaran and hands it --context as kubectl spells it; `-o table` into a pipe
// holds no escape codes; on a terminal (tmux) the table is coloured, and plain with
// NO_COLOR set.
TEST_F(TrimaranctlNodesE2ETest, KubectlPluginFollowsTerminalConventions) {
  if (system("kubectl version --client >/dev/null 2>&1") != 0) GTEST_SKIP() << "no kubectl";
  if (system("tmux -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "tmux not on PATH";
  const std::string dir = cluster_->control_plane().dir();
  const std::string bin_dir = dir + "/plugin-bin";
  std::filesystem::create_directories(bin_dir);
  std::filesystem::remove(bin_dir + "/kubectl-trimaran");
  std::filesystem::create_symlink(kTrimaranctlBin, bin_dir + "/kubectl-trimaran");

  // A kubeconfig whose current context points at a closed port, beside the working
  // context renamed "good": the plugin reaches the cluster only if --context reached it.
  const std::string config = dir + "/plugin-kubeconfig";
  std::filesystem::copy_file(kubeconfig_, config,
                             std::filesystem::copy_options::overwrite_existing);
  int code = 0;
  const std::string kubectl = absl::StrCat("KUBECONFIG=", config, " kubectl config ");
  const std::string current =
      std::string(absl::StripAsciiWhitespace(RunCaptureAll(kubectl + "current-context", &code)));
  ASSERT_EQ(code, 0) << current;
  const std::string user =
      RunCaptureAll(kubectl + "view -o jsonpath='{.contexts[0].context.user}'", &code);
  ASSERT_EQ(code, 0) << user;
  for (const std::string& step :
       {absl::StrCat("rename-context ", current, " good"),
        std::string("set-cluster nowhere --server=https://127.0.0.1:1"),
        absl::StrCat("set-context broken --cluster=nowhere --user=", user),
        std::string("use-context broken")}) {
    const std::string out = RunCaptureAll(kubectl + step, &code);
    ASSERT_EQ(code, 0) << step << ": " << out;
  }
  const std::string plugin =
      absl::StrCat("PATH=", bin_dir, ":$PATH KUBECONFIG=", config, " kubectl trimaran ");
  const std::string table_args =
      absl::StrCat("nodes -o table --resources cpu --watcher ", watcher_url_);

  // Into a pipe (popen): the table, with no escape code.
  std::string out = RunCaptureAll(plugin + table_args + " --context good", &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_THAT(out, ::testing::HasSubstr("node-1"));
  EXPECT_THAT(out, ::testing::HasSubstr("4 nodes"));
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  // Without --context the current (broken) context is used: it fails, naming the server.
  out = RunCaptureAll(plugin + table_args, &code);
  EXPECT_NE(code, 0) << out;
  EXPECT_THAT(out, ::testing::HasSubstr("127.0.0.1:1"));

  // On a terminal: coloured; with NO_COLOR: plain. The command then waits, so that the
  // pane is still there to capture.
  auto terminal_table = [&](const std::string& session, const std::string& env) {
    Tmux tmux(absl::StrCat(dir, "/tmux-", session, ".sock"));
    const std::string cmd = absl::StrCat("TERM=xterm-256color ", env, " ", plugin, table_args,
                                         " --context good; echo done-$?; sleep 60");
    std::string ansi;
    if (tmux.Run({"new-session", "-d", "-s", "nodes", "-x", "200", "-y", "20", cmd}) != 0) {
      return ansi;
    }
    Eventually(
        [&] {
          tmux.Run({"capture-pane", "-e", "-p", "-t", "nodes"}, &ansi);
          return absl::StrContains(ansi, "done-");
        },
        absl::Seconds(20));
    return ansi;
  };
  const std::string coloured = terminal_table("color", "");
  EXPECT_THAT(coloured, ::testing::HasSubstr("done-0"));
  EXPECT_THAT(coloured, ::testing::HasSubstr("node-1"));
  EXPECT_THAT(coloured, ::testing::HasSubstr("38;2;"));  // the palette's 24-bit colours
  const std::string plain = terminal_table("nocolor", "NO_COLOR=1");
  EXPECT_THAT(plain, ::testing::HasSubstr("done-0"));
  EXPECT_THAT(plain, ::testing::HasSubstr("node-1"));
  EXPECT_THAT(plain, ::testing::Not(::testing::HasSubstr("38;2;"))) << plain;
  EXPECT_THAT(plain, ::testing::Not(::testing::HasSubstr("38;5;"))) << plain;
}

}  // namespace
}  // namespace trimaran::e2e
