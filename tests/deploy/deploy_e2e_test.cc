// The shipped manifests against the real kube-apiserver 1.37 (tests/e2e/harness):
//   - install.yaml, every overlay and every component apply with `kubectl apply
//     --server-side`, byte for byte (schema, defaulting, admission and the apply merge,
//     for real);
//   - the shipped RBAC, applied for real, is sufficient and minimal: a token bound only
//     to it (the ServiceAccount's identity) can make every call our Kubernetes client
//     makes for the scheduler and the load watcher, and nothing around them.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/http/testing/test_certs.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/binding.h"
#include "kube/auth/reviews.h"
#include "kube/client.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "kube/testing/wrappers.h"
#include "scheduler/decisions/decision_json.h"
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
// The load watcher container's identity (its own ServiceAccount's token Secret).
constexpr char kWatcherUser[] = "system:serviceaccount:trimaran:trimaran-load-watcher";

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

// Each kustomize directory the project ships, as a user applies it: `kubectl apply
// --server-side -k DIR`, the files byte for byte. The components are applied on the
// resource their tests render them with (a temporary kustomization that names both,
// reaching deploy/ unmodified through a symlink).
struct ApplyTarget {
  std::string name;       // what the trace shows
  std::string resource;   // under deploy/
  std::string component;  // under deploy/, or "" for a plain kustomize directory
};

std::vector<ApplyTarget> ApplyTargets() {
  std::vector<ApplyTarget> targets = {{"base", "base", ""}};
  for (const std::string& o : Overlays()) {
    targets.push_back({absl::StrCat("overlays/", o), absl::StrCat("overlays/", o), ""});
  }
  for (const auto& [component, resource] : std::vector<std::pair<std::string, std::string>>{
           {"coscheduling", "overlays/prometheus"},
           {"monitoring", "overlays/prometheus"},
           {"load-watcher-dashboard", "base"},
           {"secure-load-watcher", "overlays/prometheus"},
           {"no-sidecar", "base"},
           {"no-metrics-server-rbac", "base"},
           {"arm64", "base"},
       }) {
    targets.push_back({absl::StrCat("components/", component, " on ", resource), resource,
                       absl::StrCat("components/", component)});
  }
  return targets;
}

// The Prometheus Operator's PodMonitor kind (components/monitoring ships a PodMonitor,
// not its CRD): the smallest CRD that serves it, installed by the test as the operator's
// Helm chart would.
constexpr char kPodMonitorCrd[] = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: podmonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {plural: podmonitors, singular: podmonitor, kind: PodMonitor, listKind: PodMonitorList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
)";

// The kube-apiserver under test (1.37) serves every API group the manifests use
// (policy/v1 PodDisruptionBudgets, storage.k8s.io/v1 CSIStorageCapacities, ...): each
// directory applies as shipped. install.yaml is applied for real; then every directory
// is applied with the server's dry run over it (schema, defaulting, admission and the
// server-side apply merge, for real, without the objects of one overlay leaking into
// the next).
TEST_F(DeployE2ETest, InstallYamlAndEveryOverlayAndComponentApplyServerSide) {
  const std::string crd_file = cp_->dir() + "/podmonitor-crd.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(crd_file, kPodMonitorCrd));
  RunResult crd = Kubectl({"apply", "--server-side", "-f", crd_file});
  ASSERT_EQ(crd.exit_code, 0) << crd.output;

  RunResult installed = Kubectl({"apply", "--server-side", "--field-manager=trimaran-install", "-f",
                                 DeployPath("install.yaml")});
  ASSERT_EQ(installed.exit_code, 0) << installed.output;
  EXPECT_THAT(installed.output, ::testing::HasSubstr("deployment.apps/trimaran-scheduler"));
  EXPECT_THAT(installed.output,
              ::testing::HasSubstr("poddisruptionbudget.policy/trimaran-scheduler"));
  EXPECT_THAT(installed.output,
              ::testing::HasSubstr("priorityclass.scheduling.k8s.io/trimaran-scheduler"));
  EXPECT_THAT(installed.output, ::testing::HasSubstr("serverside-applied"));
  // The objects are really there, as install.yaml wrote them (policy/v1, served).
  RunResult pdb = Kubectl({"get", "poddisruptionbudgets.v1.policy", "-n", kNamespace,
                           "trimaran-scheduler", "-o", "name"});
  EXPECT_EQ(pdb.exit_code, 0) << pdb.output;
  RunResult np = Kubectl({"get", "networkpolicy", "-n", kNamespace, "-o", "name"});
  EXPECT_THAT(np.output, ::testing::HasSubstr("networkpolicy.networking.k8s.io/trimaran"));

  for (const ApplyTarget& target : ApplyTargets()) {
    SCOPED_TRACE(target.name);
    std::string dir = DeployPath(target.resource);
    std::string temporary;
    if (!target.component.empty()) {
      absl::StatusOr<std::string> made =
          MakeComponentKustomization(target.resource, target.component);
      ASSERT_TRUE(made.ok()) << made.status();
      dir = temporary = *made;
    }
    // A component that ships a CRD (coscheduling's PodGroup) serves its kind only once the
    // CRD is established: the CRDs first, for real, then everything.
    absl::StatusOr<std::vector<YAML::Node>> docs = Render(dir);
    ASSERT_TRUE(docs.ok()) << docs.status();
    std::vector<YAML::Node> crds = FindAll(*docs, "CustomResourceDefinition");
    if (!crds.empty()) {
      const std::string file = cp_->dir() + "/crds.yaml";
      TRIMARAN_ASSERT_OK(WriteFile(file, ToYamlStream(crds)));
      RunResult applied = Kubectl({"apply", "--server-side", "-f", file});
      ASSERT_EQ(applied.exit_code, 0) << applied.output;
      RunResult established =
          Kubectl({"wait", "--for=condition=Established", "--timeout=60s", "-f", file});
      ASSERT_EQ(established.exit_code, 0) << established.output;
    }
    RunResult r = Kubectl({"apply", "--server-side", "--dry-run=server",
                           "--field-manager=trimaran-install", "-k", dir});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("deployment.apps/trimaran-scheduler"));
    EXPECT_THAT(r.output, ::testing::HasSubstr("poddisruptionbudget.policy/trimaran-scheduler"));
    EXPECT_THAT(r.output, ::testing::HasSubstr("networkpolicy.networking.k8s.io/trimaran"));
    EXPECT_THAT(r.output, ::testing::HasSubstr("(server dry run)"));
    EXPECT_THAT(r.output, ::testing::Not(::testing::HasSubstr("unknown field")));
    if (!temporary.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(temporary, ignored);
    }
  }
}

// The RBAC objects of the rendered base, applied for real; then a client holding only
// the ServiceAccount's identity. Shared by the RBAC tests below.
class ShippedRbacTest : public DeployE2ETest {
 protected:
  void SetUp() override {
    DeployE2ETest::SetUp();
    if (HasFatalFailure()) return;
    absl::StatusOr<std::vector<YAML::Node>> docs = Render(DeployPath(RbacDir()));
    ASSERT_TRUE(docs.ok()) << docs.status();
    std::vector<YAML::Node> rbac;
    for (const char* kind : {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                             "Role", "RoleBinding"}) {
      for (const YAML::Node& d : FindAll(*docs, kind)) rbac.push_back(d);
    }
    ASSERT_GE(rbac.size(), 4u);
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

  // The kustomize directory whose RBAC is applied.
  virtual std::string RbacDir() const { return "base"; }

  std::string scoped_kubeconfig_;
  std::unique_ptr<kube::Client> scoped_;  // the interface: Raw() has defaults there
};

// The extender overlay's RBAC (read-only).
class ExtenderRbacTest : public ShippedRbacTest {
 protected:
  std::string RbacDir() const override { return "overlays/extender"; }
};

// trimaran-scheduler --extender holding ONLY the extender overlay's RBAC: every informer
// syncs (nothing forbidden), /filter answers from the cache, and the identity cannot
// bind, write events or take a Lease.
TEST_F(ExtenderRbacTest, ExtenderServesWithOnlyTheOverlayRbac) {
  ASSERT_FALSE(scoped_kubeconfig_.empty());
  TRIMARAN_ASSERT_OK(
      cluster_->AddNodes(e2e::NumberedNames("node", 2), {.cpu = "4", .memory = "8Gi"}));
  const std::string config = cp_->dir() + "/extender.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(config, R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: trimaran
)"));
  absl::StatusOr<int> port = e2e::PickFreePort();
  ASSERT_TRUE(port.ok()) << port.status();
  const std::string certs = cp_->dir() + "/extender-certs";
  // Mutual TLS, as the overlay ships it: a client CA and the one allowed name.
  const std::string pki_dir = cp_->dir() + "/extender-pki";
  std::filesystem::create_directories(pki_dir);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::testing::TestPki pki, http::testing::MakeTestPki(pki_dir));
  // Without a client CA (and without --extender-allow-unauthenticated) it refuses to start.
  absl::StatusOr<RunResult> refused =
      RunCommand({TRIMARAN_SCHEDULER_BIN, "--extender", "--config", config, "--kubeconfig",
                  scoped_kubeconfig_, "--secure-port", "0", "--cert-dir", certs},
                 absl::Seconds(30));
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->exit_code, 1) << refused->output;
  EXPECT_THAT(refused->output, ::testing::HasSubstr("--extender requires mutual TLS"));
  auto ext = e2e::Subprocess::Start(
      {TRIMARAN_SCHEDULER_BIN, "--extender", "--config", config, "--kubeconfig", scoped_kubeconfig_,
       "--secure-port", "0", "--cert-dir", certs, "--extender-bind-address=127.0.0.1",
       "--extender-client-ca-file=" + pki.ca.cert_file, "--extender-allowed-names=test-client",
       absl::StrCat("--extender-port=", *port), "--v", "2"},
      cp_->dir() + "/extender.log");
  ASSERT_TRUE(ext.ok()) << ext.status();
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> client =
      http::CurlTransport::Create({.tls = {.ca_file = certs + "/trimaran-scheduler.crt",
                                           .client_cert_file = pki.client.cert_file,
                                           .client_key_file = pki.client.key_file}});
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> no_cert =
      http::CurlTransport::Create({.tls = {.ca_file = certs + "/trimaran-scheduler.crt"}});
  ASSERT_TRUE(no_cert.ok()) << no_cert.status();
  const std::string url = absl::StrCat("https://127.0.0.1:", *port);
  // Ready once every informer synced: within the 30 s the daemon gives the optional ones
  // only if none is forbidden.
  bool ready = false;
  const absl::Time deadline = absl::Now() + absl::Seconds(25);
  while (!ready && absl::Now() < deadline) {
    absl::StatusOr<http::HttpResponse> r = (*client)->Send({.url = url + "/readyz"});
    ready = r.ok() && r->status_code == 200;
    if (!ready) absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_TRUE(ready) << (*ext)->LogTail();
  http::HttpRequest filter;
  filter.method = "POST";
  filter.url = url + "/filter";
  filter.headers.Set("Content-Type", "application/json");
  filter.body = R"({"Pod":{"metadata":{"name":"p","namespace":"default","uid":"u1"},)"
                R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}},)"
                R"("Nodes":null,"NodeNames":["node-0","node-1"]})";
  absl::StatusOr<http::HttpResponse> answer = (*client)->Send(filter);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status_code, 200);
  EXPECT_THAT(answer->body, ::testing::HasSubstr(R"("NodeNames":["node-0","node-1"])"));
  EXPECT_THAT(answer->body, ::testing::HasSubstr(R"("Error":"")"));
  // No client certificate: the handshake fails.
  EXPECT_FALSE((*no_cert)->Send(filter).ok());
  // /metrics on the extender port: a bearer token with the metrics viewer role, as on
  // the secure port (reviewed with the ServiceAccount's system:auth-delegator binding).
  const absl::StatusOr<http::HttpResponse> anonymous = (*client)->Send({.url = url + "/metrics"});
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  EXPECT_EQ(anonymous->status_code, 401) << anonymous->body;
  http::HttpRequest admin_metrics{.url = url + "/metrics"};
  admin_metrics.headers.Add("Authorization", "Bearer " + cp_->token());  // system:masters
  const absl::StatusOr<http::HttpResponse> metrics = (*client)->Send(admin_metrics);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(metrics->status_code, 200) << metrics->body;
  EXPECT_THAT(metrics->body, ::testing::HasSubstr("trimaran_extender_requests_total"));

  // Read-only: no binding, no events, no Lease, no GET of a pod.
  EXPECT_THAT(scoped_->GetPod("default", "p").status(),
              StatusIs(absl::StatusCode::kPermissionDenied));
  kube::ObjectMeta meta;
  meta.name = "p";
  meta.namespace_name = "default";
  EXPECT_THAT(scoped_->Bind(kube::MakeBinding(meta, "node-0")),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(scoped_
                  ->Raw("POST", "/apis/events.k8s.io/v1/namespaces/default/events",
                        R"({"metadata":{"name":"e"}})", "application/json")
                  .status(),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(scoped_->GetLease(kNamespace, kLeaseName).status(),
              StatusIs(absl::StatusCode::kPermissionDenied));

  (*ext)->Signal(SIGTERM);
  auto code = (*ext)->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << (*ext)->LogTail();
  const std::string log = (*ext)->LogTail(1 << 20);
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("forbidden")));
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("Forbidden")));
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("has not synced")));
}

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
  // PodTopologySpread's default constraints) and PodDisruptionBudgets (DefaultPreemption):
  // list + watch of each. policy/v1 PodDisruptionBudgets are served; the daemon's
  // fallback for older apiservers, policy/v1beta1, is not (removed in 1.25): authorized
  // (the same rule, one API group), then 404 (a denial would be 403).
  for (kube::SelectorResource resource : kube::kAllSelectorResources) {
    SCOPED_TRACE(kube::CollectionPath(resource));
    const bool served = resource != kube::SelectorResource::kPodDisruptionBudgetsV1beta1;
    const auto allowed = [served](const absl::Status& s) {
      if (served) {
        TRIMARAN_EXPECT_OK(s);
      } else {
        EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound));
      }
    };
    allowed(scoped_->ListSelectorObjects(resource, {}).status());
    allowed(scoped_
                ->Raw("GET",
                      absl::StrCat(std::string(kube::CollectionPath(resource)),
                                   "?watch=true&timeoutSeconds=1"),
                      "")
                .status());
  }

  // Volume plugins: list + watch of PVs, PVCs, StorageClasses, CSINodes, CSIDrivers and
  // CSIStorageCapacities (storage.k8s.io/v1, served); merge PATCH of a PV (claimRef) and
  // a PVC (selected-node), as VolumeBinding's PreBind sends them.
  for (kube::StorageResource resource : kube::kAllStorageResources) {
    SCOPED_TRACE(kube::CollectionPath(resource));
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
  // After a bind error the scheduler reads the pod back (Scheduler::IsBoundInApi).
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod got_pod, scoped_->GetPod("default", "web"));
  EXPECT_EQ(got_pod.spec.node_name, "n1");

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

  // --- Allowed: preemption deletes its victims (a pod the admin creates) ---
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created_victim,
      cp_->Request("POST", "/api/v1/namespaces/default/pods",
                   R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"victim"},)"
                   R"("spec":{"containers":[{"name":"c","image":"x"}]}})"));
  ASSERT_EQ(created_victim.status_code, 201) << created_victim.body;
  TRIMARAN_EXPECT_OK(scoped_->DeletePod("default", "victim"));

  // --- Allowed: the secure port's TokenReviews and SubjectAccessReviews
  // (system:auth-delegator) ---
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::TokenReviewResult review,
                                kube::ReviewToken(*scoped_, "not-a-token"));
  EXPECT_FALSE(review.authenticated);
  TRIMARAN_EXPECT_OK(
      kube::ReviewNonResourceAccess(*scoped_, {.username = "someone"}, "get", "/metrics").status());

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
      // metrics.k8s.io is the load watcher's (its own ServiceAccount), not the scheduler's.
      {"node metrics", scoped_->Raw("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "").status()},
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
      {"get csidriver", scoped_->Raw("GET", "/apis/storage.k8s.io/v1/csidrivers/x", "").status()},
      {"create csidriver",
       scoped_
           ->Raw("POST", "/apis/storage.k8s.io/v1/csidrivers",
                 R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"x"},)"
                 R"("spec":{}})")
           .status()},
      {"volumeattachments",
       scoped_->Raw("GET", "/apis/storage.k8s.io/v1/volumeattachments", "").status()},
  };
  for (const Denied& d : denied) {
    SCOPED_TRACE(d.what);
    EXPECT_THAT(d.status, StatusIs(absl::StatusCode::kPermissionDenied));
  }
}

// The load watcher's ServiceAccount (the sidecar's identity) reads what its provider
// needs (the node list, metrics.k8s.io nodes) and nothing of the scheduler's: it cannot
// bind pods (a SubjectAccessReview says no, and a real binding POST with its token gets
// 403), patch pod status, write events or take the Lease.
TEST_F(ShippedRbacTest, WatcherServiceAccountCannotBindPods) {
  absl::StatusOr<std::string> token = cp_->AddTokenUser(kWatcherUser, kServiceAccountGroups);
  ASSERT_TRUE(token.ok()) << token.status();
  const std::string kubeconfig = cp_->dir() + "/trimaran-load-watcher.kubeconfig";
  TRIMARAN_ASSERT_OK(WriteFile(kubeconfig, Kubeconfig(*cp_, *token)));
  absl::StatusOr<kube::RestConfig> config = kube::LoadKubeconfig(kubeconfig);
  ASSERT_TRUE(config.ok()) << config.status();
  kube::RestClientOptions options;
  options.max_retries = 0;
  absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
      kube::RestClient::Create(*config, RealClock::Get(), options);
  ASSERT_TRUE(client.ok()) << client.status();
  kube::Client& watcher = **client;

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

  // Allowed: the node list; metrics.k8s.io nodes passes authorization (this apiserver
  // serves no metrics.k8s.io: 404, not 403).
  TRIMARAN_EXPECT_OK(watcher.ListNodes({}).status());
  EXPECT_THAT(watcher.Raw("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "").status(),
              StatusIs(absl::StatusCode::kNotFound));

  // The authorizer's own answer for pods/binding create.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto review,
      cp_->Request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                   absl::StrCat(R"({"apiVersion":"authorization.k8s.io/v1",)",
                                R"("kind":"SubjectAccessReview","spec":{"user":")", kWatcherUser,
                                R"(","groups":["system:serviceaccounts",)",
                                R"("system:serviceaccounts:trimaran","system:authenticated"],)",
                                R"("resourceAttributes":{"namespace":"default","verb":"create",)",
                                R"("resource":"pods","subresource":"binding","name":"web"}}})")));
  ASSERT_EQ(review.status_code, 201) << review.body;
  EXPECT_THAT(review.body, ::testing::HasSubstr(R"("allowed":false)")) << review.body;

  // And a real binding with the watcher's token.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::PodList pods, scoped_->ListPods("", {}));
  ASSERT_EQ(pods.items.size(), 1u);
  EXPECT_THAT(watcher.Bind(kube::MakeBinding(pods.items[0].metadata, "n1")),
              StatusIs(absl::StatusCode::kPermissionDenied));
  kube::PodStatusPatch patch;
  kube::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = kube::ConditionStatus::kFalse;
  patch.conditions.push_back(cond);
  patch.condition_order = {"PodScheduled"};
  EXPECT_THAT(watcher.PatchPodStatus("default", "web", patch),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(watcher.ListPods("", {}).status(), StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(watcher.GetLease(kNamespace, kLeaseName).status(),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(watcher.Raw("GET", "/api/v1/namespaces/trimaran/secrets", "").status(),
              StatusIs(absl::StatusCode::kPermissionDenied));
  // Still unbound after the attempt.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto got,
                                cp_->Request("GET", "/api/v1/namespaces/default/pods/web"));
  EXPECT_THAT(got.body, ::testing::Not(::testing::HasSubstr(R"("nodeName")")));
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

// The secure port as shipped: the scheduler, holding only the ServiceAccount's identity
// (so its TokenReviews and SubjectAccessReviews go through the shipped
// system:auth-delegator binding), with default authentication and authorization:
// probes open, /metrics 401 without a token, 403 for a user without the viewer role, 200
// for a user bound to the shipped trimaran-scheduler-metrics-viewer ClusterRole; /configz
// (system:masters) never shows the Prometheus token of the plugin args.
TEST_F(ShippedRbacTest, SecurePortAuthenticatesAndAuthorizes) {
  ASSERT_FALSE(scoped_kubeconfig_.empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string prom_token,
                                cp_->AddTokenUser("prom", "system:authenticated"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string nobody_token,
                                cp_->AddTokenUser("nobody", "system:authenticated"));
  RunResult bound = Kubectl({"create", "clusterrolebinding", "prom-metrics",
                             "--clusterrole=trimaran-scheduler-metrics-viewer", "--user=prom"});
  ASSERT_EQ(bound.exit_code, 0) << bound.output;

  const std::string config = cp_->dir() + "/secure-port.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(config, R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: trimaran
    plugins:
      score:
        enabled:
          - name: TargetLoadPacking
    pluginConfig:
      - name: TargetLoadPacking
        args:
          metricProvider:
            type: Prometheus
            address: http://127.0.0.1:1
            token: pr0m3theus-s3cret
)"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const int port, e2e::PickFreePort());
  auto sched = e2e::Subprocess::Start(
      {TRIMARAN_SCHEDULER_BIN, "--config", config, "--kubeconfig", scoped_kubeconfig_,
       "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", port),
       "--cert-dir=" + cp_->dir() + "/secure-port-certs", "--v=2"},
      cp_->dir() + "/secure-port.log");
  ASSERT_TRUE(sched.ok()) << sched.status();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<http::CurlTransport> curl,
      http::CurlTransport::Create({.tls = {.insecure_skip_verify = true}}));
  auto get = [&](const std::string& path, const std::string& token) {
    http::HttpRequest req{.url = absl::StrCat("https://127.0.0.1:", port, path),
                          .timeout = absl::Seconds(5)};
    if (!token.empty()) req.headers.Add("Authorization", "Bearer " + token);
    absl::StatusOr<http::HttpResponse> r = curl->Send(req);
    return r.ok() ? *r : http::HttpResponse{.status_code = -1, .body = r.status().ToString()};
  };
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    up = get("/healthz", "").status_code == 200;
    if (!up) absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(up) << (*sched)->LogTail();
  EXPECT_NE(get("/readyz", "").status_code, 401);  // a probe path: no token needed

  const http::HttpResponse anonymous = get("/metrics", "");
  EXPECT_EQ(anonymous.status_code, 401) << anonymous.body;
  EXPECT_EQ(get("/metrics", "made-up-token").status_code, 401);
  const http::HttpResponse nobody = get("/metrics", nobody_token);
  EXPECT_EQ(nobody.status_code, 403) << nobody.body;
  EXPECT_THAT(nobody.body, ::testing::HasSubstr("User \"nobody\" cannot get path \"/metrics\""));
  const http::HttpResponse prom = get("/metrics", prom_token);
  EXPECT_EQ(prom.status_code, 200) << prom.body;
  EXPECT_THAT(prom.body, ::testing::HasSubstr("scheduler_pending_pods"));
  EXPECT_EQ(get("/configz", prom_token).status_code, 403);  // the role is /metrics only

  const http::HttpResponse configz = get("/configz", cp_->token());  // system:masters
  EXPECT_EQ(configz.status_code, 200) << configz.body;
  EXPECT_THAT(configz.body, ::testing::HasSubstr("\"address\":\"http://127.0.0.1:1\""));
  EXPECT_THAT(configz.body, ::testing::Not(::testing::HasSubstr("pr0m3theus-s3cret")));
  EXPECT_THAT(configz.body, ::testing::HasSubstr("<redacted>"));

  (*sched)->Signal(SIGTERM);
  auto code = (*sched)->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  const std::string log = (*sched)->LogTail(1 << 20);
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("TokenReview failed")));
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("SubjectAccessReview failed")));
}

// Live decisions (scheduler/decisions/): the real scheduler, holding only the shipped
// ServiceAccount's rights, records its decisions; /debug/decisions answers 401 without a
// token, 403 for users without the shipped trimaran-scheduler-decisions-viewer
// ClusterRole (the metrics viewer included), 200 with it; and the real `trimaranctl
// explain` binary names the node the API shows the pod bound to, with plugin scores.
TEST_F(ShippedRbacTest, DecisionsEndpointAndExplainShowTheRealDecision) {
  ASSERT_FALSE(scoped_kubeconfig_.empty());
  kube::RestClient& admin = cluster_->client();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string dev_token,
                                cp_->AddTokenUser("dev", "system:authenticated"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string prom_token,
                                cp_->AddTokenUser("prom", "system:authenticated"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string nobody_token,
                                cp_->AddTokenUser("nobody", "system:authenticated"));
  RunResult bound_dev =
      Kubectl({"create", "clusterrolebinding", "dev-decisions",
               "--clusterrole=trimaran-scheduler-decisions-viewer", "--user=dev"});
  ASSERT_EQ(bound_dev.exit_code, 0) << bound_dev.output;
  RunResult bound_prom =
      Kubectl({"create", "clusterrolebinding", "prom-metrics",
               "--clusterrole=trimaran-scheduler-metrics-viewer", "--user=prom"});
  ASSERT_EQ(bound_prom.exit_code, 0) << bound_prom.output;
  const std::string dev_token_file = cp_->dir() + "/dev.token";
  const std::string nobody_token_file = cp_->dir() + "/nobody.token";
  TRIMARAN_ASSERT_OK(WriteFile(dev_token_file, dev_token + "\n"));
  TRIMARAN_ASSERT_OK(WriteFile(nobody_token_file, nobody_token + "\n"));

  TRIMARAN_ASSERT_OK(
      cluster_->AddNodes(e2e::NumberedNames("node", 4), {.cpu = "4", .memory = "8Gi"}));
  auto web = [](int i) {
    return e2e::PodShape{.name = absl::StrCat("web-", i),
                         .scheduler_name = "trimaran",
                         .cpu = "500m",
                         .memory = "256Mi"};
  };
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(6, web, {.parallelism = 1}));
  const std::string config = cp_->dir() + "/decisions.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(config, R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: trimaran
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
)"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const int port, e2e::PickFreePort());
  auto sched = e2e::Subprocess::Start(
      {TRIMARAN_SCHEDULER_BIN, "--config", config, "--kubeconfig", scoped_kubeconfig_,
       "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", port),
       "--cert-dir=" + cp_->dir() + "/decisions-certs", "--decisions-capacity=50", "--v=2"},
      cp_->dir() + "/decisions.log");
  ASSERT_TRUE(sched.ok()) << sched.status();
  std::map<std::string, std::string> node_of;  // pod name -> spec.nodeName (the API's)
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    auto pods = admin.ListPods("default", {});
    ASSERT_TRUE(pods.ok()) << pods.status();
    node_of.clear();
    for (const kube::Pod& p : pods->items) {
      if (!p.spec.node_name.empty()) node_of[p.metadata.name] = p.spec.node_name;
    }
    if (node_of.size() == 6) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_EQ(node_of.size(), 6u) << (*sched)->LogTail();

  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<http::CurlTransport> curl,
      http::CurlTransport::Create({.tls = {.insecure_skip_verify = true}}));
  auto get = [&](const std::string& path, const std::string& token) {
    http::HttpRequest req{.url = absl::StrCat("https://127.0.0.1:", port, path),
                          .timeout = absl::Seconds(5)};
    if (!token.empty()) req.headers.Add("Authorization", "Bearer " + token);
    absl::StatusOr<http::HttpResponse> r = curl->Send(req);
    return r.ok() ? *r : http::HttpResponse{.status_code = -1, .body = r.status().ToString()};
  };
  EXPECT_EQ(get("/debug/decisions", "").status_code, 401);
  const http::HttpResponse nobody = get("/debug/decisions", nobody_token);
  EXPECT_EQ(nobody.status_code, 403) << nobody.body;
  EXPECT_THAT(nobody.body,
              ::testing::HasSubstr("User \"nobody\" cannot get path \"/debug/decisions\""));
  EXPECT_EQ(get("/debug/decisions", prom_token).status_code, 403);  // metrics only
  EXPECT_EQ(get("/debug/decisions?limit=x", dev_token).status_code, 400);

  // The decisions, one Bound per pod, on the node the API shows.
  bool all_recorded = false;
  sched::decisions::DecisionList list;
  for (int i = 0; i < 50 && !all_recorded; ++i) {
    const http::HttpResponse dev = get("/debug/decisions", dev_token);
    ASSERT_EQ(dev.status_code, 200) << dev.body;
    EXPECT_EQ(dev.headers.GetOr("Content-Type"), "application/json");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(list, sched::decisions::DecodeDecisions(dev.body));
    all_recorded = list.decisions.size() >= 6;
    if (!all_recorded) absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(all_recorded) << list.decisions.size();
  EXPECT_EQ(list.capacity, 50u);
  for (const sched::decisions::Decision& d : list.decisions) {
    SCOPED_TRACE(d.pod);
    ASSERT_EQ(d.result, sched::decisions::DecisionResult::kBound) << d.message;
    EXPECT_EQ(d.profile, "trimaran");
    EXPECT_EQ(d.node, node_of[d.pod.substr(std::string("default/").size())]);
    ASSERT_FALSE(d.top.empty());
    EXPECT_EQ(d.top[0].node, d.node);
    EXPECT_EQ(d.evaluated_nodes, 4);
  }
  const http::HttpResponse one = get("/debug/decisions?pod=default/web-3&limit=1", dev_token);
  ASSERT_EQ(one.status_code, 200) << one.body;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::decisions::DecisionList web3,
                                sched::decisions::DecodeDecisions(one.body));
  ASSERT_EQ(web3.decisions.size(), 1u);
  EXPECT_EQ(web3.decisions[0].pod, "default/web-3");

  // The real trimaranctl binary.
  const std::string scheduler_url = absl::StrCat("https://127.0.0.1:", port);
  auto explain = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        TRIMARANCTL_BIN,   "explain",     "default/web-3", "--kubeconfig",
        admin_kubeconfig_, "--scheduler", scheduler_url,   "--insecure-skip-tls-verify"};
    args.insert(args.end(), extra.begin(), extra.end());
    absl::StatusOr<RunResult> r = RunCommand(args, absl::Seconds(60));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RunResult{};
  };
  const RunResult table = explain({"--token-file", dev_token_file});
  EXPECT_EQ(table.exit_code, 0) << table.output;
  EXPECT_THAT(table.output, ::testing::HasSubstr("Pod:       default/web-3"));
  EXPECT_THAT(table.output, ::testing::HasSubstr(absl::StrCat("Node now:  ", node_of["web-3"],
                                                              " (agrees with the decision)")));
  EXPECT_THAT(table.output, ::testing::HasSubstr(absl::StrCat("bound to ", node_of["web-3"])));
  EXPECT_THAT(table.output, ::testing::HasSubstr("NodeResourcesFit"));
  EXPECT_THAT(table.output, ::testing::HasSubstr("<- chosen"));
  EXPECT_THAT(table.output, ::testing::HasSubstr("4 evaluated, 4 feasible"));
  std::cout << "trimaranctl explain default/web-3:\n" << table.output;
  const RunResult json = explain({"--token-file", dev_token_file, "-o", "json"});
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, ::testing::HasSubstr("\"nodeNameAgrees\":true"));
  // kubectl's spellings: POD -n NAMESPACE, and POD alone (the context's namespace, else
  // "default").
  for (const std::vector<std::string>& pod_args :
       std::vector<std::vector<std::string>>{{"web-3", "-n", "default"}, {"web-3"}}) {
    std::vector<std::string> args = {TRIMARANCTL_BIN, "explain"};
    args.insert(args.end(), pod_args.begin(), pod_args.end());
    args.insert(args.end(), {"--kubeconfig", admin_kubeconfig_, "--scheduler", scheduler_url,
                             "--insecure-skip-tls-verify", "--token-file", dev_token_file});
    absl::StatusOr<RunResult> r = RunCommand(args, absl::Seconds(60));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->exit_code, 0) << r->output;
    EXPECT_THAT(r->output, ::testing::HasSubstr("Pod:       default/web-3"));
  }
  const RunResult denied = explain({"--token-file", nobody_token_file});
  EXPECT_EQ(denied.exit_code, 1) << denied.output;
  EXPECT_THAT(denied.output, ::testing::HasSubstr("trimaran-scheduler-decisions-viewer"));
  const RunResult missing = [&] {
    absl::StatusOr<RunResult> r =
        RunCommand({TRIMARANCTL_BIN, "explain", "default/nope", "--kubeconfig", admin_kubeconfig_,
                    "--scheduler", scheduler_url, "--insecure-skip-tls-verify", "--token-file",
                    dev_token_file},
                   absl::Seconds(60));
    return r.ok() ? *r : RunResult{};
  }();
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, ::testing::HasSubstr("pod default/nope not found"));

  (*sched)->Signal(SIGTERM);
  auto code = (*sched)->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
}

}  // namespace
}  // namespace trimaran::deploy_testing
