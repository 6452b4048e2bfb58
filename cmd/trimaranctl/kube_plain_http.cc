#include "cmd/trimaranctl/kube_plain_http.h"

#include <cstdio>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/status_macros.h"

namespace trimaran::cmd::trimaranctl {

bool KubeconfigCredentialsAllowed(absl::string_view url) {
  return absl::StartsWithIgnoreCase(absl::StripAsciiWhitespace(url), "https://");
}

std::string DropCredentialsOverPlainHttp(kube::RestConfig& config) {
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

absl::StatusOr<KubeConnection> ConnectKube(const kube::LoadOptions& load,
                                           absl::string_view command) {
  KubeConnection c;
  TRIMARAN_ASSIGN_OR_RETURN(c.config, kube::LoadRestConfig(load));
  if (std::string w = DropCredentialsOverPlainHttp(c.config); !w.empty()) {
    std::fprintf(stderr, "trimaranctl %s: %s\n", std::string(command).c_str(), w.c_str());
  }
  c.config.user_agent = "trimaranctl";
  TRIMARAN_ASSIGN_OR_RETURN(c.client, kube::RestClient::Create(c.config, RealClock::Get()));
  return c;
}

}  // namespace trimaran::cmd::trimaranctl
