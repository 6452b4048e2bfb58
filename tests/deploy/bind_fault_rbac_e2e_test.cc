// Fault scenario 6 (tests/e2e/fault_injection_e2e_test.cc: a Bind commits upstream but
// its answer is a 504) run by a scheduler holding ONLY the shipped RBAC: a static token
// whose user is the ServiceAccount trimaran-scheduler, bound to the shipped ClusterRole by
// the shipped ClusterRoleBinding (ControlPlane::AddTokenUser), never an admin. After the
// 504 the REST client POSTs again, gets 409, and reads the pod back with a GET
// (Scheduler::IsBoundInApi): that GET needs `get` on pods, which deploy/base/rbac.yaml
// grants for this reason. Every pod binds once, with one Scheduled event and no
// FailedScheduling, and no request of the scheduler is forbidden.
#include <signal.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/deploy/manifests.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/invariants.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::deploy_testing {
namespace {

constexpr char kServiceAccountUser[] = "system:serviceaccount:trimaran:trimaran-scheduler";
constexpr char kServiceAccountGroups[] =
    "system:serviceaccounts,system:serviceaccounts:trimaran,system:authenticated";

std::string TokenKubeconfig(const std::string& server, const std::string& ca_file,
                            const std::string& token) {
  return absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n",
                      "    server: ", server, "\n    certificate-authority: ", ca_file,
                      "\nusers:\n- name: u\n  user:\n    token: ", token,
                      "\ncontexts:\n- name: e2e\n  context:\n    cluster: e2e\n    user: u\n",
                      "current-context: e2e\n");
}

// The RBAC objects of deploy/base as rendered (ServiceAccounts, roles, bindings and the
// namespace they live in), applied with server-side apply as the admin.
absl::Status ApplyShippedRbac(const e2e::ControlPlane& cp, const std::string& admin_kubeconfig) {
  absl::StatusOr<std::vector<YAML::Node>> docs = Render(DeployPath("base"));
  if (!docs.ok()) return docs.status();
  std::vector<YAML::Node> rbac;
  for (const char* kind : {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                           "Role", "RoleBinding"}) {
    for (const YAML::Node& d : FindAll(*docs, kind)) rbac.push_back(d);
  }
  const std::string file = cp.dir() + "/shipped-rbac.yaml";
  if (absl::Status s = WriteFile(file, ToYamlStream(rbac)); !s.ok()) return s;
  absl::StatusOr<RunResult> r = RunCommand(
      {"kubectl", "--kubeconfig", admin_kubeconfig, "apply", "--server-side", "-f", file},
      absl::Seconds(120));
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return absl::InternalError(absl::StrCat("kubectl apply: ", r->output));
  return absl::OkStatus();
}

int Bound(kube::RestClient& admin) {
  auto pods = admin.ListPods("default", {});
  if (!pods.ok()) return -1;
  int n = 0;
  for (const kube::Pod& p : pods->items) n += !p.spec.node_name.empty();
  return n;
}

TEST(BindFaultUnderShippedRbacTest, BindCommitsButItsAnswerIsA504) {
  constexpr int kPods = 20;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<e2e::Cluster> cluster, e2e::Cluster::Start());
  e2e::ControlPlane& cp = cluster->control_plane();
  TRIMARAN_ASSERT_OK(ApplyShippedRbac(cp, cluster->kubeconfig()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::string token,
                                cp.AddTokenUser(kServiceAccountUser, kServiceAccountGroups));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<e2e::FaultProxy> proxy,
                                e2e::FaultProxy::Start({.upstream = cp.server(),
                                                        .upstream_ca_file = cp.ca_file(),
                                                        .tls_cert_dir = cp.dir() + "/proxy"}));
  const std::string kubeconfig = cp.dir() + "/scoped-via-proxy.kubeconfig";
  TRIMARAN_ASSERT_OK(WriteFile(kubeconfig, TokenKubeconfig(proxy->url(), proxy->ca_file(), token)));

  const e2e::RequestMatch bind = {.method = "POST", .path_regex = e2e::kBindingPathRegex};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      e2e::RuleId replaced,
      proxy->AddRule(
          e2e::FaultRule::ReplaceResponse(
              bind, e2e::CannedResponse::KubeStatus(504, "Timeout", "injected gateway timeout"))
              .Times(3)));
  TRIMARAN_ASSERT_OK(
      cluster->AddNodes(e2e::NumberedNames("node", 4), {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(cluster->CreatePods(kPods, [](int i) {
    return e2e::PodShape{.name = absl::StrCat("web-", i),
                         .scheduler_name = "trimaran",
                         .cpu = "100m",
                         .memory = "128Mi"};
  }));
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      e2e::SchedulerProcess sched,
      e2e::StartSchedulerProcess({.binary = TRIMARAN_SCHEDULER_BIN,
                                  .dir = cp.dir(),
                                  .tag = "bind504-rbac",
                                  .config_yaml = e2e::SchedulerConfigYaml("trimaran", false),
                                  .kubeconfig = kubeconfig}));
  kube::RestClient& admin = cluster->client();
  ASSERT_TRUE(e2e::Eventually([&] { return Bound(admin) == kPods; }, absl::Seconds(60)))
      << Bound(admin) << "/" << kPods << "\n"
      << sched.process->LogTail();
  const absl::Duration recovery = absl::Now() - start;
  EXPECT_EQ(proxy->Hits(replaced), 3);

  ASSERT_TRUE(e2e::Eventually(
      [&] {
        auto audit = e2e::AuditCluster(admin, "default", {proxy.get()});
        int scheduled = 0;
        if (audit.ok()) {
          for (const auto& [pod, n] : audit->scheduled_events) scheduled += n;
        }
        return scheduled >= kPods;
      },
      absl::Seconds(30)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(e2e::ClusterAudit audit,
                                e2e::AuditCluster(admin, "default", {proxy.get()}));
  EXPECT_EQ(audit.Violations(kPods), "");
  EXPECT_TRUE(audit.failed_scheduling.empty());
  for (int i = 0; i < kPods; ++i) {
    EXPECT_EQ(audit.scheduled_events[absl::StrCat("web-", i)], 1) << "web-" << i;
  }
  // The three replaced answers: POSTed again (409), then the pod read back with a GET
  // that the shipped role allows (200, never 403). Nothing the scheduler sent was
  // forbidden.
  int conflicts = 0;
  int pod_gets = 0;
  int forbidden = 0;
  for (const e2e::RequestRecord& r : proxy->Requests()) {
    forbidden += r.client_status == 403;
    if (r.request.method == "POST" && absl::EndsWith(r.request.path, "/binding")) {
      conflicts += r.client_status == 409;
    }
    if (r.request.method == "GET" &&
        absl::StartsWith(r.request.path, "/api/v1/namespaces/default/pods/web-")) {
      ++pod_gets;
      EXPECT_EQ(r.client_status, 200) << r.request.path;
    }
  }
  EXPECT_EQ(conflicts, 3);
  EXPECT_EQ(pod_gets, 3);
  EXPECT_EQ(forbidden, 0);
  std::cout << "[scenario 6 under the shipped RBAC] all " << kPods << " pods bound in " << recovery
            << "\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
  const std::string log = sched.process->LogTail(1 << 20);
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("forbidden")));
}

}  // namespace
}  // namespace trimaran::deploy_testing
