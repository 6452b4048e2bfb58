#include "scheduler/plugins/node_volume_limits/node_volume_limits.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/storage_wrappers.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeClaim;
using kube::testing::MakeCsiNode;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::MakePv;
using kube::testing::MakeStorageClass;
using kube::testing::WithClaims;
using ::trimaran::sched::testing::FakeHandle;

constexpr char kEbs[] = "ebs.csi.aws.com";
constexpr char kGce[] = "pd.csi.storage.gke.io";

kube::Pod PodWith(const std::string& name, std::initializer_list<std::string> claims) {
  return WithClaims(MakePod().Name(name).Namespace("test").UID(name).Obj(), claims);
}

// TestCSILimits (spec §7.1): claims csi-ebs-<i> bound to CSI PVs of the EBS driver,
// gce-<i> of the GCE PD driver, "unbound-ebs" of an EBS class, "missing-pv" naming a PV
// that does not exist (EBS class), inline "in-tree-<i>" claims bound to in-tree EBS PVs.
class NodeVolumeLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& s = handle_.storage();
    s.Apply(MakeStorageClass("ebs-sc", kEbs));
    s.Apply(MakeStorageClass("gce-sc", kGce));
    for (int i = 0; i < 6; ++i) {
      const std::string n = std::to_string(i);
      s.Apply(MakePv("pv-ebs-" + n).Csi(kEbs, "vol-" + n).Obj());
      s.Apply(MakeClaim("test", "csi-ebs-" + n).Class("ebs-sc").BoundTo("pv-ebs-" + n).Obj());
      s.Apply(MakePv("pv-gce-" + n).Csi(kGce, "disk-" + n).Obj());
      s.Apply(MakeClaim("test", "gce-" + n).Class("gce-sc").BoundTo("pv-gce-" + n).Obj());
      s.Apply(MakePv("pv-in-tree-" + n).Ebs("vol-it-" + n).Obj());
      s.Apply(MakeClaim("test", "in-tree-" + n).BoundTo("pv-in-tree-" + n).Obj());
    }
    s.Apply(MakeClaim("test", "unbound-ebs").Class("ebs-sc").Obj());
    s.Apply(MakeClaim("test", "missing-pv").Class("ebs-sc").BoundTo("pv-gone").Obj());
  }

  Status Run(const kube::Pod& pod, const std::vector<kube::Pod>& existing,
             std::vector<std::pair<std::string, int32_t>> limits) {
    handle_.storage().Apply(MakeCsiNode("node-1", std::move(limits)));
    NodeInfo node_info(std::make_shared<const kube::Node>(MakeNode().Name("node-1").Obj()));
    for (const kube::Pod& p : existing) node_info.AddPod(std::make_shared<const kube::Pod>(p));
    NodeVolumeLimits plugin(handle_);
    CycleState state;
    PreFilterResult result;
    const NodeInfo* nodes[] = {&node_info};
    Status pre = plugin.PreFilter(state, pod, nodes, result);
    if (!pre.IsSuccess()) return pre;
    return plugin.Filter(state, pod, node_info);
  }

  FakeHandle handle_;
};

TEST_F(NodeVolumeLimitsTest, CsiLimitsTable) {
  const kube::Pod one = PodWith("one", {"csi-ebs-0"});
  const kube::Pod two = PodWith("two", {"csi-ebs-1", "csi-ebs-2"});
  const kube::Pod one_other = PodWith("one-other", {"csi-ebs-3"});
  struct Case {
    std::string name;
    kube::Pod pod;
    std::vector<kube::Pod> existing;
    std::vector<std::pair<std::string, int32_t>> limits;
    Code want;
  };
  const Case cases[] = {
      {"fits under 4", one_other, {one, two}, {{kEbs, 4}}, Code::kSuccess},
      {"exceeds 2", one_other, {one, two}, {{kEbs, 2}}, Code::kUnschedulable},
      {"pending claim counts",
       one_other,
       {PodWith("pending", {"unbound-ebs"}), two},
       {{kEbs, 2}},
       Code::kUnschedulable},
      {"shared unbound claim counts once",
       one_other,
       {PodWith("a", {"unbound-ebs"}), PodWith("b", {"unbound-ebs"}), two},
       {{kEbs, 4}},
       Code::kSuccess},
      {"claim of a missing PV counts by its class",
       one_other,
       {PodWith("m", {"missing-pv"}), two},
       {{kEbs, 2}},
       Code::kUnschedulable},
      {"other driver has its own limit",
       PodWith("gce", {"gce-0", "gce-1"}),
       {two, one},
       {{kEbs, 2}, {kGce, 2}},
       Code::kSuccess},
      {"migrated in-tree EBS counts against the EBS driver",
       PodWith("it", {"in-tree-0"}),
       {PodWith("it2", {"in-tree-1", "in-tree-2"})},
       {{kEbs, 2}},
       Code::kUnschedulable},
      {"a volume already attached is free",
       PodWith("again", {"csi-ebs-1"}),
       {two},
       {{kEbs, 2}},
       Code::kSuccess},
      {"no limit for the driver", one_other, {one, two}, {{kGce, 1}}, Code::kSuccess},
      {"no volumes: PreFilter skips",
       MakePod().Name("none").Obj(),
       {two},
       {{kEbs, 0}},
       Code::kSkip},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Status got = Run(c.pod, c.existing, c.limits);
    EXPECT_EQ(got.code(), c.want) << got;
    if (c.want == Code::kUnschedulable) {
      EXPECT_THAT(got.reasons(), ::testing::ElementsAre("node(s) exceed max volume count"));
    }
  }
}

TEST_F(NodeVolumeLimitsTest, MissingClaimsAndLegacyAllocatable) {
  kube::Pod eph = MakePod().Name("abc").Namespace("test").UID("abc").Obj();
  kube::Volume v;
  v.name = "xyz";
  v.ephemeral = true;
  eph.spec.volumes.push_back(v);
  Status got = Run(eph, {}, {{kEbs, 4}});
  EXPECT_EQ(got.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(got.reasons(),
              ::testing::ElementsAre(
                  "looking up PVC test/abc-xyz: persistentvolumeclaims \"abc-xyz\" not found"));

  // The ephemeral claim exists but belongs to someone else.
  kube::PersistentVolumeClaim foreign = MakeClaim("test", "abc-xyz").Class("ebs-sc").Obj();
  handle_.storage().Apply(foreign);
  EXPECT_EQ(Run(eph, {}, {{kEbs, 4}}).code(), Code::kError);
  // Owned by the pod: counted as an unbound claim of the EBS class.
  foreign.metadata.owner_references.push_back(
      kube::OwnerReference{.kind = "Pod", .name = "abc", .uid = "abc", .controller = true});
  handle_.storage().Apply(foreign);
  EXPECT_EQ(Run(eph, {PodWith("two", {"csi-ebs-1", "csi-ebs-2"})}, {{kEbs, 2}}).code(),
            Code::kUnschedulable);

  // A missing claim of a pod already on the node is skipped.
  EXPECT_EQ(Run(PodWith("p", {"csi-ebs-0"}), {PodWith("old", {"gone"})}, {{kEbs, 1}}).code(),
            Code::kSuccess);

  // Legacy node allocatable limits apply when the CSINode sets no count.
  NodeVolumeLimits plugin(handle_);
  handle_.storage().Apply(MakeCsiNode("node-2", {{kEbs, -1}}));
  kube::Node node = MakeNode().Name("node-2").Obj();
  node.status.allocatable["attachable-volumes-csi-ebs.csi.aws.com"] =
      kube::Quantity::Parse("1").value();
  NodeInfo node_info(std::make_shared<const kube::Node>(node));
  node_info.AddPod(std::make_shared<const kube::Pod>(PodWith("old", {"csi-ebs-0"})));
  CycleState state;
  PreFilterResult result;
  const kube::Pod pod = PodWith("new", {"csi-ebs-1"});
  ASSERT_TRUE(plugin.PreFilter(state, pod, {}, result).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, pod, node_info).code(), Code::kUnschedulable);
}

// Upstream's hint (spec §7.1): only the delete of a scheduled pod with counted volumes.
TEST(NodeVolumeLimitsHintTest, AssignedPodDelete) {
  FakeHandle handle;
  NodeVolumeLimits plugin(handle);
  const kube::Pod x = PodWith("x", {"a"});
  const auto deleted = [&](const kube::Pod& p) {
    return *plugin.Hint(x, kAssignedPodDeleteEvent, EventObjects{.old_pod = &p});
  };
  kube::Pod scheduled = PodWith("s", {"b"});
  scheduled.spec.node_name = "n1";
  EXPECT_EQ(deleted(scheduled), QueueingHint::kQueue);
  EXPECT_EQ(deleted(PodWith("unscheduled", {"b"})), QueueingHint::kQueueSkip);
  kube::Pod no_volumes = MakePod().Name("nv").Namespace("test").NodeName("n1").Obj();
  EXPECT_EQ(deleted(no_volumes), QueueingHint::kQueueSkip);
  EXPECT_EQ(
      *plugin.Hint(x, ClusterEvent{EventResource::kCSINode, ActionType::kAdd, "CSINodeAdd"}, {}),
      QueueingHint::kQueue);
}

}  // namespace
}  // namespace trimaran::sched::plugins
