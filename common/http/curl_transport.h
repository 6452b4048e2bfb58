#pragma once
// CurlTransport: the production HttpTransport, over libcurl's easy interface.
//
// - Connection reuse: finished easy handles go back to an idle pool (up to
//   max_idle_handles) with their connection and TLS session caches intact, so a
//   following request to the same host:port with the same TLS settings reuses the
//   connection. Concurrent requests each take their own handle.
// - HTTP/1.1 only (the apiserver's watch is a chunked HTTP/1.1 response); no redirects
//   are followed; "Expect: 100-continue" is never sent.
// - Timeouts: see HttpRequest. Unary requests default to options.default_timeout;
//   streams have no total timeout unless asked and use the idle timeout instead.
// - TLS: CA / client certificate / key from files or PEM data. When a CA is given it
//   is the *only* trust root (as in client-go): the system store is not consulted.
// - Proxies: the http_proxy/https_proxy/no_proxy environment is honoured, except for
//   loopback hosts, which are never proxied (as in Go's ProxyFromEnvironment).
// - Errors: StatusFromCurl (status_mapping.h), naming the method, URL and host:port.
//
// Thread-safety: safe for concurrent Send from many threads. The transport must
// outlive every in-flight Send; destroying it frees the idle handles.

#include <curl/curl.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/transport.h"

namespace trimaran::http {

struct CurlTransportOptions {
  // TLS defaults for requests whose HttpRequest::tls is unset.
  TlsOptions tls{};
  // Total timeout of unary (non-streaming) requests that do not set their own.
  absl::Duration default_timeout = absl::Seconds(30);
  // TCP + TLS connect timeout of requests that do not set their own.
  absl::Duration default_connect_timeout = absl::Seconds(10);
  // Sent unless the request has its own User-Agent header.
  std::string user_agent = "trimaran";
  // Idle easy handles (each with its connection cache) kept for reuse.
  int max_idle_handles = 16;
  // The body cap of requests that do not set their own (HttpRequest::max_body_bytes).
  size_t default_max_body_bytes = size_t{256} << 20;
};

class CurlTransport final : public HttpTransport {
 public:
  // Initializes libcurl once per process. Fails with InvalidArgument on inconsistent
  // TLS options (both a file and PEM data for the same item), FailedPrecondition when
  // libcurl lacks TLS support or cannot be initialized.
  static absl::StatusOr<std::unique_ptr<CurlTransport>> Create(CurlTransportOptions options = {});

  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;

  // Number of easy handles currently idle in the pool.
  int IdleHandlesForTest() const;

 private:
  explicit CurlTransport(CurlTransportOptions options);

  // Takes an idle handle or creates one; returns it after curl_easy_reset.
  absl::StatusOr<CURL*> Acquire();
  void Release(CURL* handle);

  const CurlTransportOptions options_;
  mutable absl::Mutex mu_;
  std::vector<CURL*> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::http
