#pragma once
// HttpServer: a small HTTP/1.1 (or HTTPS) server for health, metrics, admin and the
// load watcher's REST API, over cpp-httplib 0.11. Users see only the types below, not
// httplib's.
//
// Routing is a table of exact paths and prefixes, each with a help string (Envoy's
// admin style). The most specific route wins: an exact match first, then the longest
// matching prefix. A matching path with no route for the method answers 405 with an
// Allow header; an unknown path answers 404. When no route claims "/", GET / lists
// every route with its help.
//
// Lifecycle (Start/Stop are called from one owner thread, never concurrently):
//
//   Create --> kNew --AddRoute*--> kNew --Start()--> kRunning --Stop()--> kStopped
//                                      \--Start() error--> kNew (may retry)
//
//   - Start() binds (port 0: an ephemeral port, see port()), starts the accept loop on a
//     std::jthread and returns once the server accepts connections, or a clear error
//     ("listen on 127.0.0.1:8080: address already in use").
//   - Stop() stops accepting, ends idle keep-alive connections, waits for running
//     handlers and streams to finish (streams see ChunkWriter::Stopping()), joins the
//     threads. Idempotent; the destructor calls it. Never call it from a handler.
//   - Routes are added before Start (AddRoute fails with FailedPrecondition after).
//
// Handlers run on a pool of worker_threads threads, concurrently with each other; a
// handler must be safe for concurrent calls. A keep-alive connection holds a worker
// while it is open (up to keep_alive_timeout idle, or not at all once another
// connection waits for a worker), so size the pool for the expected number of
// concurrent clients.
//
// Hostile clients (issue 30 point 5): cpp-httplib 0.11 alone buffers header lines of any
// length, any number of headers and any chunked body, and restarts its read timeout at
// every byte. HttpServer therefore serves each connection itself (a subclass overriding
// httplib's per-connection entry point) through a BoundedStream: the request line,
// head, header count and body (chunked included) are capped and the head and body have
// deadlines (see HttpServerOptions), the TLS handshake must finish within
// request_head_timeout, and at most max_connections connections are open. The listen backlog is
// SOMAXCONN (httplib's own is 5, which drops SYNs under a burst of connects). Worker threads have
// SIGPIPE blocked, so a client that disconnects mid-response never kills the process (the write
// just fails).
//
// TLS: the certificate and key files are re-read when they change (CertKeyReloader,
// checked at each handshake), so a rotated certificate is served without a restart.
//
// Request filter: when HttpServerOptions::request_filter is set, it runs before routing
// for every request (including 404s and the "/" index) except the paths listed in
// unfiltered_paths; returning false sends the response it filled in instead (the load
// watcher's bearer-token check answers 401 this way).
//
// Thread-safety: Start/Stop/AddRoute are externally synchronized (one owner); port(),
// url() and handlers are safe for concurrent use.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/headers.h"
#include "common/logging.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace trimaran::http {

struct ServerRequest {
  std::string method{};  // "GET", "POST", ... (HEAD is served by GET routes)
  std::string path{};    // decoded, without the query
  std::multimap<std::string, std::string> query{};  // decoded query parameters
  Headers headers{};
  std::string body{};
  std::string remote_addr{};  // "127.0.0.1:54321"
  // Subject of the verified TLS client certificate, RFC 2253 ("CN=client,O=ops");
  // empty over plain HTTP or without a client certificate.
  std::string peer_certificate_subject{};
  // Of the same certificate: the subject's common name (the last CN when there are
  // several) and the DNS names of its subjectAltName; empty likewise.
  std::string peer_certificate_common_name{};
  std::vector<std::string> peer_certificate_dns_names{};

  // The first value of query parameter `key`, or "" when absent.
  absl::string_view Query(absl::string_view key) const;
  bool HasQuery(absl::string_view key) const;
};

// Writes the body of a streaming (chunked) response.
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  // Sends one chunk now. Returns false when the client has gone or the server is
  // stopping: the stream function should then return promptly. Empty chunks are skipped.
  virtual bool Write(absl::string_view chunk) = 0;
  // True once Stop() has begun; long-lived streams poll it between writes.
  virtual bool Stopping() const = 0;
};

// Produces a streamed body; runs once, on the worker thread, after the handler returns.
// The response ends when it returns.
using StreamFunction = std::function<void(ChunkWriter& writer)>;

struct ServerResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  Headers headers{};
  std::string body{};
  // When set, the body is sent with chunked transfer encoding from this function and
  // `body` is ignored.
  StreamFunction stream{};
};

using RouteHandler = std::function<void(const ServerRequest& request, ServerResponse& response)>;

// Returns true to let the request through; false to answer with `response` instead.
using RequestFilter = std::function<bool(const ServerRequest& request, ServerResponse& response)>;

class CertKeyReloader;

struct Route {
  std::string path{};                          // starts with '/'
  bool prefix = false;                         // true: also serves every path starting with `path`
  std::vector<std::string> methods = {"GET"};  // GET routes also answer HEAD
  std::string help{};                          // one line, shown by the "/" index
  RouteHandler handler{};
};

struct HttpServerOptions {
  std::string name = "http";  // names the server in logs and errors ("admin", "watcher")
  std::string address = "127.0.0.1";
  int port = 0;  // 0: an ephemeral port
  // HTTPS when both are set (PEM files).
  std::string tls_cert_file{};
  std::string tls_key_file{};
  // With TLS: when set, clients must present a certificate signed by one of these CAs.
  std::string client_ca_file{};
  // With TLS: the oldest protocol accepted, "" (= TLS 1.2), "VersionTLS12" or
  // "VersionTLS13" (kube's --tls-min-version names). Older versions are refused.
  std::string tls_min_version{};
  int worker_threads = 8;
  // A read (write) that makes no progress for this long fails the connection.
  absl::Duration read_timeout = absl::Seconds(5);
  absl::Duration write_timeout = absl::Seconds(5);
  absl::Duration keep_alive_timeout = absl::Seconds(5);
  // Requests served on one keep-alive connection before the server closes it.
  int keep_alive_max_requests = 100;
  // Request limits (issue 30 point 5), enforced before cpp-httplib sees a byte
  // (bounded_stream.h): a refused request is answered and its connection closed.
  size_t max_request_body_bytes = 8 << 20;  // Content-Length or chunked: 413
  size_t max_request_line_bytes = 8 << 10;  // 414
  size_t max_header_bytes = 64 << 10;       // request line + headers: 431
  int max_headers = 100;                    // header lines: 431
  // The whole head (the body) must arrive within this long from its first byte: 408.
  absl::Duration request_head_timeout = absl::Seconds(10);
  absl::Duration request_body_timeout = absl::Seconds(60);
  // Connections accepted and not yet closed (served + waiting for a worker); one more
  // is answered 503 (plain HTTP) or closed (TLS) by the accept loop at once.
  int max_connections = 1024;
  bool index = true;  // serve the route list at "/" unless a route claims it
  // Runs before routing (see the top of this file); must be safe for concurrent calls.
  RequestFilter request_filter{};
  std::vector<std::string> unfiltered_paths{};  // exact paths the filter never sees
  Component log_component = Component::kAdmin;
};

class HttpServer {
 public:
  // Validates the options and loads the TLS material. InvalidArgument names the bad
  // option or the file that cannot be loaded.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Create(HttpServerOptions options);

  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Adds a route. InvalidArgument for a path not starting with '/', no handler, or a
  // route whose path, kind and a method collide with an existing one;
  // FailedPrecondition once started.
  absl::Status AddRoute(Route route);

  // Binds and starts serving; see the lifecycle above. Binding failures are
  // FailedPrecondition with the address and the OS reason.
  absl::Status Start();
  void Stop();

  // The bound port (the ephemeral one for port 0); 0 before Start.
  int port() const { return port_.load(); }
  // "http://127.0.0.1:PORT" or "https://..." (IPv6 literals bracketed).
  std::string url() const;
  bool tls() const { return !options_.tls_cert_file.empty(); }

  // The text the "/" index serves.
  std::string IndexText() const;

 private:
  enum class State { kNew, kRunning, kStopped };
  class Writer;

  HttpServer(HttpServerOptions options, std::unique_ptr<httplib::Server> server,
             std::unique_ptr<CertKeyReloader> cert_reloader);
  void Dispatch(const httplib::Request& req, httplib::Response& res);

  const HttpServerOptions options_;
  const std::unique_ptr<CertKeyReloader> cert_reloader_;  // with TLS; outlives server_
  const std::unique_ptr<httplib::Server> server_;
  std::atomic<int> port_{0};
  std::atomic<int> listen_fd_{-1};  // the listening socket, once bound
  std::atomic<bool> stopping_{false};
  std::atomic<bool> loop_exited_{false};

  absl::Mutex lifecycle_mu_;  // serializes Start/Stop
  State state_ ABSL_GUARDED_BY(lifecycle_mu_) = State::kNew;
  std::jthread loop_ ABSL_GUARDED_BY(lifecycle_mu_);

  mutable absl::Mutex routes_mu_;
  std::vector<Route> routes_ ABSL_GUARDED_BY(routes_mu_);
  bool routes_frozen_ ABSL_GUARDED_BY(routes_mu_) = false;
};

using HttpServerPtr = std::unique_ptr<HttpServer>;

}  // namespace trimaran::http
