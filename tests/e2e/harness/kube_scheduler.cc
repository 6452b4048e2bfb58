#include "tests/e2e/harness/kube_scheduler.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/status_macros.h"

namespace trimaran::e2e {

std::string KubeSchedulerConfigYaml(const KubeSchedulerOptions& options) {
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "clientConnection: {kubeconfig: ",
      options.kubeconfig, ", qps: ", options.qps, ", burst: ", options.qps,
      "}\n"
      "leaderElection: {leaderElect: false}\n"
      "profiles:\n",
      options.profiles_yaml, options.extra_yaml);
}

std::string MostAllocatedPluginConfigYaml() {
  return R"(    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)";
}

std::string KubeScheduler::url() const { return absl::StrCat("https://127.0.0.1:", port_); }

namespace {

absl::Status WaitHealthy(Subprocess& process, const std::string& url) {
  http::CurlTransportOptions opts;
  opts.tls.insecure_skip_verify = true;  // its self-signed serving certificate
  TRIMARAN_ASSIGN_OR_RETURN(auto transport, http::CurlTransport::Create(opts));
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    if (!process.Running()) {
      return absl::InternalError(absl::StrCat("kube-scheduler exited: ", process.LogTail()));
    }
    http::HttpRequest req;
    req.url = url + "/healthz";
    req.timeout = absl::Seconds(1);
    absl::StatusOr<http::HttpResponse> resp = transport->Send(req);
    if (resp.ok() && resp->status_code == 200) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("kube-scheduler not healthy after 60 s: ", process.LogTail()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<KubeScheduler>> KubeScheduler::Start(const ControlPlane& cp,
                                                                    KubeSchedulerOptions options) {
  std::unique_ptr<KubeScheduler> ks(new KubeScheduler());
  const std::string config = absl::StrCat(cp.dir(), "/", options.tag, ".yaml");
  {
    std::ofstream out(config, std::ios::trunc);
    out << KubeSchedulerConfigYaml(options);
    if (!out) return absl::InternalError(absl::StrCat("write ", config));
  }
  TRIMARAN_ASSIGN_OR_RETURN(ks->port_, PickFreePort());
  TRIMARAN_ASSIGN_OR_RETURN(
      ks->process_,
      Subprocess::Start({cp.assets() + "/kube-scheduler", "--config=" + config,
                         "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", ks->port_),
                         absl::StrCat("--cert-dir=", cp.dir(), "/", options.tag, "-certs"),
                         "--authentication-kubeconfig=" + options.kubeconfig,
                         "--authorization-kubeconfig=" + options.kubeconfig,
                         absl::StrCat("-v=", options.verbosity)},
                        absl::StrCat(cp.dir(), "/", options.tag, ".log")));
  TRIMARAN_RETURN_IF_ERROR(WaitHealthy(*ks->process_, ks->url()));
  return ks;
}

}  // namespace trimaran::e2e
