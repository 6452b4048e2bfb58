#include "scheduler/decisions/decisions_client.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "common/url_escape.h"

namespace trimaran::sched::decisions {
absl::StatusOr<DecisionList> FetchDecisions(http::HttpTransport& transport,
                                            const DecisionsClientOptions& options,
                                            absl::string_view pod) {
  std::string base = options.scheduler;
  while (absl::EndsWith(base, "/")) base.pop_back();
  http::HttpRequest req;
  req.url = absl::StrCat(base, "/debug/decisions");
  if (!pod.empty()) absl::StrAppend(&req.url, "?pod=", trimaran::QueryEscape(pod));
  req.timeout = absl::Seconds(15);
  req.connect_timeout = absl::Seconds(5);
  req.max_body_bytes = 64 << 20;
  req.headers.Add("Accept", "application/json");
  if (!options.token.empty()) {
    req.headers.Add("Authorization", absl::StrCat("Bearer ", options.token));
  }
  http::TlsOptions tls;
  tls.ca_file = options.ca_file;
  tls.insecure_skip_verify = options.insecure_skip_tls_verify;
  req.tls = tls;
  absl::StatusOr<http::HttpResponse> res = transport.Send(req);
  if (!res.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "cannot reach the scheduler at ", base, ": ", res.status().message(),
        " (is it running? `kubectl -n trimaran port-forward deploy/trimaran-scheduler "
        "10259` makes the default --scheduler work; a self-signed serving certificate needs "
        "--scheduler-ca-file or --insecure-skip-tls-verify)"));
  }
  const std::string body(absl::StripAsciiWhitespace(res->body));
  if (res->status_code == 401) {
    return absl::UnauthenticatedError(absl::StrCat(
        "the scheduler at ", base, " did not accept the credentials (401 ", body,
        "): give a valid bearer token with --token-file, or use a kubeconfig user with a "
        "token or exec plugin"));
  }
  if (res->status_code == 403) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the scheduler at ", base, " refused access to /debug/decisions (403 ", body,
        "): bind the ClusterRole ", kDecisionsViewerRole,
        " to your user, e.g. `kubectl create clusterrolebinding my-decisions --clusterrole=",
        kDecisionsViewerRole, " --user=$USER`"));
  }
  if (res->status_code == 404) {
    return absl::NotFoundError(absl::StrCat("the scheduler at ", base,
                                            " does not serve /debug/decisions (404): is it a "
                                            "trimaran-scheduler with decision recording?"));
  }
  if (res->status_code != 200) {
    return absl::UnavailableError(
        absl::StrCat("the scheduler at ", base, " answered ", res->status_code, ": ", body));
  }
  absl::StatusOr<DecisionList> list = DecodeDecisions(res->body);
  if (!list.ok()) {
    return absl::InternalError(
        absl::StrCat("the scheduler's /debug/decisions answer does not "
                     "decode: ",
                     list.status().message()));
  }
  return list;
}

}  // namespace trimaran::sched::decisions
