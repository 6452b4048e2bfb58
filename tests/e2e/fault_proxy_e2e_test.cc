// The fault-injection suite's groundwork, end to end: the real trimaran-scheduler binary
// talks to the real kube-apiserver through a FaultProxy that serves TLS with its own
// certificate (the daemon's kubeconfig trusts it) and verifies the apiserver's. The
// scheduler lists, watches and binds through the proxy; the proxy counts the Bindings.
#include <signal.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr int kPods = 6;

TEST(FaultProxyE2ETest, SchedulerBindsThroughTheTlsProxyWhichCountsTheBindings) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Cluster> cluster, Cluster::Start());
  ControlPlane& cp = cluster->control_plane();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<FaultProxy> proxy,
                                FaultProxy::Start({.upstream = cp.server(),
                                                   .upstream_ca_file = cp.ca_file(),
                                                   .tls_cert_dir = cp.dir() + "/proxy-tls"}));
  ASSERT_TRUE(absl::StartsWith(proxy->url(), "https://127.0.0.1:")) << proxy->url();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string kubeconfig,
                                cp.WriteKubeconfigFor("via-proxy", proxy->url(), proxy->ca_file()));
  const RequestMatch bind = {.method = "POST", .path_regex = kBindingPathRegex};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RuleId binds, proxy->AddRule(FaultRule::Count(bind)));

  // Set-up goes to the apiserver directly (the admin client); only the daemon uses the proxy.
  TRIMARAN_ASSERT_OK(cluster->AddNodes(NumberedNames("node", 3), {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(cluster->CreatePods(kPods, [](int i) {
    return PodShape{.name = absl::StrCat("web-", i),
                    .scheduler_name = "trimaran",
                    .cpu = "100m",
                    .memory = "128Mi"};
  }));
  EXPECT_EQ(proxy->NextSeq(), 1) << "nothing went through the proxy yet";

  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess sched,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cp.dir(),
                             .tag = "via-proxy",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = kubeconfig}));
  auto bound = [&] {
    auto pods = cluster->client().ListPods("default", {});
    if (!pods.ok()) return -1;
    int n = 0;
    for (const kube::Pod& p : pods->items) n += !p.spec.node_name.empty();
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return bound() == kPods; }, absl::Seconds(60)))
      << "bound " << bound() << "/" << kPods << "\n"
      << sched.process->LogTail();

  // One Binding per pod, each forwarded and created upstream (201).
  EXPECT_EQ(proxy->Hits(binds), kPods);
  EXPECT_EQ(proxy->CountRequests(bind), kPods);
  for (const RequestRecord& r : proxy->Requests()) {
    if (r.request.method != "POST" || !absl::EndsWith(r.request.path, "/binding")) continue;
    EXPECT_EQ(r.outcome, "forwarded") << r.request.path;
    EXPECT_EQ(r.upstream_status, 201) << r.request.path;
    EXPECT_EQ(r.client_status, 201) << r.request.path;
  }
  // The informers listed and watched through the proxy too (pods and nodes).
  EXPECT_GE(proxy->CountRequests({.method = "GET", .watch = false}), 2);
  EXPECT_GE(proxy->CountRequests({.method = "GET", .watch = true}), 2);

  // SIGTERM: graceful through the proxy as well.
  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

}  // namespace
}  // namespace trimaran::e2e
