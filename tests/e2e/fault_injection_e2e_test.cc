// The fault-injection suite (ctest label `fault`): the real trimaran-scheduler binary
// against the real kube-apiserver 1.37.2, with faults injected by the FaultProxy
// (tests/e2e/harness/fault_proxy.h) between them. Every scenario asserts the
// invariants of tests/e2e/harness/invariants.h (0 pods lost, 0 bound twice counted at
// the proxies, 0 nodes overcommitted in any namespace and resource, no failure written
// on a bound pod) and a bounded time to recover; docs/benchmarks.md records the
// recovery times. The scenarios that fault the API run near full clusters (>= 90 % of
// the allocatable cpu requested at the end, AuditAll checks it), so that a placement
// from a stale cache overcommits a node instead of finding room.
//
// Scenarios 7 and 8 fault the scheduler's metrics source instead (TargetLoadPacking in
// service mode, `watcherAddress`): 7 freezes the real load-watcher (SIGSTOP, over a real
// Prometheus) during a 500-pod burst; 8 serves broken /watcher answers from a local
// HttpServer (bad values, a year-3000 timestamp, duplicate hosts, a 200 MB body, a line
// that never ends).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
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
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/http_server.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/informer.h"
#include "kube/store.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/invariants.h"
#include "tests/e2e/harness/proc_metrics.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;

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
    ClusterOptions options;
    // Scenario 10 needs paged lists read from etcd, whose continue tokens a compaction
    // expires: kube-apiserver 1.34+ pages from its watch cache (ListFromCacheSnapshot),
    // where a compaction expires nothing, so that scenario runs with the cache off.
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    if (name == "EtcdCompactedBetweenPagesOfTheInitialList") {
      options.control_plane.watch_cache = false;
    }
    TRIMARAN_ASSERT_OK_AND_ASSIGN(cluster_, Cluster::Start(options));
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

  // Every proxy a scheduler under test talks through: where Bindings are counted.
  std::vector<const FaultProxy*> Proxies() const {
    std::vector<const FaultProxy*> out = {proxy_.get()};
    if (proxy_b_ != nullptr) out.push_back(proxy_b_.get());
    return out;
  }

  // Audits until every invariant holds for `pods` pods in "default" (bindings in flight
  // land, a replica that exited may leave pods to the other), failing with what still
  // does not hold once `timeout` has passed. The cluster must run near full (>= 90 % of
  // the allocatable cpu requested), so that a placement from a stale cache shows up as
  // an overcommitted node.
  void AuditAll(int pods, absl::Duration timeout = absl::Seconds(30)) {
    std::string violations = "(no audit)";
    double requested = 0;
    const absl::Time start = absl::Now();
    const bool clean = Eventually(
        [&] {
          absl::StatusOr<ClusterAudit> audit =
              AuditCluster(cluster_->client(), "default", Proxies());
          if (!audit.ok()) {
            violations = audit.status().ToString();
            return false;
          }
          violations = audit->Violations(pods);
          requested = audit->CpuRequestedFraction();
          return violations.empty();
        },
        timeout, absl::Seconds(1));
    EXPECT_TRUE(clean) << "after " << (absl::Now() - start) << " (timeout " << timeout << "):\n"
                       << violations;
    EXPECT_GE(requested, kNearFull) << "the scenario must run near full";
  }

  // Nodes that `pods_per_node` pods of `milli_cpu` and `memory_mi` fill to the last
  // pod: each has room for exactly that many, plus half a pod (>= 90 % requested from
  // 5 pods a node), so one more placement on a full node overcommits it.
  static NodeShape NearFullNodes(int pods_per_node, int64_t milli_cpu, int64_t memory_mi) {
    return NodeShape{
        .cpu = absl::StrCat(pods_per_node * milli_cpu + milli_cpu / 2, "m"),
        .memory = absl::StrCat(pods_per_node * memory_mi + memory_mi / 2, "Mi"),
    };
  }
  static constexpr double kNearFull = 0.9;

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
  // What a leader writes to pods besides the Binding: DELETE (preemption's evictions),
  // PATCH of the status (a victim's DisruptionTarget, PodScheduled=False,
  // nominatedNodeName).
  static inline const RequestMatch kPodDeletes = {
      .method = "DELETE", .path_regex = "/api/v1/namespaces/[^/]+/pods/[^/]+"};
  static inline const RequestMatch kPodPatches = {
      .method = "PATCH", .path_regex = "/api/v1/namespaces/[^/]+/pods/[^/]+(/status)?"};

  absl::Status CreateNamespace(const std::string& name) {
    return cluster_->client()
        .Raw("POST", "/api/v1/namespaces",
             absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", name,
                          R"("}})"),
             "application/json")
        .status();
  }
  absl::Status CreatePriorityClass(const std::string& name, int value) {
    return cluster_->client()
        .Raw("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
             absl::StrCat(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)",
                          R"("metadata":{"name":")", name, R"("},"value":)", value, "}"),
             "application/json")
        .status();
  }

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

  // Starts trimaran-scheduler with the one profile "tlp" (TlpProfile) through proxy_,
  // which only counts (these scenarios fault the metrics source, not the API; the
  // Bindings are counted there like everywhere else).
  absl::StatusOr<SchedulerProcess> StartTlpScheduler(const std::string& tag,
                                                     const std::string& watcher_url,
                                                     const std::string& extra_args,
                                                     std::vector<std::string> env = {}) {
    return StartSchedulerProcess(
        {.binary = kSchedulerBin,
         .dir = cluster_->control_plane().dir(),
         .tag = tag,
         .config_yaml = SchedulerConfigYaml("tlp", false, TlpProfile(watcher_url, extra_args)),
         .kubeconfig = kubeconfig_,
         .env = std::move(env)});
  }

  // The notes of the Events of namespace default with `reason` about the Pod `regarding`.
  std::vector<std::string> EventNotes(const std::string& reason, const std::string& regarding) {
    return cluster_->EventNotes("default", reason, regarding);
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

  // Waits until the scheduler's /readyz answers 200 (its informers synced).
  bool AwaitReady(const SchedulerProcess& sched, absl::Duration timeout) {
    return Eventually(
        [&] {
          int status = 0;
          Curl(absl::StrCat("https://127.0.0.1:", sched.secure_port, "/readyz"), &status);
          return status == 200;
        },
        timeout);
  }
  std::string Metrics(const SchedulerProcess& sched) {
    return Curl(absl::StrCat("https://127.0.0.1:", sched.secure_port, "/metrics"));
  }

  // What the informers are compared with: a fresh list straight from the apiserver,
  // key -> resourceVersion (pods: the informer's own non-terminal selector).
  std::map<std::string, std::string> FreshList(const std::string& resource) {
    std::map<std::string, std::string> out;
    if (resource == "pods") {
      kube::ListOptions o;
      o.field_selector = kube::kNonTerminalPodsSelector;
      auto pods = cluster_->client().ListPods("", o);
      if (!pods.ok()) return {{"<error>", std::string(pods.status().message())}};
      for (const kube::Pod& p : pods->items) out[kube::ObjectKey(p)] = p.metadata.resource_version;
    } else {
      auto nodes = cluster_->client().ListNodes({});
      if (!nodes.ok()) return {{"<error>", std::string(nodes.status().message())}};
      for (const kube::Node& n : nodes->items) out[n.metadata.name] = n.metadata.resource_version;
    }
    return out;
  }
  // The scheduler's informer store (/debug/cache?store=pods|nodes), key ->
  // resourceVersion.
  std::map<std::string, std::string> SchedulerStore(const SchedulerProcess& sched,
                                                    const std::string& resource) {
    std::map<std::string, std::string> out;
    int status = 0;
    const std::string text =
        Curl(absl::StrCat("https://127.0.0.1:", sched.secure_port, "/debug/cache?store=", resource),
             &status);
    if (status != 200) return {{"<error>", absl::StrCat("HTTP ", status, ": ", text)}};
    bool head = true;
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      if (head) {  // "objects N resourceVersion RV"
        head = false;
        continue;
      }
      std::pair<std::string, std::string> kv = absl::StrSplit(line, ' ');
      out[kv.first] = kv.second;
    }
    return out;
  }
  // Both informer stores equal a fresh list (keys and resourceVersions); `diff` says
  // how they differ.
  bool StoresEqualFreshLists(const SchedulerProcess& sched, std::string* diff) {
    for (const std::string resource : {"pods", "nodes"}) {
      std::map<std::string, std::string> want = FreshList(resource);
      std::map<std::string, std::string> got = SchedulerStore(sched, resource);
      if (got == want) continue;
      int missing = 0;
      int extra = 0;
      int stale = 0;
      std::string example;
      for (const auto& [k, v] : want) {
        auto it = got.find(k);
        if (it == got.end()) {
          ++missing;
          if (example.empty()) example = absl::StrCat("missing ", k);
        } else if (it->second != v) {
          ++stale;
          if (example.empty()) example = absl::StrCat(k, " at ", it->second, ", fresh ", v);
        }
      }
      for (const auto& [k, v] : got) {
        if (!want.count(k)) {
          ++extra;
          if (example.empty()) example = absl::StrCat("extra ", k);
        }
      }
      *diff = absl::StrCat(resource, ": ", got.size(), " in the store, ", want.size(),
                           " listed; missing ", missing, ", extra ", extra, ", stale ", stale, " (",
                           example, ")");
      return false;
    }
    diff->clear();
    return true;
  }

  // Deletes a pod at once (grace period 0: no kubelet runs here to confirm a graceful
  // delete of a bound pod).
  absl::Status DeletePodNow(const std::string& name) {
    TRIMARAN_ASSIGN_OR_RETURN(
        http::HttpResponse r,
        cluster_->control_plane().Request("DELETE", absl::StrCat("/api/v1/namespaces/default/pods/",
                                                                 name, "?gracePeriodSeconds=0")));
    if (r.status_code != 200 && r.status_code != 202) {
      return absl::InternalError(absl::StrCat("delete pod ", name, ": HTTP ", r.status_code));
    }
    return absl::OkStatus();
  }

  // The Bindings the apiserver accepted (201) through proxy_ since `mark`: their times.
  std::vector<absl::Time> BindTimes(int64_t mark) {
    std::vector<absl::Time> out;
    for (const RequestRecord& r : proxy_->Requests(mark)) {
      if (r.request.method == "POST" && absl::EndsWith(r.request.path, "/binding") &&
          r.client_status == 201) {
        out.push_back(r.time);
      }
    }
    return out;
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
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 4), NearFullNodes(5, 100, 128)));
  TRIMARAN_ASSERT_OK(CreatePods(kPods, "web"));
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("bind504"));
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(60)))
      << Bound() << "/" << kPods << "\n"
      << sched.process->LogTail();
  const absl::Duration recovery = absl::Now() - start;
  EXPECT_EQ(proxy_->Hits(replaced), 3);

  // The invariants (one 201 per pod at the proxy), then the events: one Scheduled
  // event per pod once they landed, no FailedScheduling.
  ASSERT_NO_FATAL_FAILURE(AuditAll(kPods));
  ASSERT_TRUE(Eventually(
      [&] {
        auto audit = AuditCluster(cluster_->client(), "default", Proxies());
        int scheduled = 0;
        if (audit.ok()) {
          for (const auto& [pod, n] : audit->scheduled_events) scheduled += n;
        }
        return scheduled >= kPods;
      },
      absl::Seconds(30)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit,
                                AuditCluster(cluster_->client(), "default", Proxies()));
  EXPECT_EQ(audit.Violations(kPods), "");
  EXPECT_TRUE(audit.failed_scheduling.empty());
  for (int i = 0; i < kPods; ++i) {
    EXPECT_EQ(audit.bindings[absl::StrCat("default/web-", i)], 1) << "web-" << i;
  }
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
  // Room for 1,020 pods: the burst and the 10 after it fill 99 % of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 10), NearFullNodes(102, 100, 128)));
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
        auto audit = AuditCluster(client, "huge", Proxies());
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
      SumSamples(metrics, "trimaran_informer_decode_errors_total", {R"(resource="pods")"});
  EXPECT_EQ(decode_errors, 2) << metrics;
  EXPECT_EQ(SumSamples(metrics, "trimaran_informer_decode_errors_total", {R"(resource="nodes")"}),
            0);
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
    f.attempts = SumSamples(metrics, attempt + "_count");
    f.attempts_over_1s = f.attempts - SumSamples(metrics, attempt + "_bucket", {R"(le="1.024")"});
    const std::string point = "scheduler_framework_extension_point_duration_seconds";
    f.prescores = SumSamples(metrics, point + "_count", {R"(extension_point="PreScore")"});
    f.prescores_over_200ms =
        f.prescores -
        SumSamples(metrics, point + "_bucket", {R"(extension_point="PreScore")", R"(le="0.2048")"});
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
  // Room for 1,020 pods of 100m / 64Mi: the 1,001 pods fill 97 % of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(nodes, NearFullNodes(51, 100, 64)));
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
                        "          metricsMaxAge: 10s\n          fallback: Requests\n",
                        {"POD_NAME=sched-frozen", "POD_NAMESPACE=default"}));
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
      SumSamples(before_freeze, "trimaran_plugin_metrics_fallback_total", {R"(reason="stale")"});

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
      SumSamples(after, "trimaran_plugin_metrics_fallback_total", {R"(reason="stale")"}) -
      stale_before;
  const double fetch_failures = SumSamples(after, "trimaran_plugin_metrics_fetch_failures_total");

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

  ASSERT_NO_FATAL_FAILURE(AuditAll(2 * kBurst + 1));

  // The scheduler said so on its own Pod, once: a Warning LoadMetricsUnavailable naming
  // the watcher and the age, read back from the apiserver.
  std::vector<std::string> unavailable;
  EXPECT_TRUE(Eventually(
      [&] {
        unavailable = EventNotes("LoadMetricsUnavailable", "sched-frozen");
        return !unavailable.empty();
      },
      absl::Seconds(20)))
      << "no LoadMetricsUnavailable event\n"
      << sched.process->LogTail();
  ASSERT_EQ(unavailable.size(), 1u) << absl::StrJoin(unavailable, "\n");
  EXPECT_THAT(unavailable[0],
              ::testing::HasSubstr(absl::StrCat("TargetLoadPacking cannot use the load metrics of "
                                                "watcherAddress ",
                                                watcher_url, ": its newest snapshot is")));
  EXPECT_THAT(unavailable[0], ::testing::HasSubstr("over metricsMaxAge 10s; every node is scored "
                                                   "by its requests (fallback Requests)"));
  std::cout << "[scenario 7] event LoadMetricsUnavailable: " << unavailable[0] << "\n";

  // Thawed: once the refresher reads again, the next cycle says LoadMetricsAvailable. A
  // small probe pod every 3 s makes the cycles (they fit in what the burst left).
  watcher->Signal(SIGCONT);
  int back = 0;
  std::vector<std::string> available;
  EXPECT_TRUE(Eventually(
      [&] {
        const int i = back++;
        (void)cluster_->CreatePods(1, [i](int) {
          return PodShape{.name = absl::StrCat("back-", i),
                          .scheduler_name = "tlp",
                          .cpu = "10m",
                          .memory = "8Mi"};
        });
        absl::SleepFor(absl::Seconds(3));
        available = EventNotes("LoadMetricsAvailable", "sched-frozen");
        return !available.empty();
      },
      absl::Seconds(90)))
      << "no LoadMetricsAvailable event after the watcher resumed\n"
      << sched.process->LogTail();
  ASSERT_EQ(available.size(), 1u);
  EXPECT_EQ(available[0], absl::StrCat("TargetLoadPacking uses the load metrics of watcherAddress ",
                                       watcher_url, " again"));
  EXPECT_EQ(EventNotes("LoadMetricsUnavailable", "sched-frozen").size(), 1u);
  std::cout << "[scenario 7] event LoadMetricsAvailable after " << back
            << " probe pod(s): " << available[0] << "\n";

  // Frozen again, with a read in flight (the refresher reads every 5 s): shutdown does
  // not wait for the hung read longer than its 10 s deadline.
  watcher->Signal(SIGSTOP);
  absl::SleepFor(absl::Seconds(6));
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
  EXPECT_GT(
      SumSamples(metrics, "trimaran_plugin_metrics_fallback_total", {R"(reason="bad_value")"}), 0);

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
    return SumSamples(Curl(metrics_url), "trimaran_plugin_metrics_fetch_failures_total",
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

  // Not near full: the placement checked above is TargetLoadPacking's arithmetic on
  // 4-core nodes (the API is not faulted here); the other invariants hold.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit,
                                AuditCluster(cluster_->client(), "default", Proxies()));
  EXPECT_EQ(audit.Violations(13), "");
  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

// Scenario 1: the leader is frozen (SIGSTOP) for 20 s during a 2,000-pod burst; B takes
// the Lease over and binds; A is resumed. A sends no Binding, and no DELETE or PATCH of
// a pod, after the Lease changed hands (counted at A's own proxy; 50 pods that fit
// nowhere, created with the burst in a namespace of their own, keep A writing
// PodScheduled=False patches until the freeze) and exits 1 promptly; every pod is bound
// once.
TEST_F(FaultInjectionTest, FrozenLeaderIsFencedAndExitsAfterResume) {
  constexpr int kPods = 2000;
  constexpr int kUnfit = 50;
  TRIMARAN_ASSERT_OK(CreateNamespace("unfit"));
  // Room for 2,050 pods: the 2,000 fill 96 % of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 50), NearFullNodes(41, 100, 128)));
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas());
  absl::Status created;
  absl::Status created_unfit;
  std::thread creator([&] { created = CreatePods(kPods, "burst"); });
  std::thread unfit_creator([&] {
    created_unfit = cluster_->CreatePods(kUnfit, [](int i) {
      return PodShape{.name = absl::StrCat("unfit-", i),
                      .namespace_name = "unfit",
                      .scheduler_name = "trimaran",
                      .cpu = "64",
                      .memory = "128Mi"};
    });
  });
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
  const int64_t deletes_after_loss = proxy_->CountRequests(kPodDeletes, mark_a);
  const int64_t patches_after_loss = proxy_->CountRequests(kPodPatches, mark_a);
  const int64_t patches_before_loss = proxy_->CountRequests(kPodPatches) - patches_after_loss;
  EXPECT_EQ(binds_after_loss, 0) << "the fenced replica sent Bindings after the takeover";
  EXPECT_EQ(deletes_after_loss, 0) << "the fenced replica deleted pods after the takeover";
  EXPECT_EQ(patches_after_loss, 0) << "the fenced replica patched pods after the takeover";
  EXPECT_THAT(a_.process->LogTail(200000), ::testing::HasSubstr("leaderelection lost"));

  creator.join();
  unfit_creator.join();
  TRIMARAN_ASSERT_OK(created);
  TRIMARAN_ASSERT_OK(created_unfit);
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(120)))
      << Bound() << "/" << kPods << "\n"
      << b_.process->LogTail();
  const absl::Duration to_all_bound = absl::Now() - freeze;
  EXPECT_LE(to_new_leader_binding, absl::Seconds(12)) << "leaseDuration 4 s + retryPeriod";
  ASSERT_NO_FATAL_FAILURE(AuditAll(kPods));
  std::cout << "[scenario 1] frozen at " << bound_at_freeze << "/" << kPods
            << " bound; lease changed hands after " << (takeover - freeze)
            << "; new leader's first Binding " << to_new_leader_binding
            << " after the freeze; from the old leader after the takeover: Bindings "
            << binds_after_loss << ", pod DELETEs " << deletes_after_loss << ", pod PATCHes "
            << patches_after_loss << " (" << patches_before_loss
            << " PATCHes before it); old leader exited (code " << *code << ") " << to_exit
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
  // Room for 2,050 pods: the 2,000 fill 96 % of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 50), NearFullNodes(41, 100, 128)));
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

// Scenario 11 (issue 30 point 6): evictions are fenced like Bindings. The leader A is
// preempting: a high-priority pod fits only where all ten low-priority pods of a node
// go (4 nodes, each full of them), and every victim write of A's (the DisruptionTarget
// PATCH, the DELETE) takes 1 s at its proxy. Once A's first victim PATCH arrives, A's
// Lease calls hang: A stops leading within renewDeadline (3 s) of its last renewal. No
// victim PATCH or DELETE of A's arrives at its proxy later than that (0 at the wire), A
// exits 1, and B takes over, finishes the preemption and binds the pod; the invariants
// hold on the near-full cluster. The test plays the kubelet: a pod whose deletion began
// is removed for good (grace period 0).
TEST_F(FaultInjectionTest, EvictionsStopWithinRenewDeadlineOfALostLease) {
  constexpr int kNodes = 4;
  constexpr int kVictimsPerNode = 10;
  constexpr absl::Duration kRenewDeadline = absl::Seconds(3);
  TRIMARAN_ASSERT_OK(CreateNamespace("low"));
  TRIMARAN_ASSERT_OK(CreatePriorityClass("fault-low", 100));
  TRIMARAN_ASSERT_OK(CreatePriorityClass("fault-high", 1000));
  TRIMARAN_ASSERT_OK(
      cluster_->AddNodes(NumberedNames("node", kNodes), NearFullNodes(kVictimsPerNode, 100, 128)));
  for (int n = 0; n < kNodes; ++n) {
    for (int i = 0; i < kVictimsPerNode; ++i) {
      TRIMARAN_ASSERT_OK(cluster_->client()
                             .CreatePod(kube::testing::MakePod()
                                            .Name(absl::StrCat("low-", n, "-", i))
                                            .Namespace("low")
                                            .NodeName(absl::StrCat("node-", n))
                                            .PriorityClassName("fault-low")
                                            .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                                            .Obj())
                             .status());
    }
  }
  std::atomic<bool> stop_kubelet{false};
  std::thread kubelet([&] {
    while (!stop_kubelet.load()) {
      absl::StatusOr<kube::PodList> pods = cluster_->client().ListPods("low", {});
      for (const kube::Pod& p : pods.ok() ? pods->items : std::vector<kube::Pod>{}) {
        if (!kube::IsTerminating(p)) continue;
        (void)cluster_->client().Raw(
            "DELETE", absl::StrCat("/api/v1/namespaces/low/pods/", p.metadata.name),
            R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})",
            "application/json");
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  struct JoinKubelet {
    std::atomic<bool>& stop;
    std::thread& thread;
    ~JoinKubelet() {
      stop.store(true);
      thread.join();
    }
  } join_kubelet{stop_kubelet, kubelet};
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas());

  // Every victim write of A's takes 1 s; then the preemptor.
  const RequestMatch victim_patch = {.method = "PATCH",
                                     .path_regex = "/api/v1/namespaces/low/pods/[^/]+/status"};
  const RequestMatch victim_delete = {.method = "DELETE",
                                      .path_regex = "/api/v1/namespaces/low/pods/[^/]+"};
  TRIMARAN_ASSERT_OK(proxy_->AddRule(FaultRule::Hang(victim_patch, absl::Seconds(1))).status());
  TRIMARAN_ASSERT_OK(proxy_->AddRule(FaultRule::Hang(victim_delete, absl::Seconds(1))).status());
  TRIMARAN_ASSERT_OK(cluster_->client()
                         .CreatePod(kube::testing::MakePod()
                                        .Name("preemptor")
                                        .Namespace("default")
                                        .SchedulerName("trimaran")
                                        .PriorityClassName("fault-high")
                                        .Req({{"cpu", "1"}, {"memory", "128Mi"}})
                                        .Obj())
                         .status());
  ASSERT_TRUE(
      Eventually([&] { return proxy_->CountRequests(victim_patch) > 0; }, absl::Seconds(30)))
      << a_.process->LogTail();

  // A is evicting: from now on its Lease calls hang.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RuleId lease,
                                proxy_->AddRule(FaultRule::Hang(kLeaseCalls, absl::Seconds(20))));
  const absl::Time fault = absl::Now();
  absl::StatusOr<int> code = a_.process->Wait(absl::Seconds(15));
  const absl::Duration to_exit = absl::Now() - fault;
  ASSERT_TRUE(code.ok()) << code.status() << "\n" << a_.process->LogTail();
  EXPECT_EQ(*code, 1) << a_.process->LogTail();
  // The last renewal was at most at `fault`: no eviction write of A's arrives later than
  // renewDeadline after it (a little slack for the request to reach the proxy).
  int64_t writes_before = 0;
  int64_t late_writes = 0;
  absl::Time last_write = absl::InfinitePast();
  for (const RequestRecord& r : proxy_->Requests()) {
    const bool pod_write = (r.request.method == "PATCH" || r.request.method == "DELETE") &&
                           absl::StartsWith(r.request.path, "/api/v1/namespaces/low/pods/");
    if (!pod_write) continue;
    last_write = std::max(last_write, r.time);
    if (r.time > fault + kRenewDeadline + absl::Milliseconds(250)) {
      ++late_writes;
    } else {
      ++writes_before;
    }
  }
  EXPECT_EQ(late_writes, 0) << "evictions after the lease was lost";
  EXPECT_GT(writes_before, 0);
  EXPECT_LE(to_exit, kRenewDeadline + absl::Seconds(4)) << "renewDeadline, then exit 1 at once";
  proxy_->RemoveRule(lease);

  // B finishes the preemption and binds the pod.
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Pod> p = cluster_->client().GetPod("default", "preemptor");
        return p.ok() && !p->spec.node_name.empty();
      },
      absl::Seconds(60)))
      << b_.process->LogTail();
  const absl::Duration to_bound = absl::Now() - fault;
  absl::StatusOr<kube::PodList> left = cluster_->client().ListPods("low", {});
  ASSERT_TRUE(left.ok()) << left.status();
  ASSERT_NO_FATAL_FAILURE(AuditAll(1));
  std::cout << "[scenario 11] leader's victim writes before the lease was lost " << writes_before
            << ", after it (renewDeadline 3s) " << late_writes << " (last one "
            << (last_write == absl::InfinitePast() ? std::string("none")
                                                   : absl::FormatDuration(last_write - fault))
            << " after the fault); leader exited (code " << *code << ") " << to_exit
            << " after the fault; the new leader bound the preemptor " << to_bound
            << " after it; low-priority pods left " << left->items.size() << "/"
            << kNodes * kVictimsPerNode << "\n";

  b_.process->Signal(SIGTERM);
  absl::StatusOr<int> b_code = b_.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(b_code.ok()) << b_code.status();
  EXPECT_EQ(*b_code, 0) << b_.process->LogTail();
}

// The most watch requests that started within any one second.
int MaxPerSecond(std::vector<absl::Time> times) {
  std::sort(times.begin(), times.end());
  int best = 0;
  size_t lo = 0;
  for (size_t hi = 0; hi < times.size(); ++hi) {
    while (times[hi] - times[lo] >= absl::Seconds(1)) ++lo;
    best = std::max(best, static_cast<int>(hi - lo + 1));
  }
  return best;
}

// Bindings per second in the steady state: between the 10th and the 90th percentile
// Binding (the first and last few are the start and the tail of one burst, noisy on a
// shared machine).
double BindRate(std::vector<absl::Time> times) {
  if (times.size() < 10) return 0;
  std::sort(times.begin(), times.end());
  const size_t lo = times.size() / 10;
  const size_t hi = times.size() * 9 / 10;
  return static_cast<double>(hi - lo) / absl::ToDoubleSeconds(times[hi] - times[lo]);
}

// Scenario 4: the proxy cuts the scheduler's apiserver connections (watches, lists,
// Bindings in flight) 10 times while 3,000 pods are created and a third of them deleted
// again. Every live pod binds once, no node is overcommitted, both informer stores end
// equal to a fresh list (keys and resourceVersions, read from /debug/cache?store=...),
// and no handler saw an object go back to an older resourceVersion (the informers'
// resource_version_regressions_total stays 0).
TEST_F(FaultInjectionTest, CutConnectionsDuringChurnLeaveTheStoresEqualToAFreshList) {
  constexpr int kPods = 3000;
  constexpr int kCuts = 10;
  // Room for 2,050 pods: the 2,000 fill 96 % of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 50), NearFullNodes(41, 100, 128)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("churn"));
  ASSERT_TRUE(AwaitReady(sched, absl::Seconds(30))) << sched.process->LogTail();
  const int64_t mark = proxy_->NextSeq();
  const absl::Time start = absl::Now();

  // The creators queue every third pod created; one deleter deletes them as they come.
  absl::Mutex mu;
  std::deque<std::string> to_delete;
  bool creating = true;
  int deleted = 0;
  absl::Status delete_error;
  absl::Time last_cut = start;
  int cuts = 0;
  std::atomic<int> created{0};
  std::thread deleter([&] {
    while (true) {
      std::string name;
      {
        absl::MutexLock lock(&mu);
        auto ready = [&] { return !to_delete.empty() || !creating; };
        mu.Await(absl::Condition(&ready));
        if (to_delete.empty()) return;
        name = to_delete.front();
        to_delete.pop_front();
      }
      absl::Status s = DeletePodNow(name);
      absl::MutexLock lock(&mu);
      if (s.ok()) {
        ++deleted;
      } else if (delete_error.ok()) {
        delete_error = s;
      }
    }
  });
  CreatePodsOptions options;
  options.on_created = [&](const kube::Pod& pod) {
    const int n = created.fetch_add(1) + 1;
    absl::MutexLock lock(&mu);
    if (n % 3 == 0) to_delete.push_back(pod.metadata.name);
    if (n % (kPods / kCuts) == 0) {
      proxy_->CutConnections();
      last_cut = absl::Now();
      ++cuts;
    }
  };
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(
      kPods,
      [](int i) {
        return PodShape{.name = absl::StrCat("churn-", i),
                        .scheduler_name = "trimaran",
                        .cpu = "100m",
                        .memory = "128Mi"};
      },
      options));
  {
    absl::MutexLock lock(&mu);
    creating = false;
  }
  deleter.join();
  TRIMARAN_ASSERT_OK(delete_error);
  const absl::Duration churn = absl::Now() - start;
  ASSERT_EQ(cuts, kCuts);
  const int live = kPods - deleted;

  ASSERT_TRUE(Eventually([&] { return Bound() == live; }, absl::Seconds(120)))
      << Bound() << "/" << live << "\n"
      << sched.process->LogTail();
  const absl::Duration to_all_bound = absl::Now() - last_cut;
  std::string diff;
  ASSERT_TRUE(Eventually([&] { return StoresEqualFreshLists(sched, &diff); }, absl::Seconds(30)))
      << diff;
  const absl::Duration to_equal = absl::Now() - last_cut;

  const std::string metrics = Metrics(sched);
  const double regressions =
      SumSamples(metrics, "trimaran_informer_resource_version_regressions_total");
  const int64_t watches = proxy_->CountRequests({.watch = true}, mark);
  EXPECT_EQ(regressions, 0) << "an object went back to an older resourceVersion";
  EXPECT_GE(watches, kCuts) << "the cuts did not end the watches";
  ASSERT_NO_FATAL_FAILURE(AuditAll(live));
  std::cout << "[scenario 4] " << kPods << " pods created and " << deleted << " deleted in "
            << churn << " with " << kCuts << " connection cuts; " << watches
            << " watches (reconnects included), watch errors "
            << SumSamples(metrics, "trimaran_informer_watch_errors_total") << ", re-lists "
            << SumSamples(metrics, "trimaran_informer_relists_total") << ", very short watches "
            << SumSamples(metrics, "trimaran_informer_short_watches_total")
            << ", resourceVersion regressions " << regressions << "; after the last cut: all "
            << live << " live pods bound in " << to_all_bound
            << ", stores equal to a fresh list in " << to_equal << "\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

// Scenario 5: every watch answers 200 with an empty body. The informers treat such a
// watch as a very short watch (client-go's rule: under 1 s, no event) and back off
// before re-listing: at most one watch a second per informer (<= 2 per resource in any
// one-second window at the proxy, allowing for a window's edges; the scheduler has 14
// informers, and this apiserver (1.37) serves every one of them: pods, nodes, namespaces,
// services, replication controllers, replica sets, stateful sets, PodDisruptionBudgets
// (policy/v1), persistent volumes, persistent volume claims, storage classes, CSI nodes,
// CSI drivers and CSI storage capacities (storage.k8s.io/v1)).
// Binding throughput (Bindings per second between the 10th and the 90th percentile
// Binding, timed at the proxy) of 2,000 pending pods is >= 90 % of a fault-free run of
// the same size just before it; two rounds of (fault-free, faulty) runs, the better
// round counts, so that a load spike from elsewhere on a shared machine does not decide.
// Pods created under the fault are found by the re-lists and bound.
TEST_F(FaultInjectionTest, EmptyWatchesAreSpacedAndBindingKeepsItsThroughput) {
  constexpr int kPods = 2000;
  constexpr int kRounds = 2;
  constexpr int kLate = 50;
  // Room for 2,080 pods: each run's 2,000 (and 50 late ones) fill 95 % (98 %) of it.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 40), NearFullNodes(52, 100, 128), 4));
  CannedResponse empty;
  empty.status = 200;
  empty.headers.Set("Content-Type", "application/json");

  // One run: kPods pending pods, then a fresh scheduler binds them; returns the
  // Binding rate. With `fault`, every watch gets the empty 200 (and the run's watch
  // starts are added to `watch_times`), and kLate pods created after the burst must
  // bind too (`late_bound`: how long they took).
  std::vector<absl::Time> watch_times;
  std::map<std::string, std::vector<absl::Time>> watch_times_by_path;
  double short_watches = 0;
  absl::Duration late_bound = absl::ZeroDuration();
  absl::Duration faulty_window = absl::ZeroDuration();
  const auto run = [&](const std::string& prefix, bool fault, bool late) -> double {
    RuleId rule = 0;
    if (fault) {
      absl::StatusOr<RuleId> id = proxy_->AddRule(FaultRule::Respond({.watch = true}, empty));
      EXPECT_TRUE(id.ok()) << id.status();
      rule = id.value_or(0);
    }
    absl::Status created = CreatePods(kPods, prefix);
    EXPECT_TRUE(created.ok()) << created;
    const int64_t mark = proxy_->NextSeq();
    const absl::Time start = absl::Now();
    absl::StatusOr<SchedulerProcess> sched = StartScheduler(prefix);
    if (!sched.ok()) {
      ADD_FAILURE() << sched.status();
      return 0;
    }
    const std::string want = prefix + "-";
    EXPECT_TRUE(Eventually([&] { return BoundWithPrefix(want) == kPods; }, absl::Seconds(90)))
        << BoundWithPrefix(want) << "/" << kPods << "\n"
        << sched->process->LogTail();
    const double rate = BindRate(BindTimes(mark));
    if (late) {
      // Pods created now reach the scheduler only through a re-list.
      const absl::Time late_start = absl::Now();
      EXPECT_TRUE(CreatePods(kLate, "late").ok());
      EXPECT_TRUE(Eventually([&] { return BoundWithPrefix("late-") == kLate; }, absl::Seconds(90)))
          << BoundWithPrefix("late-") << "/" << kLate << "\n"
          << sched->process->LogTail();
      late_bound = absl::Now() - late_start;
    }
    if (fault) {
      faulty_window += absl::Now() - start;
      for (const RequestRecord& r : proxy_->Requests(mark)) {
        if (!r.request.watch) continue;
        watch_times.push_back(r.time);
        watch_times_by_path[r.request.path].push_back(r.time);
      }
      short_watches += SumSamples(Metrics(*sched), "trimaran_informer_short_watches_total");
      EXPECT_GT(proxy_->Hits(rule), 0);
    }
    sched->process->Signal(SIGTERM);
    absl::StatusOr<int> code = sched->process->Wait(absl::Seconds(30));
    EXPECT_TRUE(code.ok()) << code.status();
    EXPECT_EQ(code.value_or(-1), 0) << sched->process->LogTail();
    if (fault) proxy_->RemoveRule(rule);
    // The invariants for this run, then an empty namespace for the next one: every run
    // starts from the same cluster, so the re-lists under the fault cost the same in
    // every round (they read every pod of the cluster).
    AuditAll(kPods + (late ? kLate : 0));
    EXPECT_TRUE(cluster_->client()
                    .Raw("DELETE", "/api/v1/namespaces/default/pods",
                         R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})",
                         "application/json")
                    .ok());
    EXPECT_TRUE(Eventually(
        [&] {
          auto left = cluster_->client().ListPods("default", {});
          return left.ok() && left->items.empty();
        },
        absl::Seconds(60)));
    return rate;
  };
  std::vector<double> normal;
  std::vector<double> faulty;
  for (int r = 0; r < kRounds; ++r) {
    normal.push_back(run(absl::StrCat("normal", r), false, false));
    faulty.push_back(run(absl::StrCat("faulty", r), true, r == kRounds - 1));
  }
  // Each faulty run against the fault-free run just before it (the same load around
  // them); the better round counts.
  size_t best = 0;
  for (size_t r = 1; r < normal.size(); ++r) {
    if (faulty[r] / normal[r] > faulty[best] / normal[best]) best = r;
  }
  const double normal_rate = normal[best];
  const double faulty_rate = faulty[best];
  const int max_per_second = MaxPerSecond(watch_times);
  std::cout << "[scenario 5] Bindings/s fault-free " << absl::StrJoin(normal, " / ")
            << ", empty watches " << absl::StrJoin(faulty, " / ") << ": best " << faulty_rate
            << " vs " << normal_rate << " (" << 100 * faulty_rate / normal_rate
            << " % of fault-free); " << watch_times.size() << " watches in " << faulty_window
            << " under the fault (" << watch_times.size() / absl::ToDoubleSeconds(faulty_window)
            << "/s on average, at most " << max_per_second << " in one second), " << short_watches
            << " very short watches counted; " << kLate << " pods created under the fault bound in "
            << late_bound << "\n";
  for (const auto& [path, times] : watch_times_by_path) {
    EXPECT_LE(MaxPerSecond(times), 2) << path;
  }
  EXPECT_GE(watch_times_by_path.size(), 14u) << "every informer watched";
  EXPECT_LE(max_per_second, 2 * static_cast<int>(watch_times_by_path.size()));
  EXPECT_GE(short_watches, 2 * kRounds);
  EXPECT_GE(faulty_rate, 0.9 * normal_rate);
}

// Scenario 10: etcd is compacted between pages of the scheduler's initial list of
// 10,000 pods (pages of 500): the proxy holds the request for page 2, pods are deleted
// and created, etcd is compacted, the request goes on and gets 410 (its continue token
// expired). The informer lists again from scratch and watches from that list's
// resourceVersion (not below the compaction); its store equals a fresh list; the
// scheduler then binds new pods on nodes that the 10,000 bound pods fill, overcommitting
// none.
TEST_F(FaultInjectionTest, EtcdCompactedBetweenPagesOfTheInitialList) {
  constexpr int kBulk = 10000;
  constexpr int kChanged = 100;
  constexpr int kAfter = 200;
  constexpr int kNodes = 50;
  // Each node holds 200 bulk pods (2,000m, 3,200Mi) and has room for 5 more of the
  // 200 pods created after them: 96 % of the cpu requested at the end.
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", kNodes),
                                        {.cpu = "2500m", .memory = "3900Mi", .pods = "300"}, 4));
  const absl::Time create_start = absl::Now();
  const auto bound_pod = [](const std::string& prefix) {
    return [prefix](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "trimaran",
                      .cpu = "10m",
                      .memory = "16Mi",
                      .node_name = absl::StrCat("node-", i % kNodes)};
    };
  };
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(kBulk, bound_pod("bulk"), {.parallelism = 16}));
  const absl::Duration create_time = absl::Now() - create_start;

  const int64_t mark = proxy_->NextSeq();
  RequestMatch page2 = {.method = "GET", .path_regex = "/api/v1/pods", .watch = false};
  page2.predicate = [](const ProxiedRequest& r) { return absl::StrContains(r.query, "continue="); };
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId gate, proxy_->AddRule(FaultRule::Hang(page2, absl::InfiniteDuration()).Times(1)));
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("compacted-list"));
  ASSERT_TRUE(Eventually([&] { return proxy_->HeldRequests() == 1; }, absl::Seconds(60)))
      << sched.process->LogTail();
  // Page 2 is held: change pods, then compact etcd past the list's snapshot.
  for (int i = 0; i < kChanged; ++i) TRIMARAN_ASSERT_OK(DeletePodNow(absl::StrCat("bulk-", i)));
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(kChanged, bound_pod("mid")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(int64_t compacted, cluster_->control_plane().CompactEtcd());
  const absl::Time release = absl::Now();
  proxy_->ReleaseRule(gate);
  ASSERT_TRUE(AwaitReady(sched, absl::Seconds(60))) << sched.process->LogTail();
  const absl::Duration to_synced = absl::Now() - release;
  std::string diff;
  ASSERT_TRUE(Eventually([&] { return StoresEqualFreshLists(sched, &diff); }, absl::Seconds(30)))
      << diff;
  const absl::Duration to_equal = absl::Now() - release;

  // The held page got 410; the first pod watch started at or after the compaction.
  int expired = 0;
  int pages = 0;
  int64_t first_watch_rv = -1;
  for (const RequestRecord& r : proxy_->Requests(mark)) {
    if (r.request.path != "/api/v1/pods") continue;
    if (!r.request.watch) {
      ++pages;
      expired += r.client_status == 410;
      continue;
    }
    if (first_watch_rv >= 0) continue;
    for (absl::string_view kv : absl::StrSplit(r.request.query, '&')) {
      if (absl::ConsumePrefix(&kv, "resourceVersion=")) (void)absl::SimpleAtoi(kv, &first_watch_rv);
    }
  }
  EXPECT_EQ(expired, 1);
  EXPECT_GE(first_watch_rv, compacted) << "the watch started from the abandoned list";
  const std::string metrics = Metrics(sched);
  EXPECT_EQ(SumSamples(metrics, "trimaran_informer_list_restarts_total", {R"(resource="pods")"}),
            1);
  EXPECT_EQ(SumSamples(metrics, "trimaran_informer_relists_total", {R"(resource="pods")"}), 0);
  EXPECT_EQ(SumSamples(metrics, "trimaran_informer_resource_version_regressions_total"), 0);

  // The cache holds the 10,000 bound pods: new pods bind without overcommitting.
  TRIMARAN_ASSERT_OK(CreatePods(kAfter, "after"));
  ASSERT_TRUE(Eventually([&] { return BoundWithPrefix("after-") == kAfter; }, absl::Seconds(60)))
      << BoundWithPrefix("after-") << "/" << kAfter << "\n"
      << sched.process->LogTail();
  ASSERT_NO_FATAL_FAILURE(AuditAll(kBulk + kAfter));
  std::cout << "[scenario 10] " << kBulk << " bound pods created in " << create_time
            << " (16 parallel POSTs); list held at page 2 " << (release - start)
            << " after the start, " << kChanged << " pods deleted and " << kChanged
            << " created, etcd compacted at " << compacted << "; " << pages
            << " list pages read (410: " << expired << "), first watch from resourceVersion "
            << first_watch_rv << "; synced " << to_synced << " and stores equal to a fresh list "
            << to_equal << " after the release\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

}  // namespace
}  // namespace trimaran::e2e
