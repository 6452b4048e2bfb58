#pragma once
// The real kube-scheduler of the control plane's minor (1.37 unless TRIMARAN_K8S_MINOR
// says otherwise), started the way every side-by-side test needs it: config API
// kubescheduler.config.k8s.io/v1, the caller's profiles, no leader election, its secure
// port on 127.0.0.1 (a free port) with delegated authentication and authorization
// through the admin kubeconfig, so /healthz answers anonymously and /metrics to the admin
// token. Start() returns once /healthz answers 200.
//
// Thread-safety: externally synchronized (one owner), like Subprocess.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {

struct KubeSchedulerOptions {
  std::string kubeconfig;  // the admin kubeconfig (Cluster::kubeconfig())
  // YAML list items under `profiles:` (each starting "  - schedulerName: ...").
  std::string profiles_yaml = "  - schedulerName: default-scheduler\n";
  // Extra top-level config (e.g. "extenders:\n  - urlPrefix: ...\n"), appended as is.
  std::string extra_yaml;
  int qps = 5000;
  std::string tag = "kube-scheduler";  // names the config, log and cert dir in cp.dir()
  int verbosity = 2;
};

// The v1 KubeSchedulerConfiguration text that Start() writes.
std::string KubeSchedulerConfigYaml(const KubeSchedulerOptions& options);

// The MostAllocated scoring of NodeResourcesFit (cpu and memory, weight 1 each), as a
// profile's pluginConfig block: the EKS guide's `my-scheduler`.
std::string MostAllocatedPluginConfigYaml();

class KubeScheduler {
 public:
  static absl::StatusOr<std::unique_ptr<KubeScheduler>> Start(const ControlPlane& cp,
                                                              KubeSchedulerOptions options);

  Subprocess& process() { return *process_; }
  int secure_port() const { return port_; }
  // https://127.0.0.1:PORT
  std::string url() const;

 private:
  KubeScheduler() = default;
  std::unique_ptr<Subprocess> process_;
  int port_ = 0;
};

}  // namespace trimaran::e2e
