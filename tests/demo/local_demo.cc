// trimaran-local-demo: the README's run command (tools/demo.sh) after the build.
//
// On this machine, on 127.0.0.1 only, it starts
//   - a control plane: etcd + kube-apiserver 1.37 (tests/e2e/harness), and the real
//     kube-scheduler 1.37 with its default profile ("kube-default") as the reference,
//   - a Prometheus loaded with 20 minutes of synthetic per-node CPU and memory
//     utilisation (instance:node_cpu:ratio, instance:node_memory_utilisation:ratio),
//   - the pod's two processes: load-watcher (Prometheus provider) and trimaran-scheduler
//     with two profiles: "trimaran" (TargetLoadPacking reading the sidecar watcher +
//     NodeResourcesFit MostAllocated) and "request-only" (MostAllocated by requests only,
//     the EKS guide's packing) for comparison,
// registers 20 nodes (8 CPU / 32Gi), submits a Spark-like job (a driver and executors)
// plus some steady services with schedulerName "trimaran", waits until every pod is
// bound, prints the node view (requested and used CPU/memory, pods, nodes in use), then
// deletes the pods and runs the same workload through kube-scheduler's default profile and
// through "request-only", and prints those views beside it. Then it stops everything it started.
//
// Usage: trimaran-local-demo --scheduler BIN --load-watcher BIN [--keep-logs DIR]
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/curl_transport.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "kube/rest_client.h"
#include "loadwatcher/json.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::demo {
namespace {

using e2e::ControlPlane;
using e2e::PodShape;
using e2e::Prometheus;
using e2e::PromSample;
using e2e::Subprocess;

constexpr int kNodes = 20;
constexpr int kNodeCpu = 8;     // cores
constexpr int kNodeMemGi = 32;  // GiB

std::string NodeName(int i) { return absl::StrFormat("node-%02d", i); }

// The synthetic load: a few nodes are already busy with work that requests little (the
// kind of node request-only packing loves and real usage shows to be hot), the rest
// are nearly idle. Percent of the node, CPU and memory.
std::pair<double, double> SyntheticLoad(int i) {
  if (i < 3) return {72.0 + 4 * i, 60.0 + 3 * i};  // hot
  if (i < 6) return {35.0 + 2 * i, 40.0};          // warm
  return {4.0 + (i % 4), 10.0 + (i % 3)};          // idle
}

std::vector<PromSample> History(int64_t now) {
  std::vector<PromSample> out;
  for (int i = 0; i < kNodes; ++i) {
    auto [cpu, mem] = SyntheticLoad(i);
    for (int64_t t = now - 20 * 60; t <= now; t += 15) {
      // A small wobble so the standard deviation is not zero.
      const double w = ((t / 15) % 3 - 1) * 1.0;
      out.push_back({"instance:node_cpu:ratio", {{"instance", NodeName(i)}}, t, (cpu + w) / 100.0});
      out.push_back({"instance:node_memory_utilisation:ratio",
                     {{"instance", NodeName(i)}},
                     t,
                     (mem + w) / 100.0});
    }
  }
  return out;
}

// Steady services and a Spark-like job (driver + executors), in the order a user would
// submit them; schedulerName is set per run.
std::vector<PodShape> Workload() {
  std::vector<PodShape> pods;
  auto add = [&](std::string name, std::string cpu, std::string memory, std::string label,
                 std::string value) {
    pods.push_back({.name = std::move(name),
                    .cpu = std::move(cpu),
                    .memory = std::move(memory),
                    .labels = {{std::move(label), std::move(value)}}});
  };
  for (int i = 0; i < 6; ++i) add(absl::StrCat("web-", i), "500m", "1Gi", "app", "web");
  for (int i = 0; i < 3; ++i) add(absl::StrCat("cache-", i), "1", "4Gi", "app", "cache");
  add("spark-pi-driver", "1", "2Gi", "spark-role", "driver");
  for (int i = 1; i <= 24; ++i) {
    add(absl::StrCat("spark-pi-exec-", i), "2", "6Gi", "spark-role", "executor");
  }
  return pods;
}

struct NodeRow {
  int64_t req_milli_cpu = 0;
  int64_t req_memory = 0;
  int pods = 0;
};

class Demo {
 public:
  Demo(std::string scheduler_bin, std::string watcher_bin)
      : scheduler_bin_(std::move(scheduler_bin)), watcher_bin_(std::move(watcher_bin)) {}

  int Run() {
    const absl::Time t0 = absl::Now();
    Step("starting etcd + kube-apiserver on 127.0.0.1");
    e2e::ClusterOptions options;
    options.qps = 1000;
    options.burst = 1000;
    auto cluster = e2e::Cluster::Start(options);
    if (!cluster.ok()) return Fail("control plane", cluster.status());
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
    std::printf("    kube-apiserver %s\n", cp_->server_version().c_str());
    kubeconfig_ = cluster_->kubeconfig();
    client_ = &cluster_->client();

    Step(absl::StrCat("registering ", kNodes, " nodes (", kNodeCpu, " CPU, ", kNodeMemGi,
                      "Gi, 110 pods)"));
    std::vector<std::string> names;
    for (int i = 0; i < kNodes; ++i) names.push_back(NodeName(i));
    if (auto s = cluster_->AddNodes(
            names, {.cpu = absl::StrCat(kNodeCpu), .memory = absl::StrCat(kNodeMemGi, "Gi")});
        !s.ok()) {
      return Fail("register nodes", s);
    }

    Step("starting Prometheus with 20 minutes of synthetic per-node load");
    if (!Prometheus::Available()) {
      std::fprintf(stderr, "prometheus/promtool not found (tools/setup.sh --e2e installs them)\n");
      return 1;
    }
    auto prom = Prometheus::Start(History(absl::ToUnixSeconds(absl::Now())));
    if (!prom.ok()) return Fail("prometheus", prom.status());
    prom_ = *std::move(prom);

    Step("starting the pod's two processes: load-watcher and trimaran-scheduler");
    auto lw_port = e2e::PickFreePort();
    auto lw = Subprocess::Start(
        {watcher_bin_, "--bind-address=127.0.0.1", absl::StrCat("--port=", *lw_port),
         "--grpc-port=0", "--fetch-interval=10s", "--kubeconfig=" + kubeconfig_},
        cp_->dir() + "/load-watcher.log",
        {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()});
    if (!lw.ok()) return Fail("load-watcher", lw.status());
    watcher_ = *std::move(lw);
    watcher_url_ = absl::StrCat("http://127.0.0.1:", *lw_port);
    if (!WaitWatcher()) {
      std::fprintf(stderr, "load-watcher never served data:\n%s\n", watcher_->LogTail().c_str());
      return 1;
    }
    const std::string config = cp_->dir() + "/trimaran-config.yaml";
    std::ofstream(config) << SchedulerConfig();
    auto sp = e2e::PickFreePort();
    auto sched =
        Subprocess::Start({scheduler_bin_, "--config=" + config, "--kubeconfig=" + kubeconfig_,
                           "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", *sp),
                           "--cert-dir=" + cp_->dir() + "/certs"},
                          cp_->dir() + "/trimaran-scheduler.log");
    if (!sched.ok()) return Fail("trimaran-scheduler", sched.status());
    scheduler_ = *std::move(sched);
    Step(absl::StrCat("starting the reference: kube-scheduler ", cp_->server_version(),
                      " with its default profile"));
    auto kube =
        e2e::KubeScheduler::Start(*cp_, {.kubeconfig = kubeconfig_,
                                         .profiles_yaml = "  - schedulerName: kube-default\n",
                                         .qps = 100,
                                         .verbosity = 0});
    if (!kube.ok()) return Fail("kube-scheduler", kube.status());
    kube_ = *std::move(kube);

    Step(
        "submitting 9 steady services and a Spark job (1 driver + 24 executors) with "
        "schedulerName: trimaran");
    std::vector<std::map<std::string, NodeRow>> views;
    for (const char* profile : {"trimaran", "kube-default", "request-only"}) {
      if (!views.empty()) {
        Step(absl::StrCat("deleting them; the same workload through profile \"", profile,
                          "\" for comparison"));
        if (auto s = DeleteAll(); !s.ok()) return Fail("delete", s);
      }
      auto view = RunWorkload(profile);
      if (!view.ok()) return Fail(absl::StrCat("profile ", profile), view.status());
      views.push_back(*std::move(view));
    }
    Print(views);
    kube_->process().Stop();
    scheduler_->Stop();
    watcher_->Stop();
    prom_->Stop();
    std::printf("\nStopped everything (%.0f s in all).\n", absl::ToDoubleSeconds(absl::Now() - t0));
    return 0;
  }

 private:
  std::string SchedulerConfig() const {
    return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  qps: 100
  burst: 200
profiles:
  - schedulerName: trimaran
    plugins:
      multiPoint:
        enabled:
          - name: TargetLoadPacking
            weight: 3
        disabled:
          - name: NodeResourcesBalancedAllocation
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 85
          # Spark executors run at their requests: predict a pod by its requests (upstream
          # multiplies requests without limits by 1.5).
          defaultRequestsMultiplier: "1"
          watcherAddress: )",
                        watcher_url_, R"(
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
  - schedulerName: request-only
    plugins:
      multiPoint:
        disabled:
          - name: NodeResourcesBalancedAllocation
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)");
  }

  void Step(const std::string& what) {
    std::printf("==> %s\n", what.c_str());
    std::fflush(stdout);
  }
  int Fail(const std::string& what, const absl::Status& s) {
    std::fprintf(stderr, "demo failed at %s: %s\n", what.c_str(), std::string(s.message()).c_str());
    if (scheduler_)
      std::fprintf(stderr, "--- trimaran-scheduler log ---\n%s\n", scheduler_->LogTail().c_str());
    if (watcher_)
      std::fprintf(stderr, "--- load-watcher log ---\n%s\n", watcher_->LogTail().c_str());
    return 1;
  }

  absl::StatusOr<std::string> Get(const std::string& url) {
    auto transport = http::CurlTransport::Create();
    if (!transport.ok()) return transport.status();
    http::HttpRequest req;
    req.method = "GET";
    req.url = url;
    req.timeout = absl::Seconds(5);
    auto resp = (*transport)->Send(req);
    if (!resp.ok()) return resp.status();
    if (!resp->ok()) return absl::UnavailableError(absl::StrCat("HTTP ", resp->status_code));
    return resp->body;
  }

  bool WaitWatcher() {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      auto body = Get(watcher_url_ + "/watcher");
      if (body.ok()) {
        auto m = lw::DecodeWatcherMetricsJson(*body);
        if (m.ok() && !m->data.node_metrics_map.empty()) {
          metrics_ = *m;
          return true;
        }
      }
      absl::SleepFor(absl::Milliseconds(250));
    }
    return false;
  }

  absl::StatusOr<std::map<std::string, NodeRow>> RunWorkload(const std::string& scheduler_name) {
    // Steady services first, then the job, as a user would: one at a time, in order.
    std::vector<PodShape> workload = Workload();
    for (PodShape& p : workload) p.scheduler_name = scheduler_name;
    TRIMARAN_RETURN_IF_ERROR(cluster_->CreatePods(
        static_cast<int>(workload.size()), [&](int i) { return workload[i]; }, {.parallelism = 1}));
    const size_t want = workload.size();
    const absl::Time deadline = absl::Now() + absl::Seconds(90);
    while (true) {
      auto list = client_->ListPods("default", {});
      if (!list.ok()) return list.status();
      std::map<std::string, NodeRow> rows;
      size_t bound = 0;
      for (const kube::Pod& pod : list->items) {
        if (pod.spec.node_name.empty()) continue;
        ++bound;
        kube::Resource r = kube::ComputePodRequests(pod);
        NodeRow& row = rows[pod.spec.node_name];
        row.req_milli_cpu += r.milli_cpu;
        row.req_memory += r.memory;
        row.pods += 1;
      }
      if (bound == want) return rows;
      if (absl::Now() > deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat(bound, "/", want, " pods bound after 90 s; see ", cp_->dir()));
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
  }

  absl::Status DeleteAll() {
    for (const PodShape& p : Workload()) {
      // No kubelet confirms the deletion of a bound pod: delete it at once.
      auto r = cp_->Request("DELETE", absl::StrCat("/api/v1/namespaces/default/pods/", p.name),
                            R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})");
      if (!r.ok()) return r.status();
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      auto list = client_->ListPods("default", {});
      if (list.ok() && list->items.empty()) return absl::OkStatus();
      absl::SleepFor(absl::Milliseconds(200));
    }
    return absl::DeadlineExceededError("pods were not deleted within 60 s");
  }

  double UsedPercent(const std::string& node, const std::string& type) const {
    auto it = metrics_.data.node_metrics_map.find(node);
    if (it == metrics_.data.node_metrics_map.end()) return NAN;
    for (const lw::Metric& m : it->second.metrics) {
      if (m.type == type && m.op == "AVG") return m.value;
    }
    return NAN;
  }

  void Print(const std::vector<std::map<std::string, NodeRow>>& views) {
    std::printf(
        "\nNode view (nodes of 8 CPU / 32Gi). used = the node's real utilisation before the "
        "workload\n(15m average from the load watcher); pods / req = what each profile bound "
        "there and what those pods request.\n\n");
    std::printf("%-8s %6s %6s | %-22s | %-22s | %-22s\n", "", "used", "used",
                "trimaran (TLP+MostAll)", "kube-scheduler default", "request-only MostAll");
    std::printf("%-8s %6s %6s |", "node", "cpu%", "mem%");
    for (size_t v = 0; v < views.size(); ++v)
      std::printf(" %4s %7s %8s |", "pods", "req cpu", "req mem");
    std::printf("\n");
    for (int i = 0; i < kNodes; ++i) {
      const std::string n = NodeName(i);
      std::printf("%-8s %5.0f%% %5.0f%% |", n.c_str(), UsedPercent(n, "CPU"),
                  UsedPercent(n, "Memory"));
      for (const auto& rows : views) {
        auto it = rows.find(n);
        if (it == rows.end()) {
          std::printf(" %4s %7s %8s |", "-", "", "");
        } else {
          std::printf(" %4d %7.1f %6.1fGi |", it->second.pods, it->second.req_milli_cpu / 1000.0,
                      it->second.req_memory / double(int64_t{1} << 30));
        }
      }
      std::printf("\n");
    }
    auto hot = [&](const std::map<std::string, NodeRow>& rows) {
      int h = 0;
      for (const auto& [n, r] : rows) {
        // Predicted CPU = real use + what the new pods request, as % of the node.
        if (UsedPercent(n, "CPU") + r.req_milli_cpu / (kNodeCpu * 10.0) > 100.0) ++h;
      }
      return h;
    };
    std::printf("\n%-44s %22zu   %22zu   %22zu\n", "nodes in use (of 20)", views[0].size(),
                views[1].size(), views[2].size());
    std::printf("%-44s %22d   %22d   %22d\n", "nodes past 100% CPU (real use + requests)",
                hot(views[0]), hot(views[1]), hot(views[2]));
  }

  std::string scheduler_bin_, watcher_bin_;
  std::unique_ptr<e2e::Cluster> cluster_;
  ControlPlane* cp_ = nullptr;  // owned by cluster_
  std::string kubeconfig_;
  kube::RestClient* client_ = nullptr;  // owned by cluster_
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_, scheduler_;
  std::unique_ptr<e2e::KubeScheduler> kube_;
  std::string watcher_url_;
  lw::WatcherMetrics metrics_;
};

}  // namespace
}  // namespace trimaran::demo

int main(int argc, char** argv) {
  std::string scheduler, watcher;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string f = argv[i];
    if (f == "--scheduler") scheduler = argv[i + 1];
    if (f == "--load-watcher") watcher = argv[i + 1];
  }
  if (scheduler.empty() || watcher.empty()) {
    std::fprintf(stderr, "usage: trimaran-local-demo --scheduler BIN --load-watcher BIN\n");
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  return trimaran::demo::Demo(scheduler, watcher).Run();
}
