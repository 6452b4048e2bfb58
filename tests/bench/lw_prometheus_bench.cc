// Load watcher against a real Prometheus with N nodes (default 5,000; figures in
// docs/benchmarks.md, "Load watcher daemon"):
//   1. PrometheusProvider::FetchAllHostsMetrics per window (15m, 10m, 5m): the 4 default
//      queries over HTTP plus parsing, timed over `rounds` rounds (target < 1 s).
//   2. the load-watcher daemon serving those N nodes: peak RSS (VmHWM from
//      /proc/PID/status) after its history is full and /watcher has been served
//      (target < 50 MB).
// Usage: lw_prometheus_bench [nodes=5000] [rounds=5] [daemon --history-size=5]. ctest runs it with
// 50 nodes and 1 round (label bench-smoke). Skips (exit 0) when prometheus/promtool are absent.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "loadwatcher/json.h"
#include "providers/prometheus/prometheus_provider.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

int Die(const std::string& what) {
  std::fprintf(stderr, "lw_prometheus_bench: %s\n", what.c_str());
  return 1;
}

long VmHwmKb(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

int Main(int argc, char** argv) {
  int nodes = 5000, rounds = 5, history_size = 5;
  if (argc > 1 && !absl::SimpleAtoi(argv[1], &nodes)) return Die("nodes: not an integer");
  if (argc > 3 && !absl::SimpleAtoi(argv[3], &history_size)) return Die("history: not an integer");
  if (argc > 2 && !absl::SimpleAtoi(argv[2], &rounds)) return Die("rounds: not an integer");
  if (!Prometheus::Available()) {
    std::printf("SKIP: prometheus/promtool not on PATH\n");
    return 0;
  }
  const int64_t t = absl::ToUnixSeconds(absl::Now());
  std::vector<PromSample> history;
  history.reserve(static_cast<size_t>(nodes) * 160);
  for (int n = 0; n < nodes; ++n) {
    const std::string instance = absl::StrCat("node-", n);
    for (int k = 0; k < 80; ++k) {  // 20 minutes every 15 s
      const int64_t ts = t - 1193 + k * 15;
      history.push_back({"instance:node_cpu:ratio",
                         {{"instance", instance}},
                         ts,
                         0.2 + 0.001 * ((n * 31 + k * 7) % 500)});
      history.push_back({"instance:node_memory_utilisation:ratio",
                         {{"instance", instance}},
                         ts,
                         0.4 + 0.001 * ((n * 17 + k * 3) % 400)});
    }
  }
  absl::StatusOr<std::unique_ptr<Prometheus>> prom = Prometheus::Start(history);
  if (!prom.ok()) return Die(prom.status().ToString());
  history.clear();
  history.shrink_to_fit();
  std::printf("nodes=%d samples=%d promtool_import=%s\n", nodes, nodes * 160,
              absl::FormatDuration((*prom)->import_time()).c_str());

  // 1. Fetch + parse per window.
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> transport = http::CurlTransport::Create();
  if (!transport.ok()) return Die(transport.status().ToString());
  providers::prometheus::PrometheusOptions options;
  options.address = (*prom)->url();
  auto provider = providers::prometheus::PrometheusProvider::Create(options, transport->get());
  if (!provider.ok()) return Die(provider.status().ToString());
  bool ok = true;
  for (const auto& [window, seconds] :
       std::vector<std::pair<std::string, int64_t>>{{"15m", 900}, {"10m", 600}, {"5m", 300}}) {
    std::vector<double> ms;
    size_t got_nodes = 0;
    for (int r = 0; r < rounds; ++r) {
      const absl::Time start = absl::Now();
      auto result = (*provider)->FetchAllHostsMetrics({window, t - seconds, t});
      ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
      if (!result.ok()) return Die(result.status().ToString());
      got_nodes = result->nodes.size();
    }
    std::sort(ms.begin(), ms.end());
    std::printf("fetch+parse window=%s nodes=%zu rounds=%d min=%.1fms median=%.1fms max=%.1fms\n",
                window.c_str(), got_nodes, rounds, ms.front(), ms[ms.size() / 2], ms.back());
    ok = ok && got_nodes == static_cast<size_t>(nodes);
  }

  // 2. The daemon's peak RSS while serving the N nodes with a full history.
  absl::StatusOr<int> port = PickFreePort();
  absl::StatusOr<int> grpc_port = PickFreePort();
  if (!port.ok() || !grpc_port.ok()) return Die("no free port");
  auto daemon = Subprocess::Start(
      {TRIMARAN_LOAD_WATCHER_BIN, "--bind-address=127.0.0.1", absl::StrCat("--port=", *port),
       absl::StrCat("--grpc-port=", *grpc_port), "--fetch-interval=1s",
       absl::StrCat("--history-size=", history_size)},
      "/tmp/lw_prometheus_bench_daemon.log",
      {"METRICS_PROVIDER_NAME=Prometheus",
       absl::StrCat("METRICS_PROVIDER_ADDRESS=", (*prom)->url()), "KUBERNETES_SERVICE_HOST="});
  if (!daemon.ok()) return Die(daemon.status().ToString());
  const std::string url = absl::StrCat("http://127.0.0.1:", *port, "/watcher");
  int served = 0;
  size_t body_bytes = 0;
  double serve_ms_max = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  // History of 5 per window: wait for at least 6 fetch rounds (fetches_total per window).
  while (absl::Now() < deadline) {
    if (!(*daemon)->Running()) return Die("daemon exited: " + (*daemon)->LogTail());
    http::HttpRequest req;
    req.url = url;
    req.timeout = absl::Seconds(10);
    const absl::Time start = absl::Now();
    auto resp = (*transport)->Send(req);
    if (resp.ok() && resp->status_code == 200) {
      serve_ms_max = std::max(serve_ms_max, absl::ToDoubleMilliseconds(absl::Now() - start));
      body_bytes = resp->body.size();
      ++served;
    }
    http::HttpRequest m;
    m.url = absl::StrCat("http://127.0.0.1:", *port, "/metrics");
    auto metrics = (*transport)->Send(m);
    if (metrics.ok()) {
      const std::string key =
          "trimaran_loadwatcher_fetches_total{provider=\"Prometheus\",window=\"5m\",result=\"ok\"}"
          " ";
      size_t at = metrics->body.find(key);
      double fetches = 0;
      if (at != std::string::npos) {
        (void)absl::SimpleAtod(
            metrics->body.substr(at + key.size(), metrics->body.find('\n', at) - at - key.size()),
            &fetches);
      }
      if (fetches >= 6 && served >= 10) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const long hwm = VmHwmKb((*daemon)->pid());
  std::printf(
      "daemon history=%d nodes=%d /watcher served=%d body=%zu bytes slowest=%.1fms peak_rss=%.1f "
      "MB\n",
      history_size, nodes, served, body_bytes, serve_ms_max, hwm / 1024.0);
  (*daemon)->Signal(SIGTERM);
  auto code = (*daemon)->Wait(absl::Seconds(15));
  if (!code.ok() || *code != 0) return Die("daemon did not exit 0 on SIGTERM");
  if (served == 0 || !ok) return Die("no data served / node count mismatch");
  return 0;
}

}  // namespace
}  // namespace trimaran::e2e

int main(int argc, char** argv) { return trimaran::e2e::Main(argc, argv); }
