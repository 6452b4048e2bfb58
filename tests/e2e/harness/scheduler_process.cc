#include "tests/e2e/harness/scheduler_process.h"

#include <fstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace trimaran::e2e {

std::string SchedulerConfigYaml(const std::string& scheduler_name, bool leader_elect,
                                const std::string& extra_profile) {
  return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  qps: 5000
  burst: 5000
leaderElection:
  leaderElect: )",
                      leader_elect ? "true" : "false", R"(
  resourceName: trimaran-e2e
  resourceNamespace: kube-system
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 1s
profiles:
  - schedulerName: )",
                      scheduler_name, "\n", extra_profile);
}

absl::StatusOr<SchedulerProcess> StartSchedulerProcess(const SchedulerProcessOptions& options) {
  const std::string config = absl::StrCat(options.dir, "/sched-", options.tag, ".yaml");
  {
    std::ofstream out(config, std::ios::trunc);
    out << options.config_yaml;
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("write ", config));
  }
  SchedulerProcess result;
  TRIMARAN_ASSIGN_OR_RETURN(result.secure_port, PickFreePort());
  std::vector<std::string> argv = {options.binary,
                                   "--config=" + config,
                                   "--kubeconfig=" + options.kubeconfig,
                                   "--bind-address=127.0.0.1",
                                   absl::StrCat("--secure-port=", result.secure_port),
                                   absl::StrCat("--cert-dir=", options.dir, "/certs-", options.tag),
                                   "--v=2"};
  if (options.open_admin) argv.push_back(kAdminOpenPathsFlag);
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  TRIMARAN_ASSIGN_OR_RETURN(
      result.process,
      Subprocess::Start(std::move(argv),
                        absl::StrCat(options.dir, "/scheduler-", options.tag, ".log"),
                        options.env));
  return result;
}

}  // namespace trimaran::e2e
