#pragma once
// HttpTransport: the client-side I/O seam. Everything that talks HTTP to the outside
// (the Kubernetes client, the Prometheus and SignalFx providers, the remote load-watcher
// client) sends through an HttpTransport&, so unit tests substitute FakeTransport
// (common/http/testing/fake_transport.h) and never touch the network.
// The production implementation is CurlTransport (curl_transport.h).
//
// Contract of Send():
//   - A response with any HTTP status (including 4xx/5xx) is a *successful* Send: the
//     caller maps the status with StatusFromHttp / StatusFromResponse
//     (status_mapping.h), because only the caller knows what a 404 or 409 means for
//     its operation.
//   - A non-OK absl::Status means no usable response arrived: connection refused, DNS
//     failure, TLS failure, timeout, reset, cancelled. Codes follow status_mapping.h.
//   - Streaming (watches): when `on_chunk` is set and the response status is 2xx, body
//     bytes are handed to `on_chunk` as they arrive instead of being collected in
//     HttpResponse::body. Chunk boundaries are arbitrary (not aligned to lines or JSON
//     objects); the caller frames. Returning false from `on_chunk` stops the transfer and
//     Send returns OK with the response received so far. A non-2xx response is always
//     collected into `body` so the caller can read the error document.
//   - Bounded: a collected body larger than HttpRequest::max_body_bytes (or the
//     transport's default) fails with ResourceExhausted.
//
// Thread-safety: implementations are safe for concurrent Send from many threads.
// Send blocks the calling thread until the exchange ends; `on_chunk` runs on that thread.

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/headers.h"

namespace trimaran::http {

// TLS settings for https:// URLs (the kubeconfig cluster/user fields map onto these).
// For each of CA, client certificate and client key, give either a file path or the
// PEM data itself, never both (InvalidArgument). Empty means "not set": with no CA the
// system trust store is used.
struct TlsOptions {
  std::string ca_file{};           // PEM bundle of trusted CAs (kubeconfig certificate-authority)
  std::string ca_pem{};            // the same as data (certificate-authority-data, decoded)
  std::string client_cert_file{};  // client certificate (client-certificate)
  std::string client_cert_pem{};   // (client-certificate-data)
  std::string client_key_file{};   // client private key (client-key)
  std::string client_key_pem{};    // (client-key-data)
  // Disables peer and host-name verification. Only for explicit user opt-in
  // (kubeconfig insecure-skip-tls-verify, INSECURE_SKIP_VERIFY); never a fallback.
  bool insecure_skip_verify = false;
  // Name used for SNI and certificate verification instead of the URL's host
  // (kubeconfig tls-server-name). The connection still goes to the URL's host:port
  // and the Host header keeps the URL's authority.
  std::string server_name{};

  friend bool operator==(const TlsOptions&, const TlsOptions&) = default;
};

// Receives streamed body bytes. Return false to stop the stream.
using ChunkCallback = std::function<bool(absl::string_view chunk)>;

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE, HEAD
  std::string url{};           // absolute: http(s)://host[:port]/path?query
  // Sent as given. The transport adds only Host, Accept: */* and User-Agent (each unless
  // set here) and Content-Length; it never invents a Content-Type.
  Headers headers{};
  std::string body{};  // sent for POST/PUT/PATCH (and DELETE when not empty)

  // Total time for the whole exchange. ZeroDuration() means the transport's default
  // (for a streaming request: no total limit); InfiniteDuration() means no limit.
  absl::Duration timeout = absl::ZeroDuration();
  // Time to establish TCP + TLS. ZeroDuration() means the transport's default.
  absl::Duration connect_timeout = absl::ZeroDuration();
  // Fail with DeadlineExceeded when no byte arrives for this long (meant for streams;
  // it counts from the start of the request). Checked about once a second, so it fires
  // up to a second late. ZeroDuration() disables it.
  absl::Duration idle_timeout = absl::ZeroDuration();

  // Set for a streaming request (see the contract above).
  ChunkCallback on_chunk{};

  // The most body bytes collected into HttpResponse::body (a 2xx stream's chunks are
  // handed on, not collected, and are not capped here: their consumer frames and caps
  // them). Past it, Send fails with ResourceExhausted and nothing more is read, so a
  // broken or hostile server cannot make the client allocate without bound. 0 means the
  // transport's default.
  size_t max_body_bytes = 0;

  // Per-request TLS settings; when unset, the transport's defaults apply. When set,
  // they replace the defaults as a whole.
  std::optional<TlsOptions> tls{};

  // Requesting stop aborts the exchange with kCancelled. It is noticed within about a
  // second even while a stream is idle, at once when data is flowing.
  std::stop_token stop_token{};
};

struct HttpResponse {
  int status_code = 0;  // the final HTTP status (interim 1xx responses are skipped)
  Headers headers{};    // of the final response
  std::string body{};   // empty for 2xx streams (delivered to on_chunk instead)

  bool ok() const { return status_code >= 200 && status_code < 300; }
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Performs one exchange; see the contract at the top of this file.
  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
};

using HttpTransportPtr = std::unique_ptr<HttpTransport>;

}  // namespace trimaran::http
