#include "scheduler/backend/cache/cache_impl.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

std::shared_ptr<const kube::Node> Node(const std::string& name, const std::string& zone = "") {
  auto w = MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}});
  if (!zone.empty()) w.Label("topology.kubernetes.io/zone", zone);
  return std::make_shared<const kube::Node>(std::move(w).Obj());
}

// A pod with uid "uid-<name>" asking for 1 cpu and 1Gi, on `node` ("" = unassigned).
std::shared_ptr<const kube::Pod> Pod(const std::string& name, const std::string& node,
                                     const std::string& cpu = "1") {
  return std::make_shared<const kube::Pod>(MakePod()
                                               .Name(name)
                                               .Namespace("default")
                                               .UID("uid-" + name)
                                               .NodeName(node)
                                               .Req({{"cpu", cpu}, {"memory", "1Gi"}})
                                               .Obj());
}

// Scopes with the daemon's prefixes (cmd/scheduler/app.cc).
StatsScopes DaemonScopes(stats::Registry& registry) {
  return {.upstream = stats::Scope(registry, "scheduler_"),
          .own = stats::Scope(registry, "trimaran_")};
}

class CacheTest : public ::testing::Test {
 protected:
  explicit CacheTest(CacheOptions options = {})
      : scopes_(DaemonScopes(registry_)), cache_(clock_, scopes_, options) {}

  void AddNodes(const std::vector<std::string>& names) {
    for (const std::string& name : names) ASSERT_THAT(cache_.AddNode(Node(name)), IsOk());
  }
  double CacheSize(absl::string_view type) {
    return registry_.GaugeFamily("scheduler_cache_size", "", {"type"}).WithLabels({type}).Value();
  }
  double InvalidOps(absl::string_view op) {
    return registry_.CounterFamily("trimaran_cache_invalid_operations_total", "", {"operation"})
        .WithLabels({op})
        .Value();
  }
  // The snapshot NodeInfo of `node` (after bringing snapshot_ up to date).
  const NodeInfo& Snap(const std::string& node) {
    EXPECT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
    absl::StatusOr<const NodeInfo*> info = snapshot_.Get(node);
    TRIMARAN_CHECK(info.ok()) << info.status();
    return **info;
  }
  static std::vector<std::string> Names(const Snapshot& snapshot) {
    std::vector<std::string> names;
    for (const NodeInfo* info : snapshot.List()) names.push_back(info->name());
    return names;
  }

  FakeClock clock_;
  stats::Registry registry_;
  StatsScopes scopes_;
  CacheImpl cache_;
  Snapshot snapshot_;
};

// ---- The state machine: every edge of the diagram in cache.h, and the invalid ones ----

enum class Op { kAssume, kFinishBinding, kForget, kAdd, kUpdate, kRemove };

struct Step {
  Op op;
  std::shared_ptr<const kube::Pod> pod;  // for kUpdate: the new pod
  absl::StatusCode want = absl::StatusCode::kOk;
  std::shared_ptr<const kube::Pod> old_pod = nullptr;  // kUpdate only
};

TEST_F(CacheTest, PodStateMachine) {
  const auto on_n1 = Pod("p", "n1");
  const auto on_n2 = Pod("p", "n2");
  const auto unassigned = Pod("p", "");
  using enum absl::StatusCode;
  struct TestCase {
    std::string name;
    std::vector<Step> steps;
    // Final state: "" = not in the cache, else the node it is on.
    std::string want_node;
    bool want_assumed = false;
  };
  const std::vector<TestCase> cases = {
      // Valid edges.
      {"initial -Assume-> assumed", {{Op::kAssume, on_n1}}, "n1", true},
      {"assumed -FinishBinding-> assumed",
       {{Op::kAssume, on_n1}, {Op::kFinishBinding, on_n1}},
       "n1",
       true},
      {"assumed -Forget-> initial", {{Op::kAssume, on_n1}, {Op::kForget, on_n1}}, ""},
      {"binding finished -Forget-> initial",
       {{Op::kAssume, on_n1}, {Op::kFinishBinding, on_n1}, {Op::kForget, on_n1}},
       ""},
      {"assumed -Add-> added",
       {{Op::kAssume, on_n1}, {Op::kFinishBinding, on_n1}, {Op::kAdd, on_n1}},
       "n1"},
      {"assumed -Add before FinishBinding-> added; FinishBinding is then a no-op",
       {{Op::kAssume, on_n1}, {Op::kAdd, on_n1}, {Op::kFinishBinding, on_n1}},
       "n1"},
      {"assumed -Add on another node-> added there",
       {{Op::kAssume, on_n1}, {Op::kAdd, on_n2}},
       "n2"},
      {"assumed -Remove-> deleted", {{Op::kAssume, on_n1}, {Op::kRemove, on_n1}}, ""},
      {"initial -Add-> added", {{Op::kAdd, on_n1}}, "n1"},
      {"added -Update-> added (node changes)",
       {{Op::kAdd, on_n1}, {Op::kUpdate, on_n2, kOk, on_n1}},
       "n2"},
      {"added -Remove-> deleted", {{Op::kAdd, on_n1}, {Op::kRemove, on_n1}}, ""},
      {"deleted -Add-> added", {{Op::kAdd, on_n1}, {Op::kRemove, on_n1}, {Op::kAdd, on_n2}}, "n2"},
      {"forgotten -Assume-> assumed again",
       {{Op::kAssume, on_n1}, {Op::kForget, on_n1}, {Op::kAssume, on_n2}},
       "n2",
       true},
      // Invalid edges: error, no change.
      {"Assume of an assumed pod",
       {{Op::kAssume, on_n1}, {Op::kAssume, on_n2, kAlreadyExists}},
       "n1",
       true},
      {"Assume of an added pod", {{Op::kAdd, on_n1}, {Op::kAssume, on_n2, kAlreadyExists}}, "n1"},
      {"Assume without a node", {{Op::kAssume, unassigned, kInvalidArgument}}, ""},
      {"Add of an added pod", {{Op::kAdd, on_n1}, {Op::kAdd, on_n2, kAlreadyExists}}, "n1"},
      {"Add without a node", {{Op::kAdd, unassigned, kInvalidArgument}}, ""},
      {"Forget of an unknown pod", {{Op::kForget, on_n1, kNotFound}}, ""},
      {"Forget of an added pod",
       {{Op::kAdd, on_n1}, {Op::kForget, on_n1, kFailedPrecondition}},
       "n1"},
      {"Forget twice",
       {{Op::kAssume, on_n1}, {Op::kForget, on_n1}, {Op::kForget, on_n1, kNotFound}},
       ""},
      {"Forget for another node",
       {{Op::kAssume, on_n1}, {Op::kForget, on_n2, kInvalidArgument}},
       "n1",
       true},
      {"Update of an unknown pod", {{Op::kUpdate, on_n2, kNotFound, on_n1}}, ""},
      {"Update of an assumed pod",
       {{Op::kAssume, on_n1}, {Op::kUpdate, on_n2, kFailedPrecondition, on_n1}},
       "n1",
       true},
      {"Update to no node",
       {{Op::kAdd, on_n1}, {Op::kUpdate, unassigned, kInvalidArgument, on_n1}},
       "n1"},
      {"Update to another pod",
       {{Op::kAdd, on_n1}, {Op::kUpdate, Pod("q", "n1"), kInvalidArgument, on_n1}},
       "n1"},
      {"Remove of an unknown pod", {{Op::kRemove, on_n1, kNotFound}}, ""},
      {"Remove twice",
       {{Op::kAdd, on_n1}, {Op::kRemove, on_n1}, {Op::kRemove, on_n1, kNotFound}},
       ""},
      {"FinishBinding of an unknown pod", {{Op::kFinishBinding, on_n1, kNotFound}}, ""},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    FakeClock clock;
    stats::Registry registry;
    CacheImpl cache(clock, DaemonScopes(registry));
    ASSERT_THAT(cache.AddNode(Node("n1")), IsOk());
    ASSERT_THAT(cache.AddNode(Node("n2")), IsOk());
    int64_t want_invalid = 0;
    for (size_t i = 0; i < tc.steps.size(); ++i) {
      SCOPED_TRACE(absl::StrCat("step ", i));
      const Step& step = tc.steps[i];
      absl::Status status;
      switch (step.op) {
        case Op::kAssume:
          status = cache.AssumePod(step.pod);
          break;
        case Op::kFinishBinding:
          status = cache.FinishBinding(*step.pod);
          break;
        case Op::kForget:
          status = cache.ForgetPod(*step.pod);
          break;
        case Op::kAdd:
          status = cache.AddPod(step.pod);
          break;
        case Op::kUpdate:
          status = cache.UpdatePod(*step.old_pod, step.pod);
          break;
        case Op::kRemove:
          status = cache.RemovePod(*step.pod);
          break;
      }
      EXPECT_THAT(status, StatusIs(step.want));
      if (step.want != kOk) ++want_invalid;
    }
    EXPECT_EQ(cache.InvalidOperationsForTest(), want_invalid);
    EXPECT_EQ(cache.IsAssumedPod(*on_n1), tc.want_assumed);
    Snapshot snapshot;
    ASSERT_THAT(cache.UpdateSnapshot(snapshot), IsOk());
    const NodeInfo* n1 = *snapshot.Get("n1");
    const NodeInfo* n2 = *snapshot.Get("n2");
    if (tc.want_node.empty()) {
      EXPECT_THAT(cache.GetPod(*on_n1), StatusIs(kNotFound));
      EXPECT_EQ(cache.PodCount(), 0);
      EXPECT_THAT(n1->pods(), IsEmpty());
      EXPECT_THAT(n2->pods(), IsEmpty());
      EXPECT_EQ(n1->requested().milli_cpu + n2->requested().milli_cpu, 0);
    } else {
      TRIMARAN_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const kube::Pod> got, cache.GetPod(*on_n1));
      EXPECT_EQ(got->spec.node_name, tc.want_node);
      EXPECT_EQ(cache.PodCount(), 1);
      const NodeInfo* on = tc.want_node == "n1" ? n1 : n2;
      const NodeInfo* off = tc.want_node == "n1" ? n2 : n1;
      EXPECT_EQ(on->pods().size(), 1u);
      EXPECT_EQ(on->requested().milli_cpu, 1000);  // the pod's 1 cpu
      EXPECT_THAT(off->pods(), IsEmpty());
      EXPECT_EQ(off->requested().milli_cpu, 0);
    }
  }
}

TEST_F(CacheTest, InvalidOperationsAreCountedByOperation) {
  AddNodes({"n1"});
  const auto p = Pod("p", "n1");
  EXPECT_THAT(cache_.ForgetPod(*p), StatusIs(absl::StatusCode::kNotFound, HasSubstr("default/p")));
  EXPECT_THAT(cache_.RemovePod(*p), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(cache_.RemovePod(*p), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(InvalidOps("ForgetPod"), 1);
  EXPECT_EQ(InvalidOps("RemovePod"), 2);
  EXPECT_EQ(InvalidOps("AddPod"), 0);
  EXPECT_EQ(cache_.InvalidOperationsForTest(), 3);
}

// ---- Accounting ----

TEST_F(CacheTest, AccountingAfterAssumeForgetAndAddOnAnotherNode) {
  AddNodes({"n1", "n2"});
  // 1 cpu, 1Gi, host port 8080: accounted on n1 as soon as it is assumed.
  const auto assumed = std::make_shared<const kube::Pod>(MakePod()
                                                             .Name("p")
                                                             .Namespace("default")
                                                             .UID("uid-p")
                                                             .NodeName("n1")
                                                             .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                                                             .HostPort(8080)
                                                             .Obj());
  ASSERT_THAT(cache_.AssumePod(assumed), IsOk());
  EXPECT_EQ(Snap("n1").requested().milli_cpu, 1000);
  EXPECT_EQ(Snap("n1").requested().memory, 1LL << 30);
  EXPECT_EQ(Snap("n1").non_zero_requested().milli_cpu, 1000);
  EXPECT_EQ(Snap("n1").used_ports().size(), 1u);

  // Forget frees everything.
  ASSERT_THAT(cache_.ForgetPod(*assumed), IsOk());
  EXPECT_TRUE(Snap("n1").requested().IsZero());
  EXPECT_EQ(Snap("n1").non_zero_requested().milli_cpu, 0);
  EXPECT_TRUE(Snap("n1").used_ports().empty());

  // Assume on n1 again; the informer says it is bound to n2: n1 is freed, n2 holds it.
  ASSERT_THAT(cache_.AssumePod(assumed), IsOk());
  kube::Pod bound = *assumed;
  bound.spec.node_name = "n2";
  const auto bound_ptr = std::make_shared<const kube::Pod>(std::move(bound));
  ASSERT_THAT(cache_.AddPod(bound_ptr), IsOk());
  EXPECT_TRUE(Snap("n1").requested().IsZero());
  EXPECT_TRUE(Snap("n1").used_ports().empty());
  EXPECT_EQ(Snap("n2").requested().milli_cpu, 1000);
  EXPECT_EQ(Snap("n2").used_ports().size(), 1u);
  // The informer's copy replaced the assumed one.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const kube::Pod> got, cache_.GetPod(*assumed));
  EXPECT_EQ(got, bound_ptr);
  EXPECT_EQ(Snap("n2").pods()[0].pod, bound_ptr);  // shared, not copied
}

TEST_F(CacheTest, UpdatePodReplacesRequests) {
  AddNodes({"n1"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1", "1")), IsOk());
  ASSERT_THAT(cache_.AddPod(Pod("b", "n1", "500m")), IsOk());
  EXPECT_EQ(Snap("n1").requested().milli_cpu, 1500);  // 1000 + 500
  ASSERT_THAT(cache_.UpdatePod(*Pod("a", "n1", "1"), Pod("a", "n1", "2")), IsOk());
  EXPECT_EQ(Snap("n1").requested().milli_cpu, 2500);  // 2000 + 500
  EXPECT_EQ(Snap("n1").pods().size(), 2u);
}

// ---- Expiry ----

struct ExpiryCase {
  std::string name;
  absl::Duration ttl;
  bool finish_binding;
  bool add_after_binding;
  absl::Duration advance;  // from FinishBinding to CleanupAssumedPods
  int want_expired;
};

TEST(CacheExpiryTest, CleanupAssumedPods) {
  const std::vector<ExpiryCase> cases = {
      {"ttl 10s, cleanup 5s after binding: kept", absl::Seconds(10), true, false, absl::Seconds(5),
       0},
      {"ttl 10s, cleanup exactly at the deadline: kept (expires strictly after)", absl::Seconds(10),
       true, false, absl::Seconds(10), 0},
      {"ttl 10s, cleanup 11s after binding: expired", absl::Seconds(10), true, false,
       absl::Seconds(11), 1},
      {"ttl 10s, binding not finished: never expires", absl::Seconds(10), false, false,
       absl::Hours(1), 0},
      {"ttl 10s, confirmed by the informer: not assumed any more", absl::Seconds(10), true, true,
       absl::Hours(1), 0},
      {"ttl 0 (default): never expires", absl::ZeroDuration(), true, false, absl::Hours(24), 0},
  };
  for (const ExpiryCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    FakeClock clock;
    stats::Registry registry;
    CacheImpl cache(clock, DaemonScopes(registry), {.assumed_pod_ttl = tc.ttl});
    ASSERT_THAT(cache.AddNode(Node("n1")), IsOk());
    const auto pod = Pod("p", "n1");
    ASSERT_THAT(cache.AssumePod(pod), IsOk());
    clock.Advance(absl::Seconds(3));  // binding takes a while; the TTL starts after it
    if (tc.finish_binding) {
      ASSERT_THAT(cache.FinishBinding(*pod), IsOk());
    }
    if (tc.add_after_binding) {
      ASSERT_THAT(cache.AddPod(pod), IsOk());
    }
    clock.Advance(tc.advance);
    EXPECT_EQ(cache.CleanupAssumedPods(clock.Now()), tc.want_expired);
    Snapshot snapshot;
    ASSERT_THAT(cache.UpdateSnapshot(snapshot), IsOk());
    const NodeInfo* n1 = *snapshot.Get("n1");
    if (tc.want_expired == 1) {
      EXPECT_FALSE(cache.IsAssumedPod(*pod));
      EXPECT_EQ(cache.PodCount(), 0);
      EXPECT_TRUE(n1->requested().IsZero());
      // The informer's Add, arriving late, simply adds it back.
      EXPECT_THAT(cache.AddPod(pod), IsOk());
      EXPECT_EQ(cache.PodCount(), 1);
    } else {
      EXPECT_EQ(cache.PodCount(), 1);
      EXPECT_EQ(n1->requested().milli_cpu, 1000);
    }
  }
}

// ---- Incremental snapshot ----

TEST_F(CacheTest, UpdateSnapshotCopiesOnlyChangedNodes) {
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back(absl::StrCat("n", i));
  AddNodes(names);

  struct Change {
    std::string name;
    std::function<void()> mutate;
    int64_t want_copied;
    bool want_rebuilt;
    size_t want_nodes;
  };
  const std::vector<Change> changes = {
      {"first update copies all", [] {}, 10, true, 10},
      {"no change copies none", [] {}, 0, false, 10},
      {"one pod added", [&] { ASSERT_THAT(cache_.AddPod(Pod("a", "n3")), IsOk()); }, 1, false, 10},
      {"two pods assumed on two nodes",
       [&] {
         ASSERT_THAT(cache_.AssumePod(Pod("b", "n4")), IsOk());
         ASSERT_THAT(cache_.AssumePod(Pod("c", "n5")), IsOk());
       },
       2, false, 10},
      {"two changes to one node copy it once",
       [&] {
         ASSERT_THAT(cache_.ForgetPod(*Pod("b", "n4")), IsOk());
         ASSERT_THAT(cache_.AddPod(Pod("d", "n4")), IsOk());
       },
       1, false, 10},
      {"node object updated", [&] { ASSERT_THAT(cache_.UpdateNode(Node("n6")), IsOk()); }, 1, false,
       10},
      {"node added", [&] { ASSERT_THAT(cache_.AddNode(Node("n10")), IsOk()); }, 1, true, 11},
      {"node without pods removed", [&] { ASSERT_THAT(cache_.RemoveNode(*Node("n2")), IsOk()); }, 0,
       true, 10},
      {"pod for an unknown node: placeholder, not copied",
       [&] { ASSERT_THAT(cache_.AddPod(Pod("e", "ghost")), IsOk()); }, 0, false, 10},
  };
  for (const Change& c : changes) {
    SCOPED_TRACE(c.name);
    c.mutate();
    ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
    EXPECT_EQ(snapshot_.LastUpdateCopiedNodesForTest(), c.want_copied);
    EXPECT_EQ(snapshot_.LastUpdateRebuiltListForTest(), c.want_rebuilt);
    EXPECT_EQ(snapshot_.NumNodes(), c.want_nodes);
    EXPECT_EQ(snapshot_.List().size(), c.want_nodes);
    // Every snapshot NodeInfo has its cache NodeInfo's generation and pods.
    const CacheDump dump = cache_.Dump();
    for (size_t i = 0; i < dump.nodes.size(); ++i) {
      if (dump.nodes[i].node() == nullptr) {
        EXPECT_THAT(snapshot_.Get(dump.node_names[i]), StatusIs(absl::StatusCode::kNotFound));
        continue;
      }
      TRIMARAN_ASSERT_OK_AND_ASSIGN(const NodeInfo* info, snapshot_.Get(dump.node_names[i]));
      EXPECT_EQ(info->generation(), dump.nodes[i].generation()) << dump.node_names[i];
      EXPECT_EQ(info->pods().size(), dump.nodes[i].pods().size()) << dump.node_names[i];
      EXPECT_EQ(info->requested(), dump.nodes[i].requested()) << dump.node_names[i];
    }
  }
  EXPECT_THAT(snapshot_.Get("n2"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("n2")));
}

TEST_F(CacheTest, SnapshotKeepsTheNodesWithAffinityPodsIncrementally) {
  AddNodes({"n0", "n1", "n2"});
  auto names = [](std::span<const NodeInfo* const> list) {
    std::vector<std::string> out;
    for (const NodeInfo* n : list) out.push_back(n->name());
    return out;
  };
  const kube::LabelSelector db = kube::testing::MakeLabelSelector().Label("app", "db").Obj();
  auto anti = std::make_shared<const kube::Pod>(MakePod()
                                                    .Name("anti")
                                                    .Namespace("default")
                                                    .UID("u-anti")
                                                    .NodeName("n1")
                                                    .PodAntiAffinity("zone", db)
                                                    .Obj());
  auto soft = std::make_shared<const kube::Pod>(MakePod()
                                                    .Name("soft")
                                                    .Namespace("default")
                                                    .UID("u-soft")
                                                    .NodeName("n2")
                                                    .PreferredPodAffinity(1, "zone", db)
                                                    .Obj());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_THAT(snapshot_.HavePodsWithAffinityList(), IsEmpty());
  ASSERT_THAT(cache_.AddPod(anti), IsOk());
  ASSERT_THAT(cache_.AddPod(soft), IsOk());
  ASSERT_THAT(cache_.AddPod(Pod("plain", "n0")), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_FALSE(snapshot_.LastUpdateRebuiltListForTest());  // no node added or removed
  EXPECT_THAT(names(snapshot_.HavePodsWithAffinityList()), ElementsAre("n1", "n2"));
  EXPECT_THAT(names(snapshot_.HavePodsWithRequiredAntiAffinityList()), ElementsAre("n1"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const NodeInfo* n1, snapshot_.Get("n1"));
  ASSERT_EQ(n1->pods_with_required_anti_affinity().size(), 1u);
  EXPECT_EQ(n1->pods_with_required_anti_affinity()[0].pod->metadata.name, "anti");
  ASSERT_THAT(cache_.RemovePod(*anti), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_THAT(names(snapshot_.HavePodsWithAffinityList()), ElementsAre("n2"));
  EXPECT_THAT(snapshot_.HavePodsWithRequiredAntiAffinityList(), IsEmpty());
}

TEST_F(CacheTest, SnapshotIsNotMutatedByTheCache) {
  AddNodes({"n1"});
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  const NodeInfo* before = *snapshot_.Get("n1");
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1")), IsOk());
  EXPECT_THAT(before->pods(), IsEmpty());  // until the next UpdateSnapshot
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_EQ((*snapshot_.Get("n1"))->pods().size(), 1u);
}

TEST_F(CacheTest, FreshSnapshotsOfOneCacheAgree) {
  AddNodes({"n1", "n2"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n2")), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  Snapshot other;
  ASSERT_THAT(cache_.UpdateSnapshot(other), IsOk());
  EXPECT_EQ(other.LastUpdateCopiedNodesForTest(), 2);
  EXPECT_EQ(Names(other), Names(snapshot_));
  EXPECT_EQ(other.generation(), snapshot_.generation());
}

// ---- Image states (ImageLocality) ----

constexpr int64_t kMiB = 1024 * 1024;

// A node reporting `images` (name -> size in MiB; one image per name).
std::shared_ptr<const kube::Node> ImageNode(const std::string& name,
                                            const std::map<std::string, int64_t>& images) {
  auto w = MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}});
  for (const auto& [image, mib] : images) w.Image(image, mib * kMiB);
  return std::make_shared<const kube::Node>(std::move(w).Obj());
}

// Every image name `snapshot`'s nodes report -> how many nodes report it, checked against
// the sizes each snapshot NodeInfo's node reports.
std::map<std::string, int> ImageCounts(const Snapshot& snapshot) {
  std::map<std::string, int> counts;
  for (const NodeInfo* info : snapshot.List()) {
    for (const kube::ContainerImage& image : info->node()->status.images) {
      for (const std::string& name : image.names) {
        const ImageIndex::Entry* entry = snapshot.Images().Find(name);
        EXPECT_NE(entry, nullptr) << name;
        if (entry == nullptr) continue;
        EXPECT_EQ(entry->SizeOn(info), image.size_bytes) << name << " on " << info->name();
        counts[name] = entry->num_nodes();
      }
    }
  }
  EXPECT_EQ(snapshot.Images().size(), counts.size());
  return counts;
}

// upstream cache_test.go TestNodeOperators (its image states) and snapshot_test.go
// TestCreateImageExistenceMap, through add, update and remove: the incremental
// snapshot's counts always equal a fresh snapshot's.
TEST_F(CacheTest, SnapshotImageStatesFollowNodeOperations) {
  const std::map<std::string, int64_t> status1 = {{"gcr.io/80:latest", 80},
                                                  {"gcr.io/80:v1", 80},
                                                  {"gcr.io/300:latest", 300},
                                                  {"gcr.io/300:v1", 300}};
  const std::map<std::string, int64_t> status2 = {
      {"gcr.io/600:latest", 600}, {"gcr.io/80:latest", 80}, {"gcr.io/900:latest", 900}};
  using Counts = std::map<std::string, int>;
  struct Change {
    std::string name;
    std::function<void()> mutate;
    Counts want;
  };
  const std::vector<Change> changes = {
      {"four nodes added",
       [&] {
         ASSERT_THAT(cache_.AddNode(ImageNode("test-node-1", status1)), IsOk());
         ASSERT_THAT(cache_.AddNode(ImageNode("test-node-2", status2)), IsOk());
         ASSERT_THAT(cache_.AddNode(ImageNode("test-node-3", status1)), IsOk());
         ASSERT_THAT(cache_.AddNode(ImageNode("test-node-4", status2)), IsOk());
       },
       {{"gcr.io/300:latest", 2},
        {"gcr.io/300:v1", 2},
        {"gcr.io/600:latest", 2},
        {"gcr.io/80:latest", 4},
        {"gcr.io/80:v1", 2},
        {"gcr.io/900:latest", 2}}},
      {"a pod added: images unchanged",
       [&] { ASSERT_THAT(cache_.AddPod(Pod("a", "test-node-1")), IsOk()); },
       {{"gcr.io/300:latest", 2},
        {"gcr.io/300:v1", 2},
        {"gcr.io/600:latest", 2},
        {"gcr.io/80:latest", 4},
        {"gcr.io/80:v1", 2},
        {"gcr.io/900:latest", 2}}},
      {"node updated to the other images",
       [&] { ASSERT_THAT(cache_.UpdateNode(ImageNode("test-node-1", status2)), IsOk()); },
       {{"gcr.io/300:latest", 1},
        {"gcr.io/300:v1", 1},
        {"gcr.io/600:latest", 3},
        {"gcr.io/80:latest", 4},
        {"gcr.io/80:v1", 1},
        {"gcr.io/900:latest", 3}}},
      {"node without pods removed: its only images go",
       [&] { ASSERT_THAT(cache_.RemoveNode(*ImageNode("test-node-3", {})), IsOk()); },
       {{"gcr.io/600:latest", 3}, {"gcr.io/80:latest", 3}, {"gcr.io/900:latest", 3}}},
      {"node with a pod removed (a placeholder): its images go",
       [&] { ASSERT_THAT(cache_.RemoveNode(*ImageNode("test-node-1", {})), IsOk()); },
       {{"gcr.io/600:latest", 2}, {"gcr.io/80:latest", 2}, {"gcr.io/900:latest", 2}}},
      {"the removed node comes back with new images",
       [&] {
         ASSERT_THAT(cache_.AddNode(ImageNode("test-node-1", {{"gcr.io/big:latest", 2000}})),
                     IsOk());
       },
       {{"gcr.io/600:latest", 2},
        {"gcr.io/80:latest", 2},
        {"gcr.io/900:latest", 2},
        {"gcr.io/big:latest", 1}}},
      {"node status updated without image changes",
       [&] { ASSERT_THAT(cache_.UpdateNode(ImageNode("test-node-2", status2)), IsOk()); },
       {{"gcr.io/600:latest", 2},
        {"gcr.io/80:latest", 2},
        {"gcr.io/900:latest", 2},
        {"gcr.io/big:latest", 1}}},
  };
  for (const Change& c : changes) {
    SCOPED_TRACE(c.name);
    c.mutate();
    ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
    EXPECT_EQ(ImageCounts(snapshot_), c.want);
    Snapshot fresh;
    ASSERT_THAT(cache_.UpdateSnapshot(fresh), IsOk());
    EXPECT_EQ(ImageCounts(fresh), c.want);
  }
}

// ---- Nodes ----

TEST_F(CacheTest, RemovedNodeWithPodsStaysAsPlaceholderUntilItsPodsGo) {
  AddNodes({"n1", "n2"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1")), IsOk());
  ASSERT_THAT(cache_.AssumePod(Pod("b", "n1")), IsOk());

  ASSERT_THAT(cache_.RemoveNode(*Node("n1")), IsOk());
  EXPECT_EQ(cache_.NodeCount(), 2);  // n2 and n1's placeholder
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_THAT(Names(snapshot_), ElementsAre("n2"));
  EXPECT_THAT(snapshot_.Get("n1"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(cache_.RemoveNode(*Node("n1")), StatusIs(absl::StatusCode::kNotFound));

  const CacheDump dump = cache_.Dump();
  ASSERT_THAT(dump.node_names, ElementsAre("n1", "n2"));
  EXPECT_EQ(dump.nodes[0].node(), nullptr);
  EXPECT_EQ(dump.nodes[0].pods().size(), 2u);
  EXPECT_EQ(dump.nodes[0].requested().milli_cpu, 2000);  // a + b, 1 cpu each
  EXPECT_THAT(dump.DebugString(), HasSubstr("n1 (placeholder)"));

  ASSERT_THAT(cache_.RemovePod(*Pod("a", "n1")), IsOk());
  EXPECT_EQ(cache_.NodeCount(), 2);
  ASSERT_THAT(cache_.ForgetPod(*Pod("b", "n1")), IsOk());
  EXPECT_EQ(cache_.NodeCount(), 1);  // the placeholder went with its last pod
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_THAT(Names(snapshot_), ElementsAre("n2"));
}

TEST_F(CacheTest, NodeComingBackKeepsItsPods) {
  AddNodes({"n1"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1")), IsOk());
  ASSERT_THAT(cache_.RemoveNode(*Node("n1")), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_EQ(snapshot_.NumNodes(), 0u);
  ASSERT_THAT(cache_.AddNode(Node("n1")), IsOk());
  EXPECT_EQ(Snap("n1").pods().size(), 1u);
  EXPECT_EQ(Snap("n1").requested().milli_cpu, 1000);
  EXPECT_EQ(Snap("n1").allocatable().milli_cpu, 4000);
}

TEST_F(CacheTest, PodBeforeItsNode) {
  ASSERT_THAT(cache_.AddPod(Pod("a", "n9")), IsOk());
  EXPECT_EQ(cache_.NodeCount(), 1);
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_EQ(snapshot_.NumNodes(), 0u);
  ASSERT_THAT(cache_.AddNode(Node("n9")), IsOk());
  EXPECT_EQ(Snap("n9").pods().size(), 1u);
  EXPECT_EQ(snapshot_.NumNodes(), 1u);
}

TEST_F(CacheTest, InvalidNodeOperations) {
  EXPECT_THAT(cache_.AddNode(nullptr), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(cache_.UpdateNode(std::make_shared<const kube::Node>()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(cache_.RemoveNode(*Node("nope")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"nope\"")));
  EXPECT_EQ(cache_.InvalidOperationsForTest(), 3);
  // AddNode of a known node and UpdateNode of an unknown one both just set it.
  EXPECT_THAT(cache_.AddNode(Node("n1")), IsOk());
  EXPECT_THAT(cache_.AddNode(Node("n1")), IsOk());
  EXPECT_THAT(cache_.UpdateNode(Node("n2")), IsOk());
  EXPECT_EQ(cache_.NodeCount(), 2);
}

// ---- Snapshot order, List and Get ----

TEST_F(CacheTest, SnapshotListIsZoneInterleaved) {
  for (const auto& [name, zone] : std::vector<std::pair<std::string, std::string>>{
           {"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"c1", "c"}, {"b2", "b"}, {"x", ""}}) {
    ASSERT_THAT(cache_.AddNode(Node(name, zone)), IsOk());
  }
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  // Zones in order of first node: a, b, c, "". Round 0: a1 b1 c1 x; round 1: a2 b2.
  EXPECT_THAT(Names(snapshot_), ElementsAre("a1", "b1", "c1", "x", "a2", "b2"));

  ASSERT_THAT(cache_.RemoveNode(*Node("b1", "b")), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  // b = [b2]: round 0: a1 b2 c1 x; round 1: a2.
  EXPECT_THAT(Names(snapshot_), ElementsAre("a1", "b2", "c1", "x", "a2"));

  // a1 moves to zone b (appended there): a = [a2], b = [b2, a1].
  ASSERT_THAT(cache_.UpdateNode(Node("a1", "b")), IsOk());
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  EXPECT_TRUE(snapshot_.LastUpdateRebuiltListForTest());
  EXPECT_THAT(Names(snapshot_), ElementsAre("a2", "b2", "c1", "x", "a1"));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(const NodeInfo* c1, snapshot_.Get("c1"));
  EXPECT_EQ(c1->name(), "c1");
  EXPECT_EQ(c1, snapshot_.List()[2]);
  EXPECT_THAT(snapshot_.Get("b1"), StatusIs(absl::StatusCode::kNotFound,
                                            HasSubstr("nodeinfo not found for node name \"b1\"")));
  const SharedLister& lister = snapshot_;
  EXPECT_EQ(lister.NodeInfos().List().size(), 5u);
}

// ---- Stats and dump ----

TEST_F(CacheTest, CacheSizeGauges) {
  AddNodes({"n1", "n2"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1")), IsOk());
  ASSERT_THAT(cache_.AssumePod(Pod("b", "n2")), IsOk());
  ASSERT_THAT(cache_.AssumePod(Pod("c", "n2")), IsOk());
  EXPECT_EQ(CacheSize("nodes"), 2);
  EXPECT_EQ(CacheSize("pods"), 3);
  EXPECT_EQ(CacheSize("assumed_pods"), 2);
  ASSERT_THAT(cache_.AddPod(Pod("b", "n2")), IsOk());  // confirms b
  ASSERT_THAT(cache_.ForgetPod(*Pod("c", "n2")), IsOk());
  ASSERT_THAT(cache_.RemoveNode(*Node("n1")), IsOk());  // placeholder: still counted
  EXPECT_EQ(CacheSize("nodes"), 2);
  EXPECT_EQ(CacheSize("pods"), 2);
  EXPECT_EQ(CacheSize("assumed_pods"), 0);
  EXPECT_EQ(cache_.PodCount(), 2);
  EXPECT_THAT(registry_.PrometheusText(), HasSubstr("scheduler_cache_size{"));
}

TEST_F(CacheTest, Dump) {
  AddNodes({"n2", "n1"});
  ASSERT_THAT(cache_.AddPod(Pod("a", "n1")), IsOk());
  ASSERT_THAT(cache_.AssumePod(Pod("z", "n2")), IsOk());
  ASSERT_THAT(cache_.AssumePod(Pod("b", "n2")), IsOk());
  const CacheDump dump = cache_.Dump();
  EXPECT_THAT(dump.node_names, ElementsAre("n1", "n2"));
  EXPECT_THAT(dump.assumed_pods, ElementsAre("default/b", "default/z"));
  const std::string text = dump.DebugString();
  EXPECT_THAT(text, HasSubstr("node n1: node=n1"));
  EXPECT_THAT(text, HasSubstr("pod default/a"));
  EXPECT_THAT(text, HasSubstr("assumed pods: 2"));
}

// ---- Concurrency (meaningful under TSan) ----

TEST_F(CacheTest, ConcurrentInformerAndSnapshot) {
  constexpr int kNodes = 8;
  constexpr int kThreads = 4;
  constexpr int kPodsPerThread = 200;
  std::vector<std::string> names;
  for (int i = 0; i < kNodes; ++i) names.push_back(absl::StrCat("n", i));
  AddNodes(names);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPodsPerThread; ++i) {
        const auto pod = Pod(absl::StrCat("p", t, "-", i), absl::StrCat("n", i % kNodes));
        EXPECT_THAT(cache_.AssumePod(pod), IsOk());
        EXPECT_THAT(cache_.FinishBinding(*pod), IsOk());
        if (i % 2 == 0) {
          EXPECT_THAT(cache_.AddPod(pod), IsOk());
        } else {
          EXPECT_THAT(cache_.ForgetPod(*pod), IsOk());
        }
      }
    });
  }
  for (int i = 0; i < 200; ++i) EXPECT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  for (std::thread& t : threads) t.join();
  ASSERT_THAT(cache_.UpdateSnapshot(snapshot_), IsOk());
  // Half of each thread's pods stay: 4 × 100 pods of 1 cpu.
  int64_t pods = 0;
  int64_t milli_cpu = 0;
  for (const NodeInfo* info : snapshot_.List()) {
    pods += static_cast<int64_t>(info->pods().size());
    milli_cpu += info->requested().milli_cpu;
  }
  EXPECT_EQ(pods, kThreads * kPodsPerThread / 2);
  EXPECT_EQ(milli_cpu, 1000 * kThreads * kPodsPerThread / 2);
  EXPECT_EQ(cache_.PodCount(), kThreads * kPodsPerThread / 2);
}

}  // namespace
}  // namespace trimaran::sched
