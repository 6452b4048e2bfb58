#pragma once
// FaultProxy: an in-process HTTP/1.1 proxy on 127.0.0.1 that sits between a client (a
// daemon under test) and an upstream (kube-apiserver, the load watcher's REST port) and
// injects faults on command, for fault-injection e2e tests.
//
//   // In front of the real apiserver, serving TLS with its own self-signed certificate:
//   auto proxy = FaultProxy::Start({.upstream = cp.server(),  // https://127.0.0.1:P
//                                   .upstream_ca_file = cp.ca_file(),  // always verified
//                                   .tls_cert_dir = cp.dir() + "/proxy-tls"});
//   // The daemon's kubeconfig names (*proxy)->url() and trusts (*proxy)->ca_file()
//   // (ControlPlane::WriteKubeconfigFor).
//   const RequestMatch bind = {.method = "POST", .path_regex = kBindingPathRegex};
//   (*proxy)->AddRule(FaultRule::Respond(
//       {.method = "GET", .path_regex = "/api/v1/nodes"},
//       CannedResponse::KubeStatus(429, "TooManyRequests", "slow down",
//                                  {{"Retry-After", "60"}})).Times(3));
//   (*proxy)->AddRule(FaultRule::ReplaceResponse(
//       bind, CannedResponse::KubeStatus(504, "Timeout", "injected")).Times(1));
//   (*proxy)->CutConnections(/*also_next=*/10);
//   const int64_t mark = (*proxy)->NextSeq();  // ... the lease changes hands ...
//   EXPECT_EQ((*proxy)->CountRequests(bind, mark), 0);
//
// Every request read is kept in a request log (RequestRecord: what was asked, which
// rule applied, the outcome, the statuses), which CountRequests and Requests read; a
// record is complete before the client can have the whole response.
//
// What it does with a connection: it accepts (TLS when configured), reads a request
// (method, target, headers, Content-Length or chunked body; "Expect: 100-continue" is
// answered by the proxy), decides what to do (below), and forwards it over its own
// upstream connection (one per client connection, kept alive while both sides keep
// alive; a stale keep-alive upstream connection is replaced once). The response head is
// forwarded as received and its body is relayed as its bytes arrive: a watch's chunked
// stream reaches the client event by event, never buffered whole. Raw bytes pass
// unchanged (the Host header is the client's).
//
// Faults (FaultRule; rules are tried in the order added):
//   kCount            counts matching requests, changes nothing; never stops the search.
//   kHang             holds the request for `hang` (no byte back; InfiniteDuration: until
//                     ReleaseRule/RemoveRule), then forwards it or closes the connection.
//   kRespond          answers with a canned response without contacting the upstream.
//   kReplaceResponse  forwards the request, reads the upstream response head (the
//                     upstream has acted), drops the upstream connection and answers
//                     with the canned response instead (an upstream that does not
//                     answer gets the proxy's own 502/504, as below).
//   kClose            closes the client connection without answering.
// The first non-count rule that matches and has applications left (`times`) is applied.
// Outside the rules:
//   GateWatches()/ReleaseWatches()  hold watch requests (query watch=true or watch=1)
//                     until released (checked before the rules).
//   CutConnections(k) closes every open client connection (and its upstream) now, and
//                     the next k accepted ones right after accept.
//   Pause()/Resume()  stops reading and writing on every socket and accepting: a frozen
//                     peer. Connections keep their (kernel) buffers.
//
// An upstream that refuses, fails TLS verification, closes or errs before its response
// head makes the proxy answer 502 (504 after io_timeout) with a Kubernetes Status body
// whose message starts "fault proxy: "; once a response head is out, a failure closes
// the client connection (a truncated body, as from a real network fault).
//
// Bounded in time: a held request (hang, gate) waits at most options.max_hold, after
// which a hang proceeds as configured and a gated watch is closed; a paused operation
// waits at most max_hold, then its connection is closed; every read and write has a
// deadline (io_timeout; idle_timeout between requests and inside a streamed body).
// Stop() (and the destructor) shuts down every socket, wakes every held request and
// joins every thread, promptly.
//
// Not supported: HTTP/2, protocol upgrades (101: kubectl exec/attach), CONNECT, request
// pipelining beyond one request in flight per connection (the next request is read
// after the response is sent, which is all HTTP/1.1 clients such as curl do).
//
// Thread-safety: every public method is safe for concurrent use from any thread. A
// RequestMatch predicate runs on a connection's thread with the proxy's lock held: it
// must not call the proxy. Stop is idempotent; the destructor stops.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/headers.h"
#include "tests/e2e/harness/http1_message.h"
#include "tests/e2e/harness/socket_stream.h"

namespace trimaran::e2e {

// POST .../pods/<name>/binding (the scheduler's Bind).
inline constexpr char kBindingPathRegex[] = "/api/v1/namespaces/[^/]+/pods/[^/]+/binding";

// A request as rules see it.
struct ProxiedRequest {
  std::string method{};
  std::string path{};   // as sent, without the query
  std::string query{};  // as sent, without '?'
  http::Headers headers{};
  std::string body{};  // decoded (chunk framing removed); at most 1 MiB is kept
  bool watch = false;  // the query has watch=true or watch=1
};

// Which requests a rule (or a count) applies to. Empty fields match everything.
struct RequestMatch {
  std::string method{};      // exact ("POST")
  std::string path_regex{};  // ECMAScript, must match the whole path
  std::optional<bool> watch{};
  // An extra condition. Runs with the proxy's lock held: must not call the proxy.
  std::function<bool(const ProxiedRequest&)> predicate{};
};

// A response the proxy writes itself.
struct CannedResponse {
  int status = 200;
  std::string reason{};  // empty: the standard phrase
  http::Headers headers{};
  std::string body{};
  // Close the connection after the response (adds "Connection: close").
  bool close = false;

  // A Kubernetes Status document (application/json) with `code`, `reason`, `message`,
  // plus `headers` (e.g. {{"Retry-After", "60"}}).
  static CannedResponse KubeStatus(int code, absl::string_view reason, absl::string_view message,
                                   http::Headers headers = {});
};

enum class FaultKind { kCount, kHang, kRespond, kReplaceResponse, kClose };
enum class AfterHang { kForward, kClose };

struct FaultRule {
  RequestMatch match{};
  FaultKind kind = FaultKind::kCount;
  // Applications before the rule goes inert (it then matches nothing); -1: unlimited.
  // Ignored by kCount.
  int times = -1;
  absl::Duration hang = absl::ZeroDuration();  // kHang; capped at options.max_hold
  AfterHang after_hang = AfterHang::kForward;  // kHang
  CannedResponse response{};                   // kRespond, kReplaceResponse

  static FaultRule Count(RequestMatch match);
  static FaultRule Hang(RequestMatch match, absl::Duration hang,
                        AfterHang after = AfterHang::kForward);
  static FaultRule Respond(RequestMatch match, CannedResponse response);
  static FaultRule ReplaceResponse(RequestMatch match, CannedResponse response);
  static FaultRule Close(RequestMatch match);
  FaultRule& Times(int n) {
    times = n;
    return *this;
  }
};

using RuleId = int64_t;

// One request the proxy read, in the request log.
struct RequestRecord {
  int64_t seq = 0;  // 1, 2, ... in arrival order
  absl::Time time{};
  ProxiedRequest request{};
  RuleId rule = 0;          // the applied non-count rule, 0 if none
  std::string outcome{};    // "forwarded", "responded", "replaced", "closed", "gate-expired",
                            // "upstream-error: ...", "client-gone", ...; "" while in flight
  int upstream_status = 0;  // the upstream's status (0: not contacted or no response)
  int client_status = 0;    // the status the client got (0: none)
};

struct FaultProxyOptions {
  // Where requests go: "http://IP:PORT" or "https://IP:PORT", IP on loopback.
  std::string upstream{};
  // The CA that verifies an https upstream (required for https; the upstream's
  // certificate must cover its IP).
  std::string upstream_ca_file{};
  // Serving: plain HTTP unless TLS is configured, either with a self-signed pair
  // generated in `tls_cert_dir` (fault-proxy.crt/.key; SANs 127.0.0.1 and localhost; the
  // certificate is its own CA: ca_file()), or with an explicit PEM pair.
  std::string tls_cert_dir{};
  std::string tls_cert_file{};
  std::string tls_key_file{};
  int port = 0;  // on 127.0.0.1; 0: ephemeral

  absl::Duration connect_timeout = absl::Seconds(5);  // upstream TCP + TLS
  absl::Duration io_timeout = absl::Seconds(30);      // a write; a request; a response head
  absl::Duration idle_timeout = absl::Minutes(10);    // between requests; inside a body
  absl::Duration max_hold = absl::Minutes(2);         // a held request; a paused operation
  size_t max_log_entries = 100000;                    // older records are dropped
};

class FaultProxy {
 public:
  // Validates the options, loads or generates the TLS material, binds and starts the
  // accept loop. InvalidArgument names a bad option; FailedPrecondition a bind failure.
  static absl::StatusOr<std::unique_ptr<FaultProxy>> Start(FaultProxyOptions options);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Closes the listener and every connection, releases held requests (closing them)
  // and joins every thread. Idempotent.
  void Stop();

  int port() const { return port_; }
  // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
  std::string url() const;
  // With tls_cert_dir: the generated certificate, which clients trust as their CA.
  const std::string& ca_file() const { return ca_file_; }

  // ---- rules ----
  // Adds a rule; InvalidArgument for a bad path regex.
  absl::StatusOr<RuleId> AddRule(FaultRule rule);
  // Removes a rule (unknown ids are ignored); requests it holds proceed as its
  // after_hang says.
  void RemoveRule(RuleId id);
  void ClearRules();
  // Lets the requests that rule `id` holds now proceed (the rule stays).
  void ReleaseRule(RuleId id);
  // Requests the rule was applied to (kCount: requests that matched).
  int64_t Hits(RuleId id) const;

  // ---- watches, connections, pause ----
  void GateWatches();
  // Opens the gate: held watches are forwarded.
  void ReleaseWatches();
  // Closes every open client connection now, and the next `also_next` accepted ones.
  // Returns how many open connections were cut.
  int CutConnections(int also_next = 0);
  void Pause();
  void Resume();

  // ---- observation ----
  // Requests held now (hang or gate).
  int HeldRequests() const;
  // Client connections being served now; accepted ones since Start (cut ones included).
  int OpenConnections() const;
  int64_t AcceptedConnections() const;
  // Upstream connections the proxy opened (TCP connected).
  int64_t UpstreamConnects() const;
  // The sequence number the next request will get: a mark for CountRequests.
  int64_t NextSeq() const;
  // Logged requests with seq >= since_seq that match (count them from a mark); -1 for a
  // bad path_regex. Only the last max_log_entries requests are kept.
  int64_t CountRequests(const RequestMatch& match, int64_t since_seq = 0) const;
  // Copies of the logged records with seq >= since_seq, in order.
  std::vector<RequestRecord> Requests(int64_t since_seq = 0) const;

 private:
  struct Rule;
  struct Session;
  struct Compiled;
  enum class Decision;

  explicit FaultProxy(FaultProxyOptions options);
  absl::Status Init();
  void AcceptLoop();
  // A session's thread: TLS handshake, then requests until the connection ends.
  void Serve(Session& session);
  // Reads, logs and serves one request (`in` keeps bytes read past it); false when the
  // client connection must close.
  bool ServeOne(Session& session, std::string& in);
  // Sends the request upstream and relays (or replaces) the response.
  bool Forward(Session& session, int64_t seq, const std::string& raw_request,
               const std::string& method, const CannedResponse* replacement);
  // Reads the final response head into `buf` (skipping 100 Continue).
  absl::StatusOr<Http1Head> ReadResponseHead(Session& session, std::string& buf, size_t& head_end);
  absl::Status ConnectUpstream(Session& session);
  void DropUpstream(Session& session) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status WriteCanned(Session& session, const CannedResponse& response,
                           absl::string_view method);
  // Holds the calling request until `released()` (evaluated under mu_), the session
  // ends, or min(hold, max_hold) passes. Returns released().
  bool Hold(const Session& session, const std::function<bool()>& released, absl::Duration hold)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The gate of every socket's I/O: waits while paused (at most max_hold).
  absl::Status AwaitRunning(const Session& session, absl::Time deadline) ABSL_LOCKS_EXCLUDED(mu_);
  // The proxy is stopping or the session was cut.
  bool Ended(const Session& session) const;
  void Finish(int64_t seq, absl::string_view outcome, int upstream_status, int client_status)
      ABSL_LOCKS_EXCLUDED(mu_);
  bool Matches(const Compiled& m, const ProxiedRequest& r) const;

  const FaultProxyOptions options_;
  std::string upstream_host_;
  int upstream_port_ = 0;
  bool upstream_tls_ = false;
  SslCtxPtr server_ctx_;
  SslCtxPtr client_ctx_;
  std::string ca_file_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: wakes the accept loop
  int port_ = 0;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> paused_{false};

  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  RuleId next_rule_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<std::shared_ptr<Rule>> rules_ ABSL_GUARDED_BY(mu_);
  bool watch_gate_closed_ ABSL_GUARDED_BY(mu_) = false;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
  int cut_next_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t accepted_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t upstream_connects_ ABSL_GUARDED_BY(mu_) = 0;
  std::list<std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  int64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  std::deque<RequestRecord> log_ ABSL_GUARDED_BY(mu_);  // seq order, contiguous
};

}  // namespace trimaran::e2e
