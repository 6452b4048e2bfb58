// The shipped manifests against the real kube-apiserver 1.20 (tests/e2e/harness):
//   - every overlay passes `kubectl apply --dry-run=server -k` (schema, defaulting and
//     admission, for real);
//   - the shipped RBAC, applied for real, is sufficient and minimal: a token bound only
//     to it (the ServiceAccount's identity) can make every call our Kubernetes client
//     makes for the scheduler and the load watcher, and nothing around them.
#include <signal.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/binding.h"
#include "kube/client.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "kube/testing/wrappers.h"
#include "tests/deploy/manifests.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::deploy_testing {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using trimaran::testing::StatusIs;

constexpr char kNamespace[] = "trimaran";
// The identity a pod of the Deployment gets from its ServiceAccount.
constexpr char kServiceAccountUser[] = "system:serviceaccount:trimaran:trimaran-scheduler";
constexpr char kServiceAccountGroups[] =
    "system:serviceaccounts,system:serviceaccounts:trimaran,system:authenticated";
constexpr char kLeaseName[] = "trimaran-scheduler";

std::string Kubeconfig(const e2e::ControlPlane& cp, const std::string& token) {
  return absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n",
                      "    server: ", cp.server(), "\n    certificate-authority: ", cp.ca_file(),
                      "\nusers:\n- name: u\n  user:\n    token: ", token,
                      "\ncontexts:\n- name: e2e\n  context:\n    cluster: e2e\n    user: u\n",
                      "current-context: e2e\n");
}

class DeployE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The admin client keeps the kubeconfig loader's rate limit.
    e2e::ClusterOptions options;
    options.qps = std::nullopt;
    options.burst = std::nullopt;
    absl::StatusOr<std::unique_ptr<e2e::Cluster>> cluster = e2e::Cluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
    admin_kubeconfig_ = cluster_->kubeconfig();
  }

  // kubectl as the admin (system:masters).
  RunResult Kubectl(std::vector<std::string> args) {
    args.insert(args.begin(), {"kubectl", "--kubeconfig", admin_kubeconfig_});
    absl::StatusOr<RunResult> r = RunCommand(args, absl::Seconds(120));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RunResult{};
  }

  std::unique_ptr<e2e::Cluster> cluster_;
  e2e::ControlPlane* cp_ = nullptr;  // owned by cluster_
  std::string admin_kubeconfig_;
};

TEST_F(DeployE2ETest, EveryOverlayPassesServerSideDryRun) {
  // Namespaced objects need their namespace to exist for a server-side dry run.
  RunResult ns = Kubectl({"create", "namespace", kNamespace});
  ASSERT_EQ(ns.exit_code, 0) << ns.output;
  std::vector<std::string> dirs = {"base"};
  for (const std::string& o : Overlays()) dirs.push_back(absl::StrCat("overlays/", o));
  for (const std::string& dir : dirs) {
    SCOPED_TRACE(dir);
    RunResult r = Kubectl({"apply", "--dry-run=server", "-k", DeployPath(dir)});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("deployment.apps/trimaran-scheduler"));
    EXPECT_THAT(r.output, ::testing::HasSubstr("(server dry run)"));
  }
}

// The RBAC objects of the rendered base, applied for real; then a client holding only
// the ServiceAccount's identity. Shared by the RBAC tests below.
class ShippedRbacTest : public DeployE2ETest {
 protected:
  void SetUp() override {
    DeployE2ETest::SetUp();
    if (HasFatalFailure()) return;
    absl::StatusOr<std::vector<YAML::Node>> docs = Render(DeployPath("base"));
    ASSERT_TRUE(docs.ok()) << docs.status();
    std::vector<YAML::Node> rbac;
    for (const char* kind : {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                             "Role", "RoleBinding"}) {
      for (const YAML::Node& d : FindAll(*docs, kind)) rbac.push_back(d);
    }
    ASSERT_GE(rbac.size(), 6u);
    const std::string file = cp_->dir() + "/rbac.yaml";
    TRIMARAN_ASSERT_OK(WriteFile(file, ToYamlStream(rbac)));
    RunResult applied = Kubectl({"apply", "-f", file});
    ASSERT_EQ(applied.exit_code, 0) << applied.output;

    // A static token whose user is the ServiceAccount's username: RBAC subjects of kind
    // ServiceAccount match it exactly as they match the pod's projected token.
    absl::StatusOr<std::string> token =
        cp_->AddTokenUser(kServiceAccountUser, kServiceAccountGroups);
    ASSERT_TRUE(token.ok()) << token.status();
    scoped_kubeconfig_ = cp_->dir() + "/trimaran-scheduler.kubeconfig";
    TRIMARAN_ASSERT_OK(WriteFile(scoped_kubeconfig_, Kubeconfig(*cp_, *token)));
    absl::StatusOr<kube::RestConfig> config = kube::LoadKubeconfig(scoped_kubeconfig_);
    ASSERT_TRUE(config.ok()) << config.status();
    kube::RestClientOptions options;
    options.max_retries = 0;
    absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
        kube::RestClient::Create(*config, RealClock::Get(), options);
    ASSERT_TRUE(client.ok()) << client.status();
    scoped_ = *std::move(client);
  }

  std::string scoped_kubeconfig_;
  std::unique_ptr<kube::Client> scoped_;  // the interface: Raw() has defaults there
};

// Every call of kube/rest_client.cc that the scheduler and the load watcher make, with
// the ServiceAccount's rights only; and the neighbouring calls that must stay denied.
TEST_F(ShippedRbacTest, AllowsExactlyWhatTheSchedulerCalls) {
  // Admin: a node and a pending pod to work on.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created_node,
      cp_->Request("POST", "/api/v1/nodes",
                   R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})"));
  ASSERT_EQ(created_node.status_code, 201) << created_node.body;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created_pod,
      cp_->Request(
          "POST", "/api/v1/namespaces/default/pods",
          R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},)"
          R"("spec":{"schedulerName":"trimaran","containers":[{"name":"c","image":"x"}]}})"));
  ASSERT_EQ(created_pod.status_code, 201) << created_pod.body;

  // --- Allowed: informers (list + watch of pods and nodes) ---
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::PodList pods, scoped_->ListPods("", {}));
  ASSERT_EQ(pods.items.size(), 1u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::NodeList nodes, scoped_->ListNodes({}));
  EXPECT_EQ(nodes.items.size(), 1u);
  for (const char* watch :
       {"/api/v1/pods?watch=true&timeoutSeconds=1", "/api/v1/nodes?watch=true&timeoutSeconds=1"}) {
    SCOPED_TRACE(watch);
    TRIMARAN_EXPECT_OK(scoped_->Raw("GET", watch, "").status());
  }
  // Namespaces, services and controllers (InterPodAffinity's namespaceSelector,
  // PodTopologySpread's default constraints): list + watch of each.
  for (kube::SelectorResource resource : kube::kAllSelectorResources) {
    SCOPED_TRACE(kube::PluralName(resource));
    TRIMARAN_EXPECT_OK(scoped_->ListSelectorObjects(resource, {}).status());
    TRIMARAN_EXPECT_OK(scoped_
                           ->Raw("GET",
                                 absl::StrCat(std::string(kube::CollectionPath(resource)),
                                              "?watch=true&timeoutSeconds=1"),
                                 "")
                           .status());
  }

  // Volume plugins: list + watch of PVs, PVCs, StorageClasses and CSINodes; merge PATCH
  // of a PV (claimRef) and a PVC (selected-node), as VolumeBinding's PreBind sends them.
  for (kube::StorageResource resource : kube::kAllStorageResources) {
    SCOPED_TRACE(kube::PluralName(resource));
    TRIMARAN_EXPECT_OK(scoped_->ListStorageObjects(resource, {}).status());
    TRIMARAN_EXPECT_OK(scoped_
                           ->Raw("GET",
                                 absl::StrCat(std::string(kube::CollectionPath(resource)),
                                              "?watch=true&timeoutSeconds=1"),
                                 "")
                           .status());
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created_pv,
      cp_->Request("POST", "/api/v1/persistentvolumes",
                   R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"},)"
                   R"("spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],)"
                   R"("hostPath":{"path":"/tmp/pv-1"}}})"));
  ASSERT_EQ(created_pv.status_code, 201) << created_pv.body;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created_pvc,
      cp_->Request("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
                   R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},)"
                   R"("spec":{"accessModes":["ReadWriteOnce"],)"
                   R"("resources":{"requests":{"storage":"1Gi"}}}})"));
  ASSERT_EQ(created_pvc.status_code, 201) << created_pvc.body;
  kube::StoragePatch pv_patch;
  pv_patch.annotations[std::string(kube::kAnnBoundByController)] = "yes";
  pv_patch.claim_ref = kube::ObjectReference{.api_version = "v1",
                                             .kind = "PersistentVolumeClaim",
                                             .namespace_name = "default",
                                             .name = "c1"};
  TRIMARAN_EXPECT_OK(
      scoped_->PatchStorageObject(kube::StorageResource::kPersistentVolumes, "", "pv-1", pv_patch)
          .status());
  kube::StoragePatch pvc_patch;
  pvc_patch.annotations[std::string(kube::kAnnSelectedNode)] = "n1";
  TRIMARAN_EXPECT_OK(scoped_
                         ->PatchStorageObject(kube::StorageResource::kPersistentVolumeClaims,
                                              "default", "c1", pvc_patch)
                         .status());

  // --- Allowed: PodScheduled condition, binding, events ---
  kube::PodStatusPatch patch;
  kube::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = kube::ConditionStatus::kFalse;
  cond.reason = "Unschedulable";
  cond.message = "0/1 nodes are available";
  patch.conditions.push_back(cond);
  patch.condition_order = {"PodScheduled"};
  TRIMARAN_EXPECT_OK(scoped_->PatchPodStatus("default", "web", patch));
  TRIMARAN_EXPECT_OK(scoped_->Bind(kube::MakeBinding(pods.items[0].metadata, "n1")));

  kube::Event ev;
  ev.metadata.namespace_name = "default";
  ev.metadata.name = "web.scheduled";
  ev.regarding.kind = "Pod";
  ev.regarding.namespace_name = "default";
  ev.regarding.name = "web";
  ev.regarding.uid = pods.items[0].metadata.uid;
  ev.reason = "Scheduled";
  ev.note = "Successfully assigned default/web to n1";
  ev.type = "Normal";
  ev.action = "Binding";
  ev.reporting_controller = "trimaran";
  ev.reporting_instance = "trimaran-e2e";
  ev.event_time = absl::Now();
  TRIMARAN_EXPECT_OK(scoped_->CreateEvent(ev));

  // --- Allowed: leader election on the configured Lease in the trimaran namespace ---
  EXPECT_THAT(scoped_->GetLease(kNamespace, kLeaseName).status(),
              StatusIs(absl::StatusCode::kNotFound));
  kube::Lease lease;
  lease.metadata.namespace_name = kNamespace;
  lease.metadata.name = kLeaseName;
  lease.spec.holder_identity = "replica-a";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = absl::Now();
  lease.spec.renew_time = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Lease created_lease, scoped_->CreateLease(lease));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Lease got_lease, scoped_->GetLease(kNamespace, kLeaseName));
  got_lease.spec.renew_time = absl::Now();
  TRIMARAN_EXPECT_OK(scoped_->UpdateLease(got_lease).status());

  // --- Allowed (load watcher, metrics-server provider): the request passes
  // authorization; this apiserver serves no metrics.k8s.io, hence 404, not 403. ---
  EXPECT_THAT(scoped_->Raw("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "").status(),
              StatusIs(absl::StatusCode::kNotFound));

  // --- Denied: everything around it ---
  struct Denied {
    std::string what;
    absl::Status status;
  };
  kube::Lease other = lease;
  other.metadata.name = "someone-else";
  kube::Lease elsewhere = lease;
  elsewhere.metadata.namespace_name = "kube-system";
  const std::vector<Denied> denied = {
      {"create pod", scoped_->CreatePod(MakePod().Name("x").Namespace("default").Obj()).status()},
      {"get pod", scoped_->GetPod("default", "web").status()},
      {"delete pod", scoped_->DeletePod("default", "web")},
      {"create node", scoped_->CreateNode(MakeNode().Name("n2").Obj()).status()},
      {"delete node", scoped_->DeleteNode("n1")},
      {"get node", scoped_->GetNode("n1").status()},
      {"list secrets", scoped_->Raw("GET", "/api/v1/secrets", "").status()},
      {"list configmaps",
       scoped_->Raw("GET", "/api/v1/namespaces/trimaran/configmaps", "").status()},
      {"core events", scoped_->Raw("GET", "/api/v1/events", "").status()},
      {"lease in kube-system", scoped_->CreateLease(elsewhere).status()},
      {"get other lease", scoped_->GetLease(kNamespace, "someone-else").status()},
      {"list leases",
       scoped_->Raw("GET", "/apis/coordination.k8s.io/v1/namespaces/trimaran/leases", "").status()},
      {"metrics of one pod", scoped_->Raw("GET", "/apis/metrics.k8s.io/v1beta1/pods", "").status()},
      {"get pv", scoped_->Raw("GET", "/api/v1/persistentvolumes/pv-1", "").status()},
      {"delete pv", scoped_->Raw("DELETE", "/api/v1/persistentvolumes/pv-1", "").status()},
      {"create pvc",
       scoped_
           ->Raw("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
                 R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c2"},)"
                 R"("spec":{"accessModes":["ReadWriteOnce"],)"
                 R"("resources":{"requests":{"storage":"1Gi"}}}})")
           .status()},
      {"patch storageclass", scoped_
                                 ->Raw("PATCH", "/apis/storage.k8s.io/v1/storageclasses/x", "{}",
                                       "application/merge-patch+json")
                                 .status()},
      {"csidrivers", scoped_->Raw("GET", "/apis/storage.k8s.io/v1/csidrivers", "").status()},
  };
  for (const Denied& d : denied) {
    SCOPED_TRACE(d.what);
    EXPECT_THAT(d.status, StatusIs(absl::StatusCode::kPermissionDenied));
  }
}

// The end-to-end proof: trimaran-scheduler itself, holding ONLY the ServiceAccount's
// identity bound to the shipped roles (scoped_kubeconfig_), with leader election on the
// shipped Lease (trimaran/trimaran-scheduler) and a request-only profile (no metrics
// needed), binds pods, writes their events and holds the Lease; nothing is forbidden.
TEST_F(ShippedRbacTest, SchedulerSchedulesWithOnlyTheShippedRbac) {
  ASSERT_FALSE(scoped_kubeconfig_.empty());
  kube::RestClient& admin = cluster_->client();
  TRIMARAN_ASSERT_OK(
      cluster_->AddNodes(e2e::NumberedNames("node", 3), {.cpu = "4", .memory = "8Gi"}));
  // Created one after another, before the scheduler starts.
  auto web = [](int i) {
    return e2e::PodShape{.name = absl::StrCat("web-", i),
                         .scheduler_name = "trimaran",
                         .cpu = "500m",
                         .memory = "256Mi"};
  };
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(10, web, {.parallelism = 1}));
  const std::string config = cp_->dir() + "/scheduler.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(config, R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceName: trimaran-scheduler
  resourceNamespace: trimaran
profiles:
  - schedulerName: trimaran
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
)"));
  auto sched = e2e::Subprocess::Start({TRIMARAN_SCHEDULER_BIN, "--config", config, "--kubeconfig",
                                       scoped_kubeconfig_, "--secure-port", "0", "--v", "2"},
                                      cp_->dir() + "/scheduler.log");
  ASSERT_TRUE(sched.ok()) << sched.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  int bound = 0;
  while (absl::Now() < deadline) {
    auto pods = admin.ListPods("default", {});
    ASSERT_TRUE(pods.ok()) << pods.status();
    bound = 0;
    for (const kube::Pod& p : pods->items) bound += !p.spec.node_name.empty();
    if (bound == 10) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  EXPECT_EQ(bound, 10) << (*sched)->LogTail();
  auto lease = admin.GetLease(kNamespace, kLeaseName);
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_FALSE(lease->spec.holder_identity.empty());
  // The Scheduled events were written (events.k8s.io/v1, allowed by the shipped role).
  absl::StatusOr<std::string> events = absl::UnknownError("not read");
  for (int i = 0; i < 50; ++i) {
    events = admin.Raw("GET", "/apis/events.k8s.io/v1/namespaces/default/events", "",
                       "application/json");
    if (events.ok() && absl::StrContains(*events, "Successfully assigned default/web-")) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_THAT(*events, ::testing::HasSubstr("Successfully assigned default/web-"));
  (*sched)->Signal(SIGTERM);
  auto code = (*sched)->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << (*sched)->LogTail();
  const std::string log = (*sched)->LogTail(1 << 20);
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("forbidden")));
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("Forbidden")));
}

}  // namespace
}  // namespace trimaran::deploy_testing
