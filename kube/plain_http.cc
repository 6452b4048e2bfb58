#include "kube/plain_http.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace trimaran::kube {

bool KubeconfigCredentialsAllowed(absl::string_view url) {
  return absl::StartsWithIgnoreCase(absl::StripAsciiWhitespace(url), "https://");
}

std::string DropCredentialsOverPlainHttp(RestConfig& config) {
  if (KubeconfigCredentialsAllowed(config.server)) return "";
  const bool has_token =
      !config.bearer_token.empty() || !config.bearer_token_file.empty() || config.exec.has_value();
  if (!has_token) return "";
  config.bearer_token.clear();
  config.bearer_token_file.clear();
  config.exec.reset();
  return absl::StrCat("warning: the API server ", config.server,
                      config.source.empty() ? "" : absl::StrCat(" (", config.source, ")"),
                      " is not https: the kubeconfig's bearer token (token, token file or exec "
                      "plugin) is not sent over plain HTTP; requests go unauthenticated. Use an "
                      "https:// server.");
}

std::string PlainHttpSchedulerWarning(absl::string_view flag, absl::string_view url) {
  return absl::StrCat("warning: ", flag, " ", url,
                      " is not https: the kubeconfig's credentials are not sent to it (give a "
                      "token file for it, or use https://)");
}

absl::StatusOr<KubeConnection> ConnectKube(const LoadOptions& load, absl::string_view user_agent,
                                           const Clock& clock,
                                           const std::function<void(const std::string&)>& warn) {
  KubeConnection c;
  TRIMARAN_ASSIGN_OR_RETURN(c.config, LoadRestConfig(load));
  if (std::string w = DropCredentialsOverPlainHttp(c.config); !w.empty()) warn(w);
  c.config.user_agent = std::string(user_agent);
  TRIMARAN_ASSIGN_OR_RETURN(c.client, RestClient::Create(c.config, clock));
  return c;
}

}  // namespace trimaran::kube
