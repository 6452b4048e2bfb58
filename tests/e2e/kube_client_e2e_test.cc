// The Kubernetes client against a real kube-apiserver + etcd (issue: Kubernetes client).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/informer.h"
#include "kube/leader_elector.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/control_plane.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::HasSubstr;
using trimaran::testing::StatusIs;

bool Eventually(const std::function<bool()>& cond, absl::Duration timeout = absl::Seconds(60)) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return cond();
}

class KubeClientE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cp = ControlPlane::Start();
    ASSERT_TRUE(cp.ok()) << cp.status();
    cp_ = *std::move(cp);
    client_ = NewClient();
    ASSERT_NE(client_, nullptr);
  }

  std::unique_ptr<kube::RestClient> NewClient(double qps = 2000, int burst = 4000) {
    auto path = cp_->WriteKubeconfig();
    EXPECT_TRUE(path.ok()) << path.status();
    auto config = kube::LoadKubeconfig(*path);
    EXPECT_TRUE(config.ok()) << config.status();
    config->qps = qps;
    config->burst = burst;
    auto client = kube::RestClient::Create(*config, RealClock::Get());
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  // Creates `n` pods named prefix-i in `ns` with 8 threads.
  void CreatePods(const std::string& ns, const std::string& prefix, int n) {
    std::atomic<int> next{0}, failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < n; i = next++) {
          auto pod = MakePod()
                         .Name(absl::StrCat(prefix, "-", i))
                         .Namespace(ns)
                         .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                         .Obj();
          if (!client_->CreatePod(pod).ok()) ++failures;
        }
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0);
  }

  std::unique_ptr<ControlPlane> cp_;
  std::unique_ptr<kube::RestClient> client_;
};

TEST_F(KubeClientE2ETest, ListsThreeThousandPodsThroughPagination) {
  CreatePods("default", "p", 3000);
  std::set<std::string> names;
  kube::ListOptions options;
  options.limit = 500;
  int pages = 0;
  while (true) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(auto page, client_->ListPods("default", options));
    ++pages;
    for (auto& p : page.items) names.insert(p.metadata.name);
    if (page.metadata.continue_token.empty()) break;
    options.continue_token = page.metadata.continue_token;
  }
  EXPECT_EQ(names.size(), 3000u);
  EXPECT_EQ(pages, 6);
}

TEST_F(KubeClientE2ETest, WatchSeesEveryAddUpdateAndDeleteInOrder) {
  TRIMARAN_ASSERT_OK(client_
                         ->Raw("POST", "/api/v1/namespaces",
                               R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"w"}})",
                               "application/json")
                         .status());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto start, client_->ListPods("w", {}));
  absl::Mutex mu;
  std::vector<std::string> seen;  // "TYPE name"
  std::jthread watcher([&](std::stop_token stop) {
    kube::WatchOptions wo;
    wo.resource_version = start.metadata.resource_version;
    absl::Status s = client_->WatchPods(
        "w", wo,
        [&](kube::WatchEvent<kube::Pod>&& ev) {
          if (ev.type == kube::WatchEventType::kBookmark) return true;
          absl::MutexLock lock(&mu);
          seen.push_back(std::string(kube::ToString(ev.type)) + " " + ev.object.metadata.name);
          return true;
        },
        stop);
    EXPECT_TRUE(s.ok() || absl::IsCancelled(s)) << s;
  });
  constexpr int kPods = 1000;
  CreatePods("w", "w", kPods);
  for (int i = 0; i < kPods; ++i) {
    auto pod = client_->GetPod("w", absl::StrCat("w-", i));
    ASSERT_TRUE(pod.ok()) << pod.status();
    kube::PodStatusPatch patch;
    kube::PodCondition c;
    c.type = "PodScheduled";
    c.status = kube::ConditionStatus::kFalse;
    c.reason = "Unschedulable";
    c.message = "test";
    patch.conditions.push_back(c);
    TRIMARAN_ASSERT_OK(client_->PatchPodStatus("w", pod->metadata.name, patch));
  }
  for (int i = 0; i < kPods; ++i)
    TRIMARAN_ASSERT_OK(client_->DeletePod("w", absl::StrCat("w-", i)));
  auto deleted = [&] {
    absl::MutexLock lock(&mu);
    return std::count_if(seen.begin(), seen.end(),
                         [](const std::string& e) { return e.rfind("DELETED", 0) == 0; });
  };
  ASSERT_TRUE(Eventually([&] { return deleted() == kPods; }));
  watcher.request_stop();
  watcher.join();
  absl::MutexLock lock(&mu);
  // Per pod, in order: ADDED, then MODIFIED (our status patch; the apiserver may add
  // one more when it marks the deletion), then DELETED, and nothing after it.
  std::map<std::string, std::vector<std::string>> per_pod;
  for (auto& s : seen) {
    auto sp = s.find(' ');
    per_pod[s.substr(sp + 1)].push_back(s.substr(0, sp));
  }
  EXPECT_EQ(per_pod.size(), static_cast<size_t>(kPods));
  for (auto& [name, types] : per_pod) {
    ASSERT_GE(types.size(), 3u) << name;
    EXPECT_EQ(types.front(), "ADDED") << name;
    EXPECT_EQ(types.back(), "DELETED") << name;
    for (size_t i = 1; i + 1 < types.size(); ++i) EXPECT_EQ(types[i], "MODIFIED") << name;
    EXPECT_LE(types.size(), 4u) << name;
  }
}

TEST_F(KubeClientE2ETest, InformerSurvivesApiserverRestartAndEndsEqualToAFreshList) {
  CreatePods("default", "a", 50);
  kube::Informer<kube::Pod> informer(
      kube::PodListerWatcher(*client_), RealClock::Get(),
      {.page_size = 20, .min_backoff = absl::Milliseconds(200), .max_backoff = absl::Seconds(1)});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(30)));
  EXPECT_EQ(informer.store().Size(), 50u);
  cp_->KillApiserver();
  // Changes cannot happen while it is down; restart, then change things.
  TRIMARAN_ASSERT_OK(cp_->StartApiserver());
  auto other = NewClient();
  for (int i = 0; i < 10; ++i)
    TRIMARAN_ASSERT_OK(other->DeletePod("default", absl::StrCat("a-", i)));
  CreatePods("default", "b", 20);
  ASSERT_TRUE(Eventually([&] { return informer.store().Size() == 60u; }));
  EXPECT_GE(informer.counters().watch_errors.load(), 1u) << "the cut was noticed and counted";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto fresh, other->ListPods("", {}));
  std::vector<std::string> want;
  for (auto& p : fresh.items) want.push_back(kube::ObjectKey(p));
  auto got = informer.store().Keys();
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  informer.Stop();
}

// Watches read etcd directly here (no watch cache), as the issue's check describes: after
// a compaction removes the informer's resume point, the watch gets 410 Gone and the
// informer re-lists.
class CompactionE2ETest : public KubeClientE2ETest {
 protected:
  void SetUp() override {
    auto cp = ControlPlane::Start({.watch_cache = false});
    ASSERT_TRUE(cp.ok()) << cp.status();
    cp_ = *std::move(cp);
    client_ = NewClient();
    ASSERT_NE(client_, nullptr);
  }
};

TEST_F(CompactionE2ETest, CompactionMakesTheWatchGoneAndTheInformerRelists) {
  CreatePods("default", "c", 5);
  // The informer lists, then its first watch waits at a gate while the world changes
  // and etcd is compacted past the list's resourceVersion.
  kube::ListerWatcher<kube::Pod> lw = kube::PodListerWatcher(*client_);
  absl::Notification gate;
  std::atomic<int> watch_calls{0};
  auto inner_watch = lw.watch;
  lw.watch = [&](const kube::WatchOptions& o, const kube::WatchHandler<kube::Pod>& h,
                 std::stop_token stop) {
    if (watch_calls++ == 0) gate.WaitForNotification();
    return inner_watch(o, h, stop);
  };
  kube::Informer<kube::Pod> informer(std::move(lw), RealClock::Get());
  std::atomic<int> tombstones{0};
  informer.AddEventHandlers(
      {.on_delete = [&](const std::shared_ptr<const kube::Pod>&, bool unknown) {
        if (unknown) ++tombstones;
      }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(30)));
  ASSERT_EQ(informer.store().Size(), 5u);
  TRIMARAN_ASSERT_OK(client_->DeletePod("default", "c-0"));
  CreatePods("default", "d", 5);
  TRIMARAN_ASSERT_OK(cp_->CompactEtcd().status());
  gate.Notify();
  ASSERT_TRUE(Eventually([&] { return informer.counters().relists_gone.load() >= 1; }));
  ASSERT_TRUE(Eventually([&] { return informer.store().Size() == 9u; }));
  EXPECT_EQ(informer.counters().lists.load(), 2u);
  EXPECT_EQ(tombstones.load(), 1) << "the delete missed during the gap is reported";
  EXPECT_EQ(informer.store().Get("default/c-0"), nullptr);
  informer.Stop();

  // A plain watch from the compacted version is answered with 410 Gone too.
  kube::WatchOptions wo;
  wo.resource_version = "2";
  wo.timeout = absl::Seconds(10);
  bool got_gone = false;
  absl::Status s = client_->WatchPods(
      "", wo,
      [&](kube::WatchEvent<kube::Pod>&& ev) {
        if (ev.type == kube::WatchEventType::kError && ev.error && ev.error->code == 410) {
          got_gone = true;
          return false;
        }
        return true;
      },
      {});
  EXPECT_TRUE(got_gone || s.code() == absl::StatusCode::kAborted) << s;
}

TEST_F(KubeClientE2ETest, BindEventAndConditionReadBack) {
  TRIMARAN_ASSERT_OK(client_->CreateNode(MakeNode().Name("n1").Obj()).status());
  TRIMARAN_ASSERT_OK(
      client_->CreatePod(MakePod().Name("web").Namespace("default").Req({{"cpu", "100m"}}).Obj())
          .status());

  kube::PodStatusPatch patch;
  kube::PodCondition c;
  c.type = "PodScheduled";
  c.status = kube::ConditionStatus::kFalse;
  c.reason = "Unschedulable";
  c.message = "0/1 nodes are available: 1 Insufficient cpu.";
  c.last_transition_time = absl::FromUnixSeconds(1700000000);
  patch.conditions.push_back(c);
  patch.nominated_node_name = "";
  TRIMARAN_ASSERT_OK(client_->PatchPodStatus("default", "web", patch));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto pod, client_->GetPod("default", "web"));
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].reason, "Unschedulable");
  EXPECT_EQ(pod.status.conditions[0].message, c.message);

  kube::Binding b;
  b.metadata.namespace_name = "default";
  b.metadata.name = "web";
  b.metadata.uid = pod.metadata.uid;
  b.target.name = "n1";
  TRIMARAN_ASSERT_OK(client_->Bind(b));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(pod, client_->GetPod("default", "web"));
  EXPECT_EQ(pod.spec.node_name, "n1");
  // Binding twice is refused by the apiserver.
  EXPECT_THAT(client_->Bind(b), StatusIs(absl::StatusCode::kAlreadyExists));

  kube::Event ev;
  ev.metadata.namespace_name = "default";
  ev.metadata.name = "web.scheduled";
  ev.regarding.kind = "Pod";
  ev.regarding.namespace_name = "default";
  ev.regarding.name = "web";
  ev.regarding.uid = pod.metadata.uid;
  ev.reason = "Scheduled";
  ev.note = "Successfully assigned default/web to n1";
  ev.type = "Normal";
  ev.action = "Binding";
  ev.reporting_controller = "trimaran";
  ev.reporting_instance = "trimaran-e2e";
  ev.event_time = absl::Now();
  TRIMARAN_ASSERT_OK(client_->CreateEvent(ev));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::string body,
      client_->Raw("GET", "/apis/events.k8s.io/v1/namespaces/default/events/web.scheduled", "",
                   "application/json"));
  EXPECT_THAT(body, HasSubstr("Successfully assigned default/web to n1"));
  EXPECT_THAT(body, HasSubstr("\"reason\":\"Scheduled\""));
}

TEST_F(KubeClientE2ETest, LeaseCreateUpdateConflict) {
  kube::Lease l;
  l.metadata.namespace_name = "kube-system";
  l.metadata.name = "trimaran";
  l.spec.holder_identity = "a";
  l.spec.lease_duration_seconds = 15;
  l.spec.renew_time = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto created, client_->CreateLease(l));
  EXPECT_THAT(client_->CreateLease(l), StatusIs(absl::StatusCode::kAlreadyExists));
  created.spec.holder_identity = "b";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto updated, client_->UpdateLease(created));
  EXPECT_EQ(updated.spec.holder_identity, "b");
  // A stale resourceVersion is a conflict.
  created.spec.holder_identity = "c";
  EXPECT_THAT(client_->UpdateLease(created), StatusIs(absl::StatusCode::kAborted));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto got, client_->GetLease("kube-system", "trimaran"));
  EXPECT_EQ(got.spec.holder_identity, "b");
}

TEST_F(KubeClientE2ETest, WrongTokenWrongCaAndUnreachableServerGiveClearErrors) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto path, cp_->WriteKubeconfig());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto good, kube::LoadKubeconfig(path));

  kube::RestConfig bad_token = good;
  bad_token.bearer_token = "not-a-valid-token";
  auto c1 = *kube::RestClient::Create(bad_token, RealClock::Get());
  absl::Status s1 = c1->ListNodes({}).status();
  EXPECT_THAT(s1, StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_THAT(s1.message(), HasSubstr("list nodes on " + cp_->server()));
  EXPECT_THAT(s1.message(), HasSubstr("Unauthorized"));

  // A CA that did not sign the apiserver's certificate.
  kube::RestConfig bad_ca = good;
  bad_ca.tls.ca_file = cp_->dir() + "/sa.crt";
  auto c2 = *kube::RestClient::Create(bad_ca, RealClock::Get());
  absl::Status s2 = c2->ListNodes({}).status();
  EXPECT_THAT(s2, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(s2.message(), HasSubstr("127.0.0.1"));
  EXPECT_THAT(s2.message(), HasSubstr("certificate"));

  kube::RestConfig unreachable = good;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(int port, PickFreePort());
  unreachable.server = absl::StrCat("https://127.0.0.1:", port);
  kube::RestClientOptions fast;
  fast.max_retries = 1;
  fast.initial_backoff = absl::Milliseconds(1);
  auto c3 = *kube::RestClient::Create(unreachable, RealClock::Get(), fast);
  absl::Status s3 = c3->ListNodes({}).status();
  EXPECT_THAT(s3, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(s3.message(), HasSubstr(absl::StrCat("127.0.0.1:", port)));
  EXPECT_THAT(s3.message(), HasSubstr("refused"));
}

// Two real candidate processes: exactly one leads; SIGKILL the leader and the other
// takes over within leaseDuration + retryPeriod.
TEST_F(KubeClientE2ETest, LeaderElectionAcrossProcesses) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto kubeconfig, cp_->WriteKubeconfig());
  std::string bin = TRIMARAN_LEASE_CANDIDATE_BIN;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto a, Subprocess::Start({bin, kubeconfig, "a"}, cp_->dir() + "/candidate-a.log"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto b, Subprocess::Start({bin, kubeconfig, "b"}, cp_->dir() + "/candidate-b.log"));
  std::string holder;
  ASSERT_TRUE(Eventually([&] {
    auto lease = client_->GetLease("kube-system", "trimaran-e2e");
    if (!lease.ok()) return false;
    holder = lease->spec.holder_identity;
    return !holder.empty();
  }));
  // It stays with one holder while both run.
  for (int i = 0; i < 20; ++i) {
    absl::SleepFor(absl::Milliseconds(250));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(auto lease, client_->GetLease("kube-system", "trimaran-e2e"));
    ASSERT_EQ(lease.spec.holder_identity, holder);
  }
  Subprocess& leader = holder == "a" ? *a : *b;
  std::string other = holder == "a" ? "b" : "a";
  absl::Time killed = absl::Now();
  leader.Signal(SIGKILL);
  leader.Stop();
  std::string now_holder;
  ASSERT_TRUE(Eventually(
      [&] {
        auto lease = client_->GetLease("kube-system", "trimaran-e2e");
        if (!lease.ok()) return false;
        now_holder = lease->spec.holder_identity;
        return now_holder == other;
      },
      absl::Seconds(40)));
  absl::Duration takeover = absl::Now() - killed;
  // leaseDuration 15 s + retryPeriod 2 s, plus the 20 ms poll of this test.
  EXPECT_LE(takeover, absl::Seconds(17) + absl::Milliseconds(100))
      << absl::FormatDuration(takeover);
  std::cout << "leader takeover after SIGKILL: " << absl::FormatDuration(takeover) << "\n";
}

}  // namespace
}  // namespace trimaran::e2e
