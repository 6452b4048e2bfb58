// The extender's cost per pod (issue 21, "Benchmark"): kube-scheduler's two calls for one
// pod, /filter then /prioritize with the nodes that passed, node-cache-capable (names
// only), through the real ExtenderService + FrameworkBackend on a real Scheduler's cache
// (the daemon's code path; the scheduling loop does not run) with the load-aware
// profile of docs/extender.md: NodeResourcesFit filters, TargetLoadPacking scores from a
// load watcher holding CPU AVG for every node. One iteration = encode ExtenderArgs,
// filter, decode, encode, prioritize, decode (what kube-scheduler does too).
//
//   BM_ExtenderRoundTrip/nodes:N/https:0   the handlers called in process (codec + plugins)
//   BM_ExtenderRoundTrip/nodes:N/https:1   the same over HTTPS on 127.0.0.1 (HttpServer
//                                          with a self-signed pair, libcurl client,
//                                          keep-alive), as kube-scheduler calls it
//
//   TRIMARAN_TARGETS=extender_benchmark tools/build.sh
//   build/scheduler/extender_benchmark --benchmark_repetitions=3
//     --benchmark_report_aggregates_only=true     (one command line)
// Counters p50_us / p99_us: per round trip (filter + prioritize).

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/http/self_signed.h"
#include "common/stats/registry.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/extender/extender_codec.h"
#include "scheduler/extender/extender_service.h"
#include "scheduler/extender/framework_backend.h"
#include "scheduler/scheduler_benchmark_util.h"

namespace trimaran::sched {
namespace {

constexpr char kProfile[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: trimaran-extender
    plugins:
      multiPoint:
        disabled:
          - name: "*"
        enabled:
          - name: NodeResourcesFit
          - name: TargetLoadPacking
      score:
        disabled:
          - name: NodeResourcesFit
)";

void BM_ExtenderRoundTrip(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  const bool https = state.range(1) != 0;
  lw::testing::FakeLoadWatcherClient load_watcher;
  auto metrics = lw::testing::MakeWatcherMetrics().Timestamp(absl::ToUnixSeconds(absl::Now()));
  for (int i = 0; i < num_nodes; ++i) {
    metrics.Node(absl::StrFormat("node-%05d", i)).Cpu(lw::kOpAvg, i % 60);
  }
  load_watcher.Set(metrics.Obj());
  auto env = scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = kProfile, .num_nodes = num_nodes, .load_watcher = &load_watcher});
  Scheduler* sched = env->sched.get();
  Framework* fwk = sched->FrameworkFor("trimaran-extender");
  TRIMARAN_CHECK(fwk != nullptr);
  extender::FrameworkBackend backend(*fwk, [sched]() -> absl::StatusOr<const NodeInfoLister*> {
    absl::StatusOr<const Snapshot*> s = sched->RefreshSnapshot();
    if (!s.ok()) return s.status();
    return *s;
  });
  stats::Registry registry;
  extender::ExtenderService service(backend, RealClock::Get(), stats::Scope(registry, "x_"), {});

  std::unique_ptr<http::HttpServer> server;
  std::unique_ptr<http::CurlTransport> client;
  if (https) {
    const std::string dir = absl::StrFormat("/tmp/trimaran-extender-bench-%d", getpid());
    absl::StatusOr<http::ServingCertFiles> files = http::EnsureSelfSignedCert(dir);
    TRIMARAN_CHECK(files.ok());
    absl::StatusOr<std::unique_ptr<http::HttpServer>> s =
        http::HttpServer::Create({.name = "extender",
                                  .tls_cert_file = files->cert_file,
                                  .tls_key_file = files->key_file,
                                  .max_request_body_bytes = size_t{64} << 20});
    TRIMARAN_CHECK(s.ok());
    server = std::move(*s);
    TRIMARAN_CHECK(service.AddRoutes(*server).ok());
    TRIMARAN_CHECK(server->Start().ok());
    absl::StatusOr<std::unique_ptr<http::CurlTransport>> c =
        http::CurlTransport::Create({.tls = {.ca_file = files->cert_file}});
    TRIMARAN_CHECK(c.ok());
    client = std::move(*c);
  }
  auto call = [&](const char* verb, std::string body) -> std::string {
    http::ServerRequest req;
    req.method = "POST";
    req.body = std::move(body);
    if (!https) {
      http::ServerResponse res;
      if (verb[1] == 'f') {
        service.ServeFilter(req, res);
      } else {
        service.ServePrioritize(req, res);
      }
      return res.body;
    }
    http::HttpRequest hr;
    hr.method = "POST";
    hr.url = server->url() + verb;
    hr.headers.Set("Content-Type", "application/json");
    hr.body = std::move(req.body);
    absl::StatusOr<http::HttpResponse> r = client->Send(hr);
    TRIMARAN_CHECK(r.ok() && r->ok());
    return std::move(r->body);
  };

  std::vector<std::string> names;
  for (int i = 0; i < num_nodes; ++i) names.push_back(absl::StrFormat("node-%05d", i));
  std::vector<double> latencies_us;
  int64_t i = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    extender::ExtenderArgs args;
    args.pod = kube::testing::MakePod()
                   .Namespace("bench")
                   .Name(absl::StrFormat("p-%06d", i))
                   .UID(absl::StrFormat("uid-%06d", i))
                   .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                   .Obj();
    ++i;
    args.node_names = names;
    absl::StatusOr<extender::ExtenderFilterResult> filtered =
        extender::DecodeExtenderFilterResult(call("/filter", extender::EncodeExtenderArgs(args)));
    TRIMARAN_CHECK(filtered.ok() && filtered->error.empty());
    args.node_names = std::move(filtered->node_names);
    absl::StatusOr<std::vector<extender::HostPriority>> scores =
        extender::DecodeHostPriorityList(call("/prioritize", extender::EncodeExtenderArgs(args)));
    TRIMARAN_CHECK(scores.ok() && scores->size() == static_cast<size_t>(num_nodes));
    benchmark::DoNotOptimize(scores);
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  if (server) server->Stop();
  std::sort(latencies_us.begin(), latencies_us.end());
  auto quantile = [&](double q) {
    if (latencies_us.empty()) return 0.0;
    return latencies_us[std::min(
        latencies_us.size() - 1,
        static_cast<size_t>(q * static_cast<double>(latencies_us.size())))];
  };
  state.counters["p50_us"] = quantile(0.50);
  state.counters["p99_us"] = quantile(0.99);
}
BENCHMARK(BM_ExtenderRoundTrip)
    ->ArgNames({"nodes", "https"})
    ->Args({100, 0})
    ->Args({100, 1})
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
