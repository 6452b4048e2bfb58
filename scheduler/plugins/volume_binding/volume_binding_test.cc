#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <memory>
#include <string>
#include <thread>
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
using kube::testing::MakePv;
using kube::testing::MakeStorageClass;
using kube::testing::WithClaims;
using ::testing::ElementsAre;
using ::trimaran::sched::testing::FakeHandle;

constexpr char kWait[] = "wait-sc";
constexpr char kImmediate[] = "immediate-sc";
constexpr char kHostname[] = "kubernetes.io/hostname";

class VolumeBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put(MakeStorageClass(kWait, "", "WaitForFirstConsumer"));
    Put(MakeStorageClass(kImmediate, "", "Immediate"));
    Put(MakeStorageClass("wait-provisioned", "ebs.csi.aws.com", "WaitForFirstConsumer"));
    Put(MakeStorageClass("no-provisioner", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
    kube::StorageClass zoned = MakeStorageClass("zoned", "ebs.csi.aws.com", "WaitForFirstConsumer");
    zoned.allowed_topologies.push_back(
        kube::TopologySelectorTerm{.match_label_expressions = {{.key = "zone", .values = {"z1"}}}});
    Put(zoned);
  }

  // Stores `o` in the fake apiserver and, as the informer would, in the lister.
  template <typename T>
  T Put(T o) {
    absl::StatusOr<kube::StorageObject> stored =
        handle_.fake_client().ApplyStorageObject(kube::StorageObject::Make(std::move(o)));
    EXPECT_TRUE(stored.ok()) << stored.status();
    T typed = std::get<T>(stored->object);
    handle_.storage().Apply(typed);
    return typed;
  }

  kube::Node Node(const std::string& name, kube::StringMap labels = {}) {
    labels[kHostname] = name;
    return MakeNode().Name(name).Labels(labels).Obj();
  }

  // PreFilter, then Filter on each node; the Filter statuses.
  std::vector<Status> Run(VolumeBinding& plugin, CycleState& state, const kube::Pod& pod,
                          const std::vector<kube::Node>& nodes, Status* pre = nullptr) {
    std::vector<NodeInfo> infos;
    infos.reserve(nodes.size());
    for (const kube::Node& n : nodes) infos.emplace_back(std::make_shared<const kube::Node>(n));
    std::vector<const NodeInfo*> ptrs;
    for (const NodeInfo& ni : infos) ptrs.push_back(&ni);
    PreFilterResult result;
    const Status p = plugin.PreFilter(state, pod, ptrs, result);
    if (pre != nullptr) *pre = p;
    std::vector<Status> out;
    if (!p.IsSuccess()) return out;
    for (const NodeInfo& ni : infos) out.push_back(plugin.Filter(state, pod, ni));
    return out;
  }

  kube::Pod Pod(std::initializer_list<std::string> claims) {
    return WithClaims(MakePod().Name("pod-a").Namespace("default").UID("pod-a").Obj(), claims);
  }

  FakeHandle handle_;
};

// TestVolumeBinding V1-V9 (spec §4.10).
TEST_F(VolumeBindingTest, PluginTable) {
  // The PVs are bound to their claims: no PV is Available for static matching.
  const kube::PersistentVolumeClaim pvc_a =
      Put(MakeClaim("default", "pvc-a").Class(kWait).BoundTo("pv-a").Obj());
  Put(MakePv("pv-a").Class(kWait).ClaimRef(pvc_a).Obj());
  Put(MakeClaim("default", "pvc-imm").Class(kImmediate).Obj());
  Put(MakeClaim("default", "pvc-wait").Class(kWait).Obj());
  const kube::PersistentVolumeClaim pvc_affine =
      Put(MakeClaim("default", "pvc-affine").Class(kWait).BoundTo("pv-affine").Obj());
  Put(MakePv("pv-affine").Class(kWait).NodeAffinityIn("foo", {"bar"}).ClaimRef(pvc_affine).Obj());
  Put(MakeClaim("default", "pvc-orphan").Class(kWait).BoundTo("pv-gone").Obj());
  Put(MakeClaim("default", "pvc-lost").Class(kWait).BoundTo("pv-a").Phase("Lost").Obj());
  const kube::Node node_a = Node("node-a", {{"foo", "barbar"}});
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);

  struct Case {
    std::string name;
    kube::Pod pod;
    Code pre;
    std::string pre_reason;
    Code filter;
    std::vector<std::string> filter_reasons;
  };
  const Case cases[] = {
      {"V1 no claims", MakePod().Name("p").Obj(), Code::kSkip, "", Code::kSuccess, {}},
      {"V2 bound claim", Pod({"pvc-a"}), Code::kSuccess, "", Code::kSuccess, {}},
      {"V3 claim missing",
       Pod({"pvc-x"}),
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-x\" not found",
       Code::kSuccess,
       {}},
      {"V4 second claim missing",
       Pod({"pvc-a", "pvc-b"}),
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-b\" not found",
       Code::kSuccess,
       {}},
      {"V5 unbound immediate",
       Pod({"pvc-imm"}),
       Code::kUnschedulableAndUnresolvable,
       "pod has unbound immediate PersistentVolumeClaims",
       Code::kSuccess,
       {}},
      {"V6 delayed, no PVs, no provisioner",
       Pod({"pvc-wait"}),
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       {"node(s) didn't find available persistent volumes to bind"}},
      {"V7 affinity conflict and no PV",
       Pod({"pvc-affine", "pvc-wait"}),
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had volume node affinity conflict",
        "node(s) didn't find available persistent volumes to bind"}},
      {"V8 PV missing",
       Pod({"pvc-orphan"}),
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       {"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"}},
      {"V9 claim lost",
       Pod({"pvc-lost"}),
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-lost\" bound to non-existent persistentvolume \"pv-a\"",
       Code::kSuccess,
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    Status pre;
    std::vector<Status> got = Run(plugin, state, c.pod, {node_a}, &pre);
    EXPECT_EQ(pre.code(), c.pre) << pre;
    if (!c.pre_reason.empty()) {
      EXPECT_THAT(pre.reasons(), ElementsAre(c.pre_reason));
    }
    if (!pre.IsSuccess()) continue;
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].code(), c.filter) << got[0];
    EXPECT_EQ(got[0].reasons(), c.filter_reasons);
  }
}

TEST_F(VolumeBindingTest, PreFilterClaimStates) {
  Put(MakeClaim("default", "deleting").Class(kWait).Deleting().Obj());
  Put(MakeClaim("default", "half-bound").Class(kWait).VolumeName("pv-1").Obj());
  Put(MakeStorageClass("nil-mode", "p", ""));
  Put(MakeClaim("default", "nil-mode").Class("nil-mode").Obj());
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);
  CycleState state;
  PreFilterResult result;
  Status s = plugin.PreFilter(state, Pod({"deleting"}), {}, result);
  EXPECT_THAT(s.reasons(), ElementsAre("persistentvolumeclaim \"deleting\" is being deleted"));
  // volumeName without bind-completed: treated as unbound immediate.
  s = plugin.PreFilter(state, Pod({"half-bound"}), {}, result);
  EXPECT_THAT(s.reasons(), ElementsAre("pod has unbound immediate PersistentVolumeClaims"));
  s = plugin.PreFilter(state, Pod({"nil-mode"}), {}, result);
  EXPECT_EQ(s.code(), Code::kError);

  // Generic ephemeral volume: missing claim, then one not owned by the pod.
  kube::Pod eph = MakePod().Name("pod-a").Namespace("default").UID("pod-a").Obj();
  kube::Volume v;
  v.name = "scratch";
  v.ephemeral = true;
  eph.spec.volumes.push_back(v);
  s = plugin.PreFilter(state, eph, {}, result);
  EXPECT_THAT(s.reasons(), ElementsAre("waiting for ephemeral volume controller to create the "
                                       "persistentvolumeclaim \"pod-a-scratch\""));
  Put(MakeClaim("default", "pod-a-scratch").Class("wait-provisioned").Obj());
  s = plugin.PreFilter(state, eph, {}, result);
  EXPECT_THAT(s.reasons(), ElementsAre("PVC default/pod-a-scratch was not created for pod "
                                       "default/pod-a (pod is not owner)"));
}

// TestFindPodVolumesWithProvisioning & static matching.
TEST_F(VolumeBindingTest, StaticMatchingAndProvisioning) {
  Put(MakePv("pv-big").Class(kWait).Capacity("100Gi").NodeAffinityIn(kHostname, {"node-a"}).Obj());
  Put(MakePv("pv-small")
          .Class(kWait)
          .Capacity("10Gi")
          .NodeAffinityIn(kHostname, {"node-a", "node-b"})
          .Obj());
  Put(MakePv("pv-tiny").Class(kWait).Capacity("1Gi").Obj());
  Put(MakePv("pv-rox")
          .Class(kWait)
          .Capacity("10Gi")
          .AccessModes({std::string(kube::kReadOnlyMany)})
          .Obj());
  Put(MakeClaim("default", "five").Class(kWait).Request("5Gi").Obj());
  Put(MakeClaim("default", "fifty").Class(kWait).Request("50Gi").Obj());
  Put(MakeClaim("default", "provision").Class("wait-provisioned").Request("5Gi").Obj());
  Put(MakeClaim("default", "never").Class("no-provisioner").Request("5Gi").Obj());
  Put(MakeClaim("default", "zoned").Class("zoned").Request("5Gi").Obj());
  const kube::Node a = Node("node-a", {{"zone", "z1"}});
  const kube::Node b = Node("node-b", {{"zone", "z2"}});
  const kube::Node c = Node("node-c", {{"zone", "z1"}});
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);

  // Smallest fitting PV per claim, each PV once: node-a has both, node-b only the small.
  {
    CycleState state;
    std::vector<Status> got = Run(plugin, state, Pod({"fifty", "five"}), {a, b, c});
    ASSERT_EQ(got.size(), 3u);
    EXPECT_TRUE(got[0].IsSuccess()) << got[0];
    EXPECT_THAT(got[1].reasons(),
                ElementsAre("node(s) didn't find available persistent volumes to bind"));
    EXPECT_EQ(got[2].code(), Code::kUnschedulableAndUnresolvable);
  }
  // A matched claim plus a provisioned one.
  {
    CycleState state;
    std::vector<Status> got = Run(plugin, state, Pod({"five", "provision"}), {b});
    EXPECT_TRUE(got[0].IsSuccess()) << got[0];
  }
  // No provisioner, or the node outside allowedTopologies.
  {
    CycleState state;
    EXPECT_EQ(Run(plugin, state, Pod({"never"}), {a})[0].code(),
              Code::kUnschedulableAndUnresolvable);
    std::vector<Status> zoned = Run(plugin, state, Pod({"zoned"}), {a, b});
    EXPECT_TRUE(zoned[0].IsSuccess()) << zoned[0];
    EXPECT_THAT(zoned[1].reasons(),
                ElementsAre("node(s) didn't find available persistent volumes to bind"));
  }
  // A claim already pinned to node-b (selected-node) passes only there.
  {
    Put(MakeClaim("default", "pinned")
            .Class("wait-provisioned")
            .Annotation(std::string(kube::kAnnSelectedNode), "node-b")
            .Obj());
    CycleState state;
    std::vector<Status> got = Run(plugin, state, Pod({"pinned"}), {a, b});
    EXPECT_EQ(got[0].code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_TRUE(got[1].IsSuccess()) << got[1];
  }
  // A PV pre-bound to the claim (claimRef) is taken, or nothing (no fallback).
  {
    kube::PersistentVolumeClaim claim = Put(MakeClaim("default", "prebound").Class(kWait).Obj());
    Put(MakePv("pv-prebound")
            .Class(kWait)
            .Capacity("1Gi")
            .ClaimRef(claim)
            .NodeAffinityIn(kHostname, {"node-c"})
            .Phase("Available")
            .Obj());
    CycleState state;
    std::vector<Status> got = Run(plugin, state, Pod({"prebound"}), {a, c});
    EXPECT_EQ(got[0].code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_TRUE(got[1].IsSuccess()) << got[1];
  }
}

// Reserve assumes, Unreserve restores; PreBind writes and waits (TestAssumePodVolumes,
// TestBindAPIUpdate).
TEST_F(VolumeBindingTest, ReservePreBindAndUnreserve) {
  Put(MakePv("pv-1").Class(kWait).Capacity("10Gi").NodeAffinityIn(kHostname, {"node-a"}).Obj());
  kube::PersistentVolumeClaim stat =
      Put(MakeClaim("default", "static").Class(kWait).Request("1Gi").Obj());
  kube::PersistentVolumeClaim dyn =
      Put(MakeClaim("default", "dynamic").Class("wait-provisioned").Request("1Gi").Obj());
  const kube::Node a = Node("node-a");
  handle_.snapshot().Set({a}, {});
  VolumeBinding plugin(VolumeBindingArgs{.bind_timeout_seconds = 30}, handle_);
  const kube::Pod pod = Pod({"static", "dynamic"});

  CycleState state;
  ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
  ASSERT_TRUE(plugin.Reserve(state, pod, "node-a").IsSuccess());
  auto assumed_pv = plugin.assume_cache().GetVolume("pv-1");
  ASSERT_TRUE(assumed_pv->spec.claim_ref);
  EXPECT_EQ(assumed_pv->spec.claim_ref->name, "static");
  EXPECT_EQ(assumed_pv->metadata.annotations.at("pv.kubernetes.io/bound-by-controller"), "yes");
  EXPECT_EQ(plugin.assume_cache()
                .GetClaim("default", "dynamic")
                ->metadata.annotations.at("volume.kubernetes.io/selected-node"),
            "node-a");
  // Another pod now sees pv-1 as taken.
  {
    Put(MakeClaim("default", "other").Class(kWait).Request("1Gi").Obj());
    CycleState other;
    EXPECT_EQ(Run(plugin, other, Pod({"other"}), {a})[0].code(),
              Code::kUnschedulableAndUnresolvable);
  }
  plugin.Unreserve(state, pod, "node-a");
  EXPECT_FALSE(plugin.assume_cache().GetVolume("pv-1")->spec.claim_ref);
  EXPECT_TRUE(plugin.assume_cache().GetClaim("default", "dynamic")->metadata.annotations.empty());

  // Again, through PreBind: the writes land in the API; the "PV controller" (this test)
  // then binds both claims and PreBind returns.
  CycleState state2;
  ASSERT_TRUE(Run(plugin, state2, pod, {a})[0].IsSuccess());
  ASSERT_TRUE(plugin.Reserve(state2, pod, "node-a").IsSuccess());
  Status prebind;
  std::thread binder([&] { prebind = plugin.PreBind(state2, pod, "node-a"); });
  ASSERT_TRUE(handle_.fake_clock().AwaitSleepers(1));
  absl::StatusOr<kube::StorageObject> pv =
      handle_.fake_client().GetStorageObject(kube::StorageResource::kPersistentVolumes, "", "pv-1");
  ASSERT_TRUE(pv.ok());
  const auto& written_pv = std::get<kube::PersistentVolume>(pv->object);
  ASSERT_TRUE(written_pv.spec.claim_ref);
  EXPECT_EQ(written_pv.spec.claim_ref->uid, stat.metadata.uid);
  absl::StatusOr<kube::StorageObject> claim = handle_.fake_client().GetStorageObject(
      kube::StorageResource::kPersistentVolumeClaims, "default", "dynamic");
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->metadata.annotations.at("volume.kubernetes.io/selected-node"), "node-a");
  // The informer sees the writes, then the controller's binds.
  handle_.storage().Apply(written_pv);
  kube::PersistentVolumeClaim dyn_now = std::get<kube::PersistentVolumeClaim>(claim->object);
  handle_.storage().Apply(dyn_now);
  Put(kube::testing::ClaimWrapper(stat).BoundTo("pv-1").Obj());
  Put(MakePv("pv-2").Class("wait-provisioned").Obj());
  kube::PersistentVolumeClaim dyn_bound = dyn_now;
  dyn_bound.spec.volume_name = "pv-2";
  dyn_bound.metadata.annotations[std::string(kube::kAnnBindCompleted)] = "yes";
  Put(dyn_bound);
  handle_.fake_clock().AdvanceToNextDeadline();
  binder.join();
  EXPECT_TRUE(prebind.IsSuccess()) << prebind;
  (void)dyn;
}

TEST_F(VolumeBindingTest, PreBindFailuresAndTimeout) {
  Put(MakeClaim("default", "dynamic").Class("wait-provisioned").Obj());
  const kube::Node a = Node("node-a");
  handle_.snapshot().Set({a}, {});
  VolumeBinding plugin(VolumeBindingArgs{.bind_timeout_seconds = 3}, handle_);
  const kube::Pod pod = Pod({"dynamic"});

  // The API write fails: PreBind fails and the assumption is dropped.
  {
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
    ASSERT_TRUE(plugin.Reserve(state, pod, "node-a").IsSuccess());
    handle_.fake_client().FailNext("PatchStorageObject", absl::AbortedError("conflict"));
    Status s = plugin.PreBind(state, pod, "node-a");
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_THAT(s.reasons()[0], ::testing::HasSubstr("binding volumes: conflict"));
    EXPECT_TRUE(plugin.assume_cache().GetClaim("default", "dynamic")->metadata.annotations.empty());
  }
  // Nobody binds the claim: PreBind gives up after bindTimeoutSeconds.
  {
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
    ASSERT_TRUE(plugin.Reserve(state, pod, "node-a").IsSuccess());
    Status s;
    std::thread binder([&] { s = plugin.PreBind(state, pod, "node-a"); });
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(handle_.fake_clock().AwaitSleepers(1));
      handle_.fake_clock().AdvanceToNextDeadline();
    }
    binder.join();
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_THAT(s.reasons()[0], ::testing::HasSubstr("context deadline exceeded"));
  }
  // A provisioner gives the claim back (removes selected-node): PreBind fails at once.
  {
    handle_.storage().Apply(std::get<kube::PersistentVolumeClaim>(
        handle_.fake_client()
            .GetStorageObject(kube::StorageResource::kPersistentVolumeClaims, "default", "dynamic")
            ->object));
    kube::PersistentVolumeClaim reset = std::get<kube::PersistentVolumeClaim>(
        handle_.fake_client()
            .GetStorageObject(kube::StorageResource::kPersistentVolumeClaims, "default", "dynamic")
            ->object);
    reset.metadata.annotations[std::string(kube::kAnnSelectedNode)] = "node-z";
    reset = Put(reset);
    CycleState state;
    std::vector<Status> got = Run(plugin, state, pod, {a});
    // Pinned elsewhere now: node-a cannot take it.
    EXPECT_EQ(got[0].code(), Code::kUnschedulableAndUnresolvable);
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
