#pragma once
// HttpClient: loadwatcher::Client over paypal/load-watcher's REST API, so the scheduler
// can use upstream's load-watcher or ours (`watcherAddress: http://...`).
//
// GET {address}/watcher (the address is used as-is and must include the scheme, e.g.
// "http://load-watcher.loadwatcher.svc.cluster.local:2020"), header Content-Type:
// application/json, timeout 55 s by default (or the request's, when smaller), no
// retries (spec §5.5). The body is capped at max_body_bytes (64 MiB by default): a
// larger body, or a line that never ends, fails with ResourceExhausted once the cap is
// reached, and nothing more is read. A window other
// than 15m is requested with `?window=`, which our server honours and upstream's
// ignores (it always answers 15m-with-fallback); hosts are filtered client-side.
//
// Secured watchers: with `ca_file` an https:// address is verified against that CA
// bundle (otherwise the system's); with `token_file` every request carries
// "Authorization: Bearer <token>", the file re-read when it rotates (TokenFile). A
// token file that cannot be read fails the request (FailedPrecondition) before sending.
//
// Errors: transport failures as HttpTransport reports them; 401/403 are
// Unauthenticated/PermissionDenied naming the watcher; any other non-200 is Unavailable
// "received status code N from watcher" (upstream's clients treat it as "not ready
// yet"); an undecodable body is the decoder's error (json.h).
//
// Thread-safety: safe for concurrent use. Borrows the transport, which must outlive it.

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/http/token_file.h"
#include "common/http/transport.h"
#include "loadwatcher/client.h"

namespace trimaran::lw {

struct HttpClientOptions {
  std::string address{};  // "http://host:2020"
  absl::Duration timeout = absl::Seconds(55);
  size_t max_body_bytes = kDefaultMaxResponseBytes;
  std::string ca_file{};     // https://: PEM CA bundle verifying the watcher
  std::string token_file{};  // bearer token file
};

class HttpClient final : public Client {
 public:
  HttpClient(http::HttpTransport& transport, HttpClientOptions options);
  using Client::GetLatestMetrics;
  absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics(const MetricsRequest& request) override;
  bool remote() const override { return true; }

 private:
  http::HttpTransport& transport_;
  const HttpClientOptions options_;
  const std::unique_ptr<http::TokenFile> token_;  // null without token_file
};

}  // namespace trimaran::lw
