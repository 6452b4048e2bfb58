#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/testing/status_matchers.h"
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

// TestFindPodVolumesWithCSIMigration: a bound in-tree GCE PD PV carries its zone only as a
// label; on a node whose CSINode lists kubernetes.io/gce-pd as migrated, the binder
// checks the PV translated to CSI (zone -> `topology.gke.io/zone` node affinity).
TEST_F(VolumeBindingTest, MigratedInTreePvIsCheckedWithItsCsiTopology) {
  const kube::PersistentVolumeClaim claim =
      Put(MakeClaim("default", "pvc-gce").Class(kWait).BoundTo("pv-gce").Obj());
  Put(MakePv("pv-gce")
          .Class(kWait)
          .Gce("disk-1")
          .Label("topology.kubernetes.io/zone", "us-central1-a")
          .ClaimRef(claim)
          .Obj());
  const auto node = [&](const std::string& name, const std::string& zone) {
    return Node(name, {{"topology.kubernetes.io/zone", zone}, {"topology.gke.io/zone", zone}});
  };
  const kube::Node same = node("node-same", "us-central1-a");
  const kube::Node other = node("node-other", "us-central1-b");
  const kube::Node unmigrated = node("node-unmigrated", "us-central1-b");
  for (const char* name : {"node-same", "node-other"}) {
    kube::CSINode csi = kube::testing::MakeCsiNode(name, {{"pd.csi.storage.gke.io", -1}});
    csi.metadata.annotations[std::string(kube::kAnnMigratedPlugins)] = "kubernetes.io/gce-pd";
    Put(csi);
  }
  // A CSINode without the annotation: migration is not on for the plugin there.
  Put(kube::testing::MakeCsiNode("node-unmigrated", {{"pd.csi.storage.gke.io", -1}}));

  VolumeBinding plugin(VolumeBindingArgs{}, handle_);
  CycleState state;
  const std::vector<Status> got = Run(plugin, state, Pod({"pvc-gce"}), {same, other, unmigrated});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].IsSuccess()) << got[0];
  EXPECT_EQ(got[1].code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(got[1].reasons(), ElementsAre("node(s) had volume node affinity conflict"));
  // Untranslated, the PV has no node affinity at all (VolumeZone judges its label).
  EXPECT_TRUE(got[2].IsSuccess()) << got[2];
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

kube::CSIStorageCapacity Capacity(std::string name, std::string class_name, std::string zone,
                                  std::optional<std::string> capacity,
                                  std::optional<std::string> max_size = std::nullopt) {
  kube::CSIStorageCapacity c;
  c.metadata.namespace_name = "kube-system";
  c.metadata.name = std::move(name);
  c.storage_class_name = std::move(class_name);
  kube::LabelSelector topology;
  topology.match_labels["zone"] = std::move(zone);
  c.node_topology = topology;
  if (capacity) c.capacity = *kube::Quantity::Parse(*capacity);
  if (max_size) c.maximum_volume_size = *kube::Quantity::Parse(*max_size);
  return c;
}

// The capacity check of dynamic provisioning (spec §4.4 step 4; binder-level
// TestFindPodVolumesWithProvisioning's storage-capacity cases).
TEST_F(VolumeBindingTest, ProvisioningChecksStorageCapacity) {
  Put(MakeClaim("default", "big").Class("zoned").Request("50Gi").Obj());
  Put(MakeClaim("default", "no-request").Class("zoned").Obj());
  const kube::Node a = Node("node-a", {{"zone", "z1"}});
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);
  const auto filter = [&](std::initializer_list<std::string> claims) {
    CycleState state;
    return Run(plugin, state, Pod(claims), {a})[0];
  };
  const std::vector<std::string> not_enough = {"node(s) did not have enough free storage"};

  // No CSIDriver object, or one that does not ask for capacity checks: provisioned.
  EXPECT_TRUE(filter({"big"}).IsSuccess());
  kube::CSIDriver driver;
  driver.metadata.name = "ebs.csi.aws.com";
  driver.storage_capacity = false;
  Put(driver);
  EXPECT_TRUE(filter({"big"}).IsSuccess());

  // storageCapacity: true and no capacity objects: not enough storage (but a claim
  // without a request is provisioned).
  driver.storage_capacity = true;
  Put(driver);
  Status s = filter({"big"});
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), not_enough);
  EXPECT_TRUE(filter({"no-request"}).IsSuccess());

  // Capacity objects: another class, another segment, too small: still not enough.
  Put(Capacity("other-class", "wait-provisioned", "z1", "100Gi"));
  Put(Capacity("other-zone", "zoned", "z2", "100Gi"));
  Put(Capacity("small", "zoned", "z1", "10Gi"));
  EXPECT_EQ(filter({"big"}).reasons(), not_enough);
  // maximumVolumeSize wins over capacity.
  Put(Capacity("max-small", "zoned", "z1", "1Ti", "20Gi"));
  EXPECT_EQ(filter({"big"}).reasons(), not_enough);
  Put(Capacity("enough", "zoned", "z1", "10Gi", "50Gi"));
  EXPECT_TRUE(filter({"big"}).IsSuccess());

  // A capacity object without nodeTopology admits no node ("other-class" above is too
  // small for this claim).
  kube::CSIStorageCapacity untopo = Capacity("untopo", "wait-provisioned", "z1", "1Ti");
  untopo.node_topology.reset();
  Put(untopo);
  Put(MakeClaim("default", "other").Class("wait-provisioned").Request("200Gi").Obj());
  EXPECT_EQ(filter({"other"}).reasons(), not_enough);

  // The apiserver serves no CSIStorageCapacity API (1.20): no capacity checks, as
  // upstream with capacity tracking off.
  handle_.storage().SetCapacityTracking(false);
  EXPECT_TRUE(filter({"other"}).IsSuccess());
}

// Reasons stay in upstream's order when a pod has several problems.
TEST_F(VolumeBindingTest, NotEnoughStorageComesAfterBindConflict) {
  kube::CSIDriver driver;
  driver.metadata.name = "ebs.csi.aws.com";
  driver.storage_capacity = true;
  Put(driver);
  Put(MakeClaim("default", "never").Class("no-provisioner").Request("5Gi").Obj());
  Put(MakeClaim("default", "big").Class("wait-provisioned").Request("50Gi").Obj());
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);
  CycleState state;
  const Status s = Run(plugin, state, Pod({"never", "big"}), {Node("node-a")})[0];
  EXPECT_THAT(s.reasons(), ElementsAre("node(s) didn't find available persistent volumes to bind",
                                       "node(s) did not have enough free storage"));
}

// Upstream's registrations and hints (spec §1.4 table, §4.9).
TEST_F(VolumeBindingTest, EventsAndQueueingHints) {
  VolumeBinding plugin(VolumeBindingArgs{}, handle_);
  std::vector<EventResource> resources;
  for (const ClusterEvent& e : plugin.EventsToRegister()) resources.push_back(e.resource);
  EXPECT_THAT(resources,
              ::testing::UnorderedElementsAre(
                  EventResource::kStorageClass, EventResource::kPersistentVolumeClaim,
                  EventResource::kPersistentVolume, EventResource::kNode, EventResource::kCSINode,
                  EventResource::kCSIDriver, EventResource::kCSIStorageCapacity));
  kube::Pod pod = Pod({"data"});
  kube::Volume scratch;
  scratch.name = "scratch";
  scratch.ephemeral = true;
  pod.spec.volumes.push_back(scratch);
  const auto hint = [&](EventResource r, ActionType a, const kube::StorageObject* old_o,
                        const kube::StorageObject* new_o) {
    absl::StatusOr<QueueingHint> h = plugin.Hint(
        pod, ClusterEvent{r, a, "test"}, EventObjects{.old_storage = old_o, .new_storage = new_o});
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : QueueingHint::kQueue;
  };
  const ActionType kUpd = ActionType::kUpdateOther;
  const ActionType kAdd = ActionType::kAdd;
  using H = QueueingHint;

  // PVC: only the pod's claims (ephemeral names too), same namespace.
  const auto claim = [](std::string ns, std::string name) {
    return kube::StorageObject::Make(MakeClaim(std::move(ns), std::move(name)).Obj());
  };
  const kube::StorageObject mine = claim("default", "data");
  const kube::StorageObject eph = claim("default", "pod-a-scratch");
  const kube::StorageObject other = claim("default", "else");
  const kube::StorageObject other_ns = claim("other", "data");
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, nullptr, &mine), H::kQueue);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kUpd, &mine, &mine), H::kQueue);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, nullptr, &eph), H::kQueue);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, nullptr, &other), H::kQueueSkip);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, nullptr, &other_ns), H::kQueueSkip);

  // StorageClass: add always; update only when allowedTopologies changed.
  kube::StorageClass sc = MakeStorageClass("c", "p", "WaitForFirstConsumer");
  const kube::StorageObject sc_old = kube::StorageObject::Make(sc);
  sc.metadata.labels["x"] = "y";
  const kube::StorageObject sc_label = kube::StorageObject::Make(sc);
  sc.allowed_topologies.push_back(
      kube::TopologySelectorTerm{.match_label_expressions = {{.key = "zone", .values = {"z"}}}});
  const kube::StorageObject sc_topo = kube::StorageObject::Make(sc);
  EXPECT_EQ(hint(EventResource::kStorageClass, kAdd, nullptr, &sc_old), H::kQueue);
  EXPECT_EQ(hint(EventResource::kStorageClass, kUpd, &sc_old, &sc_label), H::kQueueSkip);
  EXPECT_EQ(hint(EventResource::kStorageClass, kUpd, &sc_label, &sc_topo), H::kQueue);

  // CSINode: add always; update only when the migrated-plugins annotation changed.
  kube::CSINode csi = kube::testing::MakeCsiNode("node-a", {{"ebs.csi.aws.com", 39}});
  const kube::StorageObject csi_old = kube::StorageObject::Make(csi);
  csi.drivers[0].allocatable_count = 40;
  const kube::StorageObject csi_count = kube::StorageObject::Make(csi);
  csi.metadata.annotations[std::string(kube::kAnnMigratedPlugins)] = "kubernetes.io/aws-ebs";
  const kube::StorageObject csi_migrated = kube::StorageObject::Make(csi);
  EXPECT_EQ(hint(EventResource::kCSINode, kAdd, nullptr, &csi_old), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSINode, kUpd, &csi_old, &csi_count), H::kQueueSkip);
  EXPECT_EQ(hint(EventResource::kCSINode, kUpd, &csi_count, &csi_migrated), H::kQueue);

  // CSIStorageCapacity: add always; update only when the limit appeared or grew.
  const kube::StorageObject cap_none =
      kube::StorageObject::Make(Capacity("c", "zoned", "z1", std::nullopt));
  const kube::StorageObject cap_10 =
      kube::StorageObject::Make(Capacity("c", "zoned", "z1", "10Gi"));
  const kube::StorageObject cap_5 = kube::StorageObject::Make(Capacity("c", "zoned", "z1", "5Gi"));
  const kube::StorageObject cap_max =
      kube::StorageObject::Make(Capacity("c", "zoned", "z1", "5Gi", "20Gi"));
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kAdd, nullptr, &cap_5), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kUpd, &cap_none, &cap_5), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kUpd, &cap_5, &cap_10), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kUpd, &cap_10, &cap_5), H::kQueueSkip);
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kUpd, &cap_10, &cap_max), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, kUpd, &cap_5, &cap_none), H::kQueueSkip);

  // PV, node and CSIDriver events always; an event without objects too.
  const kube::StorageObject pv = kube::StorageObject::Make(MakePv("pv").Obj());
  EXPECT_EQ(hint(EventResource::kPersistentVolume, kUpd, &pv, &pv), H::kQueue);
  EXPECT_EQ(hint(EventResource::kNode, kAdd, nullptr, nullptr), H::kQueue);
  EXPECT_EQ(hint(EventResource::kCSIDriver, kAdd, nullptr, nullptr), H::kQueue);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kUpd, nullptr, nullptr), H::kQueue);
}

// PreBind stops waiting when the pod is deleted, and when the scheduler shuts down; the
// framework then runs Unreserve (spec §4.7).
TEST_F(VolumeBindingTest, PreBindStopsForDeletedPodAndShutdown) {
  Put(MakeClaim("default", "dynamic").Class("wait-provisioned").Obj());
  const kube::Node a = Node("node-a");
  handle_.snapshot().Set({a}, {});
  VolumeBinding plugin(VolumeBindingArgs{.bind_timeout_seconds = 600}, handle_);
  const kube::Pod pod = Pod({"dynamic"});
  const auto keep_api_in_step = [&] {
    // The informer sees the scheduler's own write.
    handle_.storage().Apply(std::get<kube::PersistentVolumeClaim>(
        handle_.fake_client()
            .GetStorageObject(kube::StorageResource::kPersistentVolumeClaims, "default", "dynamic")
            ->object));
  };

  {
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
    ASSERT_TRUE(plugin.Reserve(state, pod, "node-a").IsSuccess());
    Status s;
    std::thread binder([&] { s = plugin.PreBind(state, pod, "node-a"); });
    ASSERT_TRUE(handle_.fake_clock().AwaitSleepers(1));
    keep_api_in_step();
    handle_.DeletePod(pod);
    handle_.fake_clock().AdvanceToNextDeadline();
    binder.join();
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_THAT(s.reasons()[0], ::testing::HasSubstr("pod does not exist any more"));
    plugin.Unreserve(state, pod, "node-a");
  }
  {
    kube::Pod second = pod;
    second.metadata.uid = "pod-a-2";
    // Pinned to node-a by the first attempt's write: still fits node-a.
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, second, {a})[0].IsSuccess());
    ASSERT_TRUE(plugin.Reserve(state, second, "node-a").IsSuccess());
    Status s;
    std::thread binder([&] { s = plugin.PreBind(state, second, "node-a"); });
    ASSERT_TRUE(handle_.fake_clock().AwaitSleepers(1));
    const absl::Time before = handle_.fake_clock().Now();
    handle_.Shutdown();  // wakes the sleeper without advancing the clock
    binder.join();
    EXPECT_EQ(handle_.fake_clock().Now(), before);
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_THAT(s.reasons()[0], ::testing::HasSubstr("cancelled"));
  }
}

// Binder level (spec §4.10, TestAssumePodVolumes / TestBindAPIUpdate): a binding whose
// PV left the cache fails Reserve and restores what was assumed; of two PV writes where
// the second conflicts, the first stays written and the second is restored.
TEST_F(VolumeBindingTest, ReserveAndPreBindRestoreWhatTheyCouldNotDo) {
  Put(MakePv("pv-1").Class(kWait).Capacity("1Gi").Obj());
  const kube::PersistentVolume pv2 = Put(MakePv("pv-2").Class(kWait).Capacity("2Gi").Obj());
  Put(MakeClaim("default", "c1").Class(kWait).Request("1Gi").Obj());
  Put(MakeClaim("default", "c2").Class(kWait).Request("2Gi").Obj());
  const kube::Node a = Node("node-a");
  handle_.snapshot().Set({a}, {});
  VolumeBinding plugin(VolumeBindingArgs{.bind_timeout_seconds = 30}, handle_);
  const kube::Pod pod = Pod({"c1", "c2"});
  {
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
    handle_.storage().Remove(kube::StorageObject::Make(pv2));
    const Status s = plugin.Reserve(state, pod, "node-a");
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_THAT(s.reasons()[0], ::testing::HasSubstr("\"pv-2\" not found"));
    EXPECT_FALSE(plugin.assume_cache().GetVolume("pv-1")->spec.claim_ref);
    handle_.storage().Apply(pv2);
  }
  {
    CycleState state;
    ASSERT_TRUE(Run(plugin, state, pod, {a})[0].IsSuccess());
    ASSERT_TRUE(plugin.Reserve(state, pod, "node-a").IsSuccess());
    // Someone else changes pv-2 in the API: the scheduler's write of it conflicts.
    kube::PersistentVolume changed = pv2;
    changed.metadata.labels["touched"] = "yes";
    TRIMARAN_ASSERT_OK(
        handle_.fake_client().ApplyStorageObject(kube::StorageObject::Make(changed)).status());
    const Status s = plugin.PreBind(state, pod, "node-a");
    EXPECT_EQ(s.code(), Code::kError);
    const auto api_pv = [&](const std::string& name) {
      return std::get<kube::PersistentVolume>(
          handle_.fake_client()
              .GetStorageObject(kube::StorageResource::kPersistentVolumes, "", name)
              ->object);
    };
    ASSERT_TRUE(api_pv("pv-1").spec.claim_ref);
    EXPECT_EQ(api_pv("pv-1").spec.claim_ref->name, "c1");
    EXPECT_FALSE(api_pv("pv-2").spec.claim_ref);
    EXPECT_FALSE(plugin.assume_cache().GetVolume("pv-2")->spec.claim_ref);
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
