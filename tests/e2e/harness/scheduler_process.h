#pragma once
// The trimaran-scheduler binary as a child process of an e2e test: the
// KubeSchedulerConfiguration the e2e tests run it with, and the start every one of them
// repeats (config file written, --kubeconfig, 127.0.0.1, a secure port picked at run
// time, a --cert-dir and a log of its own).
//
//   TRIMARAN_ASSERT_OK_AND_ASSIGN(
//       SchedulerProcess sched,
//       StartSchedulerProcess({.binary = TRIMARAN_SCHEDULER_BIN, .dir = cp.dir(), .tag = "a",
//                              .config_yaml = SchedulerConfigYaml("trimaran", false),
//                              .kubeconfig = cluster->kubeconfig()}));
//   ... sched.process->LogTail(), https://127.0.0.1:<sched.secure_port>/metrics ...
//
// Thread-safety: the functions are reentrant; SchedulerProcess is owned by one thread
// (see Subprocess).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {

// A kubescheduler.config.k8s.io/v1 configuration: clientConnection qps/burst 5000, one
// profile `scheduler_name` followed by `extra_profile` (YAML continuing that profile
// item, e.g. "    plugins: ..."), and leader election on or off with the Lease
// kube-system/trimaran-e2e (4 s / 3 s / 1 s).
std::string SchedulerConfigYaml(const std::string& scheduler_name, bool leader_elect,
                                const std::string& extra_profile = "");

struct SchedulerProcessOptions {
  std::string binary;       // the trimaran-scheduler executable
  std::string dir;          // where the config, cert dir and log go (the control plane's)
  std::string tag;          // names them: sched-<tag>.yaml, certs-<tag>/, scheduler-<tag>.log
  std::string config_yaml;  // written to <dir>/sched-<tag>.yaml, passed as --config
  std::string kubeconfig;
  std::vector<std::string> extra_args{};  // appended after the defaults ("--v=2" is one)
  std::vector<std::string> env{};         // "NAME=value" added to the environment
  // Serve /metrics, /configz and /debug/* without a token (kAdminOpenPathsFlag), as the
  // tests that scrape them expect; false keeps the daemon's default (TokenReview and
  // SubjectAccessReview for everything but the probes).
  bool open_admin = true;
};

// --authorization-always-allow-paths opening every admin route, for tests that read
// them without credentials (the secure-port tests use the defaults).
inline constexpr char kAdminOpenPathsFlag[] =
    "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/configz,/debug/*";

struct SchedulerProcess {
  std::unique_ptr<Subprocess> process;
  int secure_port = 0;  // its /healthz, /readyz, /metrics, /configz (self-signed TLS)
};

// Starts the binary; errors name the file or the start that failed.
absl::StatusOr<SchedulerProcess> StartSchedulerProcess(const SchedulerProcessOptions& options);

}  // namespace trimaran::e2e
