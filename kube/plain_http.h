#pragma once
// The kubeconfig's credentials go only over https (issue 30 point 7). A tool (trimaranctl
// nodes, dashboard, explain) reads a kubeconfig for the apiserver and, without a token
// file of its own, uses its credentials for another server too (the scheduler's
// /debug/decisions: dashboard --scheduler, explain --scheduler). A bearer token (static, token file
// or exec plugin such as `aws eks get-token`) sent to an http:// URL crosses the network readable
// by anyone on the path, so:
//
//   DropCredentialsOverPlainHttp(config)  for an http:// server, clears the bearer
//       token, token file and exec plugin (the requests go unauthenticated; a client
//       certificate is TLS-only and has no effect over http anyway) and returns a
//       warning that names the server and the kubeconfig; "" when nothing was dropped.
//   KubeconfigCredentialsAllowed(url)     true only for an https:// URL: callers skip
//       the kubeconfig's credentials for a scheduler URL that is not.
//   PlainHttpSchedulerWarning(flag, url)  the warning for that case.
//   ConnectKube(load, user_agent, clock, warn)  a tool's API client: the config
//       loaded, DropCredentialsOverPlainHttp applied (its warning, if any, handed to
//       `warn` before the client is made), the user agent set.
//
// Thread-safety: reentrant.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace trimaran::kube {

std::string DropCredentialsOverPlainHttp(RestConfig& config);

bool KubeconfigCredentialsAllowed(absl::string_view url);

std::string PlainHttpSchedulerWarning(absl::string_view flag, absl::string_view url);

struct KubeConnection {
  RestConfig config;  // as the client uses it (credentials dropped over http)
  std::unique_ptr<RestClient> client;
};
absl::StatusOr<KubeConnection> ConnectKube(const LoadOptions& load, absl::string_view user_agent,
                                           const Clock& clock,
                                           const std::function<void(const std::string&)>& warn);

}  // namespace trimaran::kube
