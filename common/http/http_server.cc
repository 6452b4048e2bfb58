#include "common/http/http_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <set>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/http/bounded_stream.h"
#include "common/http/cert_reloader.h"

namespace trimaran::http {
namespace {

constexpr const char* kMethods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
// httplib matches routes with std::regex_match on the decoded path; this matches all.
constexpr const char* kAnyPath = R"([\s\S]*)";

std::string HostPort(absl::string_view host, int port) {
  if (absl::StrContains(host, ':')) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

bool AllowsMethod(const Route& route, absl::string_view method) {
  if (method == "HEAD") method = "GET";
  return std::find(route.methods.begin(), route.methods.end(), method) != route.methods.end();
}

std::string PeerSubject(const httplib::Request& req) {
  if (req.ssl == nullptr) return "";
  X509* cert = SSL_get0_peer_certificate(req.ssl);
  if (cert == nullptr) return "";
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return "";
  X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(std::max(len, 0L)));
  BIO_free(bio);
  return out;
}

// The common name and DNS subject alternative names of the verified client certificate.
void PeerNames(const httplib::Request& req, ServerRequest& out) {
  if (req.ssl == nullptr) return;
  X509* cert = SSL_get0_peer_certificate(req.ssl);
  if (cert == nullptr) return;
  X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) {
    const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
    out.peer_certificate_common_name.assign(
        reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
        static_cast<size_t>(ASN1_STRING_length(data)));
  }
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type != GEN_DNS) continue;
    const ASN1_STRING* dns = name->d.dNSName;
    out.peer_certificate_dns_names.emplace_back(
        reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
        static_cast<size_t>(ASN1_STRING_length(dns)));
  }
  GENERAL_NAMES_free(names);
}

// Lets a restarted server rebind a port in TIME_WAIT, but (unlike httplib's default
// SO_REUSEPORT) never lets two live servers share a port silently.
void SetReuseAddr(int sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// Ends the read side of every connection accepted on `port`. httplib's workers wait up to
// keep_alive_timeout for the next request on an idle keep-alive connection, and would
// hold Stop() that long; after SHUT_RD they see end-of-stream at once, while a response
// being written still goes out. httplib does not expose the accepted sockets, so they
// are found among the process's descriptors: the sockets whose local port is the
// listening port and that have a peer (only connections accepted on that port do).
void ShutdownAcceptedConnections(int port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    int fd = -1;
    if (!absl::SimpleAtoi(entry->d_name, &fd) || fd == dirfd(dir)) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) continue;
    int local_port = -1;
    if (local.ss_family == AF_INET) {
      local_port = ntohs(reinterpret_cast<const sockaddr_in*>(&local)->sin_port);
    } else if (local.ss_family == AF_INET6) {
      local_port = ntohs(reinterpret_cast<const sockaddr_in6*>(&local)->sin6_port);
    }
    if (local_port != port) continue;
    sockaddr_storage peer{};
    len = sizeof(peer);
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) continue;
    shutdown(fd, SHUT_RD);
  }
  closedir(dir);
}

// Set by BoundedTaskQueue while the accept loop itself runs a connection it refuses.
thread_local bool t_refuse_connection = false;

// The worker pool with the connection cap: connections waiting for a worker plus those
// being served are at most max_connections; the accept loop runs the job of one more
// itself with t_refuse_connection set, which answers it at once and closes it.
class BoundedTaskQueue final : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(size_t threads, size_t max_connections)
      : threads_(threads), max_connections_(max_connections) {
    for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~BoundedTaskQueue() override { shutdown(); }

  void enqueue(std::function<void()> fn) override ABSL_LOCKS_EXCLUDED(mu_) {
    {
      absl::MutexLock lock(&mu_);
      if (!shutdown_ && jobs_.size() + active_ < max_connections_) {
        jobs_.push_back(std::move(fn));
        return;
      }
    }
    t_refuse_connection = true;
    fn();
    t_refuse_connection = false;
  }

  // Runs what is queued (each job closes its socket), then joins the workers.
  void shutdown() override ABSL_LOCKS_EXCLUDED(mu_) {
    {
      absl::MutexLock lock(&mu_);
      shutdown_ = true;
    }
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
  }

  // True while a connection waits for a worker and every worker is busy: idle keep-alive
  // connections then give theirs up.
  bool Crowded() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return !jobs_.empty() && active_ >= threads_;
  }

 private:
  void Work() ABSL_LOCKS_EXCLUDED(mu_) {
    for (;;) {
      std::function<void()> job;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](BoundedTaskQueue* q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(q->mu_) {
              return q->shutdown_ || !q->jobs_.empty();
            },
            this));
        if (jobs_.empty()) return;  // shut down and drained
        job = std::move(jobs_.front());
        jobs_.pop_front();
        ++active_;
      }
      job();
      absl::MutexLock lock(&mu_);
      --active_;
    }
  }

  const size_t threads_;
  const size_t max_connections_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> jobs_ ABSL_GUARDED_BY(mu_);
  size_t active_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

struct ConnectionPolicy {
  RequestLimits limits;
  StreamTimeouts timeouts;
  absl::Duration keep_alive = absl::Seconds(5);
  int max_requests = 100;
  size_t worker_threads = 8;
  size_t max_connections = 1024;
};

// Reads what the peer still sends for a moment before closing, so that a client still
// writing a refused body reads the answer instead of a reset.
void LingerAndClose(int sock) {
  shutdown(sock, SHUT_WR);
  const absl::Time deadline = absl::Now() + absl::Milliseconds(500);
  char sink[16 << 10];
  size_t drained = 0;
  while (drained < (size_t{4} << 20)) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) break;
    pollfd p{.fd = sock, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <= 0) break;
    const ssize_t n = recv(sock, sink, sizeof(sink), MSG_DONTWAIT);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
  close(sock);
}

// An httplib server (plain or TLS) whose connections are served through BoundedStream
// (see the top of http_server.h). Overriding httplib's private virtual per-connection
// entry point is what lets the limits hold before httplib reads a byte; the request
// parsing and routing below it stay httplib's (Server::process_request).
template <typename Base>
class BoundedServer final : public Base {
 public:
  template <typename... Args>
  explicit BoundedServer(ConnectionPolicy policy, Args&&... args)
      : Base(std::forward<Args>(args)...), policy_(policy) {
    this->new_task_queue = [this]() -> httplib::TaskQueue* {
      auto* queue = new BoundedTaskQueue(policy_.worker_threads, policy_.max_connections);
      queue_.store(queue);
      return queue;
    };
  }

 private:
  static constexpr bool kTls = std::is_base_of_v<httplib::SSLServer, Base>;

  bool process_and_close_socket(int sock) override {
    const int flags = fcntl(sock, F_GETFL, 0);
    if (flags >= 0) fcntl(sock, F_SETFL, flags | O_NONBLOCK);
    if (t_refuse_connection) {
      if (!kTls) {
        const std::string answer = RefusalResponse(503, "too many connections");
        (void)!send(sock, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        shutdown(sock, SHUT_WR);
      }
      close(sock);
      return false;
    }
    SSL* ssl = nullptr;
    if constexpr (kTls) {
      ssl = Handshake(sock);
      if (ssl == nullptr) {
        close(sock);
        return false;
      }
    }
    const bool refused = Serve(sock, ssl);
    if (ssl != nullptr) {
      SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    if (refused) {
      LingerAndClose(sock);
    } else {
      shutdown(sock, SHUT_RDWR);
      close(sock);
    }
    return true;
  }

  // The server side of the TLS handshake, within the head timeout; null on failure.
  SSL* Handshake(int sock) {
    if constexpr (kTls) {
      SSL* ssl = SSL_new(this->ssl_context());
      if (ssl == nullptr) return nullptr;
      SSL_set_fd(ssl, sock);
      const absl::Time deadline = absl::Now() + policy_.timeouts.head;
      for (;;) {
        const int r = SSL_accept(ssl);
        if (r == 1) return ssl;
        const int err = SSL_get_error(ssl, r);
        short events = 0;
        if (err == SSL_ERROR_WANT_READ) events = POLLIN;
        if (err == SSL_ERROR_WANT_WRITE) events = POLLOUT;
        const absl::Duration left = deadline - absl::Now();
        pollfd p{.fd = sock, .events = events, .revents = 0};
        if (events == 0 || left <= absl::ZeroDuration() ||
            poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <= 0) {
          SSL_free(ssl);
          return nullptr;
        }
      }
    }
    return nullptr;
  }

  // httplib's keep-alive loop, bounded. True when the last request was refused.
  bool Serve(int sock, SSL* ssl) {
    BoundedStream stream(sock, ssl, policy_.limits, policy_.timeouts);
    for (int served = 0; served < policy_.max_requests; ++served) {
      if (this->svr_sock_ == INVALID_SOCKET) break;  // stopping
      BoundedTaskQueue* queue = queue_.load();
      const absl::Duration idle = served == 0                            ? policy_.timeouts.head
                                  : queue != nullptr && queue->Crowded() ? absl::ZeroDuration()
                                                                         : policy_.keep_alive;
      if (!stream.WaitForRequest(idle)) break;
      stream.BeginRequest();
      const bool last = served + 1 == policy_.max_requests;
      bool connection_closed = false;
      const bool ok = this->process_request(stream, last, connection_closed,
                                            [ssl](httplib::Request& req) { req.ssl = ssl; });
      if (stream.refused()) {
        stream.SendRefusal();
        return true;
      }
      if (!ok || connection_closed || !stream.message_done()) break;
    }
    return false;
  }

  const ConnectionPolicy policy_;
  std::atomic<BoundedTaskQueue*> queue_{nullptr};  // owned by httplib's listen loop
};

absl::Status CheckReadable(absl::string_view what, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls: ", what, " file \"", path, "\" does not exist or is not a file"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view ServerRequest::Query(absl::string_view key) const {
  auto it = query.find(std::string(key));
  return it == query.end() ? absl::string_view() : absl::string_view(it->second);
}

bool ServerRequest::HasQuery(absl::string_view key) const {
  return query.find(std::string(key)) != query.end();
}

class HttpServer::Writer final : public ChunkWriter {
 public:
  Writer(httplib::DataSink& sink, const std::atomic<bool>& stopping)
      : sink_(sink), stopping_(stopping) {}

  bool Write(absl::string_view chunk) override {
    if (failed_ || Stopping()) return false;
    if (chunk.empty()) return true;
    if (!sink_.is_writable() || !sink_.write(chunk.data(), chunk.size())) failed_ = true;
    return !failed_;
  }
  bool Stopping() const override { return stopping_.load(); }

 private:
  httplib::DataSink& sink_;
  const std::atomic<bool>& stopping_;
  bool failed_ = false;
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(HttpServerOptions options) {
  if (options.address.empty()) return absl::InvalidArgumentError("http server: empty address");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("http server ", options.name, ": invalid port ", options.port));
  }
  if (options.worker_threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat("http server ", options.name,
                                                   ": worker_threads must be >= 1, got ",
                                                   options.worker_threads));
  }
  if (options.max_connections < 1 || options.max_headers < 1 ||
      options.max_request_line_bytes < 16 || options.max_header_bytes < 16 ||
      options.request_head_timeout <= absl::ZeroDuration() ||
      options.request_body_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("http server ", options.name,
                     ": request limits must be positive (max_connections, max_headers, "
                     "max_request_line_bytes, max_header_bytes, request_head_timeout, "
                     "request_body_timeout)"));
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "http server ", options.name, ": tls needs both a certificate and a key file"));
  }
  if (!options.client_ca_file.empty() && options.tls_cert_file.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "http server ", options.name, ": client_ca_file needs tls (certificate and key)"));
  }
  ConnectionPolicy policy{
      .limits = {.max_request_line_bytes = options.max_request_line_bytes,
                 .max_header_bytes = options.max_header_bytes,
                 .max_headers = options.max_headers,
                 .max_body_bytes = options.max_request_body_bytes},
      .timeouts = {.head = options.request_head_timeout,
                   .body = options.request_body_timeout,
                   .read = options.read_timeout,
                   .write = options.write_timeout},
      .keep_alive = options.keep_alive_timeout,
      .max_requests = std::max(1, options.keep_alive_max_requests),
      .worker_threads = static_cast<size_t>(std::max(1, options.worker_threads)),
      .max_connections = static_cast<size_t>(std::max(1, options.max_connections)),
  };
  std::unique_ptr<httplib::Server> server;
  std::unique_ptr<CertKeyReloader> reloader;
  if (!options.tls_cert_file.empty()) {
    for (const auto& [what, path] :
         {std::pair<absl::string_view, const std::string&>{"certificate", options.tls_cert_file},
          {"key", options.tls_key_file},
          {"client CA", options.client_ca_file}}) {
      if (path.empty()) continue;
      absl::Status s = CheckReadable(what, path);
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("http server ", options.name, ": ", s.message()));
      }
    }
    auto ssl = std::make_unique<BoundedServer<httplib::SSLServer>>(
        policy, options.tls_cert_file.c_str(), options.tls_key_file.c_str(),
        options.client_ca_file.empty() ? nullptr : options.client_ca_file.c_str());
    if (!ssl->is_valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("http server ", options.name, ": tls: cannot load certificate \"",
                       options.tls_cert_file, "\" with key \"", options.tls_key_file, "\"",
                       options.client_ca_file.empty()
                           ? ""
                           : absl::StrCat(" and client CA \"", options.client_ca_file, "\"")));
    }
    int min_version = TLS1_2_VERSION;
    if (options.tls_min_version == "VersionTLS13") {
      min_version = TLS1_3_VERSION;
    } else if (!options.tls_min_version.empty() && options.tls_min_version != "VersionTLS12") {
      return absl::InvalidArgumentError(absl::StrCat(
          "http server ", options.name, ": tls min version \"", options.tls_min_version,
          "\" is not supported (VersionTLS12 or VersionTLS13)"));
    }
    if (SSL_CTX_set_min_proto_version(ssl->ssl_context(), min_version) != 1) {
      return absl::InternalError(
          absl::StrCat("http server ", options.name, ": cannot set the tls min version"));
    }
    absl::StatusOr<std::unique_ptr<CertKeyReloader>> r =
        CertKeyReloader::Create(options.tls_cert_file, options.tls_key_file, options.log_component);
    if (!r.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("http server ", options.name, ": ", r.status().message()));
    }
    reloader = *std::move(r);
    reloader->InstallOn(ssl->ssl_context());
    server = std::move(ssl);
  } else {
    server = std::make_unique<BoundedServer<httplib::Server>>(policy);
  }
  return std::unique_ptr<HttpServer>(
      new HttpServer(std::move(options), std::move(server), std::move(reloader)));
}

HttpServer::HttpServer(HttpServerOptions options, std::unique_ptr<httplib::Server> server,
                       std::unique_ptr<CertKeyReloader> cert_reloader)
    : options_(std::move(options)),
      cert_reloader_(std::move(cert_reloader)),
      server_(std::move(server)) {
  server_->set_socket_options([this](int sock) {
    SetReuseAddr(sock);
    listen_fd_.store(sock);
  });
  server_->set_tcp_nodelay(true);
  auto split = [](absl::Duration d, time_t& sec, time_t& usec) {
    sec = static_cast<time_t>(absl::ToInt64Seconds(d));
    usec = static_cast<time_t>(absl::ToInt64Microseconds(d - absl::Seconds(sec)));
  };
  time_t sec = 0, usec = 0;
  split(options_.read_timeout, sec, usec);
  server_->set_read_timeout(sec, usec);
  split(options_.write_timeout, sec, usec);
  server_->set_write_timeout(sec, usec);
  server_->set_keep_alive_timeout(
      std::max<time_t>(1, static_cast<time_t>(absl::ToInt64Seconds(options_.keep_alive_timeout))));
  server_->set_keep_alive_max_count(
      static_cast<size_t>(std::max(1, options_.keep_alive_max_requests)));
  server_->set_payload_max_length(options_.max_request_body_bytes);
  server_->set_exception_handler([this](const httplib::Request& req, httplib::Response& res,
                                        std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    Log(options_.log_component)
        .error("http handler threw server={} path={} err=\"{}\"", options_.name, req.path, what);
    res.status = 500;
    res.set_content(absl::StrCat("internal error: ", what, "\n"), "text/plain; charset=utf-8");
  });
  auto dispatch = [this](const httplib::Request& req, httplib::Response& res) {
    Dispatch(req, res);
  };
  server_->Get(kAnyPath, dispatch);
  server_->Post(kAnyPath, dispatch);
  server_->Put(kAnyPath, dispatch);
  server_->Patch(kAnyPath, dispatch);
  server_->Delete(kAnyPath, dispatch);
  server_->Options(kAnyPath, dispatch);
}

HttpServer::~HttpServer() { Stop(); }

absl::Status HttpServer::AddRoute(Route route) {
  if (!absl::StartsWith(route.path, "/")) {
    return absl::InvalidArgumentError(absl::StrCat("http server ", options_.name, ": route path \"",
                                                   route.path, "\" must start with '/'"));
  }
  if (!route.handler) {
    return absl::InvalidArgumentError(
        absl::StrCat("http server ", options_.name, ": route ", route.path, " has no handler"));
  }
  if (route.methods.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("http server ", options_.name, ": route ", route.path, " has no methods"));
  }
  for (const std::string& m : route.methods) {
    if (std::find(std::begin(kMethods), std::end(kMethods), m) == std::end(kMethods)) {
      return absl::InvalidArgumentError(absl::StrCat("http server ", options_.name, ": route ",
                                                     route.path, ": unsupported method ", m));
    }
  }
  absl::MutexLock lock(&routes_mu_);
  if (routes_frozen_) {
    return absl::FailedPreconditionError(
        absl::StrCat("http server ", options_.name, ": route ", route.path, " added after Start"));
  }
  for (const Route& r : routes_) {
    if (r.path != route.path || r.prefix != route.prefix) continue;
    for (const std::string& m : route.methods) {
      if (AllowsMethod(r, m)) {
        return absl::InvalidArgumentError(
            absl::StrCat("http server ", options_.name, ": duplicate route ", m, " ", route.path));
      }
    }
  }
  routes_.push_back(std::move(route));
  return absl::OkStatus();
}

std::string HttpServer::url() const {
  return absl::StrCat(tls() ? "https://" : "http://", HostPort(options_.address, port()));
}

std::string HttpServer::IndexText() const {
  std::vector<const Route*> sorted;
  absl::MutexLock lock(&routes_mu_);
  for (const Route& r : routes_) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Route* a, const Route* b) { return a->path < b->path; });
  size_t width = 1;
  for (const Route* r : sorted) width = std::max(width, r->path.size() + (r->prefix ? 1 : 0));
  std::string out = absl::StrCat(options_.name, " endpoints:\n");
  for (const Route* r : sorted) {
    std::string path = absl::StrCat(r->path, r->prefix ? "*" : "");
    absl::StrAppend(&out, "  ", path, std::string(width - path.size() + 2, ' '),
                    absl::StrJoin(r->methods, ","), "  ", r->help, "\n");
  }
  return out;
}

namespace {

void SendResponse(ServerResponse& response, httplib::Response& res) {
  res.status = response.status;
  for (const auto& [name, value] : response.headers) res.set_header(name, value);
  res.set_content(std::move(response.body), response.content_type);
}

}  // namespace

void HttpServer::Dispatch(const httplib::Request& req, httplib::Response& res) {
  ServerRequest request;
  request.method = req.method;
  request.path = req.path;
  request.query.insert(req.params.begin(), req.params.end());
  for (const auto& [name, value] : req.headers) request.headers.Add(name, value);
  request.body = req.body;
  request.remote_addr = HostPort(req.remote_addr, req.remote_port);
  request.peer_certificate_subject = PeerSubject(req);
  PeerNames(req, request);
  if (options_.request_filter &&
      std::find(options_.unfiltered_paths.begin(), options_.unfiltered_paths.end(), request.path) ==
          options_.unfiltered_paths.end()) {
    ServerResponse refused;
    if (!options_.request_filter(request, refused)) {
      SendResponse(refused, res);
      return;
    }
  }

  RouteHandler handler;
  bool path_known = false;
  std::set<std::string> allowed;
  {
    absl::MutexLock lock(&routes_mu_);
    // Candidates in order of specificity: exact routes, then prefixes, longest first.
    const Route* best = nullptr;
    auto consider = [&](const Route& r) {
      path_known = true;
      for (const std::string& m : r.methods) allowed.insert(m);
      if (best == nullptr && AllowsMethod(r, req.method)) best = &r;
    };
    for (const Route& r : routes_) {
      if (!r.prefix && r.path == req.path) consider(r);
    }
    if (best == nullptr) {
      std::vector<const Route*> prefixes;
      for (const Route& r : routes_) {
        if (r.prefix && absl::StartsWith(req.path, r.path)) prefixes.push_back(&r);
      }
      std::stable_sort(prefixes.begin(), prefixes.end(), [](const Route* a, const Route* b) {
        return a->path.size() > b->path.size();
      });
      for (const Route* r : prefixes) consider(*r);
    }
    if (best != nullptr) handler = best->handler;
  }
  if (!handler) {
    if (path_known) {
      res.status = 405;
      res.set_header("Allow", absl::StrJoin(allowed, ", "));
      res.set_content(absl::StrCat("method ", req.method, " not allowed on ", req.path, "\n"),
                      "text/plain; charset=utf-8");
    } else if (options_.index && req.path == "/" && (req.method == "GET" || req.method == "HEAD")) {
      res.status = 200;
      res.set_content(IndexText(), "text/plain; charset=utf-8");
    } else {
      res.status = 404;
      res.set_content(absl::StrCat("not found: ", req.path, "\n"), "text/plain; charset=utf-8");
    }
    return;
  }

  ServerResponse response;
  handler(request, response);

  res.status = response.status;
  for (const auto& [name, value] : response.headers) res.set_header(name, value);
  if (response.stream) {
    StreamFunction stream = std::move(response.stream);
    res.set_chunked_content_provider(response.content_type,
                                     [this, stream](size_t /*offset*/, httplib::DataSink& sink) {
                                       Writer writer(sink, stopping_);
                                       stream(writer);
                                       sink.done();
                                       return true;
                                     });
  } else {
    res.set_content(std::move(response.body), response.content_type);
  }
}

absl::Status HttpServer::Start() {
  absl::MutexLock lock(&lifecycle_mu_);
  if (state_ != State::kNew) {
    return absl::FailedPreconditionError(
        absl::StrCat("http server ", options_.name, ": Start called twice or after Stop"));
  }
  const std::string where = HostPort(options_.address, options_.port);
  errno = 0;
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.address);
  } else if (!server_->bind_to_port(options_.address, port)) {
    port = -1;
  }
  if (port >= 0 && listen_fd_.load() >= 0) {
    // httplib listens with a backlog of 5: a burst of concurrent connects overflows it
    // and the dropped SYNs are retried only after a second. Listening again on the
    // bound socket raises the backlog.
    ::listen(listen_fd_.load(), SOMAXCONN);
  }
  if (port < 0) {
    int err = errno;
    return absl::FailedPreconditionError(
        absl::StrCat("http server ", options_.name, ": listen on ", where, ": ",
                     err != 0 ? absl::AsciiStrToLower(std::strerror(err))
                              : std::string("cannot bind (bad address?)")));
  }
  {
    absl::MutexLock routes_lock(&routes_mu_);
    routes_frozen_ = true;
  }
  port_.store(port);
  loop_exited_.store(false);
  loop_ = std::jthread([this] {
    // Worker threads are created by this thread and inherit its signal mask.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    if (!server_->listen_after_bind()) {
      Log(options_.log_component)
          .error("http server accept loop failed server={} address={}", options_.name,
                 HostPort(options_.address, port_.load()));
    }
    loop_exited_.store(true);
  });
  // Stop() is only safe once the loop runs (httplib ignores stop() before that).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running() && !loop_exited_.load() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (!server_->is_running()) {
    server_->stop();
    loop_.join();
    port_.store(0);
    state_ = State::kStopped;
    return absl::InternalError(absl::StrCat("http server ", options_.name, ": accept loop on ",
                                            HostPort(options_.address, port), " did not start"));
  }
  state_ = State::kRunning;
  Log(options_.log_component).info("http server listening server={} url={}", options_.name, url());
  return absl::OkStatus();
}

void HttpServer::Stop() {
  absl::MutexLock lock(&lifecycle_mu_);
  if (state_ != State::kRunning) {
    state_ = State::kStopped;
    return;
  }
  stopping_.store(true);
  server_->stop();
  ShutdownAcceptedConnections(port_.load());
  if (loop_.joinable()) loop_.join();
  state_ = State::kStopped;
  Log(options_.log_component).info("http server stopped server={}", options_.name);
}

}  // namespace trimaran::http
