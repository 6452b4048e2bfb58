#include "scheduler/plugins/coscheduling/coscheduling.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/runtime/waiting_pods.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::sched::testing::FakeHandle;
using ::trimaran::sched::testing::NewHandleForTest;

constexpr char kNs[] = "jobs";

kube::Quantity Q(const std::string& text) { return *kube::Quantity::Parse(text); }

kube::Pod Member(const std::string& name, const std::string& group, const std::string& node = "",
                 int32_t priority = 0) {
  kube::testing::PodWrapper w = kube::testing::MakePod();
  w.Name(name).Namespace(kNs).UID("uid-" + name).Req({{"cpu", "1"}}).Priority(priority);
  if (!group.empty()) w.Label(std::string(kube::kPodGroupLabel), group);
  if (!node.empty()) w.NodeName(node);
  return w.Obj();
}

kube::Node Node(const std::string& name, const std::string& cpu, const std::string& pods = "110") {
  return kube::testing::MakeNode().Name(name).Capacity({{"cpu", cpu}, {"pods", pods}}).Obj();
}

class CoschedulingTest : public ::testing::Test {
 protected:
  CoschedulingTest() : handle_(NewHandleForTest()) {
    handle_->pod_groups().SetHealth(absl::OkStatus());
  }

  void Group(const std::string& name, int32_t min_member, std::optional<int32_t> timeout = {},
             std::optional<kube::ResourceList> min_resources = {},
             absl::Time created = absl::FromUnixSeconds(1000)) {
    kube::PodGroup pg;
    pg.metadata.namespace_name = kNs;
    pg.metadata.name = name;
    pg.metadata.creation_timestamp = created;
    pg.spec.min_member = min_member;
    pg.spec.schedule_timeout_seconds = timeout;
    pg.spec.min_resources = std::move(min_resources);
    handle_->pod_groups().Apply(std::make_shared<const kube::PodGroup>(std::move(pg)));
  }

  // Creates `n` members "<group>-<i>" (in the lister) and returns them.
  std::vector<kube::Pod> Members(const std::string& group, int n) {
    std::vector<kube::Pod> pods;
    for (int i = 0; i < n; ++i) {
      pods.push_back(Member(group + "-" + std::to_string(i), group));
      handle_->pod_groups().ApplyPod(std::make_shared<const kube::Pod>(pods.back()));
    }
    return pods;
  }

  std::unique_ptr<Coscheduling> Plugin(CoschedulingArgs args = {}) {
    return std::make_unique<Coscheduling>(args, *handle_);
  }

  // Permit as the runtime runs it: on Wait the pod joins the waiting pods.
  Status Permit(Coscheduling& pl, const kube::Pod& pod, absl::Duration* timeout_out = nullptr) {
    CycleState state;
    absl::Duration timeout = absl::ZeroDuration();
    Status s = pl.Permit(state, pod, "n1", timeout);
    if (timeout_out != nullptr) *timeout_out = timeout;
    if (s.IsWait()) {
      handle_->waiting_pods().Add(std::make_shared<WaitingPod>(
          std::make_shared<const kube::Pod>(pod), "n1",
          std::vector<WaitingPod::PendingPlugin>{{"Coscheduling", timeout}}, handle_->clock()));
    }
    return s;
  }

  // nullopt while the pod waits; else how it was resolved.
  std::optional<Status> Outcome(const kube::Pod& pod) {
    auto w = handle_->waiting_pods().Get(pod);
    if (w == nullptr) return Status::Error("not waiting");
    return w->Result();
  }

  Status PreFilter(Coscheduling& pl, const kube::Pod& pod) {
    CycleState state;
    PreFilterResult result;
    return pl.PreFilter(state, pod, handle_->snapshot_lister().NodeInfos().List(), result);
  }

  Status PostFilter(Coscheduling& pl, const kube::Pod& pod) {
    CycleState state;
    PostFilterResult result;
    return pl.PostFilter(state, pod, NodeToStatus(), result);
  }

  std::unique_ptr<FakeHandle> handle_;
};

TEST_F(CoschedulingTest, RegisteredInTreeWithItsPoints) {
  const Registry registry = InTreeRegistry();
  const PluginDescriptor* d = registry.Find(Coscheduling::kName);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->Implements(ExtensionPoint::kQueueSort));
  EXPECT_TRUE(d->Implements(ExtensionPoint::kPreFilter));
  EXPECT_TRUE(d->Implements(ExtensionPoint::kPostFilter));
  EXPECT_TRUE(d->Implements(ExtensionPoint::kReserve));
  EXPECT_TRUE(d->Implements(ExtensionPoint::kPermit));
  EXPECT_FALSE(d->validate_args(PluginArgs{YAML::Load("podGroupRejectPercentage: 200"), "a"}).ok());
}

TEST_F(CoschedulingTest, QueueSortKeepsGroupsTogether) {
  Group("early", 2, {}, {}, absl::FromUnixSeconds(100));
  Group("late", 2, {}, {}, absl::FromUnixSeconds(200));
  Group("late2", 2, {}, {}, absl::FromUnixSeconds(200));
  auto pl = Plugin();
  auto info = [](kube::Pod pod, int64_t ts) {
    QueuedPodInfo q;
    q.pod = std::make_shared<const kube::Pod>(std::move(pod));
    q.timestamp = absl::FromUnixSeconds(ts);
    return q;
  };
  struct Row {
    std::string name;
    QueuedPodInfo a, b;
    bool less;
  };
  const std::vector<Row> rows = {
      {"higher priority first", info(Member("x", "late", "", 10), 500),
       info(Member("y", "early"), 1), true},
      {"earlier group first", info(Member("x", "early"), 900), info(Member("y", "late"), 1), true},
      {"later group after", info(Member("x", "late"), 1), info(Member("y", "early"), 900), false},
      {"a lone pod by its own time", info(Member("x", ""), 150), info(Member("y", "late"), 1),
       true},
      {"same time: by group name", info(Member("z", "late"), 1), info(Member("a", "late2"), 1),
       true},
      {"same group: by pod name", info(Member("a", "late"), 9), info(Member("b", "late"), 1), true},
      {"missing group: pod time", info(Member("a", "ghost"), 50), info(Member("b", "early"), 1),
       true},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(pl->Less(r.a, r.b), r.less) << r.name;
    if (r.less) {
      EXPECT_FALSE(pl->Less(r.b, r.a)) << r.name << " (reversed)";
    }
  }
}

TEST_F(CoschedulingTest, PreFilterCases) {
  handle_->snapshot().Set({Node("n1", "4", "4"), Node("n2", "4", "4")},
                          {Member("other", "", "n1")});
  Group("small", 3);
  Group("fits", 2, {}, kube::ResourceList{{"cpu", Q("6")}});
  Group("too-big", 2, {}, kube::ResourceList{{"cpu", Q("8")}});
  Group("too-many", 8);
  Members("small", 2);
  Members("fits", 2);
  Members("too-big", 2);
  Members("too-many", 8);
  auto pl = Plugin();

  struct Row {
    std::string name;
    kube::Pod pod;
    Code code;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"no label", Member("solo", ""), Code::kSuccess, ""},
      {"group not found", Member("g-0", "ghost"), Code::kUnschedulableAndUnresolvable,
       "PodGroup jobs/ghost not found"},
      {"below minMember", Member("small-0", "small"), Code::kUnschedulableAndUnresolvable,
       "pre-filter pod small-0 cannot find enough sibling pods, current pods number: 2, "
       "minMember of group: 3"},
      {"minResources fit", Member("fits-0", "fits"), Code::kSuccess, ""},
      {"minResources exceed the cluster", Member("too-big-0", "too-big"),
       Code::kUnschedulableAndUnresolvable,
       "PodGroup jobs/too-big minResources do not fit the cluster: resource gap: cpu=1000m"},
      {"enough pods, no minResources", Member("too-many-0", "too-many"), Code::kSuccess, ""},
  };
  for (const Row& r : rows) {
    Status s = PreFilter(*pl, r.pod);
    EXPECT_EQ(s.code(), r.code) << r.name << ": " << s.Message();
    if (!r.message.empty()) {
      EXPECT_EQ(s.Message(), r.message) << r.name;
    }
  }

  // pods = minMember is part of minResources: 9 pods do not fit 8 pod slots (1 used).
  Group("pods", 8, {}, kube::ResourceList{{"cpu", Q("1")}});
  Members("pods", 8);
  EXPECT_THAT(PreFilter(*pl, Member("pods-0", "pods")).Message(), HasSubstr("pods=1"));
}

TEST_F(CoschedulingTest, PreFilterWithoutTheCrdWaitsWithAClearMessage) {
  handle_->pod_groups().SetHealth(absl::FailedPreconditionError(
      "the PodGroup CRD (podgroups.scheduling.x-k8s.io) is not installed"));
  auto pl = Plugin();
  Status s = PreFilter(*pl, Member("a", "g"));
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(s.Message(), HasSubstr("PodGroup jobs/g cannot be read: the PodGroup CRD"));
  EXPECT_TRUE(PreFilter(*pl, Member("b", "")).IsSuccess());
}

TEST_F(CoschedulingTest, PermitWaitsBelowMinMemberThenAllowsTheWholeGang) {
  Group("g", 3);
  std::vector<kube::Pod> pods = Members("g", 4);
  auto pl = Plugin();
  absl::Duration timeout;
  EXPECT_TRUE(Permit(*pl, pods[0], &timeout).IsWait());
  EXPECT_EQ(timeout, absl::Seconds(60));  // permitWaitingTimeSeconds
  handle_->fake_clock().Advance(absl::Seconds(10));
  EXPECT_TRUE(Permit(*pl, pods[1], &timeout).IsWait());
  EXPECT_EQ(timeout, absl::Seconds(50));  // one deadline for the gang
  EXPECT_FALSE(Outcome(pods[0]).has_value());
  EXPECT_EQ(pl->AssignedCount(kNs, "g"), 2);

  EXPECT_TRUE(Permit(*pl, pods[2]).IsSuccess());
  ASSERT_TRUE(Outcome(pods[0]).has_value());
  EXPECT_TRUE(Outcome(pods[0])->IsSuccess());
  EXPECT_TRUE(Outcome(pods[1])->IsSuccess());
  // A member beyond minMember passes at once.
  EXPECT_TRUE(Permit(*pl, pods[3]).IsSuccess());
}

TEST_F(CoschedulingTest, PermitUsesScheduleTimeoutSecondsAndCountsBoundMembers) {
  Group("g", 3, 7);
  std::vector<kube::Pod> pods = Members("g", 3);
  // pods[0] is already bound.
  handle_->pod_groups().ApplyPod(std::make_shared<const kube::Pod>(Member("g-0", "g", "n2")));
  auto pl = Plugin();
  absl::Duration timeout;
  EXPECT_TRUE(Permit(*pl, pods[1], &timeout).IsWait());
  EXPECT_EQ(timeout, absl::Seconds(7));
  EXPECT_TRUE(Permit(*pl, pods[2]).IsSuccess());
  EXPECT_TRUE(Outcome(pods[1])->IsSuccess());
}

TEST_F(CoschedulingTest, PermitForAMissingGroupIsUnschedulable) {
  auto pl = Plugin();
  EXPECT_EQ(Permit(*pl, Member("a", "ghost")).code(), Code::kUnschedulable);
  EXPECT_TRUE(Permit(*pl, Member("b", "")).IsSuccess());
}

TEST_F(CoschedulingTest, TimeoutOfOneMemberReleasesTheWholeGang) {
  // minMember 5, only 3 pods get as far as Permit: the first one's timeout (the runtime
  // then calls Unreserve) rejects the other two.
  Group("g", 5, 2);
  std::vector<kube::Pod> pods = Members("g", 5);
  auto pl = Plugin();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Permit(*pl, pods[i]).IsWait());
  handle_->fake_clock().Advance(absl::Seconds(2));
  Status first = handle_->waiting_pods().Get(pods[0])->Wait();  // deadline passed
  EXPECT_THAT(first.Message(), HasSubstr("rejected due to timeout after waiting 2s"));
  handle_->waiting_pods().Remove(pods[0]);
  CycleState state;
  pl->Unreserve(state, pods[0], "n1");
  for (int i = 1; i < 3; ++i) {
    ASSERT_TRUE(Outcome(pods[i]).has_value()) << i;
    EXPECT_EQ(Outcome(pods[i])->code(), Code::kUnschedulable);
    EXPECT_EQ(Outcome(pods[i])->Message(), "rejection in Unreserve");
  }
  // Their own Unreserve does not start another round (one event in all).
  for (int i = 1; i < 3; ++i) {
    handle_->waiting_pods().Remove(pods[i]);
    pl->Unreserve(state, pods[i], "n1");
  }
  EXPECT_EQ(pl->AssignedCount(kNs, "g"), 0);
  const auto events = handle_->recorder().Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "PodGroupRejected");
  EXPECT_THAT(events[0].note, HasSubstr("PodGroup jobs/g: 2 waiting member(s) rejected"));
}

TEST_F(CoschedulingTest, TwoGangsCompetingForOneGangsRoom) {
  // Room for 12 one-cpu pods; two gangs of 8 (minMember 8). Gang a completes; gang b
  // gets 4 members to Permit, then its 5th fits no node: PostFilter rejects b's waiting
  // members (their reservations are released) and backs b off.
  Group("a", 8, {}, {}, absl::FromUnixSeconds(100));
  Group("b", 8, {}, {}, absl::FromUnixSeconds(200));
  std::vector<kube::Pod> a = Members("a", 8);
  std::vector<kube::Pod> b = Members("b", 8);
  CoschedulingArgs args;
  args.pod_group_backoff_seconds = 5;
  auto pl = Plugin(args);
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(Permit(*pl, a[i]).IsWait()) << i;
  EXPECT_TRUE(Permit(*pl, a[7]).IsSuccess());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Permit(*pl, b[i]).IsWait()) << i;

  Status s = PostFilter(*pl, b[4]);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "PodGroup jobs/b gets rejected due to Pod b-4 is unschedulable even after PostFilter");
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(Outcome(a[i])->IsSuccess()) << i;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Outcome(b[i]).has_value()) << i;
    EXPECT_EQ(Outcome(b[i])->Message(), "optimistic rejection in PostFilter") << i;
  }
  // Backoff: b is refused at PreFilter for podGroupBackoffSeconds.
  EXPECT_EQ(PreFilter(*pl, b[5]).Message(), "podGroup jobs/b failed recently");
  handle_->fake_clock().Advance(absl::Seconds(6));
  EXPECT_TRUE(PreFilter(*pl, b[5]).IsSuccess());
  // A failed gang sorts by its failure time, after a gang created before it.
  QueuedPodInfo qa, qb;
  qa.pod = std::make_shared<const kube::Pod>(a[0]);
  qb.pod = std::make_shared<const kube::Pod>(b[0]);
  EXPECT_TRUE(pl->Less(qa, qb));
}

TEST_F(CoschedulingTest, PostFilterSparesANearlyCompleteGang) {
  Group("g", 10);
  std::vector<kube::Pod> pods = Members("g", 10);
  auto pl = Plugin();  // podGroupRejectPercentage 10
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(Permit(*pl, pods[i]).IsWait());
  Status s = PostFilter(*pl, pods[9]);  // 1 of 10 missing = 10 %: keep waiting
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_FALSE(Outcome(pods[0]).has_value());
  EXPECT_EQ(PostFilter(*pl, Member("x", "")).Message(), "can not find pod group");
}

TEST_F(CoschedulingTest, PostFilterAfterItsOwnPreFilterRejectionChangesNothing) {
  // A member turned away at PreFilter (here: the group is backed off) never reached
  // Filter: PostFilter must not reject the group's waiting pods nor extend the backoff.
  Group("g", 3);
  std::vector<kube::Pod> pods = Members("g", 3);
  CoschedulingArgs args;
  args.pod_group_backoff_seconds = 5;
  auto pl = Plugin(args);
  EXPECT_TRUE(Permit(*pl, pods[0]).IsWait());
  EXPECT_FALSE(PostFilter(*pl, pods[1]).IsSuccess());  // rejects pods[0], backs g off 5 s
  handle_->waiting_pods().Remove(pods[0]);
  CycleState first;
  pl->Unreserve(first, pods[0], "n1");
  ASSERT_TRUE(Permit(*pl, pods[0]).IsWait());  // tried again, waits
  handle_->fake_clock().Advance(absl::Seconds(4));
  CycleState state;
  PreFilterResult pre;
  Status s = pl->PreFilter(state, pods[1], handle_->snapshot_lister().NodeInfos().List(), pre);
  EXPECT_EQ(s.Message(), "podGroup jobs/g failed recently");
  PostFilterResult post;
  EXPECT_EQ(pl->PostFilter(state, pods[1], NodeToStatus(), post).code(), Code::kUnschedulable);
  EXPECT_FALSE(Outcome(pods[0]).has_value());       // still waiting
  handle_->fake_clock().Advance(absl::Seconds(2));  // the original 5 s are over
  EXPECT_TRUE(PreFilter(*pl, pods[1]).IsSuccess());
}

TEST_F(CoschedulingTest, QuorumAtTheDeadlineIsRefused) {
  Group("g", 2, 10);
  std::vector<kube::Pod> pods = Members("g", 2);
  auto pl = Plugin();
  EXPECT_TRUE(Permit(*pl, pods[0]).IsWait());
  handle_->fake_clock().Advance(absl::Milliseconds(9500));
  Status s = Permit(*pl, pods[1]);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_THAT(s.Message(), HasSubstr("of its Permit deadline"));
  EXPECT_FALSE(Outcome(pods[0]).has_value());  // not allowed: the runtime's Unreserve rejects it
  CycleState state;
  pl->Unreserve(state, pods[1], "n1");
  EXPECT_EQ(Outcome(pods[0])->Message(), "rejection in Unreserve");
}

TEST(ResourceGapTest, IgnoresTheGroupsOwnPods) {
  kube::PodGroup pg;
  pg.spec.min_member = 2;
  pg.spec.min_resources = kube::ResourceList{{"cpu", Q("4")}};
  auto infos = testing::MakeNodeInfos({Node("n1", "4")},
                                      {Member("g-0", "g", "n1"), Member("g-1", "g", "n1")});
  std::vector<const NodeInfo*> nodes = {infos[0].get()};
  EXPECT_TRUE(ResourceGap(pg, "jobs/g", nodes).IsZero());
  EXPECT_EQ(ResourceGap(pg, "jobs/other", nodes).milli_cpu, 2000);
}

}  // namespace
}  // namespace trimaran::sched::plugins
