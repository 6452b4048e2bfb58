#pragma once
// The scheduler's recent decisions for the web dashboard's "Recent decisions" panel.
// The scheduler serves them on its authenticated secure admin port (the port of /metrics
// and /configz):
//
//   GET /debug/decisions[?pod=NAMESPACE/PODNAME][&limit=N]
//   -> 200 application/json, newest first:
//      {"capacity": N, "decisions": [{"time", "pod", "uid", "profile",
//        "result" (Bound|Unschedulable|Error|Nominated), "node", "evaluatedNodes",
//        "feasibleNodes", "fallbacks": [...], "message",
//        "top": [{"node", "total", "scores": {"<plugin>": n}}]}]}
//
// DecisionsSource is the seam (tests use a fake); HttpDecisionsSource reads the endpoint
// through an http::HttpTransport with a bearer token (a file re-read on every call, as it
// rotates; or a token source such as the kubeconfig's credentials; or a fixed token) and
// TLS settings (a CA file, a client certificate). The body is checked to be a JSON object with a
// "decisions" array and is passed on unchanged.
//
// Errors: a transport failure keeps its code; a non-200 answer is the mapped HTTP status
// with the scheduler's message ("scheduler /debug/decisions: HTTP 403: ..."); a body
// that is not the documented JSON is InvalidArgument.
//
// Thread-safety: HttpDecisionsSource is safe for concurrent use when its transport is
// (CurlTransport is).

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/transport.h"

namespace trimaran::dashboard::web {

inline constexpr char kDecisionsPath[] = "/debug/decisions";

class DecisionsSource {
 public:
  virtual ~DecisionsSource() = default;
  // The newest `limit` decisions: the scheduler's JSON document.
  virtual absl::StatusOr<std::string> Fetch(int limit) = 0;
  // "https://scheduler:10259": shown on the page.
  virtual std::string Describe() const = 0;
};

struct HttpDecisionsOptions {
  std::string url;  // "https://HOST:PORT" (a trailing slash is ignored)
  http::TlsOptions tls;
  std::string bearer_token_file;  // re-read on every call; wins over the two below
  // Called on every call when set (e.g. the kubeconfig's credentials, exec plugins
  // included: kube::CredentialSource); its error fails the call.
  std::function<absl::StatusOr<std::string>()> token_source;
  std::string bearer_token;  // a fixed token, the last resort
  absl::Duration timeout = absl::Seconds(5);
};

class HttpDecisionsSource final : public DecisionsSource {
 public:
  // `transport` is borrowed and must outlive this.
  HttpDecisionsSource(http::HttpTransport& transport, HttpDecisionsOptions options);
  absl::StatusOr<std::string> Fetch(int limit) override;
  std::string Describe() const override { return options_.url; }

 private:
  http::HttpTransport& transport_;
  const HttpDecisionsOptions options_;
};

// Checks that `body` is the documented document (an object with a "decisions" array).
absl::Status ValidateDecisionsJson(const std::string& body);

}  // namespace trimaran::dashboard::web
