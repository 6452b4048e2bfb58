#pragma once
// The kubeconfig's credentials go only over https (issue 30 point 7). trimaranctl reads
// a kubeconfig for the apiserver (nodes, dashboard, explain) and, without a token file
// of their own, uses its credentials for the scheduler's /debug/decisions too (dashboard
// --scheduler, explain --scheduler). A bearer token (static, token file or exec plugin
// such as `aws eks get-token`) sent to an http:// URL crosses the network readable by
// anyone on the path, so:
//
//   DropCredentialsOverPlainHttp(config)  for an http:// server, clears the bearer
//       token, token file and exec plugin (the requests go unauthenticated; a client
//       certificate is TLS-only and has no effect over http anyway) and returns a
//       warning that names the server and the kubeconfig; "" when nothing was dropped.
//   KubeconfigCredentialsAllowed(url)     true only for an https:// URL: callers skip
//       the kubeconfig's credentials for a scheduler URL that is not.
//   PlainHttpSchedulerWarning(flag, url)  the warning for that case.
//   ConnectKube(load, command)            every command's API client: the config
//       loaded, DropCredentialsOverPlainHttp's warning on stderr ("trimaranctl
//       COMMAND: warning: ..."), user agent "trimaranctl".
//
// Thread-safety: reentrant.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace trimaran::cmd::trimaranctl {

std::string DropCredentialsOverPlainHttp(kube::RestConfig& config);

bool KubeconfigCredentialsAllowed(absl::string_view url);

std::string PlainHttpSchedulerWarning(absl::string_view flag, absl::string_view url);

struct KubeConnection {
  kube::RestConfig config;  // as the client uses it (credentials dropped over http)
  std::unique_ptr<kube::RestClient> client;
};
absl::StatusOr<KubeConnection> ConnectKube(const kube::LoadOptions& load,
                                           absl::string_view command);

}  // namespace trimaran::cmd::trimaranctl
