#include "tests/e2e/harness/fault_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/http/self_signed.h"
#include "common/status_macros.h"
#include "tests/e2e/harness/http1_message.h"

namespace trimaran::e2e {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kMaxLoggedBody = 1 << 20;
// How often the accept loop looks for finished sessions and a paused proxy for resume.
constexpr int kAcceptPollMs = 100;

bool IsWatch(absl::string_view query) {
  for (absl::string_view param : absl::StrSplit(query, '&')) {
    if (param == "watch=true" || param == "watch=1") return true;
  }
  return false;
}

std::string JsonEscape(absl::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out += c;
        }
    }
  }
  return out;
}

// The bytes of a canned response to a `method` request.
std::string Serialize(const CannedResponse& r, absl::string_view method) {
  http::Headers headers = r.headers;
  if (!headers.Has("Content-Length") && !headers.Has("Transfer-Encoding")) {
    headers.Set("Content-Length", absl::StrCat(r.body.size()));
  }
  if (r.close) headers.Set("Connection", "close");
  std::string out = SerializeResponseHead(r.status, r.reason, headers);
  if (method != "HEAD") out += r.body;
  return out;
}

CannedResponse ProxyError(int status, absl::string_view message) {
  CannedResponse r = CannedResponse::KubeStatus(status, ReasonPhrase(status),
                                                absl::StrCat("fault proxy: ", message));
  return r;
}

// The request head without its Expect field (the proxy answered 100-continue itself).
std::string WithoutExpect(const Http1Head& head) {
  std::string out = absl::StrCat(head.method, " ", head.target, " ", head.version, "\r\n");
  for (const auto& [name, value] : head.headers) {
    if (!absl::EqualsIgnoreCase(name, "Expect")) absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  out += "\r\n";
  return out;
}

}  // namespace

// ---- public value types ----

CannedResponse CannedResponse::KubeStatus(int code, absl::string_view reason,
                                          absl::string_view message, http::Headers headers) {
  CannedResponse r;
  r.status = code;
  r.headers = std::move(headers);
  r.headers.Set("Content-Type", "application/json");
  r.body = absl::StrCat(
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")",
      JsonEscape(message), R"(","reason":")", JsonEscape(reason), R"(","code":)", code, "}");
  return r;
}

FaultRule FaultRule::Count(RequestMatch match) {
  FaultRule r;
  r.match = std::move(match);
  r.kind = FaultKind::kCount;
  return r;
}

FaultRule FaultRule::Hang(RequestMatch match, absl::Duration hang, AfterHang after) {
  FaultRule r;
  r.match = std::move(match);
  r.kind = FaultKind::kHang;
  r.hang = hang;
  r.after_hang = after;
  return r;
}

FaultRule FaultRule::Respond(RequestMatch match, CannedResponse response) {
  FaultRule r;
  r.match = std::move(match);
  r.kind = FaultKind::kRespond;
  r.response = std::move(response);
  return r;
}

FaultRule FaultRule::ReplaceResponse(RequestMatch match, CannedResponse response) {
  FaultRule r;
  r.match = std::move(match);
  r.kind = FaultKind::kReplaceResponse;
  r.response = std::move(response);
  return r;
}

FaultRule FaultRule::Close(RequestMatch match) {
  FaultRule r;
  r.match = std::move(match);
  r.kind = FaultKind::kClose;
  return r;
}

// ---- internal state ----

struct FaultProxy::Compiled {
  RequestMatch match;
  std::optional<std::regex> path;
};

struct FaultProxy::Rule {
  RuleId id = 0;
  FaultRule rule;
  Compiled match;
  int64_t hits = 0;
  int applied = 0;
  bool removed = false;     // guarded by FaultProxy::mu_
  int64_t release_gen = 0;  // guarded by FaultProxy::mu_
};

struct FaultProxy::Session {
  std::unique_ptr<SocketStream> client;
  // Replaced only by the session's thread, under mu_ (CutConnections shuts it down).
  std::unique_ptr<SocketStream> upstream;
  std::atomic<bool> cut{false};  // written under mu_ so that held waits wake
  std::atomic<bool> done{false};
  std::thread thread;
};

namespace {

absl::StatusOr<std::optional<std::regex>> CompileRegex(const std::string& pattern) {
  if (pattern.empty()) return std::optional<std::regex>();
  try {
    return std::optional<std::regex>(std::regex(pattern, std::regex::ECMAScript));
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("path_regex \"", pattern, "\": ", e.what()));
  }
}

}  // namespace

bool FaultProxy::Matches(const Compiled& m, const ProxiedRequest& r) const {
  if (!m.match.method.empty() && m.match.method != r.method) return false;
  if (m.match.watch.has_value() && *m.match.watch != r.watch) return false;
  if (m.path.has_value() && !std::regex_match(r.path, *m.path)) return false;
  return !m.match.predicate || m.match.predicate(r);
}

// ---- lifecycle ----

FaultProxy::FaultProxy(FaultProxyOptions options) : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<FaultProxy>> FaultProxy::Start(FaultProxyOptions options) {
  std::unique_ptr<FaultProxy> proxy(new FaultProxy(std::move(options)));
  TRIMARAN_RETURN_IF_ERROR(proxy->Init());
  return proxy;
}

absl::Status FaultProxy::Init() {
  // The upstream: scheme://IP:PORT on loopback.
  absl::string_view rest = options_.upstream;
  if (absl::ConsumePrefix(&rest, "https://")) {
    upstream_tls_ = true;
  } else if (!absl::ConsumePrefix(&rest, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("upstream \"", options_.upstream, "\" is not http:// or https://"));
  }
  rest = rest.substr(0, rest.find('/'));
  size_t colon = rest.rfind(':');
  if (colon == absl::string_view::npos ||
      !absl::SimpleAtoi(rest.substr(colon + 1), &upstream_port_) || upstream_port_ <= 0 ||
      upstream_port_ > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("upstream \"", options_.upstream, "\" has no port"));
  }
  absl::string_view host = rest.substr(0, colon);
  absl::ConsumePrefix(&host, "[");
  absl::ConsumeSuffix(&host, "]");
  upstream_host_ = host == "localhost" ? "127.0.0.1" : std::string(host);
  if (upstream_host_ != "::1" && !absl::StartsWith(upstream_host_, "127.")) {
    return absl::InvalidArgumentError(
        absl::StrCat("upstream \"", options_.upstream, "\" is not on loopback"));
  }
  if (upstream_tls_) {
    if (options_.upstream_ca_file.empty()) {
      return absl::InvalidArgumentError("an https upstream needs upstream_ca_file");
    }
    TRIMARAN_ASSIGN_OR_RETURN(client_ctx_, MakeClientTlsContext(options_.upstream_ca_file));
  }

  // Serving TLS.
  std::string cert = options_.tls_cert_file;
  std::string key = options_.tls_key_file;
  if (!options_.tls_cert_dir.empty()) {
    if (!cert.empty() || !key.empty()) {
      return absl::InvalidArgumentError(
          "give tls_cert_dir or tls_cert_file/tls_key_file, not both");
    }
    TRIMARAN_ASSIGN_OR_RETURN(
        http::ServingCertFiles files,
        http::EnsureSelfSignedCert(options_.tls_cert_dir, {.hosts = {"127.0.0.1", "localhost"},
                                                           .file_stem = "fault-proxy"}));
    cert = files.cert_file;
    key = files.key_file;
    ca_file_ = cert;
  }
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError("tls_cert_file and tls_key_file go together");
  }
  if (!cert.empty()) {
    TRIMARAN_ASSIGN_OR_RETURN(server_ctx_, MakeServerTlsContext(cert, key));
  }

  // Listener.
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(options_.port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, SOMAXCONN) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("listen on 127.0.0.1:", options_.port, ": ", std::strerror(errno)));
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return absl::OkStatus();
}

FaultProxy::~FaultProxy() {
  Stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void FaultProxy::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_.store(true);  // under mu_: held requests and paused I/O wake
  }
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  // No session starts after the accept loop has ended.
  std::list<std::shared_ptr<Session>> sessions;
  {
    absl::MutexLock lock(&mu_);
    for (const std::shared_ptr<Session>& s : sessions_) {
      s->cut.store(true);
      s->client->Shutdown();
      if (s->upstream) s->upstream->Shutdown();
    }
    sessions.swap(sessions_);
  }
  for (const std::shared_ptr<Session>& s : sessions) {
    if (s->thread.joinable()) s->thread.join();
  }
}

std::string FaultProxy::url() const {
  return absl::StrCat(server_ctx_ ? "https" : "http", "://127.0.0.1:", port_);
}

void FaultProxy::AcceptLoop() {
  // Threads started from here inherit the mask: OpenSSL writes with write(2).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  while (!stopping_.load()) {
    // Reap finished sessions (their threads have returned).
    std::list<std::shared_ptr<Session>> finished;
    {
      absl::MutexLock lock(&mu_);
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        if ((*it)->done.load()) {
          finished.push_back(std::move(*it));
          it = sessions_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const std::shared_ptr<Session>& s : finished) s->thread.join();

    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    // A paused proxy does not accept (the kernel still completes handshakes into the
    // backlog, as for a frozen process).
    const int nfds = paused_.load() ? 1 : 2;
    if (::poll(fds, nfds, kAcceptPollMs) <= 0 || stopping_.load()) continue;
    if (nfds < 2 || (fds[1].revents & POLLIN) == 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    absl::MutexLock lock(&mu_);
    ++accepted_;
    if (cut_next_ > 0) {
      --cut_next_;
      ::shutdown(fd, SHUT_RDWR);
      ::close(fd);
      continue;
    }
    auto session = std::make_shared<Session>();
    session->client = std::make_unique<SocketStream>(fd);
    sessions_.push_back(session);
    session->thread = std::thread([this, session] {
      Serve(*session);
      DropUpstream(*session);
      session->client->Shutdown();
      session->done.store(true);
    });
  }
}

// ---- control API ----

absl::StatusOr<RuleId> FaultProxy::AddRule(FaultRule rule) {
  auto r = std::make_shared<Rule>();
  TRIMARAN_ASSIGN_OR_RETURN(r->match.path, CompileRegex(rule.match.path_regex));
  r->match.match = rule.match;
  r->rule = std::move(rule);
  absl::MutexLock lock(&mu_);
  r->id = next_rule_id_++;
  rules_.push_back(r);
  return r->id;
}

void FaultProxy::RemoveRule(RuleId id) {
  absl::MutexLock lock(&mu_);
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if ((*it)->id == id) {
      (*it)->removed = true;
      rules_.erase(it);
      return;
    }
  }
}

void FaultProxy::ClearRules() {
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Rule>& r : rules_) r->removed = true;
  rules_.clear();
}

void FaultProxy::ReleaseRule(RuleId id) {
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Rule>& r : rules_) {
    if (r->id == id) ++r->release_gen;
  }
}

int64_t FaultProxy::Hits(RuleId id) const {
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Rule>& r : rules_) {
    if (r->id == id) return r->hits;
  }
  return 0;
}

void FaultProxy::GateWatches() {
  absl::MutexLock lock(&mu_);
  watch_gate_closed_ = true;
}

void FaultProxy::ReleaseWatches() {
  absl::MutexLock lock(&mu_);
  watch_gate_closed_ = false;
}

int FaultProxy::CutConnections(int also_next) {
  absl::MutexLock lock(&mu_);
  cut_next_ += std::max(also_next, 0);
  int cut = 0;
  for (const std::shared_ptr<Session>& s : sessions_) {
    if (s->done.load() || s->cut.load()) continue;
    s->cut.store(true);
    s->client->Shutdown();
    if (s->upstream) s->upstream->Shutdown();
    ++cut;
  }
  return cut;
}

void FaultProxy::Pause() {
  absl::MutexLock lock(&mu_);
  paused_.store(true);
}

void FaultProxy::Resume() {
  absl::MutexLock lock(&mu_);
  paused_.store(false);
}

int FaultProxy::HeldRequests() const {
  absl::MutexLock lock(&mu_);
  return held_;
}

int FaultProxy::OpenConnections() const {
  absl::MutexLock lock(&mu_);
  int open = 0;
  for (const std::shared_ptr<Session>& s : sessions_) open += !s->done.load();
  return open;
}

int64_t FaultProxy::AcceptedConnections() const {
  absl::MutexLock lock(&mu_);
  return accepted_;
}

int64_t FaultProxy::UpstreamConnects() const {
  absl::MutexLock lock(&mu_);
  return upstream_connects_;
}

int64_t FaultProxy::NextSeq() const {
  absl::MutexLock lock(&mu_);
  return next_seq_;
}

int64_t FaultProxy::CountRequests(const RequestMatch& match, int64_t since_seq) const {
  absl::StatusOr<std::optional<std::regex>> path = CompileRegex(match.path_regex);
  if (!path.ok()) return -1;
  Compiled m{match, *std::move(path)};
  absl::MutexLock lock(&mu_);
  int64_t n = 0;
  for (const RequestRecord& r : log_) {
    if (r.seq >= since_seq && Matches(m, r.request)) ++n;
  }
  return n;
}

std::vector<RequestRecord> FaultProxy::Requests(int64_t since_seq) const {
  absl::MutexLock lock(&mu_);
  std::vector<RequestRecord> out;
  for (const RequestRecord& r : log_) {
    if (r.seq >= since_seq) out.push_back(r);
  }
  return out;
}

void FaultProxy::Finish(int64_t seq, absl::string_view outcome, int upstream_status,
                        int client_status) {
  absl::MutexLock lock(&mu_);
  if (log_.empty() || seq < log_.front().seq) return;
  const size_t i = static_cast<size_t>(seq - log_.front().seq);
  if (i >= log_.size()) return;
  RequestRecord& r = log_[i];
  r.outcome = std::string(outcome);
  r.upstream_status = upstream_status;
  r.client_status = client_status;
}

// ---- serving ----

absl::Status FaultProxy::AwaitRunning(const Session& session, absl::Time deadline) {
  if (!paused_.load() && !stopping_.load() && !session.cut.load()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  const absl::Time limit = std::min(deadline, absl::Now() + options_.max_hold);
  auto running_or_ended = [this, &session] {
    return !paused_.load() || stopping_.load() || session.cut.load();
  };
  mu_.AwaitWithDeadline(absl::Condition(&running_or_ended), limit);
  if (stopping_.load() || session.cut.load()) return absl::CancelledError("connection cut");
  if (paused_.load()) return absl::DeadlineExceededError("paused past the operation's deadline");
  return absl::OkStatus();
}

bool FaultProxy::Ended(const Session& session) const {
  return stopping_.load() || session.cut.load();
}

void FaultProxy::DropUpstream(Session& session) {
  std::unique_ptr<SocketStream> dead;
  {
    absl::MutexLock lock(&mu_);
    dead = std::move(session.upstream);
  }
  // Destroyed here, outside the lock.
}

bool FaultProxy::Hold(const Session& session, const std::function<bool()>& released,
                      absl::Duration hold) {
  absl::MutexLock lock(&mu_);
  ++held_;
  auto done = [this, &session, &released] { return released() || Ended(session); };
  mu_.AwaitWithDeadline(absl::Condition(&done), absl::Now() + std::min(hold, options_.max_hold));
  --held_;
  return released();
}

void FaultProxy::Serve(Session& session) {
  session.client->set_gate(
      [this, &session](absl::Time deadline) { return AwaitRunning(session, deadline); });
  if (server_ctx_ != nullptr &&
      !session.client->StartTlsServer(*server_ctx_, absl::Now() + options_.io_timeout).ok()) {
    return;
  }
  std::string in;
  while (!Ended(session) && ServeOne(session, in)) {
  }
}

absl::Status FaultProxy::ConnectUpstream(Session& session) {
  const absl::Time deadline = absl::Now() + options_.connect_timeout;
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<SocketStream> up,
                            SocketStream::Connect(upstream_host_, upstream_port_, deadline,
                                                  [this, &session] { return Ended(session); }));
  up->set_gate([this, &session](absl::Time d) { return AwaitRunning(session, d); });
  SocketStream* stream = up.get();
  {
    absl::MutexLock lock(&mu_);
    ++upstream_connects_;
    if (Ended(session)) return absl::CancelledError("connection cut");
    session.upstream = std::move(up);  // from here on, CutConnections can shut it down
  }
  if (upstream_tls_) {
    absl::Status s = stream->StartTlsClient(*client_ctx_, upstream_host_, deadline);
    if (!s.ok()) {
      DropUpstream(session);
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status FaultProxy::WriteCanned(Session& session, const CannedResponse& response,
                                     absl::string_view method) {
  return session.client->WriteAll(Serialize(response, method), absl::Now() + options_.io_timeout);
}

bool FaultProxy::ServeOne(Session& session, std::string& in) {
  SocketStream& client = *session.client;
  // The head: wait up to idle_timeout for the first byte, then io_timeout for the rest.
  absl::Time deadline = absl::Now() + (in.empty() ? options_.idle_timeout : options_.io_timeout);
  size_t head_end = 0;
  while ((head_end = FindHeadEnd(in)) == 0) {
    if (in.size() > kMaxHeadBytes) {
      (void)WriteCanned(session, ProxyError(400, "request head too large"), "");
      return false;
    }
    const bool first = in.empty();
    absl::StatusOr<size_t> n = client.ReadSome(&in, kReadChunk, deadline);
    if (!n.ok() || *n == 0) return false;
    if (first) deadline = absl::Now() + options_.io_timeout;
  }
  absl::StatusOr<Http1Head> head = ParseRequestHead(absl::string_view(in).substr(0, head_end));
  absl::StatusOr<BodyFramer> framer =
      head.ok() ? BodyFramer::ForRequest(*head) : absl::StatusOr<BodyFramer>(head.status());
  if (!framer.ok()) {
    (void)WriteCanned(session, ProxyError(400, framer.status().message()), "");
    return false;
  }
  std::string raw = in.substr(0, head_end);
  in.erase(0, head_end);
  if (absl::EqualsIgnoreCase(head->headers.GetOr("Expect"), "100-continue")) {
    raw = WithoutExpect(*head);
    if (!framer->done() && !client.WriteAll("HTTP/1.1 100 Continue\r\n\r\n", deadline).ok()) {
      return false;
    }
  }
  ProxiedRequest req;
  req.method = head->method;
  req.path = std::string(head->path());
  req.query = std::string(head->query());
  req.headers = head->headers;
  req.watch = IsWatch(req.query);
  framer->CollectPayload(&req.body, kMaxLoggedBody);
  while (!framer->done()) {
    if (in.empty()) {
      absl::StatusOr<size_t> n = client.ReadSome(&in, kReadChunk, deadline);
      if (!n.ok() || *n == 0) return false;
      continue;
    }
    absl::StatusOr<size_t> used = framer->Consume(in);
    if (!used.ok()) {
      (void)WriteCanned(session, ProxyError(400, used.status().message()), "");
      return false;
    }
    raw.append(in, 0, *used);
    in.erase(0, *used);
  }
  const bool client_keep_alive = head->KeepAlive();

  // Log it and pick the rule.
  int64_t seq = 0;
  std::shared_ptr<Rule> rule;
  bool gated = false;
  {
    absl::MutexLock lock(&mu_);
    seq = next_seq_++;
    log_.push_back(RequestRecord{.seq = seq, .time = absl::Now(), .request = req});
    while (log_.size() > std::max<size_t>(options_.max_log_entries, 1)) log_.pop_front();
    for (const std::shared_ptr<Rule>& r : rules_) {
      if (!Matches(r->match, req)) continue;
      if (r->rule.kind == FaultKind::kCount) {
        ++r->hits;
        continue;
      }
      if (rule != nullptr || (r->rule.times >= 0 && r->applied >= r->rule.times)) continue;
      rule = r;
      ++r->applied;
      ++r->hits;
    }
    if (rule != nullptr) log_.back().rule = rule->id;
    gated = req.watch && watch_gate_closed_;
  }

  if (gated) {
    const bool open = Hold(
        session,
        [this] {
          mu_.AssertReaderHeld();  // Hold evaluates the condition under mu_
          return !watch_gate_closed_;
        },
        options_.max_hold);
    if (!open && !Ended(session)) {
      Finish(seq, "gate-expired", 0, 0);
      return false;
    }
  }
  const FaultKind kind = rule == nullptr ? FaultKind::kCount : rule->rule.kind;
  if (kind == FaultKind::kHang) {
    int64_t gen = 0;
    {
      absl::MutexLock lock(&mu_);
      gen = rule->release_gen;
    }
    Hold(
        session, [&rule, gen] { return rule->removed || rule->release_gen != gen; },
        rule->rule.hang);
  }
  if (Ended(session)) {
    Finish(seq, "cut", 0, 0);
    return false;
  }
  switch (kind) {
    case FaultKind::kHang:
      if (rule->rule.after_hang == AfterHang::kClose) {
        Finish(seq, "hung-closed", 0, 0);
        return false;
      }
      break;
    case FaultKind::kClose:
      Finish(seq, "closed", 0, 0);
      return false;
    case FaultKind::kRespond: {
      // Recorded before the client can see the response (tests read the log then).
      const CannedResponse& canned = rule->rule.response;
      Finish(seq, "responded", 0, canned.status);
      const bool ok = WriteCanned(session, canned, req.method).ok();
      if (!ok) Finish(seq, "client-gone", 0, 0);
      return ok && !canned.close && client_keep_alive;
    }
    default:
      break;
  }
  const CannedResponse* replacement =
      kind == FaultKind::kReplaceResponse ? &rule->rule.response : nullptr;
  return Forward(session, seq, raw, req.method, replacement) && client_keep_alive;
}

absl::StatusOr<Http1Head> FaultProxy::ReadResponseHead(Session& session, std::string& buf,
                                                       size_t& head_end) {
  const absl::Time deadline = absl::Now() + options_.io_timeout;
  for (;;) {
    while ((head_end = FindHeadEnd(buf)) == 0) {
      if (buf.size() > kMaxHeadBytes) {
        return absl::InternalError("upstream response head too large");
      }
      absl::StatusOr<size_t> n =
          session.upstream->ReadSome(&buf, kReadChunk, deadline, session.client.get());
      if (!n.ok()) return n.status();
      if (*n == 0) {
        return absl::UnavailableError("upstream closed the connection before responding");
      }
    }
    absl::StatusOr<Http1Head> head = ParseResponseHead(absl::string_view(buf).substr(0, head_end));
    if (!head.ok()) return absl::InternalError(head.status().message());
    if (head->status >= 200) return head;
    if (head->status != 100) {
      return absl::InternalError(
          absl::StrCat("upstream interim response ", head->status, " is not supported"));
    }
    buf.erase(0, head_end);  // 100 Continue: the final response follows
  }
}

bool FaultProxy::Forward(Session& session, int64_t seq, const std::string& raw_request,
                         const std::string& method, const CannedResponse* replacement) {
  SocketStream& client = *session.client;
  // Ends the exchange without a response from upstream: a 502/504 from the proxy, unless
  // the connection was cut or the client has gone. Returns whether to keep the client.
  auto fail = [&](const absl::Status& why) {
    DropUpstream(session);
    if (Ended(session) || client.PeerHungUp()) {
      Finish(seq, Ended(session) ? "cut" : "client-gone", 0, 0);
      return false;
    }
    const int status = why.code() == absl::StatusCode::kDeadlineExceeded ? 504 : 502;
    Finish(seq, absl::StrCat("upstream-error: ", why.message()), 0, status);
    const bool ok = WriteCanned(session, ProxyError(status, why.message()), method).ok();
    if (!ok) Finish(seq, absl::StrCat("upstream-error: ", why.message()), 0, 0);
    return ok;
  };

  std::string buf;
  size_t head_end = 0;
  Http1Head head;
  for (int attempt = 0;; ++attempt) {
    const bool reused = session.upstream != nullptr;
    if (!reused) {
      if (absl::Status s = ConnectUpstream(session); !s.ok()) return fail(s);
    }
    buf.clear();
    absl::Status s = session.upstream->WriteAll(raw_request, absl::Now() + options_.io_timeout);
    absl::StatusOr<Http1Head> h =
        s.ok() ? ReadResponseHead(session, buf, head_end) : absl::StatusOr<Http1Head>(s);
    if (h.ok()) {
      head = *std::move(h);
      break;
    }
    // A keep-alive connection the upstream closed meanwhile: connect once more.
    const bool stale = reused && attempt == 0 && buf.empty() && !Ended(session) &&
                       h.status().code() == absl::StatusCode::kUnavailable;
    if (!stale) return fail(h.status());
    DropUpstream(session);
  }

  const int upstream_status = head.status;
  if (replacement != nullptr) {
    // The upstream has acted; the client sees something else.
    DropUpstream(session);
    Finish(seq, "replaced", upstream_status, replacement->status);
    const bool ok = WriteCanned(session, *replacement, method).ok();
    if (!ok) Finish(seq, "client-gone", upstream_status, 0);
    return ok && !replacement->close;
  }
  absl::StatusOr<BodyFramer> framer = BodyFramer::ForResponse(head, method);
  if (!framer.ok()) return fail(absl::InternalError(framer.status().message()));
  // Once the head is out, a failure can only close the client connection.
  auto abort = [&](absl::string_view why) {
    DropUpstream(session);
    const std::string outcome = Ended(session)        ? "cut"
                                : client.PeerHungUp() ? "client-gone"
                                                      : std::string(why);
    Finish(seq, outcome, upstream_status, upstream_status);
    return false;
  };
  // Recorded before the client can have the whole response (tests read the log then); a
  // later failure overwrites it.
  bool recorded = false;
  auto record_forwarded = [&] {
    if (!recorded) Finish(seq, "forwarded", upstream_status, upstream_status);
    recorded = true;
  };
  if (framer->done()) record_forwarded();
  if (!client
           .WriteAll(absl::string_view(buf).substr(0, head_end), absl::Now() + options_.io_timeout)
           .ok()) {
    return abort("client-gone");
  }
  buf.erase(0, head_end);
  // The body, relayed as it arrives (a watch: event by event).
  bool extra_bytes = false;
  for (;;) {
    if (!buf.empty() && !framer->done()) {
      absl::StatusOr<size_t> used = framer->Consume(buf);
      if (!used.ok()) return abort(absl::StrCat("bad upstream body: ", used.status().message()));
      if (framer->done()) record_forwarded();
      if (!client
               .WriteAll(absl::string_view(buf).substr(0, *used), absl::Now() + options_.io_timeout)
               .ok()) {
        return abort("client-gone");
      }
      extra_bytes = *used < buf.size();  // past the body's end: the connection is unusable
      buf.clear();
    }
    if (framer->done()) break;
    absl::StatusOr<size_t> n =
        session.upstream->ReadSome(&buf, kReadChunk, absl::Now() + options_.idle_timeout, &client);
    if (n.ok() && *n > 0) continue;
    if (!n.ok()) return abort(absl::StrCat("upstream error mid-body: ", n.status().message()));
    if (!framer->FinishAtClose()) return abort("upstream closed mid-body");
    DropUpstream(session);  // read until close: complete
    break;
  }
  const bool keep_alive =
      head.KeepAlive() && framer->kind() != BodyFramer::Kind::kUntilClose && !extra_bytes;
  if (!keep_alive) DropUpstream(session);
  record_forwarded();
  return keep_alive;
}

}  // namespace trimaran::e2e
