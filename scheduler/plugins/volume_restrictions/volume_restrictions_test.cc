#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"

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
using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::WithClaims;
using kube::testing::WithVolume;
using ::trimaran::sched::testing::FakeHandle;

kube::Volume Gce(std::string pd, bool ro) {
  kube::Volume v;
  v.name = "gce";
  v.gce_persistent_disk = kube::GCEPersistentDiskVolumeSource{.pd_name = pd, .read_only = ro};
  return v;
}
kube::Volume Ebs(std::string id, bool ro) {
  kube::Volume v;
  v.name = "ebs";
  v.aws_elastic_block_store =
      kube::AWSElasticBlockStoreVolumeSource{.volume_id = id, .read_only = ro};
  return v;
}
kube::Volume Rbd(std::vector<std::string> mons, std::string pool, std::string image, bool ro) {
  kube::Volume v;
  v.name = "rbd";
  v.rbd = kube::RBDVolumeSource{.monitors = std::move(mons),
                                .image = std::move(image),
                                .pool = std::move(pool),
                                .read_only = ro};
  return v;
}
kube::Volume Iscsi(std::string iqn, bool ro) {
  kube::Volume v;
  v.name = "iscsi";
  v.iscsi = kube::ISCSIVolumeSource{.target_portal = "127.0.0.1:3260", .iqn = iqn, .read_only = ro};
  return v;
}

kube::Pod PodUsing(const std::string& name, kube::Volume v) {
  return WithVolume(MakePod().Name(name).Namespace("ns").UID(name).Obj(), std::move(v));
}

// Disk conflicts (spec §5.3; upstream TestGCE/AWS/RBD/ISCSIDiskConflicts).
TEST(VolumeRestrictionsTest, DiskConflicts) {
  struct Case {
    std::string name;
    kube::Volume existing;
    kube::Volume wanted;
    Code want;
  };
  const Case cases[] = {
      {"GCE same disk rw", Gce("foo", false), Gce("foo", false), Code::kUnschedulable},
      {"GCE same disk, both ro", Gce("foo", true), Gce("foo", true), Code::kSuccess},
      {"GCE same disk, one ro", Gce("foo", true), Gce("foo", false), Code::kUnschedulable},
      {"GCE other disk", Gce("foo", false), Gce("bar", false), Code::kSuccess},
      {"EBS same volume, both ro", Ebs("vol-1", true), Ebs("vol-1", true), Code::kUnschedulable},
      {"EBS other volume", Ebs("vol-1", false), Ebs("vol-2", false), Code::kSuccess},
      {"RBD overlapping monitors, same pool and image", Rbd({"a", "b"}, "p", "i", false),
       Rbd({"b", "c"}, "p", "i", false), Code::kUnschedulable},
      {"RBD other pool", Rbd({"a", "b"}, "p", "i", false), Rbd({"b", "c"}, "q", "i", false),
       Code::kSuccess},
      {"RBD disjoint monitors", Rbd({"a"}, "p", "i", false), Rbd({"c"}, "p", "i", false),
       Code::kSuccess},
      {"RBD both ro", Rbd({"a"}, "p", "i", true), Rbd({"a"}, "p", "i", true), Code::kSuccess},
      {"ISCSI same iqn, rw + ro", Iscsi("iqn.x", false), Iscsi("iqn.x", true),
       Code::kUnschedulable},
      {"ISCSI same iqn, both ro", Iscsi("iqn.x", true), Iscsi("iqn.x", true), Code::kSuccess},
      {"different types never conflict", Gce("foo", false), Ebs("foo", false), Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle handle;
    VolumeRestrictions plugin(handle);
    NodeInfo node_info(std::make_shared<const kube::Node>(MakeNode().Name("n1").Obj()));
    node_info.AddPod(std::make_shared<const kube::Pod>(PodUsing("old", c.existing)));
    const kube::Pod pod = PodUsing("new", c.wanted);
    CycleState state;
    PreFilterResult result;
    const NodeInfo* nodes[] = {&node_info};
    ASSERT_TRUE(plugin.PreFilter(state, pod, nodes, result).IsSuccess());
    const Status got = plugin.Filter(state, pod, node_info);
    EXPECT_EQ(got.code(), c.want) << got;
    if (c.want == Code::kUnschedulable) {
      EXPECT_THAT(got.reasons(), ::testing::ElementsAre("node(s) had no available disk"));
    }
  }
}

TEST(VolumeRestrictionsTest, ReadWriteOncePod) {
  FakeHandle handle;
  handle.storage().Apply(
      MakeClaim("ns", "rwop").AccessModes({std::string(kube::kReadWriteOncePod)}).Obj());
  handle.storage().Apply(MakeClaim("ns", "rwo").Obj());
  const kube::Pod x = WithClaims(MakePod().Name("x").Namespace("ns").UID("x").Obj(), {"rwop"});
  VolumeRestrictions plugin(handle);

  // Nobody else uses the claim: PreFilter skips.
  {
    CycleState state;
    PreFilterResult result;
    EXPECT_EQ(plugin.PreFilter(state, x, {}, result).code(), Code::kSkip);
  }
  // A claim that does not exist.
  {
    CycleState state;
    PreFilterResult result;
    const Status got = plugin.PreFilter(
        state, WithClaims(MakePod().Name("y").Namespace("ns").Obj(), {"absent"}), {}, result);
    EXPECT_EQ(got.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_THAT(got.reasons(),
                ::testing::ElementsAre("persistentvolumeclaim \"absent\" not found"));
  }
  // A scheduled pod on another node uses it: every node is rejected; removing that pod
  // (preemption's dry run) lifts it, adding it back restores it.
  const kube::Pod holder = WithClaims(
      MakePod().Name("holder").Namespace("ns").UID("holder").NodeName("n2").Obj(), {"rwop"});
  handle.snapshot().Set({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()}, {holder});
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, x, {}, result).IsSuccess());
  NodeInfo n1(std::make_shared<const kube::Node>(MakeNode().Name("n1").Obj()));
  Status got = plugin.Filter(state, x, n1);
  EXPECT_EQ(got.code(), Code::kUnschedulable);
  EXPECT_THAT(got.reasons(),
              ::testing::ElementsAre("node has pod using PersistentVolumeClaim with the same name "
                                     "and ReadWriteOncePod access mode"));
  const PodInfo holder_info = PodInfo::Create(std::make_shared<const kube::Pod>(holder));
  ASSERT_TRUE(plugin.RemovePod(state, x, holder_info, n1).IsSuccess());
  EXPECT_TRUE(plugin.Filter(state, x, n1).IsSuccess());
  ASSERT_TRUE(plugin.AddPod(state, x, holder_info, n1).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, x, n1).code(), Code::kUnschedulable);

  // A ReadWriteOnce claim shared with a scheduled pod is fine.
  const kube::Pod rwo = WithClaims(MakePod().Name("z").Namespace("ns").UID("z").Obj(), {"rwo"});
  handle.snapshot().Set(
      {MakeNode().Name("n1").Obj()},
      {WithClaims(MakePod().Name("h2").Namespace("ns").UID("h2").NodeName("n1").Obj(), {"rwo"})});
  CycleState state2;
  EXPECT_EQ(plugin.PreFilter(state2, rwo, {}, result).code(), Code::kSkip);
}

// Upstream's hints (spec §5.4).
TEST(VolumeRestrictionsTest, QueueingHints) {
  FakeHandle handle;
  VolumeRestrictions plugin(handle);
  kube::Pod x = WithClaims(PodUsing("x", Gce("foo", false)), {"data"});
  const auto pod_delete = [&](const kube::Pod& deleted) {
    absl::StatusOr<QueueingHint> h =
        plugin.Hint(x, kAssignedPodDeleteEvent, EventObjects{.old_pod = &deleted});
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : QueueingHint::kQueue;
  };
  EXPECT_EQ(pod_delete(PodUsing("holder", Gce("foo", false))), QueueingHint::kQueue);
  EXPECT_EQ(pod_delete(WithClaims(MakePod().Name("c").Namespace("ns").Obj(), {"data"})),
            QueueingHint::kQueue);
  EXPECT_EQ(pod_delete(PodUsing("other-disk", Gce("bar", false))), QueueingHint::kQueueSkip);
  EXPECT_EQ(pod_delete(WithClaims(MakePod().Name("c").Namespace("other").Obj(), {"data"})),
            QueueingHint::kQueueSkip);

  const auto claim_add = [&](kube::PersistentVolumeClaim c) {
    const kube::StorageObject o = kube::StorageObject::Make(std::move(c));
    return *plugin.Hint(
        x, ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kAdd, "PvcAdd"},
        EventObjects{.new_storage = &o});
  };
  EXPECT_EQ(claim_add(MakeClaim("ns", "data").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(claim_add(MakeClaim("ns", "else").Obj()), QueueingHint::kQueueSkip);
  EXPECT_EQ(claim_add(MakeClaim("other", "data").Obj()), QueueingHint::kQueueSkip);
  EXPECT_EQ(*plugin.Hint(x, kNodeAddEvent, {}), QueueingHint::kQueue);
}

}  // namespace
}  // namespace trimaran::sched::plugins
