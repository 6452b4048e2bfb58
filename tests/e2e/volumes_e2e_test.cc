// The volume plugins end to end (issue 16): the real trimaran-scheduler on a real etcd +
// kube-apiserver 1.37 (127.0.0.1), default profile (VolumeBinding, VolumeRestrictions,
// VolumeZone, NodeVolumeLimits enabled as upstream). Four nodes, labelled like kubelets
// (kubernetes.io/hostname, topology.kubernetes.io/zone):
//   node-0, node-1 in zone-a; node-2 in zone-b; node-3 in zone-c.
// This control plane runs no kube-controller-manager and no provisioner, so the test
// plays both (FakeVolumeController): a claim annotated with
// volume.kubernetes.io/selected-node gets a PV on that node, and a claim some PV points at
// (claimRef, which the scheduler writes for static matches) gets spec.volumeName and
// pv.kubernetes.io/bind-completed, as the PV controller would. The scheduler's part is
// what is checked: the annotation, the claimRef, and the placement.
//
//   1. WaitForFirstConsumer: the claim carries selected-node = the pod's node; with
//      allowedTopologies naming zone-c the pod lands in zone-c.
//   2. Local PV pinned to node-1 by node affinity and a matching claim: the pod lands on
//      node-1, and the PV and the claim are bound to each other.
//   3. Unbound claim of an Immediate class: the pod stays unschedulable with upstream's
//      message; once a PV is bound to the claim the pod is scheduled within seconds (a
//      claim update moves it; the unschedulable flush is minutes away).
//   4. A bound PV labelled zone-b: the pod lands on node-2, the only zone-b node.
//   5. CSINode of node-0 allows 2 volumes of csi.example.com and 2 pods there use 2: a
//      third pod with such a volume, preferring node-0, lands on node-1.
//   6. A Spark-like job: 20 executors with one on-demand claim each: every claim
//      annotated with its executor's node, every executor bound.
//   7. CSIStorageCapacity v1 with a CSIDriver that sets storageCapacity: true: with no
//      capacity published for the class the pod stays pending with upstream's reason
//      ("node(s) did not have enough free storage"); capacity of 100Gi published for
//      zone-b (nodeTopology on the zone label) moves it (the capacity add is a queueing
//      event), and it lands on node-2, the only zone-b node; a 1Mi capacity elsewhere
//      does not attract it.
//   8. nominatedNodeName while binding (1.35+, NominatedNodeNameForExpectation), beside
//      the real kube-scheduler 1.37 (profile kube): for each scheduler a pod with a
//      WaitForFirstConsumer claim that the fake provisioner holds, so VolumeBinding's
//      PreBind waits; meanwhile the pod carries status.nominatedNodeName = the node its
//      claim was annotated with (autoscalers read it). Once the claim is provisioned the
//      pod binds there and the nomination is gone (the apiserver clears it at the bind).
#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/storage.h"
#include "kube/rest_client.h"
#include "kube/testing/storage_wrappers.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakePod;
using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kNs[] = "vol";
constexpr absl::Duration kTimeout = absl::Seconds(60);
// A claim with this annotation is left unprovisioned by FakeVolumeController.
constexpr char kHold[] = "e2e.trimaran.io/hold";

std::string ZoneOf(int node) { return node < 2 ? "zone-a" : node == 2 ? "zone-b" : "zone-c"; }

class VolumesE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    env_ = new Env;
    const absl::Status s = StartEnv(*env_);
    if (!s.ok()) setup_error_ = new std::string(s.ToString());
  }

  static void TearDownTestSuite() {
    if (env_ != nullptr) {
      env_->stop_controller = true;
      if (env_->controller.joinable()) env_->controller.join();
      if (env_->trimaran) env_->trimaran->Stop(absl::Seconds(20));
    }
    delete env_;
    env_ = nullptr;
    delete setup_error_;
    setup_error_ = nullptr;
  }

  void SetUp() override { ASSERT_EQ(setup_error_, nullptr) << *setup_error_; }
  void TearDown() override {
    if (HasFailure() && env_->trimaran) {
      std::fprintf(stderr, "--- trimaran-scheduler ---\n%s\n",
                   env_->trimaran->LogTail(8000).c_str());
    }
  }

  struct Env {
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<Subprocess> trimaran;
    std::thread controller;
    std::atomic<bool> stop_controller{false};
  };

  static absl::Status StartEnv(Env& env) {
    TRIMARAN_ASSIGN_OR_RETURN(env.cluster, Cluster::Start());
    ControlPlane& cp = env.cluster->control_plane();
    for (int i = 0; i < 4; ++i) {
      const std::string name = absl::StrCat("node-", i);
      TRIMARAN_RETURN_IF_ERROR(env.cluster->AddNode(
          name,
          {.cpu = "16", .memory = "64Gi", .labels = {{kHostname, name}, {kZone, ZoneOf(i)}}}));
    }
    TRIMARAN_RETURN_IF_ERROR(
        Post("/api/v1/namespaces", absl::StrCat(R"({"metadata":{"name":")", kNs, R"("}})")));
    // Storage classes: WaitForFirstConsumer (dynamic, and dynamic in zone-c only), local
    // (no provisioner) and Immediate.
    TRIMARAN_RETURN_IF_ERROR(PostClass("wffc", "example.com/fake", "WaitForFirstConsumer", ""));
    TRIMARAN_RETURN_IF_ERROR(PostClass(
        "wffc-zone-c", "example.com/fake", "WaitForFirstConsumer",
        R"(,"allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.kubernetes.io/zone","values":["zone-c"]}]}])"));
    TRIMARAN_RETURN_IF_ERROR(
        PostClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer", ""));
    TRIMARAN_RETURN_IF_ERROR(PostClass("immediate", "example.com/none", "Immediate", ""));

    TRIMARAN_ASSIGN_OR_RETURN(
        SchedulerProcess trimaran,
        StartSchedulerProcess({.binary = kSchedulerBin,
                               .dir = cp.dir(),
                               .tag = "volumes",
                               .config_yaml = SchedulerConfigYaml("trimaran", false),
                               .kubeconfig = env.cluster->kubeconfig()}));
    env.trimaran = std::move(trimaran.process);
    env.controller = std::thread([&env] {
      while (!env.stop_controller) {
        ReconcileVolumes();
        absl::SleepFor(absl::Milliseconds(200));
      }
    });
    return absl::OkStatus();
  }

  static ControlPlane& cp() { return env_->cluster->control_plane(); }
  static kube::RestClient& client() { return env_->cluster->client(); }

  static absl::Status Send(const std::string& method, const std::string& path,
                           const std::string& body, const std::string& type = "application/json") {
    return env_->cluster->Send(method, path, body, type);
  }
  static absl::Status Post(const std::string& path, const std::string& body) {
    return Send("POST", path, body);
  }
  static absl::Status MergePatch(const std::string& path, const std::string& body) {
    return Send("PATCH", path, body, "application/merge-patch+json");
  }

  static absl::Status PostClass(const std::string& name, const std::string& provisioner,
                                const std::string& mode, const std::string& extra) {
    return Post("/apis/storage.k8s.io/v1/storageclasses",
                absl::StrCat(R"({"metadata":{"name":")", name, R"("},"provisioner":")", provisioner,
                             R"(","volumeBindingMode":")", mode, "\"", extra, "}"));
  }

  // A claim of `class_name` ("" = none) requesting 1Gi; `volume_name` set and
  // bind-completed when given (a claim the PV controller already bound). A `held` claim
  // is not provisioned until its kHold annotation is removed.
  static absl::Status PostClaim(const std::string& name, const std::string& class_name,
                                const std::string& volume_name = "", bool held = false) {
    std::string meta = absl::StrCat(R"("name":")", name, "\"");
    if (!volume_name.empty()) {
      absl::StrAppend(&meta, R"(,"annotations":{"pv.kubernetes.io/bind-completed":"yes"})");
    } else if (held) {
      absl::StrAppend(&meta, R"(,"annotations":{")", kHold, R"(":"yes"})");
    }
    return Post(
        absl::StrCat("/api/v1/namespaces/", kNs, "/persistentvolumeclaims"),
        absl::StrCat(
            R"({"metadata":{)", meta, R"(},"spec":{"accessModes":["ReadWriteOnce"],)",
            R"("storageClassName":")", class_name, R"(",)",
            volume_name.empty() ? "" : absl::StrCat(R"("volumeName":")", volume_name, R"(",)"),
            R"("resources":{"requests":{"storage":"1Gi"}}}})"));
  }

  // A PV of 5Gi; `source` is the JSON of its volume source member; `extra` more spec.
  static absl::Status PostVolume(const std::string& name, const std::string& class_name,
                                 const std::string& source, const std::string& extra = "",
                                 const std::string& labels = "{}") {
    TRIMARAN_RETURN_IF_ERROR(Post(
        "/api/v1/persistentvolumes",
        absl::StrCat(R"({"metadata":{"name":")", name, R"(","labels":)", labels,
                     R"(},"spec":{"capacity":{"storage":"5Gi"},"accessModes":["ReadWriteOnce"],)",
                     R"("storageClassName":")", class_name, R"(",)", source, extra, "}}")));
    // As the PV controller would: a new PV is Available.
    return MergePatch(absl::StrCat("/api/v1/persistentvolumes/", name, "/status"),
                      R"({"status":{"phase":"Available"}})");
  }

  static std::string ClaimRef(const std::string& claim, const std::string& uid = "") {
    return absl::StrCat(R"(,"claimRef":{"kind":"PersistentVolumeClaim","namespace":")", kNs,
                        R"(","name":")", claim, "\"",
                        uid.empty() ? "" : absl::StrCat(R"(,"uid":")", uid, "\""), "}");
  }

  static absl::StatusOr<kube::StorageObjectList> List(kube::StorageResource r) {
    return client().ListStorageObjects(r, {});
  }

  // The PV controller and a provisioner, reduced to what the scheduler waits for.
  static void ReconcileVolumes() {
    absl::StatusOr<kube::StorageObjectList> claims =
        List(kube::StorageResource::kPersistentVolumeClaims);
    absl::StatusOr<kube::StorageObjectList> volumes =
        List(kube::StorageResource::kPersistentVolumes);
    if (!claims.ok() || !volumes.ok()) return;
    for (const kube::StorageObject& o : claims->items) {
      const auto& claim = std::get<kube::PersistentVolumeClaim>(o.object);
      if (!claim.spec.volume_name.empty()) continue;
      if (claim.metadata.annotations.contains(kHold)) continue;
      std::string pv_name;
      for (const kube::StorageObject& v : volumes->items) {
        const auto& pv = std::get<kube::PersistentVolume>(v.object);
        if (pv.spec.claim_ref && pv.spec.claim_ref->name == claim.metadata.name &&
            pv.spec.claim_ref->namespace_name == claim.metadata.namespace_name) {
          pv_name = pv.metadata.name;
        }
      }
      auto selected = claim.metadata.annotations.find(std::string(kube::kAnnSelectedNode));
      if (pv_name.empty() && selected != claim.metadata.annotations.end()) {
        // Provision on the selected node.
        pv_name = absl::StrCat("pvc-", claim.metadata.uid);
        const std::string affinity = absl::StrCat(
            R"(,"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":")",
            kHostname, R"(","operator":"In","values":[")", selected->second, R"("]}]}]}})");
        if (!PostVolume(pv_name, kube::ClaimClass(claim), R"("hostPath":{"path":"/tmp/pv"})",
                        ClaimRef(claim.metadata.name, claim.metadata.uid) + affinity)
                 .ok()) {
          continue;
        }
      }
      if (pv_name.empty()) continue;
      (void)MergePatch(
          absl::StrCat("/api/v1/namespaces/", kNs, "/persistentvolumeclaims/", claim.metadata.name),
          absl::StrCat(R"({"metadata":{"annotations":{"pv.kubernetes.io/bind-completed":"yes"}},)",
                       R"("spec":{"volumeName":")", pv_name, R"("}})"));
      (void)MergePatch(absl::StrCat("/api/v1/persistentvolumes/", pv_name, "/status"),
                       R"({"status":{"phase":"Bound"}})");
    }
  }

  // Creates a pod of trimaran using `claims`, with `mutate` applied.
  static absl::Status CreatePod(const std::string& name, std::initializer_list<std::string> claims,
                                const std::function<void(kube::Pod&)>& mutate = nullptr) {
    kube::Pod pod = kube::testing::WithClaims(MakePod()
                                                  .Name(name)
                                                  .Namespace(kNs)
                                                  .SchedulerName("trimaran")
                                                  .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                                                  .Obj(),
                                              claims);
    if (mutate) mutate(pod);
    return client().CreatePod(pod).status();
  }

  static std::string NodeOf(const std::string& pod) {
    absl::StatusOr<kube::Pod> p = client().GetPod(kNs, pod);
    return p.ok() ? p->spec.node_name : "";
  }

  static std::string WaitForNode(const std::string& pod) {
    std::string node;
    Eventually(
        [&] {
          node = NodeOf(pod);
          return !node.empty();
        },
        kTimeout);
    return node;
  }

  static absl::StatusOr<kube::PersistentVolumeClaim> GetClaim(const std::string& name) {
    TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r,
                              cp().Request("GET", absl::StrCat("/api/v1/namespaces/", kNs,
                                                               "/persistentvolumeclaims/", name)));
    TRIMARAN_ASSIGN_OR_RETURN(
        kube::StorageObject o,
        kube::DecodeStorageObject(r.body, kube::StorageResource::kPersistentVolumeClaims));
    return std::get<kube::PersistentVolumeClaim>(o.object);
  }

  static std::string SelectedNode(const std::string& claim) {
    absl::StatusOr<kube::PersistentVolumeClaim> c = GetClaim(claim);
    if (!c.ok()) return "";
    auto it = c->metadata.annotations.find(std::string(kube::kAnnSelectedNode));
    return it == c->metadata.annotations.end() ? "" : it->second;
  }

  static Env* env_;
  static std::string* setup_error_;
};

VolumesE2ETest::Env* VolumesE2ETest::env_ = nullptr;
std::string* VolumesE2ETest::setup_error_ = nullptr;

TEST_F(VolumesE2ETest, WaitForFirstConsumerClaimGetsThePodsNode) {
  TRIMARAN_ASSERT_OK(PostClaim("wffc-data", "wffc"));
  TRIMARAN_ASSERT_OK(CreatePod("wffc-pod", {"wffc-data"}));
  const std::string node = WaitForNode("wffc-pod");
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(SelectedNode("wffc-data"), node);

  // allowedTopologies: zone-c only (node-3).
  TRIMARAN_ASSERT_OK(PostClaim("zonal-data", "wffc-zone-c"));
  TRIMARAN_ASSERT_OK(CreatePod("zonal-pod", {"zonal-data"}));
  EXPECT_EQ(WaitForNode("zonal-pod"), "node-3");
  EXPECT_EQ(SelectedNode("zonal-data"), "node-3");
}

TEST_F(VolumesE2ETest, LocalVolumeWithNodeAffinity) {
  TRIMARAN_ASSERT_OK(PostVolume(
      "local-pv", "local", R"("local":{"path":"/mnt/disk"})",
      absl::StrCat(
          R"(,"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[)",
          R"({"key":"kubernetes.io/hostname","operator":"In","values":["node-1"]}]}]}})")));
  TRIMARAN_ASSERT_OK(PostClaim("local-data", "local"));
  TRIMARAN_ASSERT_OK(CreatePod("local-pod", {"local-data"}));
  EXPECT_EQ(WaitForNode("local-pod"), "node-1");
  // The scheduler wrote the PV's claimRef; the PV controller (here: the test) bound the
  // claim to it.
  absl::StatusOr<kube::PersistentVolumeClaim> claim = GetClaim("local-data");
  ASSERT_TRUE(claim.ok()) << claim.status();
  EXPECT_EQ(claim->spec.volume_name, "local-pv");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r,
                                cp().Request("GET", "/api/v1/persistentvolumes/local-pv"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      kube::StorageObject pv,
      kube::DecodeStorageObject(r.body, kube::StorageResource::kPersistentVolumes));
  const auto& typed = std::get<kube::PersistentVolume>(pv.object);
  ASSERT_TRUE(typed.spec.claim_ref);
  EXPECT_EQ(typed.spec.claim_ref->name, "local-data");
  EXPECT_EQ(typed.spec.claim_ref->uid, claim->metadata.uid);
  EXPECT_EQ(typed.metadata.annotations.at(std::string(kube::kAnnBoundByController)), "yes");
  EXPECT_EQ(SelectedNode("local-data"), "");  // static binding, no provisioning
}

TEST_F(VolumesE2ETest, UnboundImmediateClaimWaitsThenSchedulesWhenBound) {
  TRIMARAN_ASSERT_OK(PostClaim("imm-data", "immediate"));
  TRIMARAN_ASSERT_OK(CreatePod("imm-pod", {"imm-data"}));
  std::string message;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Pod> p = client().GetPod(kNs, "imm-pod");
        if (!p.ok()) return false;
        for (const kube::PodCondition& c : p->status.conditions) {
          if (c.type == "PodScheduled" && c.status == kube::ConditionStatus::kFalse) {
            message = c.message;
            // A first attempt may run before the claim reached the scheduler's informer
            // ("not found"); the claim's add event retries the pod.
            return absl::StrContains(message, "unbound immediate");
          }
        }
        return false;
      },
      kTimeout))
      << message;
  EXPECT_THAT(message, HasSubstr("pod has unbound immediate PersistentVolumeClaims"));
  EXPECT_EQ(NodeOf("imm-pod"), "");

  // The PV controller binds the claim to a new PV: the claim update moves the pod.
  const absl::Time bound_at = absl::Now();
  TRIMARAN_ASSERT_OK(
      PostVolume("imm-pv", "immediate", R"("hostPath":{"path":"/tmp/imm"})", ClaimRef("imm-data")));
  ASSERT_FALSE(WaitForNode("imm-pod").empty());
  const absl::Duration took = absl::Now() - bound_at;
  std::fprintf(stderr, "imm-pod scheduled %s after its PV was created\n",
               absl::FormatDuration(took).c_str());
  EXPECT_LT(took, absl::Seconds(30));
}

TEST_F(VolumesE2ETest, BoundZonalVolumeKeepsThePodInItsZone) {
  TRIMARAN_ASSERT_OK(PostVolume("zone-b-pv", "", R"("hostPath":{"path":"/tmp/zb"})",
                                ClaimRef("zone-b-data"),
                                absl::StrCat(R"({")", kZone, R"(":"zone-b"})")));
  TRIMARAN_ASSERT_OK(PostClaim("zone-b-data", "", "zone-b-pv"));
  TRIMARAN_ASSERT_OK(CreatePod("zone-b-pod", {"zone-b-data"}));
  EXPECT_EQ(WaitForNode("zone-b-pod"), "node-2");
}

TEST_F(VolumesE2ETest, CsiNodeLimitSendsTheThirdVolumeElsewhere) {
  TRIMARAN_ASSERT_OK(Post("/apis/storage.k8s.io/v1/csinodes",
                          R"({"metadata":{"name":"node-0"},"spec":{"drivers":[{"name":)"
                          R"("csi.example.com","nodeID":"node-0","allocatable":{"count":2}}]}})"));
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    TRIMARAN_ASSERT_OK(PostVolume(
        "csi-pv-" + n, "",
        absl::StrCat(R"("csi":{"driver":"csi.example.com","volumeHandle":"vol-)", n, R"("})"),
        ClaimRef("csi-data-" + n)));
    TRIMARAN_ASSERT_OK(PostClaim("csi-data-" + n, "", "csi-pv-" + n));
  }
  // Two pods already on node-0 use two volumes of the driver.
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(i);
    TRIMARAN_ASSERT_OK(CreatePod("csi-pod-" + n, {"csi-data-" + n},
                                 [](kube::Pod& p) { p.spec.node_name = "node-0"; }));
  }
  // The third prefers node-0 strongly but cannot attach a third volume there.
  TRIMARAN_ASSERT_OK(CreatePod("csi-pod-2", {"csi-data-2"}, [](kube::Pod& p) {
    kube::NodeSelectorTerm zone_a;
    zone_a.match_expressions.push_back(
        {.key = kZone, .op = kube::NodeSelectorOperator::kIn, .values = {"zone-a"}});
    kube::NodeSelectorTerm node0;
    node0.match_expressions.push_back(
        {.key = kHostname, .op = kube::NodeSelectorOperator::kIn, .values = {"node-0"}});
    kube::NodeAffinity& na = p.spec.affinity.emplace().node_affinity.emplace();
    na.required.emplace().node_selector_terms.push_back(zone_a);
    na.preferred.push_back({.weight = 100, .preference = node0});
  }));
  EXPECT_EQ(WaitForNode("csi-pod-2"), "node-1");
  // The control: a pod without volumes, with the same preference, goes to node-0.
  TRIMARAN_ASSERT_OK(CreatePod("csi-control", {}, [](kube::Pod& p) {
    kube::NodeSelectorTerm node0;
    node0.match_expressions.push_back(
        {.key = kHostname, .op = kube::NodeSelectorOperator::kIn, .values = {"node-0"}});
    p.spec.affinity.emplace().node_affinity.emplace().preferred.push_back(
        {.weight = 100, .preference = node0});
  }));
  EXPECT_EQ(WaitForNode("csi-control"), "node-0");
}

TEST_F(VolumesE2ETest, SparkLikeExecutorsWithOnDemandClaims) {
  constexpr int kExecutors = 20;
  for (int i = 0; i < kExecutors; ++i) {
    TRIMARAN_ASSERT_OK(PostClaim(absl::StrCat("exec-", i, "-pvc-0"), "wffc"));
  }
  for (int i = 0; i < kExecutors; ++i) {
    TRIMARAN_ASSERT_OK(
        CreatePod(absl::StrCat("exec-", i), {absl::StrCat("exec-", i, "-pvc-0")},
                  [](kube::Pod& p) { p.metadata.labels["spark-role"] = "executor"; }));
  }
  for (int i = 0; i < kExecutors; ++i) {
    SCOPED_TRACE(i);
    const std::string node = WaitForNode(absl::StrCat("exec-", i));
    ASSERT_FALSE(node.empty());
    EXPECT_EQ(SelectedNode(absl::StrCat("exec-", i, "-pvc-0")), node);
  }
}

TEST_F(VolumesE2ETest, StorageCapacityIsCheckedAndItsArrivalMovesThePod) {
  TRIMARAN_ASSERT_OK(Post("/apis/storage.k8s.io/v1/csidrivers",
                          R"({"metadata":{"name":"capacity.example.com"},)"
                          R"("spec":{"attachRequired":false,"storageCapacity":true}})"));
  TRIMARAN_ASSERT_OK(
      PostClass("wffc-capacity", "capacity.example.com", "WaitForFirstConsumer", ""));
  // Too small anywhere in zone-a: never enough.
  TRIMARAN_ASSERT_OK(
      Post(absl::StrCat("/apis/storage.k8s.io/v1/namespaces/", kNs, "/csistoragecapacities"),
           R"({"metadata":{"name":"tiny-zone-a"},"storageClassName":"wffc-capacity",)"
           R"("capacity":"1Mi","nodeTopology":{"matchLabels":)"
           R"({"topology.kubernetes.io/zone":"zone-a"}}})"));
  TRIMARAN_ASSERT_OK(PostClaim("capacity-data", "wffc-capacity"));
  TRIMARAN_ASSERT_OK(CreatePod("capacity-pod", {"capacity-data"}));
  std::string message;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Pod> p = client().GetPod(kNs, "capacity-pod");
        if (!p.ok()) return false;
        for (const kube::PodCondition& c : p->status.conditions) {
          if (c.type == "PodScheduled" && c.status == kube::ConditionStatus::kFalse) {
            message = c.message;
          }
        }
        return absl::StrContains(message, "did not have enough free storage");
      },
      kTimeout))
      << "PodScheduled message: " << message;
  EXPECT_THAT(message, HasSubstr("4 node(s) did not have enough free storage")) << message;
  EXPECT_EQ(NodeOf("capacity-pod"), "");

  TRIMARAN_ASSERT_OK(
      Post(absl::StrCat("/apis/storage.k8s.io/v1/namespaces/", kNs, "/csistoragecapacities"),
           R"({"metadata":{"name":"zone-b"},"storageClassName":"wffc-capacity",)"
           R"("capacity":"100Gi","nodeTopology":{"matchLabels":)"
           R"({"topology.kubernetes.io/zone":"zone-b"}}})"));
  EXPECT_EQ(WaitForNode("capacity-pod"), "node-2");
  EXPECT_EQ(SelectedNode("capacity-data"), "node-2");
}

TEST_F(VolumesE2ETest, PodWaitingInPreBindIsNominatedToItsNode) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<KubeScheduler> kube,
      KubeScheduler::Start(cp(), {.kubeconfig = env_->cluster->kubeconfig(),
                                  .profiles_yaml = "  - schedulerName: kube\n",
                                  .tag = "kube-scheduler-volumes"}));
  const std::vector<std::string> schedulers = {"trimaran", "kube"};
  for (const std::string& s : schedulers) {
    TRIMARAN_ASSERT_OK(PostClaim("held-" + s, "wffc", "", /*held=*/true));
    TRIMARAN_ASSERT_OK(CreatePod("held-" + s, {"held-" + s},
                                 [&](kube::Pod& pod) { pod.spec.scheduler_name = s; }));
  }
  auto nominated = [&](const std::string& pod) {
    absl::StatusOr<kube::Pod> p = client().GetPod(kNs, pod);
    return p.ok() ? p->status.nominated_node_name : std::string("?");
  };
  // Both wait in PreBind, nominated to the node their claim was annotated with.
  std::string trimaran_node, kube_node;
  ASSERT_TRUE(Eventually(
      [&] {
        trimaran_node = SelectedNode("held-trimaran");
        kube_node = SelectedNode("held-kube");
        return !trimaran_node.empty() && !kube_node.empty() &&
               nominated("held-trimaran") == trimaran_node && nominated("held-kube") == kube_node;
      },
      kTimeout))
      << "trimaran: selected \"" << trimaran_node << "\", nominated \""
      << nominated("held-trimaran") << "\"; kube-scheduler: selected \"" << kube_node
      << "\", nominated \"" << nominated("held-kube") << "\"\n"
      << kube->process().LogTail();
  EXPECT_EQ(NodeOf("held-trimaran"), "");
  EXPECT_EQ(NodeOf("held-kube"), "");
  std::printf("[volumes] waiting in PreBind: trimaran nominated to %s, kube-scheduler 1.37 to %s\n",
              trimaran_node.c_str(), kube_node.c_str());

  // Provisioned: bound where nominated, and the nomination is gone.
  for (const std::string& s : schedulers) {
    TRIMARAN_ASSERT_OK(
        MergePatch(absl::StrCat("/api/v1/namespaces/", kNs, "/persistentvolumeclaims/held-", s),
                   absl::StrCat(R"({"metadata":{"annotations":{")", kHold, R"(":null}}})")));
  }
  EXPECT_EQ(WaitForNode("held-trimaran"), trimaran_node);
  EXPECT_EQ(WaitForNode("held-kube"), kube_node) << kube->process().LogTail();
  EXPECT_EQ(nominated("held-trimaran"), "");
  EXPECT_EQ(nominated("held-kube"), "");
}

}  // namespace
}  // namespace trimaran::e2e
