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
// Errors: transport failures as HttpTransport reports them; any non-200 is Unavailable
// "received status code N from watcher" (upstream's clients treat it as "not ready
// yet"); an undecodable body is the decoder's error (json.h).
//
// Thread-safety: safe for concurrent use. Borrows the transport, which must outlive it.

#include <string>

#include "absl/time/time.h"
#include "common/http/transport.h"
#include "loadwatcher/client.h"

namespace trimaran::lw {

struct HttpClientOptions {
  std::string address{};  // "http://host:2020"
  absl::Duration timeout = absl::Seconds(55);
  size_t max_body_bytes = kDefaultMaxResponseBytes;
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
};

}  // namespace trimaran::lw
