// The real trimaran-scheduler binary against a real kube-apiserver + etcd (issue 5):
// binding 1,000 pods on 50 nodes within allocatable, leaving other schedulers' pods
// alone; the Unschedulable condition and FailedScheduling event of a pod that fits
// nowhere; two replicas with the leader SIGKILLed mid-run; invalid configurations
// refused with every field named; SIGTERM handling.
#include <signal.h>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod_resources.h"
#include "kube/rest_client.h"
#include "rapidjson/document.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;

bool Eventually(const std::function<bool()>& cond, absl::Duration timeout = absl::Seconds(90)) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return cond();
}

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

class SchedulerE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
    client_ = &cluster_->client();
    kubeconfig_ = cluster_->kubeconfig();
  }

  // `n` nodes node-<i> with the given allocatable, Ready and without the not-ready taint
  // that admission adds (no kubelet runs here).
  void CreateNodes(int n, const std::string& cpu, const std::string& memory,
                   const std::string& pods = "110") {
    TRIMARAN_ASSERT_OK(
        cluster_->AddNodes(NumberedNames("node", n), {.cpu = cpu, .memory = memory, .pods = pods}));
  }

  // Creates pods prefix-<i> in `ns` (8 threads); `size(i)` gives cpu/memory requests.
  void CreatePods(const std::string& ns, const std::string& prefix, int n,
                  const std::string& scheduler_name,
                  const std::function<std::pair<std::string, std::string>(int)>& size) {
    TRIMARAN_ASSERT_OK(cluster_->CreatePods(n, [&](int i) {
      auto [cpu, mem] = size(i);
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .namespace_name = ns,
                      .scheduler_name = scheduler_name,
                      .cpu = cpu,
                      .memory = mem};
    }));
  }

  std::vector<kube::Pod> Pods(const std::string& ns) {
    auto list = client_->ListPods(ns, {});
    EXPECT_TRUE(list.ok()) << list.status();
    return list.ok() ? list->items : std::vector<kube::Pod>{};
  }

  int BoundCount(const std::string& ns, const std::string& prefix) {
    int bound = 0;
    for (const kube::Pod& p : Pods(ns)) {
      if (absl::StartsWith(p.metadata.name, prefix) && !p.spec.node_name.empty()) ++bound;
    }
    return bound;
  }

  // Starts the binary with `config_yaml` and extra flags; the secure port is ephemeral.
  std::unique_ptr<Subprocess> StartScheduler(const std::string& config_yaml, const std::string& tag,
                                             std::vector<std::string> extra = {}) {
    auto sched = StartSchedulerProcess({.binary = kSchedulerBin,
                                        .dir = cp_->dir(),
                                        .tag = tag,
                                        .config_yaml = config_yaml,
                                        .kubeconfig = kubeconfig_,
                                        .extra_args = std::move(extra)});
    EXPECT_TRUE(sched.ok()) << sched.status();
    if (!sched.ok()) return nullptr;
    secure_port_ = sched->secure_port;
    return std::move(sched->process);
  }

  // GET https://127.0.0.1:<secure_port_><path> with the generated self-signed cert
  // (curl -k: the test only checks the content).
  std::string Admin(const std::string& path, int* status_out = nullptr) {
    std::string cmd =
        absl::StrCat("curl -ks -o - -w '\\n%{http_code}' https://127.0.0.1:", secure_port_, path);
    std::string out;
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t k;
      while ((k = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, k);
      pclose(f);
    }
    size_t nl = out.rfind('\n');
    if (status_out != nullptr) {
      *status_out = nl == std::string::npos ? 0 : std::atoi(out.c_str() + nl + 1);
    }
    return nl == std::string::npos ? out : out.substr(0, nl);
  }

  std::vector<EventRecord> Events(const std::string& ns) { return cluster_->Events(ns); }

  std::unique_ptr<Cluster> cluster_;
  ControlPlane* cp_ = nullptr;          // owned by cluster_
  kube::RestClient* client_ = nullptr;  // owned by cluster_
  std::string kubeconfig_;
  int secure_port_ = 0;
};

TEST_F(SchedulerE2ETest, BindsAThousandPodsOnFiftyNodesWithinAllocatable) {
  CreateNodes(50, "4", "16Gi");
  // 1,000 pods of ours: 100m..190m cpu, 128Mi..352Mi memory (about 145 CPU of the 200);
  // 20 pods for another scheduler that must stay untouched.
  CreatePods("default", "web", 1000, "trimaran", [](int i) {
    return std::pair{absl::StrCat(100 + (i % 10) * 10, "m"),
                     absl::StrCat(128 + (i % 8) * 32, "Mi")};
  });
  CreatePods("default", "other", 20, "some-other-scheduler", [](int) {
    return std::pair{std::string("100m"), std::string("128Mi")};
  });
  auto sched = StartScheduler(SchedulerConfigYaml("trimaran", false), "a");
  ASSERT_NE(sched, nullptr);

  ASSERT_TRUE(Eventually([&] { return BoundCount("default", "web-") == 1000; }, absl::Seconds(120)))
      << "bound " << BoundCount("default", "web-") << "/1000\n"
      << sched->LogTail();

  // No node above its allocatable, read back from the API.
  std::map<std::string, kube::Resource> used;
  for (const kube::Pod& p : Pods("default")) {
    if (absl::StartsWith(p.metadata.name, "other-")) {
      EXPECT_TRUE(p.spec.node_name.empty()) << p.metadata.name << " was touched";
      continue;
    }
    kube::Resource r = kube::ComputePodRequests(p);
    kube::Resource& u = used[p.spec.node_name];
    u.milli_cpu += r.milli_cpu;
    u.memory += r.memory;
    u.allowed_pod_number += 1;
  }
  for (const auto& [node, u] : used) {
    EXPECT_LE(u.milli_cpu, 4000) << node;
    EXPECT_LE(u.memory, int64_t{16} << 30) << node;
    EXPECT_LE(u.allowed_pod_number, 110) << node;
  }
  // Every pod got its "Scheduled" event; no other pod got any.
  Eventually(
      [&] {
        int n = 0;
        for (const EventRecord& e : Events("default")) n += e.reason == "Scheduled";
        return n == 1000;
      },
      absl::Seconds(30));
  std::set<std::string> scheduled;
  for (const EventRecord& e : Events("default")) {
    if (e.reason != "Scheduled") continue;
    EXPECT_TRUE(scheduled.insert(e.regarding).second) << "two Scheduled events for " << e.regarding;
    EXPECT_THAT(e.note, HasSubstr(absl::StrCat("Successfully assigned default/", e.regarding,
                                               " to node-")));
    EXPECT_FALSE(absl::StartsWith(e.regarding, "other-"));
  }
  EXPECT_EQ(scheduled.size(), 1000u);

  // --v=2: one placement line per bound pod, as kube-scheduler's.
  {
    std::ifstream log(sched->log_path());
    std::string line;
    std::set<std::string> placed;
    const std::regex placement(
        R"re("Successfully bound pod to node" pod="default/(web-\d+)" node="node-\d+" )re"
        R"re(evaluatedNodes=50 feasibleNodes=\d+)re");
    std::smatch m;
    while (std::getline(log, line)) {
      if (std::regex_search(line, m, placement)) placed.insert(m[1].str());
    }
    EXPECT_EQ(placed.size(), 1000u);
  }

  // Endpoints.
  int status = 0;
  EXPECT_EQ(Admin("/healthz", &status), "ok");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(Admin("/readyz", &status), "ok");
  EXPECT_EQ(status, 200);
  const std::string metrics = Admin("/metrics");
  EXPECT_THAT(
      metrics,
      HasSubstr(
          "scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"trimaran\"} 1000"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_pending_pods"));
  EXPECT_THAT(metrics, HasSubstr("leader_election_master_status"));
  EXPECT_THAT(Admin("/configz"), HasSubstr("\"schedulerName\":\"trimaran\""));

  // SIGTERM: graceful, exit 0.
  sched->Signal(SIGTERM);
  auto code = sched->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched->LogTail();
}

// --logging-format=json: every line of the log is one JSON object; --v=2 gives one
// placement line per bound pod with kube's fields; the Scheduled events name the profile
// as reportingController.
TEST_F(SchedulerE2ETest, JsonLogsOnePlacementLinePerPodAndProfileNamedEvents) {
  CreateNodes(10, "4", "16Gi");
  CreatePods("default", "json", 100, "trimaran", [](int) {
    return std::pair{std::string("100m"), std::string("128Mi")};
  });
  auto sched =
      StartScheduler(SchedulerConfigYaml("trimaran", false), "json", {"--logging-format=json"});
  ASSERT_NE(sched, nullptr);
  ASSERT_TRUE(Eventually([&] { return BoundCount("default", "json-") == 100; }, absl::Seconds(60)))
      << sched->LogTail();
  sched->Signal(SIGTERM);
  auto code = sched->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);

  std::ifstream log(sched->log_path());
  std::string line;
  int lines = 0;
  std::set<std::string> placed;
  while (std::getline(log, line)) {
    if (line.empty()) continue;
    ++lines;
    rapidjson::Document d;
    d.Parse(line.c_str());
    ASSERT_FALSE(d.HasParseError()) << "not JSON: " << line;
    ASSERT_TRUE(d.IsObject()) << line;
    ASSERT_TRUE(d.HasMember("ts") && d["ts"].IsNumber()) << line;
    ASSERT_TRUE(d.HasMember("v") && d["v"].IsInt()) << line;
    ASSERT_TRUE(d.HasMember("msg") && d["msg"].IsString()) << line;
    ASSERT_TRUE(d.HasMember("logger") && d["logger"].IsString()) << line;
    if (std::string(d["msg"].GetString()) != "Successfully bound pod to node") continue;
    for (const char* field : {"pod", "node", "evaluatedNodes", "feasibleNodes"}) {
      ASSERT_TRUE(d.HasMember(field) && d[field].IsString()) << field << " in " << line;
    }
    EXPECT_EQ(std::string(d["evaluatedNodes"].GetString()), "10") << line;
    EXPECT_THAT(std::string(d["node"].GetString()), ::testing::StartsWith("node-"));
    EXPECT_TRUE(placed.insert(d["pod"].GetString()).second) << "placed twice: " << line;
  }
  EXPECT_GT(lines, 100);
  EXPECT_EQ(placed.size(), 100u);
  EXPECT_TRUE(placed.contains("default/json-0"));

  auto body = client_->Raw("GET", "/apis/events.k8s.io/v1/namespaces/default/events?limit=1000", "",
                           "application/json");
  ASSERT_TRUE(body.ok()) << body.status();
  rapidjson::Document events;
  events.Parse(body->c_str());
  ASSERT_TRUE(events.IsObject() && events.HasMember("items"));
  int scheduled = 0;
  for (const auto& item : events["items"].GetArray()) {
    if (std::string(item["reason"].GetString()) != "Scheduled") continue;
    ++scheduled;
    EXPECT_EQ(std::string(item["reportingController"].GetString()), "trimaran");
  }
  EXPECT_GT(scheduled, 0);
}

TEST_F(SchedulerE2ETest, PodThatFitsNowhereGetsConditionAndEvent) {
  constexpr char kMessage[] =
      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 "
      "Preemption is not helpful for scheduling.";
  CreateNodes(3, "2", "4Gi");
  CreatePods("default", "huge", 1, "trimaran", [](int) {
    return std::pair{std::string("64"), std::string("1Gi")};
  });
  auto sched = StartScheduler(SchedulerConfigYaml("trimaran", false), "u");
  ASSERT_NE(sched, nullptr);
  std::string message;
  ASSERT_TRUE(Eventually([&] {
    auto pod = client_->GetPod("default", "huge-0");
    if (!pod.ok()) return false;
    for (const kube::PodCondition& c : pod->status.conditions) {
      if (c.type == "PodScheduled" && c.status == kube::ConditionStatus::kFalse &&
          c.reason == "Unschedulable") {
        message = c.message;
        return true;
      }
    }
    return false;
  })) << sched->LogTail();
  // Upstream's FitError format (1.31: preemption's verdict appended; 64 CPUs exceed every
  // node's allocatable, so evicting cannot help).
  EXPECT_EQ(message, kMessage);
  ASSERT_TRUE(Eventually([&] {
    for (const EventRecord& e : Events("default")) {
      if (e.reason == "FailedScheduling" && e.regarding == "huge-0") {
        EXPECT_EQ(e.type, "Warning");
        EXPECT_EQ(e.note, kMessage);
        return true;
      }
    }
    return false;
  }));
  EXPECT_TRUE(client_->GetPod("default", "huge-0")->spec.node_name.empty());
  EXPECT_THAT(sched->LogTail(200000),
              HasSubstr(absl::StrCat(
                  R"("Unable to schedule pod; no fit; waiting" pod="default/huge-0" err=")",
                  kMessage, R"(")")));
  sched->Signal(SIGTERM);
  auto code = sched->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 0);
}

TEST_F(SchedulerE2ETest, TwoReplicasLeaderKilledOtherTakesOverEveryPodBoundOnce) {
  CreateNodes(20, "8", "32Gi");
  const std::string config = SchedulerConfigYaml("trimaran", true);
  auto a = StartScheduler(config, "ra");
  ASSERT_NE(a, nullptr);
  // A is the only candidate: wait until it holds the Lease, then start B.
  std::string holder_a;
  ASSERT_TRUE(Eventually([&] {
    auto lease = client_->GetLease("kube-system", "trimaran-e2e");
    if (!lease.ok() || lease->spec.holder_identity.empty()) return false;
    holder_a = lease->spec.holder_identity;
    return true;
  })) << a->LogTail();
  auto b = StartScheduler(config, "rb");
  ASSERT_NE(b, nullptr);
  // B is up (its readyz answers) but not leading.
  ASSERT_TRUE(Eventually([&] {
    int status = 0;
    Admin("/readyz", &status);
    return status == 200;
  })) << b->LogTail();
  EXPECT_THAT(Admin("/metrics"),
              HasSubstr("leader_election_master_status{name=\"trimaran-e2e\"} 0"));
  EXPECT_THAT(Admin("/readyz?verbose"),
              HasSubstr("leader-election: standby (lease kube-system/trimaran-e2e)"));

  // Pods arrive over about 6 s while A schedules them; A is killed a third of the way
  // in, so B must take over to bind the rest.
  std::thread creator([&] {
    for (int batch = 0; batch < 12; ++batch) {
      CreatePods("default", absl::StrCat("job", batch), 50, "trimaran", [](int) {
        return std::pair{std::string("100m"), std::string("256Mi")};
      });
      absl::SleepFor(absl::Milliseconds(500));
    }
  });
  const bool reached = Eventually([&] { return BoundCount("default", "job") >= 150; });
  a->Signal(SIGKILL);
  creator.join();
  ASSERT_TRUE(reached) << a->LogTail();
  ASSERT_TRUE(a->Wait(absl::Seconds(10)).ok());
  const int bound_at_kill = BoundCount("default", "job");

  ASSERT_TRUE(Eventually([&] { return BoundCount("default", "job") == 600; }, absl::Seconds(90)))
      << "bound " << BoundCount("default", "job") << "/600 (" << bound_at_kill << " at the kill)\n"
      << b->LogTail();
  auto lease = client_->GetLease("kube-system", "trimaran-e2e");
  ASSERT_TRUE(lease.ok());
  EXPECT_NE(lease->spec.holder_identity, holder_a);
  EXPECT_GE(lease->spec.lease_transitions, 1);
  // Exactly once: a pod's nodeName is set by one Binding (the apiserver refuses a second
  // with 409), so at most one "Scheduled" event per pod; none from a replica that lost.
  std::map<std::string, int> scheduled_events;
  for (const EventRecord& e : Events("default")) {
    if (e.reason == "Scheduled") ++scheduled_events[e.regarding];
  }
  for (const auto& [pod, n] : scheduled_events) EXPECT_EQ(n, 1) << pod;
  EXPECT_THAT(b->LogTail(200000), ::testing::Not(HasSubstr("Conflict")));

  b->Signal(SIGTERM);
  auto code = b->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 0) << b->LogTail();
  // Released on SIGTERM: holderIdentity is empty.
  auto released = client_->GetLease("kube-system", "trimaran-e2e");
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->spec.holder_identity, "");
}

// ---- Configuration errors: no control plane needed, the binary exits first. ----

struct RunResult {
  int code = -1;
  std::string output;
};

RunResult RunScheduler(const std::vector<std::string>& args) {
  std::string cmd = kSchedulerBin;
  for (const std::string& a : args) absl::StrAppend(&cmd, " '", a, "'");
  absl::StrAppend(&cmd, " 2>&1");
  RunResult r;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, k);
    int st = pclose(f);
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  return r;
}

std::string TempConfig(const std::string& name, const std::string& text) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/trimaran-e2e-", name, ".yaml");
  return WriteFile(path, text);
}

TEST(SchedulerConfigE2ETest, InvalidConfigsExitOneNamingEveryField) {
  {
    RunResult r = RunScheduler({"--config", TempConfig("badyaml", "apiVersion: [x\n")});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.output, HasSubstr("invalid YAML"));
  }
  {
    RunResult r = RunScheduler(
        {"--config", TempConfig("several", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: trimaran
    plugins:
      score:
        enabled:
          - name: NoSuchPlugin
          - name: NodeResourcesBalancedAllocation
            weight: -3
          - name: TargetLoadPacking
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 150
)")});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.output, HasSubstr("profiles[0].plugins.score.enabled[0].name"));
    EXPECT_THAT(r.output, HasSubstr("NoSuchPlugin"));
    EXPECT_THAT(r.output, HasSubstr("profiles[0].plugins.score.enabled[1].weight"));
    EXPECT_THAT(r.output, HasSubstr("profiles[0].pluginConfig[0].args.targetUtilization"));
  }
  {
    RunResult r = RunScheduler({"--config", "/nonexistent/config.yaml"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.output, HasSubstr("/nonexistent/config.yaml"));
  }
  {
    RunResult r = RunScheduler({"--no-such-flag"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.output, HasSubstr("--no-such-flag"));
  }
}

TEST(SchedulerConfigE2ETest, WriteConfigToPrintsTheEffectiveConfiguration) {
  RunResult r = RunScheduler({"--config",
                              std::string(TRIMARAN_SOURCE_DIR) +
                                  "/scheduler/config/testdata/eks-binpack-scheduler-config.yaml",
                              "--write-config-to", "/dev/stdout"});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("schedulerName: my-scheduler"));
  EXPECT_THAT(r.output, HasSubstr("type: MostAllocated"));
  EXPECT_THAT(r.output, HasSubstr("resourceName: my-scheduler"));
}

}  // namespace
}  // namespace trimaran::e2e
