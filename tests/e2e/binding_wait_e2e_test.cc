// Binding with waiting pods (issue 30 point 1): the real trimaran-scheduler on a real
// etcd + kube-apiserver, talking to it through a FaultProxy that counts every Binding
// POST at the wire.
//
//   A. Baseline: with the scheduler running, 1,000 ordinary pods are created (8 at a
//      time); the rate at which their Bindings (201) cross the proxy, first to last, is
//      the reference.
//   B. Then 200 pods that wait: 100 Coscheduling gang members held at Permit (10
//      PodGroups of minMember 20 whose other 10 members belong to no scheduler, so each
//      group stays below its quorum; scheduleTimeoutSeconds 600) and 100 pods whose
//      WaitForFirstConsumer claim nothing provisions (VolumeBinding's PreBind waits up to
//      bindTimeoutSeconds, 600 s); once all 200 wait (100 claims written, 100 Permit
//      waits in /metrics), 1,000 ordinary pods are created the same way and must bind at
//      >= 90 % of the baseline rate, each rate taken relative to the rate at which its
//      pods arrived: on two cores the apiserver's pod creations are the bottleneck (the
//      Bindings cross the proxy within milliseconds of the creations in both phases), and
//      creations alone are 10-20 % slower with the 200 waiting pods and their claims in
//      etcd, which is no work of the scheduler's. The parked pods must also cost the
//      scheduler next to no CPU while nothing else happens (<= 0.2 of a core over 3 s):
//      a waiting cycle that polled would show there.
//   C. SIGTERM with the 200 pods still waiting: the process exits 0 within 2 s, sends no
//      Binding after the signal, and every waiting pod stays pending in the API.
//
// Before issue 30 every waiting binding cycle held one of the 16 binding threads, so B
// bound nothing and C took minutes.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "kube/api/pod_group.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/proc_metrics.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

// utime + stime of `pid` in seconds (/proc/<pid>/stat fields 14 and 15); -1 unreadable.
double ProcCpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::vector<std::string> fields = absl::StrSplit(stat.substr(paren + 2), ' ');
  // After the command: field 3 (state) is fields[0], so utime (14) is fields[11].
  double utime = 0, stime = 0;
  if (fields.size() < 13 || !absl::SimpleAtod(fields[11], &utime) ||
      !absl::SimpleAtod(fields[12], &stime)) {
    return -1;
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kCrd[] = TRIMARAN_COSCHEDULING_CRD;
constexpr char kNs[] = "bw";
constexpr int kOrdinary = 1000;
constexpr int kGroups = 10;
constexpr int kGangPerGroup = 10;  // ours; as many again belong to no scheduler
constexpr int kVolumePods = 100;
constexpr absl::Duration kTimeout = absl::Seconds(120);

// Coscheduling as in deploy/components/coscheduling, the rest of the profile default
// (VolumeBinding with bindTimeoutSeconds 600).
constexpr char kProfile[] = R"(    plugins:
      queueSort:
        enabled:
          - name: Coscheduling
        disabled:
          - name: "*"
      preFilter:
        enabled:
          - name: Coscheduling
      postFilter:
        enabled:
          - name: Coscheduling
      reserve:
        enabled:
          - name: Coscheduling
      permit:
        enabled:
          - name: Coscheduling
    pluginConfig:
      - name: Coscheduling
        args:
          permitWaitingTimeSeconds: 600
)";

// The Bindings of pods named "<prefix>..." that the apiserver created (201), as seen
// at the proxy since `since`.
struct WireBinds {
  int count = 0;
  absl::Time first = absl::InfiniteFuture();
  absl::Time last = absl::InfinitePast();
  // Binds per second between the first and the last.
  double Rate() const { return count < 2 ? 0 : (count - 1) / absl::ToDoubleSeconds(last - first); }
};

WireBinds BindsAtTheWire(const FaultProxy& proxy, int64_t since, absl::string_view prefix) {
  WireBinds out;
  const std::string marker = absl::StrCat("/pods/", prefix);
  for (const RequestRecord& r : proxy.Requests(since)) {
    if (r.request.method != "POST" || !absl::EndsWith(r.request.path, "/binding") ||
        !absl::StrContains(r.request.path, marker) || r.client_status != 201) {
      continue;
    }
    ++out.count;
    out.first = std::min(out.first, r.time);
    out.last = std::max(out.last, r.time);
  }
  return out;
}

RequestMatch BindsOf(absl::string_view prefix) {
  return {
      .method = "POST",
      .path_regex = absl::StrCat("/api/v1/namespaces/", kNs, "/pods/", prefix, "[^/]*/binding")};
}

class BindingWaitE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(cluster_, Cluster::Start());
    ControlPlane& cp = cluster_->control_plane();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(proxy_,
                                  FaultProxy::Start({.upstream = cp.server(),
                                                     .upstream_ca_file = cp.ca_file(),
                                                     .tls_cert_dir = cp.dir() + "/proxy-tls"}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        kubeconfig_, cp.WriteKubeconfigFor("via-proxy", proxy_->url(), proxy_->ca_file()));
    TRIMARAN_ASSERT_OK(cluster_->InstallPodGroupCrd(kCrd, absl::Seconds(60)));
    TRIMARAN_ASSERT_OK(Send("POST", "/api/v1/namespaces",
                            absl::StrCat(R"({"metadata":{"name":")", kNs, R"("}})")));
    TRIMARAN_ASSERT_OK(cluster_->AddNodes(
        NumberedNames("node", 20),
        {.cpu = "64", .memory = "256Gi", .pods = "250", .hostname_label = true}));
    TRIMARAN_ASSERT_OK(Send("POST", "/apis/storage.k8s.io/v1/storageclasses",
                            R"({"metadata":{"name":"wffc"},"provisioner":"example.com/nothing",)"
                            R"("volumeBindingMode":"WaitForFirstConsumer"})"));
  }

  void TearDown() override {
    if (HasFailure() && sched_.process) {
      std::fprintf(stderr, "--- trimaran-scheduler ---\n%s\n",
                   sched_.process->LogTail(12000).c_str());
    }
    if (sched_.process) sched_.process->Stop(absl::Seconds(20));
  }

  absl::Status Send(const std::string& method, const std::string& path, const std::string& body) {
    return cluster_->Send(method, path, body);
  }

  absl::Status CreateOrdinary(const std::string& prefix) {
    return cluster_->CreatePods(kOrdinary, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, i),
                      .namespace_name = kNs,
                      .scheduler_name = "trimaran",
                      .cpu = "10m",
                      .memory = "16Mi",
                      .labels = {{"phase", prefix + "pods"}}};
    });
  }

  // 10 PodGroups of minMember 20, each with 10 members for trimaran and 10 for nobody.
  absl::Status CreateGangs() {
    for (int g = 0; g < kGroups; ++g) {
      TRIMARAN_RETURN_IF_ERROR(Send(
          "POST", absl::StrCat("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/", kNs, "/podgroups"),
          absl::StrCat(R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",)",
                       R"("metadata":{"name":"g)", g, R"("},"spec":{"minMember":)",
                       2 * kGangPerGroup, R"(,"scheduleTimeoutSeconds":600}})")));
    }
    return cluster_->CreatePods(2 * kGangPerGroup * kGroups, [&](int i) {
      const int group = i / (2 * kGangPerGroup);
      const bool ours = i % (2 * kGangPerGroup) < kGangPerGroup;
      return PodShape{.name = absl::StrCat(ours ? "gang-" : "foreign-", i),
                      .namespace_name = kNs,
                      .scheduler_name = ours ? "trimaran" : "nobody",
                      .cpu = "10m",
                      .memory = "16Mi",
                      .labels = {{std::string(kube::kPodGroupLabel), absl::StrCat("g", group)}}};
    });
  }

  // 100 claims of the WaitForFirstConsumer class nothing provisions, one pod each.
  absl::Status CreateVolumePods() {
    for (int i = 0; i < kVolumePods; ++i) {
      TRIMARAN_RETURN_IF_ERROR(Send(
          "POST", absl::StrCat("/api/v1/namespaces/", kNs, "/persistentvolumeclaims"),
          absl::StrCat(R"({"metadata":{"name":"claim-)", i,
                       R"("},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"wffc",)",
                       R"("resources":{"requests":{"storage":"1Gi"}}}})")));
      TRIMARAN_RETURN_IF_ERROR(Send(
          "POST", absl::StrCat("/api/v1/namespaces/", kNs, "/pods"),
          absl::StrCat(R"({"metadata":{"name":"vol-)", i,
                       R"("},"spec":{"schedulerName":"trimaran",)",
                       R"("containers":[{"name":"c","image":"registry.k8s.io/pause:3.9",)",
                       R"("resources":{"requests":{"cpu":"10m","memory":"16Mi"}},)",
                       R"("volumeMounts":[{"name":"data","mountPath":"/data"}]}],)",
                       R"("volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"claim-)",
                       i, R"("}}]}})")));
    }
    return absl::OkStatus();
  }

  void StartScheduler(const std::string& tag) {
    absl::StatusOr<SchedulerProcess> s =
        StartSchedulerProcess({.binary = kSchedulerBin,
                               .dir = cluster_->control_plane().dir(),
                               .tag = tag,
                               .config_yaml = SchedulerConfigYaml("trimaran", false, kProfile),
                               .kubeconfig = kubeconfig_});
    ASSERT_TRUE(s.ok()) << s.status();
    sched_ = *std::move(s);
  }

  // Waits until `n` Bindings of pods "<prefix>..." crossed the proxy since `since`.
  bool AwaitBinds(absl::string_view prefix, int n, int64_t since) {
    return Eventually([&] { return proxy_->CountRequests(BindsOf(prefix), since) >= n; }, kTimeout,
                      absl::Milliseconds(20));
  }

  // SIGTERM; the time to exit (code 0 expected).
  absl::Duration Terminate() {
    const absl::Time term = absl::Now();
    sched_.process->Signal(SIGTERM);
    absl::StatusOr<int> code = sched_.process->Wait(absl::Seconds(60));
    const absl::Duration took = absl::Now() - term;
    EXPECT_TRUE(code.ok()) << code.status();
    if (code.ok()) {
      EXPECT_EQ(*code, 0) << sched_.process->LogTail();
    }
    return took;
  }

  double MetricsSum(absl::string_view name, const std::vector<std::string>& labels) {
    return SumSamples(Curl(absl::StrCat("https://127.0.0.1:", sched_.secure_port, "/metrics")),
                      name, labels);
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string kubeconfig_;
  SchedulerProcess sched_;
};

TEST_F(BindingWaitE2ETest, WaitingPodsLeaveTheBindRateAloneAndSigtermEndsTheirWaits) {
  ASSERT_NO_FATAL_FAILURE(StartScheduler("bw"));
  // The scheduler is up (it binds a first pod) before the measured pods exist.
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(1, [](int) {
    return PodShape{.name = "warm-up",
                    .namespace_name = kNs,
                    .scheduler_name = "trimaran",
                    .cpu = "10m",
                    .memory = "16Mi"};
  }));
  ASSERT_TRUE(AwaitBinds("warm-up", 1, 0));

  // A. Baseline: 1,000 ordinary pods, no pod waiting.
  const int64_t mark_a = proxy_->NextSeq();
  const absl::Time create_a = absl::Now();
  TRIMARAN_ASSERT_OK(CreateOrdinary("base-"));
  const absl::Duration created_a = absl::Now() - create_a;
  ASSERT_TRUE(AwaitBinds("base-", kOrdinary, mark_a))
      << proxy_->CountRequests(BindsOf("base-"), mark_a) << " of " << kOrdinary << " bound";
  // Each record is complete (its status known) shortly after its request was counted.
  ASSERT_TRUE(
      Eventually([&] { return BindsAtTheWire(*proxy_, mark_a, "base-").count == kOrdinary; },
                 absl::Seconds(10)));
  const WireBinds base = BindsAtTheWire(*proxy_, mark_a, "base-");

  // 200 pods that wait: 100 held at Permit, 100 in PreBind after writing selected-node.
  const int64_t mark_w = proxy_->NextSeq();
  TRIMARAN_ASSERT_OK(CreateGangs());
  TRIMARAN_ASSERT_OK(CreateVolumePods());
  const RequestMatch claim_writes = {
      .method = "PATCH",
      .path_regex =
          absl::StrCat("/api/v1/namespaces/", kNs, "/persistentvolumeclaims/claim-[0-9]+")};
  ASSERT_TRUE(Eventually(
      [&] {
        return proxy_->CountRequests(claim_writes, mark_w) >= kVolumePods &&
               MetricsSum("scheduler_framework_extension_point_duration_seconds_count",
                          {R"(extension_point="Permit")", R"(status="Wait")"}) >=
                   kGroups * kGangPerGroup;
      },
      absl::Seconds(60)))
      << "claims written " << proxy_->CountRequests(claim_writes, mark_w);

  // What the 200 parked pods cost while nothing else happens.
  const double cpu_before = ProcCpuSeconds(sched_.process->pid());
  absl::SleepFor(absl::Seconds(3));
  const double idle_cores = (ProcCpuSeconds(sched_.process->pid()) - cpu_before) / 3;

  // B. 1,000 ordinary pods again, created the same way, with the 200 waiting.
  const int64_t mark_b = proxy_->NextSeq();
  const absl::Time create_b = absl::Now();
  TRIMARAN_ASSERT_OK(CreateOrdinary("load-"));
  const absl::Duration created_b = absl::Now() - create_b;
  ASSERT_TRUE(AwaitBinds("load-", kOrdinary, mark_b))
      << proxy_->CountRequests(BindsOf("load-"), mark_b) << " of " << kOrdinary
      << " bound with pods waiting";
  ASSERT_TRUE(
      Eventually([&] { return BindsAtTheWire(*proxy_, mark_b, "load-").count == kOrdinary; },
                 absl::Seconds(10)));
  const WireBinds load = BindsAtTheWire(*proxy_, mark_b, "load-");
  EXPECT_EQ(proxy_->CountRequests(BindsOf("gang-"), mark_w), 0);
  EXPECT_EQ(proxy_->CountRequests(BindsOf("vol-"), mark_w), 0);
  const int64_t rss_kb = ProcStatusKb(sched_.process->pid(), "VmRSS");

  // C. SIGTERM with the 200 waiting.
  const int64_t mark_c = proxy_->NextSeq();
  const absl::Duration exit_time = Terminate();
  EXPECT_EQ(proxy_->CountRequests({.method = "POST", .path_regex = kBindingPathRegex}, mark_c), 0)
      << "a Binding after SIGTERM";
  int pending_waiting = 0, bound_load = 0;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::PodList pods, cluster_->client().ListPods(kNs, {}));
  for (const kube::Pod& p : pods.items) {
    const std::string& name = p.metadata.name;
    if (absl::StartsWith(name, "gang-") || absl::StartsWith(name, "vol-")) {
      EXPECT_EQ(p.spec.node_name, "") << name;
      pending_waiting += p.spec.node_name.empty() && !p.metadata.deletion_timestamp.has_value();
    }
    if (absl::StartsWith(name, "load-")) bound_load += !p.spec.node_name.empty();
  }
  EXPECT_EQ(pending_waiting, kGroups * kGangPerGroup + kVolumePods);
  EXPECT_EQ(bound_load, kOrdinary);

  // Each phase's bind rate relative to its pods' arrival rate (see the file comment).
  const double arrival_a = kOrdinary / absl::ToDoubleSeconds(created_a);
  const double arrival_b = kOrdinary / absl::ToDoubleSeconds(created_b);
  const double ratio = (load.Rate() / arrival_b) / (base.Rate() / arrival_a);
  std::cout << "[binding-wait] bind rate, no waiting pods:  " << base.Rate() << " pods/s ("
            << base.count << " binds in " << (base.last - base.first) << ")\n"
            << "[binding-wait] bind rate, 200 pods waiting: " << load.Rate() << " pods/s ("
            << load.count << " binds in " << (load.last - load.first) << ")\n"
            << "[binding-wait] pods created in " << created_a << " / " << created_b << " ("
            << arrival_a << " / " << arrival_b << " pods/s); bind rate over arrival rate "
            << base.Rate() / arrival_a << " / " << load.Rate() / arrival_b << ", ratio " << ratio
            << " (raw bind-rate ratio " << load.Rate() / base.Rate() << ")\n"
            << "[binding-wait] scheduler RSS " << rss_kb << " kB and " << idle_cores
            << " cores of CPU with 200 waiting and nothing else happening\n"
            << "[binding-wait] SIGTERM to exit: " << exit_time << " with 200 pods waiting\n";
  EXPECT_GE(ratio, 0.9);
  EXPECT_GE(idle_cores, 0);
  EXPECT_LE(idle_cores, 0.2);
  EXPECT_LE(exit_time, absl::Seconds(2));
}

}  // namespace
}  // namespace trimaran::e2e
