// The fault-injection suite (ctest label `fault`): the real trimaran-scheduler binary
// against the real kube-apiserver 1.20.2, with faults injected by the FaultProxy
// (tests/e2e/harness/fault_proxy.h) between them. Every scenario asserts the
// invariants of tests/e2e/harness/invariants.h (0 pods lost, 0 bound twice, 0 nodes
// overcommitted, no failure written on a bound pod) and a bounded time to recover;
// docs/benchmarks.md records the recovery times.
//
// Scenarios 7 and 8 fault the scheduler's metrics source instead (TargetLoadPacking in
// service mode, `watcherAddress`): 7 freezes the real load-watcher (SIGSTOP, over a real
// Prometheus) during a 500-pod burst; 8 serves broken /watcher answers from a local
// HttpServer (bad values, a year-3000 timestamp, duplicate hosts, a 200 MB body, a line
// that never ends).
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/http_server.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/invariants.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;

// The sum of the samples of `name` (exactly: the series name before '{' or ' ') whose
// labels contain every one of `labels` (e.g. R"(le="1.024")").
double Sample(const std::string& exposition, absl::string_view name,
              const std::vector<std::string>& labels = {}) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t end = line.find_first_of("{ ");
    if (end == absl::string_view::npos || line.substr(0, end) != name) continue;
    bool match = true;
    for (const std::string& l : labels) match = match && absl::StrContains(line, l);
    if (!match) continue;
    const size_t sp = line.rfind(' ');
    double v = 0;
    if (absl::SimpleAtod(line.substr(sp + 1), &v)) sum += v;
  }
  return sum;
}

// A /proc/<pid>/status field in kB ("VmRSS", "VmHWM"); -1 when unreadable.
int64_t ProcStatusKb(pid_t pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, absl::StrCat(field, ":"))) {
      int64_t kb = -1;
      std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() >= 2 && absl::SimpleAtoi(parts[1], &kb)) return kb;
    }
  }
  return -1;
}

// One profile "tlp" scoring with TargetLoadPacking only, in service mode (a continuation
// of SchedulerConfigYaml's profile item).
std::string TlpProfile(const std::string& watcher_url, const std::string& extra_args) {
  return absl::StrCat(R"(    plugins:
      multiPoint:
        enabled:
          - name: TargetLoadPacking
      score:
        disabled:
          - name: "*"
        enabled:
          - name: TargetLoadPacking
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 50
          watcherAddress: )",
                      watcher_url, "\n", extra_args);
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(cluster_, Cluster::Start());
    ControlPlane& cp = cluster_->control_plane();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start({.upstream = cp.server(),
                                                             .upstream_ca_file = cp.ca_file(),
                                                             .tls_cert_dir = cp.dir() + "/proxy"}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        kubeconfig_, cp.WriteKubeconfigFor("via-proxy", proxy_->url(), proxy_->ca_file()));
  }

  absl::StatusOr<SchedulerProcess> StartScheduler(const std::string& tag) {
    return StartSchedulerProcess({.binary = kSchedulerBin,
                                  .dir = cluster_->control_plane().dir(),
                                  .tag = tag,
                                  .config_yaml = SchedulerConfigYaml("trimaran", false),
                                  .kubeconfig = kubeconfig_});
  }

  // A replica with leader election (Lease kube-system/trimaran-e2e, 4 s / 3 s / 1 s)
  // whose every request goes through `proxy`.
  absl::StatusOr<SchedulerProcess> StartReplica(const std::string& tag, FaultProxy& proxy) {
    TRIMARAN_ASSIGN_OR_RETURN(std::string kubeconfig,
                              cluster_->control_plane().WriteKubeconfigFor(
                                  absl::StrCat("via-", tag), proxy.url(), proxy.ca_file()));
    return StartSchedulerProcess({.binary = kSchedulerBin,
                                  .dir = cluster_->control_plane().dir(),
                                  .tag = tag,
                                  .config_yaml = SchedulerConfigYaml("trimaran", true),
                                  .kubeconfig = kubeconfig});
  }

  absl::StatusOr<std::unique_ptr<FaultProxy>> StartProxy(const std::string& tag) {
    ControlPlane& cp = cluster_->control_plane();
    return FaultProxy::Start({.upstream = cp.server(),
                              .upstream_ca_file = cp.ca_file(),
                              .tls_cert_dir = cp.dir() + "/proxy-" + tag});
  }

  std::string LeaseHolder() {
    auto lease = cluster_->client().GetLease("kube-system", "trimaran-e2e");
    return lease.ok() ? lease->spec.holder_identity : "";
  }

  // Gives the Scheduled events of `pods` pods time to land (a replica that exited at
  // once may have dropped some of its own: not a violation), then audits.
  void AuditAll(int pods) {
    (void)(Eventually(
        [&] {
          auto audit = AuditCluster(cluster_->client(), "default");
          int scheduled = 0;
          if (audit.ok()) {
            for (const auto& [pod, n] : audit->scheduled_events) scheduled += n > 0;
          }
          return scheduled >= pods;
        },
        absl::Seconds(20)));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster_->client(), "default"));
    EXPECT_EQ(audit.Violations(pods), "");
  }

  // Two replicas, each behind a proxy of its own: A leads, B stands by. Starts A, waits
  // for it to hold the Lease, then starts B and waits for B to campaign.
  void StartTwoReplicas() {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(proxy_b_, StartProxy("b"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(a_, StartReplica("leader-a", *proxy_));
    ASSERT_TRUE(Eventually([&] { return !LeaseHolder().empty(); }, absl::Seconds(30)))
        << a_.process->LogTail();
    holder_a_ = LeaseHolder();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(b_, StartReplica("standby-b", *proxy_b_));
    ASSERT_TRUE(
        Eventually([&] { return proxy_b_->CountRequests(kLeaseCalls) > 0; }, absl::Seconds(30)))
        << b_.process->LogTail();
  }

  static inline const RequestMatch kBind = {.method = "POST", .path_regex = kBindingPathRegex};
  static inline const RequestMatch kLeaseCalls = {
      .path_regex = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases(/.*)?"};

  std::unique_ptr<FaultProxy> proxy_b_;
  SchedulerProcess a_;
  SchedulerProcess b_;
  std::string holder_a_;

  absl::Status CreatePods(int n, const std::string& prefix) {
    return cluster_->CreatePods(n, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "trimaran",
                      .cpu = "100m",
                      .memory = "128Mi"};
    });
  }

  // Starts trimaran-scheduler with the one profile "tlp" (TlpProfile) straight against
  // the apiserver (these scenarios fault the metrics source, not the API).
  absl::StatusOr<SchedulerProcess> StartTlpScheduler(const std::string& tag,
                                                     const std::string& watcher_url,
                                                     const std::string& extra_args) {
    return StartSchedulerProcess(
        {.binary = kSchedulerBin,
         .dir = cluster_->control_plane().dir(),
         .tag = tag,
         .config_yaml = SchedulerConfigYaml("tlp", false, TlpProfile(watcher_url, extra_args)),
         .kubeconfig = cluster_->kubeconfig()});
  }

  absl::Status CreateTlpPods(int n, const std::string& prefix) {
    return cluster_->CreatePods(n, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "tlp",
                      .cpu = "100m",
                      .memory = "64Mi"};
    });
  }

  // Pods whose name starts with `prefix` -> their node ("" while unbound).
  std::map<std::string, std::string> Placement(const std::string& prefix) {
    std::map<std::string, std::string> out;
    auto pods = cluster_->client().ListPods("default", {});
    if (!pods.ok()) return out;
    for (const kube::Pod& p : pods->items) {
      if (absl::StartsWith(p.metadata.name, prefix)) out[p.metadata.name] = p.spec.node_name;
    }
    return out;
  }
  int BoundWithPrefix(const std::string& prefix) {
    int n = 0;
    for (const auto& [pod, node] : Placement(prefix)) n += !node.empty();
    return n;
  }

  int Bound() {
    auto pods = cluster_->client().ListPods("default", {});
    if (!pods.ok()) return -1;
    int n = 0;
    for (const kube::Pod& p : pods->items) n += !p.spec.node_name.empty();
    return n;
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string kubeconfig_;
};

// Scenario 6: a Bind commits upstream but the scheduler sees 504 instead of 201. The REST
// client retries the POST, gets 409 (already bound), confirms with a GET that the pod is
// bound to the node it chose, and treats it as bound: PodScheduled=True, one Scheduled
// event, no FailedScheduling.
TEST_F(FaultInjectionTest, BindCommitsButItsAnswerIsA504) {
  constexpr int kPods = 20;
  const RequestMatch bind = {.method = "POST", .path_regex = kBindingPathRegex};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId replaced, proxy_->AddRule(FaultRule::ReplaceResponse(
                                           bind, CannedResponse::KubeStatus(
                                                     504, "Timeout", "injected gateway timeout"))
                                           .Times(3)));
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 4), {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(CreatePods(kPods, "web"));
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("bind504"));
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(60)))
      << Bound() << "/" << kPods << "\n"
      << sched.process->LogTail();
  const absl::Duration recovery = absl::Now() - start;
  EXPECT_EQ(proxy_->Hits(replaced), 3);

  // Let the events land, then audit.
  ASSERT_TRUE(Eventually(
      [&] {
        auto audit = AuditCluster(cluster_->client(), "default");
        int scheduled = 0;
        if (audit.ok()) {
          for (const auto& [pod, n] : audit->scheduled_events) scheduled += n;
        }
        return scheduled >= kPods;
      },
      absl::Seconds(30)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster_->client(), "default"));
  EXPECT_EQ(audit.Violations(kPods), "");
  EXPECT_TRUE(audit.failed_scheduling.empty());
  for (int i = 0; i < kPods; ++i) {
    EXPECT_EQ(audit.scheduled_events[absl::StrCat("web-", i)], 1) << "web-" << i;
  }
  // The three pods whose first answer was replaced were POSTed again and got 409.
  int conflicts = 0;
  for (const RequestRecord& r : proxy_->Requests()) {
    if (r.request.method == "POST" && absl::EndsWith(r.request.path, "/binding")) {
      conflicts += r.client_status == 409;
    }
  }
  EXPECT_EQ(conflicts, 3);
  std::cout << "[scenario 6] all " << kPods << " pods bound in " << recovery << "\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

// A pod in namespace `ns` requesting `memory` (raw JSON: "10E" goes to the apiserver as
// typed, whatever our own client would make of it).
absl::Status CreateRawPod(kube::RestClient& client, const std::string& ns, const std::string& name,
                          const std::string& memory) {
  return client
      .Raw("POST", absl::StrCat("/api/v1/namespaces/", ns, "/pods"),
           absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                        R"("},"spec":{"schedulerName":"trimaran","containers":[{"name":"c",)",
                        R"("image":"registry.k8s.io/pause:3.2","resources":{"requests":)",
                        R"({"cpu":"100m","memory":")", memory, R"("}}}]}})"),
           "application/json")
      .status();
}

// Scenario 3: poison pills. A pod requesting `memory: 10E` (admitted by the apiserver,
// beyond int64 bytes) exists before the scheduler starts and another arrives in the
// middle of a 1,000-pod burst; both decode (the quantity saturates) and simply fit no
// node (Insufficient memory): they stay Pending with PodScheduled=False and a
// FailedScheduling event. The proxy also feeds the scheduler's informer two objects that
// truly do not decode, a pod of the initial LIST (containers is a string) and a pod of
// its first WATCH (nodeName a number): both are skipped and counted in
// trimaran_informer_decode_errors_total{resource="pods"}, the informer moves on, and all
// 1,000 pods bind.
TEST_F(FaultInjectionTest, PoisonPillsAreSkippedOrDecodedAndNeverStopScheduling) {
  constexpr int kPods = 1000;
  kube::RestClient& client = cluster_->client();
  TRIMARAN_ASSERT_OK(
      cluster_->AddNodes(NumberedNames("node", 10), {.cpu = "32", .memory = "64Gi"}));
  // The 10E pods live in a namespace of their own: "default" must end all bound.
  TRIMARAN_ASSERT_OK(
      client
          .Raw("POST", "/api/v1/namespaces",
               R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"huge"}})",
               "application/json")
          .status());
  TRIMARAN_ASSERT_OK(CreateRawPod(client, "huge", "huge-before", "10E"));

  // The scheduler's first pod LIST gets the real list plus one pod that cannot decode.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::string list,
      client.Raw(
          "GET",
          "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed", "",
          ""));
  const size_t items = list.find(R"("items":[)");
  ASSERT_NE(items, std::string::npos) << list;
  const bool empty = list.compare(items + 9, 1, "]") == 0;
  list.insert(items + 9, absl::StrCat(R"({"metadata":{"name":"poison-list","namespace":"default",)",
                                      R"("resourceVersion":"1"},"spec":{"containers":"oops"}})",
                                      empty ? "" : ","));
  CannedResponse canned_list{.status = 200, .body = list};
  canned_list.headers.Set("Content-Type", "application/json");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId list_rule,
      proxy_->AddRule(
          FaultRule::Respond({.method = "GET", .path_regex = "/api/v1/pods", .watch = false},
                             canned_list)
              .Times(1)));
  // Its first pod WATCH gets one event that cannot decode, and ends (no resourceVersion
  // readable: the informer watches again from where it was).
  CannedResponse canned_watch{
      .status = 200,
      .body = R"({"type":"ADDED","object":{"metadata":{"name":"poison-watch","namespace":)"
              R"("default"},"spec":{"nodeName":7}}})"
              "\n"};
  canned_watch.headers.Set("Content-Type", "application/json");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId watch_rule,
      proxy_->AddRule(
          FaultRule::Respond({.method = "GET", .path_regex = "/api/v1/pods", .watch = true},
                             canned_watch)
              .Times(1)));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("poison"));
  const std::string base = absl::StrCat("https://127.0.0.1:", sched.secure_port);
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(base + "/readyz", &status);
        return status == 200;
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  ASSERT_TRUE(Eventually([&] { return proxy_->Hits(watch_rule) == 1; }, absl::Seconds(30)));
  EXPECT_EQ(proxy_->Hits(list_rule), 1);

  // The burst, with the second 10E pod in its middle.
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK(CreatePods(kPods / 2, "burst-a"));
  TRIMARAN_ASSERT_OK(CreateRawPod(client, "huge", "huge-during", "10E"));
  TRIMARAN_ASSERT_OK(CreatePods(kPods / 2, "burst-b"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("burst-") == kPods; }, absl::Seconds(180)))
      << BoundWithPrefix("burst-") << "/" << kPods << "\n"
      << sched.process->LogTail();
  const absl::Duration elapsed = absl::Now() - start;

  // The 10E pods: decoded, Pending, PodScheduled=False for lack of memory, with a
  // FailedScheduling event each.
  ASSERT_TRUE(Eventually(
      [&] {
        auto audit = AuditCluster(client, "huge");
        return audit.ok() && audit->failed_scheduling["huge-before"] > 0 &&
               audit->failed_scheduling["huge-during"] > 0;
      },
      absl::Seconds(60)));
  for (const std::string name : {"huge-before", "huge-during"}) {
    SCOPED_TRACE(name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod pod, client.GetPod("huge", name));
    EXPECT_EQ(pod.spec.node_name, "");
    EXPECT_EQ(pod.spec.containers[0].resources.requests.at("memory").Value(),
              std::numeric_limits<int64_t>::max());
    const kube::PodCondition* scheduled = nullptr;
    for (const kube::PodCondition& c : pod.status.conditions) {
      if (c.type == kube::kPodScheduled) scheduled = &c;
    }
    ASSERT_NE(scheduled, nullptr);
    EXPECT_EQ(scheduled->status, kube::ConditionStatus::kFalse);
    EXPECT_EQ(scheduled->reason, kube::kPodReasonUnschedulable);
    EXPECT_THAT(scheduled->message, HasSubstr("Insufficient memory"));
  }

  // The two undecodable objects were counted (the 10E pods decode and are not), and
  // each was logged once with its key.
  const std::string metrics = Curl(base + "/metrics");
  const double decode_errors =
      Sample(metrics, "trimaran_informer_decode_errors_total", {R"(resource="pods")"});
  EXPECT_EQ(decode_errors, 2) << metrics;
  EXPECT_EQ(Sample(metrics, "trimaran_informer_decode_errors_total", {R"(resource="nodes")"}), 0);
  const std::string log = sched.process->LogTail(1 << 22);
  EXPECT_THAT(log, HasSubstr("key=default/poison-list"));
  EXPECT_THAT(log, HasSubstr("key=default/poison-watch"));

  // Still scheduling after all that.
  TRIMARAN_ASSERT_OK(CreatePods(10, "after"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("after-") == 10; }, absl::Seconds(60)))
      << sched.process->LogTail();
  AuditAll(kPods + 10);
  std::cout << "[scenario 3] " << kPods << " pods bound in " << elapsed
            << " with two 10E pods pending (Insufficient memory); decode_errors_total{pods}="
            << decode_errors << "\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

// Node `node`'s Prometheus history: 20 minutes of constant CPU (`cpu`, a fraction) and
// 30 % memory every 15 s, the last sample at `now` - 5 s.
void AddHistory(const std::string& node, double cpu, int64_t now, std::vector<PromSample>* out) {
  for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
    out->push_back({"instance:node_cpu:ratio", {{"instance", node}}, t, cpu});
    out->push_back({"instance:node_memory_utilisation:ratio", {{"instance", node}}, t, 0.30});
  }
}

// Scheduling-cycle figures from the scheduler's /metrics: attempts, and how many took
// longer than 1.024 s (the histogram's bucket nearest 1 s); PreScore runs (where the
// load-aware plugins read their metrics) and how many took longer than 0.2048 s.
struct CycleFigures {
  double attempts = 0;
  double attempts_over_1s = 0;
  double prescores = 0;
  double prescores_over_200ms = 0;

  static CycleFigures Read(const std::string& metrics) {
    CycleFigures f;
    const std::string attempt = "scheduler_scheduling_attempt_duration_seconds";
    f.attempts = Sample(metrics, attempt + "_count");
    f.attempts_over_1s = f.attempts - Sample(metrics, attempt + "_bucket", {R"(le="1.024")"});
    const std::string point = "scheduler_framework_extension_point_duration_seconds";
    f.prescores = Sample(metrics, point + "_count", {R"(extension_point="PreScore")"});
    f.prescores_over_200ms =
        f.prescores -
        Sample(metrics, point + "_bucket", {R"(extension_point="PreScore")", R"(le="0.2048")"});
    return f;
  }
  CycleFigures Since(const CycleFigures& before) const {
    return {attempts - before.attempts, attempts_over_1s - before.attempts_over_1s,
            prescores - before.prescores, prescores_over_200ms - before.prescores_over_200ms};
  }
};

// Scenario 7: the load watcher the scheduler reads (watcherAddress, the real
// load-watcher over a real Prometheus) is frozen with SIGSTOP: its socket accepts, it
// never answers. The plugins read it on a background refresher, so no scheduling cycle
// waits for it; its last good snapshot goes stale after metricsMaxAge (10 s) and a
// 500-pod burst binds through the Requests fallback at >= 50 % of the throughput of the
// same burst with the watcher up.
TEST_F(FaultInjectionTest, FrozenLoadWatcherDuringABurst) {
  if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
  constexpr int kNodes = 20;
  constexpr int kBurst = 500;
  const std::vector<std::string> nodes = NumberedNames("node", kNodes);
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(nodes, {.cpu = "16", .memory = "64Gi"}));
  std::vector<PromSample> history;
  const int64_t now = absl::ToUnixSeconds(absl::Now());
  for (int i = 0; i < kNodes; ++i) AddHistory(nodes[i], 0.05 * (i % 10), now, &history);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Prometheus> prom, Prometheus::Start(history));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(int lw_port, PickFreePort());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<Subprocess> watcher,
      Subprocess::Start(
          {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", lw_port),
           "--grpc-port=0", "--fetch-interval=1s", "--kubeconfig=" + cluster_->kubeconfig()},
          cluster_->control_plane().dir() + "/load-watcher-frozen.log",
          {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom->url()}));
  const std::string watcher_url = absl::StrCat("http://127.0.0.1:", lw_port);
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(watcher_url + "/watcher", &status);
        return status == 200;
      },
      absl::Seconds(30)))
      << "load-watcher never served a snapshot\n"
      << watcher->LogTail();

  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess sched,
      StartTlpScheduler("frozen", watcher_url,
                        "          metricsMaxAge: 10s\n          fallback: Requests\n"));
  const std::string metrics_url = absl::StrCat("https://127.0.0.1:", sched.secure_port, "/metrics");
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(absl::StrCat("https://127.0.0.1:", sched.secure_port, "/readyz"), &status);
        return status == 200;
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  // One pod first: it starts the refresher, whose first read the burst then uses.
  TRIMARAN_ASSERT_OK(CreateTlpPods(1, "warm"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("warm-") == 1; }, absl::Seconds(30)));
  absl::SleepFor(absl::Seconds(2));

  // (a) The watcher up: the reference throughput.
  CycleFigures before = CycleFigures::Read(Curl(metrics_url));
  absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK(CreateTlpPods(kBurst, "normal"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("normal-") == kBurst; }, absl::Seconds(120)))
      << BoundWithPrefix("normal-") << "/" << kBurst << "\n"
      << sched.process->LogTail();
  const absl::Duration normal = absl::Now() - start;
  const CycleFigures normal_cycles = CycleFigures::Read(Curl(metrics_url)).Since(before);
  const std::string before_freeze = Curl(metrics_url);
  const double stale_before =
      Sample(before_freeze, "trimaran_plugin_metrics_fallback_total", {R"(reason="stale")"});

  // (b) Frozen: past metricsMaxAge the last good snapshot is stale.
  watcher->Signal(SIGSTOP);
  absl::SleepFor(absl::Seconds(12));
  before = CycleFigures::Read(Curl(metrics_url));
  start = absl::Now();
  TRIMARAN_ASSERT_OK(CreateTlpPods(kBurst, "frozen"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("frozen-") == kBurst; }, absl::Seconds(120)))
      << BoundWithPrefix("frozen-") << "/" << kBurst << "\n"
      << sched.process->LogTail();
  const absl::Duration frozen = absl::Now() - start;
  const std::string after = Curl(metrics_url);
  const CycleFigures frozen_cycles = CycleFigures::Read(after).Since(before);
  const double stale =
      Sample(after, "trimaran_plugin_metrics_fallback_total", {R"(reason="stale")"}) - stale_before;
  const double fetch_failures = Sample(after, "trimaran_plugin_metrics_fetch_failures_total");

  const double normal_rate = kBurst / absl::ToDoubleSeconds(normal);
  const double frozen_rate = kBurst / absl::ToDoubleSeconds(frozen);
  std::cout << "[scenario 7] watcher up: " << kBurst << " pods in " << normal << " (" << normal_rate
            << " pods/s), attempts " << normal_cycles.attempts
            << " (> 1.024 s: " << normal_cycles.attempts_over_1s
            << "), PreScore > 0.2 s: " << normal_cycles.prescores_over_200ms << "\n"
            << "[scenario 7] watcher frozen: " << kBurst << " pods in " << frozen << " ("
            << frozen_rate << " pods/s, " << 100 * frozen_rate / normal_rate
            << " % of normal), attempts " << frozen_cycles.attempts
            << " (> 1.024 s: " << frozen_cycles.attempts_over_1s << "), PreScore runs "
            << frozen_cycles.prescores << " (> 0.2 s: " << frozen_cycles.prescores_over_200ms
            << "), stale fallbacks " << stale << ", failed reads " << fetch_failures
            << ", scheduler RSS " << ProcStatusKb(sched.process->pid(), "VmRSS") << " kB\n";
  EXPECT_GE(frozen_rate, 0.5 * normal_rate);
  EXPECT_GE(frozen_cycles.attempts, kBurst);
  EXPECT_EQ(frozen_cycles.attempts_over_1s, 0);
  EXPECT_GE(frozen_cycles.prescores, kBurst);
  EXPECT_EQ(frozen_cycles.prescores_over_200ms, 0);
  EXPECT_GE(stale, kBurst) << "the burst was not scored by the fallback";

  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster_->client(), "default"));
  EXPECT_EQ(audit.Violations(2 * kBurst + 1), "");

  // Shutdown does not wait for the hung read longer than its 10 s deadline.
  const absl::Time term = absl::Now();
  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
  std::cout << "[scenario 7] SIGTERM to exit with the watcher frozen: " << absl::Now() - term
            << "\n";
  watcher->Signal(SIGCONT);
}

// A /watcher that misbehaves as told (scenario 8).
class BadWatcher {
 public:
  enum class Mode { kBadValues, kFutureTimestamp, kHugeBody, kEndlessLine };

  absl::Status Start() {
    TRIMARAN_ASSIGN_OR_RETURN(server_, http::HttpServer::Create({.name = "bad-watcher"}));
    http::Route route;
    route.path = "/watcher";
    route.handler = [this](const http::ServerRequest&, http::ServerResponse& res) { Serve(res); };
    TRIMARAN_RETURN_IF_ERROR(server_->AddRoute(std::move(route)));
    return server_->Start();
  }
  std::string url() const { return server_->url(); }
  void Set(Mode mode) {
    absl::MutexLock lock(&mu_);
    mode_ = mode;
  }
  // Requests answered in `mode` so far.
  int Served(Mode mode) const {
    absl::MutexLock lock(&mu_);
    return served_[static_cast<int>(mode)];
  }
  // Bytes of streamed bodies written so far.
  int64_t streamed() const {
    absl::MutexLock lock(&mu_);
    return streamed_;
  }

 private:
  static std::string Node(const std::string& name, const std::string& cpu) {
    return absl::StrCat("\"", name,
                        "\":{\"metrics\":[{\"name\":\"c\",\"type\":\"CPU\",\"operator\":\"AVG\","
                        "\"rollup\":\"15m\",\"value\":",
                        cpu, "}],\"tags\":{},\"metadata\":{\"dataCenter\":\"\"}}");
  }
  static std::string Doc(int64_t ts) {
    return absl::StrCat("{\"timestamp\":", ts,
                        ",\"window\":{\"duration\":\"15m\",\"start\":", ts - 900, ",\"end\":", ts,
                        "},\"source\":\"Prometheus\",\"data\":{\"NodeMetricsMap\":{",
                        Node("node-good", "20"), ",", Node("node-negative", "-5"), ",",
                        Node("node-huge", "1e308"), ",", Node("node-nan", "NaN"), ",",
                        Node("node-dup", "10"), ",", Node("node-dup", "20"), "}}}");
  }

  void Serve(http::ServerResponse& res) {
    Mode mode;
    {
      absl::MutexLock lock(&mu_);
      mode = mode_;
      ++served_[static_cast<int>(mode)];
    }
    res.content_type = "application/json";
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    switch (mode) {
      case Mode::kBadValues:
        res.body = Doc(now);
        return;
      case Mode::kFutureTimestamp:
        res.body = Doc(absl::ToUnixSeconds(
            absl::FromCivil(absl::CivilSecond(3000, 1, 1), absl::UTCTimeZone())));
        return;
      case Mode::kHugeBody:
      case Mode::kEndlessLine:
        res.stream = [this, mode, now](http::ChunkWriter& writer) {
          // A document whose one string never ends (endless line) or that goes on for
          // 200 MB: the client must stop reading at its cap.
          const std::string chunk(64 << 10, mode == Mode::kHugeBody ? ' ' : 'x');
          std::string head = mode == Mode::kHugeBody ? absl::StrCat("{\"timestamp\":", now, ",")
                                                     : std::string("{\"source\":\"");
          if (!writer.Write(head)) return;
          const int64_t limit = mode == Mode::kHugeBody ? int64_t{200} << 20 : INT64_MAX;
          for (int64_t sent = 0; sent < limit; sent += chunk.size()) {
            if (!writer.Write(chunk)) return;
            absl::MutexLock lock(&mu_);
            streamed_ += chunk.size();
          }
          (void)writer.Write("\"data\":{\"NodeMetricsMap\":{}}}");
        };
        return;
    }
  }

  mutable absl::Mutex mu_;
  Mode mode_ ABSL_GUARDED_BY(mu_) = Mode::kBadValues;
  int served_[4] ABSL_GUARDED_BY(mu_) = {0, 0, 0, 0};
  int64_t streamed_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<http::HttpServer> server_;
};

// Scenario 8: /watcher answers with negative, 1e308 and NaN values and a duplicated
// host next to one good node, then a year-3000 timestamp, then a 200 MB body, then a
// line that never ends. The scheduler does not crash, its peak RSS stays under 512 MiB
// (the body cap is 64 MiB), the good node is scored on its metrics, the bad answers are
// cut off at the cap and counted, and every pod binds (on the fallback when needed).
TEST_F(FaultInjectionTest, BrokenWatcherAnswers) {
  constexpr int64_t kRssCapKb = 512 << 10;
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(
      {"node-good", "node-negative", "node-huge", "node-nan", "node-dup", "node-absent"},
      {.cpu = "4", .memory = "16Gi"}));
  BadWatcher bad;
  TRIMARAN_ASSERT_OK(bad.Start());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess sched,
      StartTlpScheduler("badwatcher", bad.url(), "          fallback: Requests\n"));
  const std::string metrics_url = absl::StrCat("https://127.0.0.1:", sched.secure_port, "/metrics");
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(absl::StrCat("https://127.0.0.1:", sched.secure_port, "/readyz"), &status);
        return status == 200;
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  const pid_t pid = sched.process->pid();
  const absl::Time start = absl::Now();

  // (1) Bad values (the refresher started with the plugin): the good node (20 % of 4
  // cores, target 50 %: room for 8 pods of 100m, predicted 150m each) outscores every
  // node on the Requests fallback.
  ASSERT_TRUE(
      Eventually([&] { return bad.Served(BadWatcher::Mode::kBadValues) >= 1; }, absl::Seconds(30)));
  absl::SleepFor(absl::Seconds(1));
  TRIMARAN_ASSERT_OK(CreateTlpPods(1, "warm"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("warm-") == 1; }, absl::Seconds(30)));
  TRIMARAN_ASSERT_OK(CreateTlpPods(3, "good"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("good-") == 3; }, absl::Seconds(30)));
  std::string metrics = Curl(metrics_url);
  for (const auto& [pod, node] : Placement("good-")) {
    EXPECT_EQ(node, "node-good") << pod << "\n" << metrics << sched.process->LogTail();
  }
  EXPECT_GT(Sample(metrics, "trimaran_plugin_metrics_fallback_total", {R"(reason="bad_value")"}),
            0);

  // (2) A snapshot from the year 3000: no value of it is trusted, every node falls back.
  bad.Set(BadWatcher::Mode::kFutureTimestamp);
  ASSERT_TRUE(Eventually([&] { return bad.Served(BadWatcher::Mode::kFutureTimestamp) >= 1; },
                         absl::Seconds(30)));
  absl::SleepFor(absl::Seconds(1));
  TRIMARAN_ASSERT_OK(CreateTlpPods(3, "future"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("future-") == 3; }, absl::Seconds(30)));

  // (3) 200 MB, then (4) a line that never ends: each read is cut off at the cap
  // (ResourceExhausted, counted); the failed read is retried 30 s later.
  const auto cut_off = [&] {
    return Sample(Curl(metrics_url), "trimaran_plugin_metrics_fetch_failures_total",
                  {R"(reason="resource_exhausted")"});
  };
  bad.Set(BadWatcher::Mode::kHugeBody);
  ASSERT_TRUE(Eventually([&] { return cut_off() >= 1; }, absl::Seconds(30)))
      << sched.process->LogTail();
  const int64_t huge_streamed = bad.streamed();
  TRIMARAN_ASSERT_OK(CreateTlpPods(3, "huge"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("huge-") == 3; }, absl::Seconds(30)));
  bad.Set(BadWatcher::Mode::kEndlessLine);
  ASSERT_TRUE(Eventually([&] { return cut_off() >= 2; }, absl::Seconds(60)))
      << sched.process->LogTail();
  TRIMARAN_ASSERT_OK(CreateTlpPods(3, "endless"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("endless-") == 3; }, absl::Seconds(30)));
  const absl::Duration elapsed = absl::Now() - start;

  ASSERT_TRUE(sched.process->Running()) << sched.process->LogTail();
  const int64_t peak_kb = ProcStatusKb(pid, "VmHWM");
  const int64_t rss_kb = ProcStatusKb(pid, "VmRSS");
  metrics = Curl(metrics_url);
  std::cout << "[scenario 8] 13 pods bound through 4 broken answers in " << elapsed
            << "; streamed before the cut-offs " << (huge_streamed >> 20) << " MiB (200 MB body), "
            << ((bad.streamed() - huge_streamed) >> 20) << " MiB (endless line); cut off "
            << cut_off() << " times; scheduler RSS " << rss_kb << " kB, peak " << peak_kb
            << " kB (cap " << kRssCapKb << " kB)\n";
  EXPECT_GT(peak_kb, 0);
  EXPECT_LT(peak_kb, kRssCapKb);
  EXPECT_LT(huge_streamed, int64_t{200} << 20) << "the 200 MB body was read to its end";

  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster_->client(), "default"));
  EXPECT_EQ(audit.Violations(13), "");
  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

// Scenario 1: the leader is frozen (SIGSTOP) for 20 s during a 2,000-pod burst; B takes
// the Lease over and binds; A is resumed. A sends no Binding after the Lease changed
// hands (counted at A's own proxy) and exits 1 promptly; every pod is bound once.
TEST_F(FaultInjectionTest, FrozenLeaderIsFencedAndExitsAfterResume) {
  constexpr int kPods = 2000;
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 50), {.cpu = "8", .memory = "32Gi"}));
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas());
  absl::Status created;
  std::thread creator([&] { created = CreatePods(kPods, "burst"); });
  const bool started = Eventually([&] { return Bound() >= 200; }, absl::Seconds(60));
  a_.process->Signal(SIGSTOP);
  const absl::Time freeze = absl::Now();
  ASSERT_TRUE(started) << Bound() << " bound\n" << a_.process->LogTail();
  const int bound_at_freeze = Bound();

  // B takes over: the Lease changes hands, then B's first Binding.
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string holder = LeaseHolder();
        return !holder.empty() && holder != holder_a_;
      },
      absl::Seconds(15)))
      << b_.process->LogTail();
  const absl::Time takeover = absl::Now();
  const int64_t mark_a = proxy_->NextSeq();
  const int64_t mark_b = proxy_b_->NextSeq();
  ASSERT_TRUE(
      Eventually([&] { return proxy_b_->CountRequests(kBind, mark_b) > 0; }, absl::Seconds(15)))
      << b_.process->LogTail();
  const absl::Duration to_new_leader_binding = absl::Now() - freeze;

  // B binds the whole burst while A is still frozen (pod creation permitting).
  absl::Duration to_all_bound_frozen = absl::InfiniteDuration();
  if (Eventually([&] { return Bound() == kPods; }, freeze + absl::Seconds(19) - absl::Now())) {
    to_all_bound_frozen = absl::Now() - freeze;
  }

  // Resume A after 20 s: it finds its lease gone and exits 1 without binding.
  absl::SleepFor(freeze + absl::Seconds(20) - absl::Now());
  a_.process->Signal(SIGCONT);
  const absl::Time resume = absl::Now();
  absl::StatusOr<int> code = a_.process->Wait(absl::Seconds(10));
  const absl::Duration to_exit = absl::Now() - resume;
  ASSERT_TRUE(code.ok()) << code.status() << "\n" << a_.process->LogTail();
  EXPECT_EQ(*code, 1) << a_.process->LogTail();
  EXPECT_LE(to_exit, absl::Seconds(4)) << "exit 1 at once after the loss";
  const int64_t binds_after_loss = proxy_->CountRequests(kBind, mark_a);
  EXPECT_EQ(binds_after_loss, 0) << "the fenced replica sent Bindings after the takeover";
  EXPECT_THAT(a_.process->LogTail(200000), ::testing::HasSubstr("leaderelection lost"));

  creator.join();
  TRIMARAN_ASSERT_OK(created);
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(120)))
      << Bound() << "/" << kPods << "\n"
      << b_.process->LogTail();
  const absl::Duration to_all_bound = absl::Now() - freeze;
  EXPECT_LE(to_new_leader_binding, absl::Seconds(12)) << "leaseDuration 4 s + retryPeriod";
  ASSERT_NO_FATAL_FAILURE(AuditAll(kPods));
  std::cout << "[scenario 1] frozen at " << bound_at_freeze << "/" << kPods
            << " bound; lease changed hands after " << (takeover - freeze)
            << "; new leader's first Binding " << to_new_leader_binding
            << " after the freeze; Bindings from the old leader after the takeover: "
            << binds_after_loss << "; old leader exited (code " << *code << ") " << to_exit
            << " after SIGCONT; all bound " << to_all_bound_frozen
            << " after the freeze (inf: not before the resume; then by " << to_all_bound << ")\n";

  b_.process->Signal(SIGTERM);
  absl::StatusOr<int> b_code = b_.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(b_code.ok()) << b_code.status();
  EXPECT_EQ(*b_code, 0) << b_.process->LogTail();
}

// Scenario 2: only the leader's Lease calls fail (they hang for 20 s, or get 429 with
// Retry-After: 60) during a 2,000-pod burst. The leader stops binding within
// renewDeadline (3 s) of its last renewal, exits 1, and B binds the rest.
class LeaseFaultTest : public FaultInjectionTest,
                       public ::testing::WithParamInterface<std::string> {};

TEST_P(LeaseFaultTest, LeaderWhoseLeaseCallsFailStopsBindingWithinRenewDeadline) {
  constexpr int kPods = 2000;
  constexpr absl::Duration kRenewDeadline = absl::Seconds(3);
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 50), {.cpu = "8", .memory = "32Gi"}));
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas());
  absl::Status created;
  std::thread creator([&] { created = CreatePods(kPods, "burst"); });
  const bool started = Eventually([&] { return Bound() >= 200; }, absl::Seconds(60));
  const FaultRule rule =
      GetParam() == "hang" ? FaultRule::Hang(kLeaseCalls, absl::Seconds(20))
                           : FaultRule::Respond(kLeaseCalls, CannedResponse::KubeStatus(
                                                                 429, "TooManyRequests", "injected",
                                                                 {{"Retry-After", "60"}}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RuleId id, proxy_->AddRule(rule));
  const absl::Time fault = absl::Now();
  const int64_t mark_a = proxy_->NextSeq();
  ASSERT_TRUE(started) << Bound() << " bound\n" << a_.process->LogTail();

  absl::StatusOr<int> code = a_.process->Wait(absl::Seconds(15));
  const absl::Duration to_exit = absl::Now() - fault;
  ASSERT_TRUE(code.ok()) << code.status() << "\n" << a_.process->LogTail();
  EXPECT_EQ(*code, 1) << a_.process->LogTail();
  // The last renewal was at most at `fault`: no Binding from A arrives later than
  // renewDeadline after it (a little slack for the request to reach the proxy).
  absl::Time last_bind = absl::InfinitePast();
  int64_t late_binds = 0;
  for (const RequestRecord& r : proxy_->Requests(mark_a)) {
    if (r.request.method != "POST" || !absl::EndsWith(r.request.path, "/binding")) continue;
    last_bind = std::max(last_bind, r.time);
    late_binds += r.time > fault + kRenewDeadline + absl::Milliseconds(250);
  }
  EXPECT_EQ(late_binds, 0) << "Bindings after renewDeadline";
  EXPECT_LE(to_exit, kRenewDeadline + absl::Seconds(4)) << "renewDeadline, then exit 1 at once";
  EXPECT_GT(proxy_->Hits(id), 0);

  creator.join();
  TRIMARAN_ASSERT_OK(created);
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(120)))
      << Bound() << "/" << kPods << "\n"
      << b_.process->LogTail();
  const absl::Duration to_all_bound = absl::Now() - fault;
  ASSERT_NO_FATAL_FAILURE(AuditAll(kPods));
  std::cout << "[scenario 2/" << GetParam() << "] last Binding from the leader "
            << (last_bind == absl::InfinitePast() ? std::string("none")
                                                  : absl::FormatDuration(last_bind - fault))
            << " after the fault (renewDeadline 3s); late Bindings: " << late_binds
            << "; leader exited (code " << *code << ") " << to_exit
            << " after the fault; all bound " << to_all_bound << " after the fault\n";
  proxy_->RemoveRule(id);

  b_.process->Signal(SIGTERM);
  absl::StatusOr<int> b_code = b_.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(b_code.ok()) << b_code.status();
  EXPECT_EQ(*b_code, 0) << b_.process->LogTail();
}

INSTANTIATE_TEST_SUITE_P(Faults, LeaseFaultTest, ::testing::Values("hang", "retry_after_60"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

}  // namespace
}  // namespace trimaran::e2e
