// The Kubernetes client against a real kube-apiserver + etcd (issue: Kubernetes client).
#include <signal.h>

#include <atomic>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
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

using ::testing::HasSubstr;
using kube::testing::MakeNode;
using kube::testing::MakePod;
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
          auto pod = MakePod().Name(absl::StrCat(prefix, "-", i)).Namespace(ns)
                         .Req({{"cpu", "100m"}, {"memory", "128Mi"}}).Obj();
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
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto start, client_->ListPods("w", {}));
  absl::Mutex mu;
  std::vector<std::string> seen;  // "TYPE name"
  std::stop_source stop;
  std::jthread watcher([&] {
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
        stop.get_token());
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
  for (int i = 0; i < kPods; ++i) TRIMARAN_ASSERT_OK(client_->DeletePod("w", absl::StrCat("w-", i)));
  ASSERT_TRUE(Eventually([&] {
    absl::MutexLock lock(&mu);
    return seen.size() >= 3 * kPods;
  }));
  stop.request_stop();
  watcher.join();
  absl::MutexLock lock(&mu);
  ASSERT_EQ(seen.size(), 3u * kPods);
  // Per pod: ADDED, then MODIFIED, then DELETED (the deletion may show up as a MODIFIED
  // setting deletionTimestamp first only with finalizers; these pods have none).
  std::map<std::string, std::vector<std::string>> per_pod;
  for (auto& s : seen) {
    auto sp = s.find(' ');
    per_pod[s.substr(sp + 1)].push_back(s.substr(0, sp));
  }
  EXPECT_EQ(per_pod.size(), static_cast<size_t>(kPods));
  for (auto& [name, types] : per_pod) {
    EXPECT_THAT(types, ::testing::ElementsAre("ADDED", "MODIFIED", "DELETED")) << name;
  }
}

TEST_F(KubeClientE2ETest, InformerSurvivesApiserverRestartAndEndsEqualToAFreshList) {
  CreatePods("default", "a", 50);
  kube::Informer<kube::Pod> informer(kube::PodListerWatcher(*client_), RealClock::Get(),
                                     {.page_size = 20, .min_backoff = absl::Milliseconds(200),
                                      .max_backoff = absl::Seconds(1)});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(30)));
  EXPECT_EQ(informer.store().Size(), 50u);
  cp_->KillApiserver();
  // Changes cannot happen while it is down; restart, then change things.
  TRIMARAN_ASSERT_OK(cp_->StartApiserver());
  auto other = NewClient();
  for (int i = 0; i < 10; ++i) TRIMARAN_ASSERT_OK(other->DeletePod("default", absl::StrCat("a-", i)));
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

TEST_F(KubeClientE2ETest, CompactionMakesTheWatchGoneAndTheInformerRelists) {
  CreatePods("default", "c", 5);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto list, client_->ListPods("", {}));
  // A watch from a compacted version is answered with 410 Gone.
  CreatePods("default", "d", 5);
  TRIMARAN_ASSERT_OK(cp_->CompactEtcd().status());
  kube::WatchOptions wo;
  wo.resource_version = list.metadata.resource_version;
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

  // An informer whose resume point is compacted away re-lists through the 410 path.
  kube::ListerWatcher<kube::Pod> lw = kube::PodListerWatcher(*client_);
  std::atomic<int> lists{0};
  auto inner_list = lw.list;
  lw.list = [&](const kube::ListOptions& o) -> absl::StatusOr<kube::PodList> {
    auto r = inner_list(o);
    // The first list pretends to be old: its version is the compacted one.
    if (r.ok() && lists++ == 0) r->metadata.resource_version = list.metadata.resource_version;
    return r;
  };
  kube::Informer<kube::Pod> informer(std::move(lw), RealClock::Get());
  informer.Start();
  ASSERT_TRUE(Eventually([&] { return informer.counters().relists_gone.load() >= 1; }));
  EXPECT_GE(lists.load(), 2);
  EXPECT_EQ(informer.store().Size(), 10u);
  informer.Stop();
}

TEST_F(KubeClientE2ETest, BindEventAndConditionReadBack) {
  TRIMARAN_ASSERT_OK(client_->CreateNode(MakeNode().Name("n1").Obj()).status());
  TRIMARAN_ASSERT_OK(client_->CreatePod(MakePod().Name("web").Namespace("default").Obj()).status());

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
  EXPECT_THAT(s1.message(), HasSubstr("list nodes"));

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
