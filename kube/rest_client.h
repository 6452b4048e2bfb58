#pragma once
// RestClient: kube::Client over HTTP(S) to a real kube-apiserver.
//
// - Transport: an http::HttpTransport (CurlTransport in production: connection reuse,
//   TLS from the RestConfig); JSON on the wire (Accept: application/json).
// - Authentication: a CredentialSource (static token, rotating token file, or exec
//   plugin such as `aws eks get-token`). After a 401 the credentials are invalidated
//   and the request is sent once more with fresh ones.
// - Client-side rate limit: a token bucket of RestConfig::qps / burst taken by every
//   request, watches included (kube-scheduler's clientConnection.qps/burst).
// - Retries: 429 and 5xx responses are retried for every verb, connection failures and
//   timeouts only for GET (a POST may have been applied). Backoff doubles from
//   `initial_backoff` up to `max_backoff`, or follows Retry-After when the server sends
//   it; at most `max_retries` extra attempts. Every retry is counted. The calls taking
//   CallOptions (Bind, DeletePod, PatchPodStatus, PatchPodGroupStatus, the Lease calls)
//   stop retrying at the caller's deadline or stop
//   token, and the request in flight is cancelled then.
// - Errors: the mapping of common/http/status_mapping.h, with the apiserver's Status
//   message when the body carries one, prefixed with the operation and object:
//   "bind pod default/web-1 to node n3: ...".
// - Stats (when RestClientOptions::stats is set): client-go's request metrics, named
//   relative to that Scope; the composition root passes "rest_client_", which gives
//   client-go's exact names. Clients given scopes over one registry share the families.
//     requests_total{code,method,host}          counter; every HTTP request sent (each
//                                               attempt, watches included); code is the
//                                               HTTP status, "<error>" without a response
//     request_duration_seconds{verb,host}       histogram (client-go's buckets, 5 ms ..
//                                               60 s); a unary call from its first
//                                               attempt to its result, retries included;
//                                               not watches
//     request_retries_total{code,verb,host}     counter; retries, by the code of the
//                                               answer that caused them
//   host is the server's host[:port]; method and verb are the HTTP method.
//
// Thread-safety: safe for concurrent use. The transport, the clock and the stats
// scope's registry must outlive it.

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/http/transport.h"
#include "common/stats/family.h"
#include "common/stats/scope.h"
#include "kube/client.h"
#include "kube/credentials.h"
#include "kube/rate_limiter.h"
#include "kube/rest_config.h"

namespace trimaran::kube {

struct RestClientOptions {
  int max_retries = 5;
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  absl::Duration request_timeout = absl::Seconds(30);
  // A watch with no byte (not even a bookmark) for this long is considered dead.
  absl::Duration watch_idle_timeout = absl::Minutes(10);
  // The longest watch line (one event, its object as JSON) kept while it is framed. A
  // longer line ends the watch with ResourceExhausted (counted in watch_lines_too_long)
  // and nothing more of it is buffered, so a stream that never sends a newline costs
  // at most this much memory. The apiserver stores an object in at most etcd's request
  // limit (--max-request-bytes, 1.5 MiB by default) and its JSON is a few times that at
  // worst: 16 MiB leaves ample room for any real object.
  size_t max_watch_line_bytes = size_t{16} << 20;
  // Where the request metrics go (see above); none when unset.
  std::optional<stats::Scope> stats;
};

// Counters for /metrics and tests. Monotonic.
struct RestClientCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> credential_refreshes{0};
  std::atomic<uint64_t> watch_events{0};
  std::atomic<uint64_t> watch_decode_errors{0};
  // Watches ended because one line exceeded RestClientOptions::max_watch_line_bytes.
  std::atomic<uint64_t> watch_lines_too_long{0};
};

class RestClient final : public Client {
 public:
  // `transport` null: a CurlTransport is made from config.tls.
  static absl::StatusOr<std::unique_ptr<RestClient>> Create(
      const RestConfig& config, const Clock& clock, RestClientOptions options = {},
      std::shared_ptr<http::HttpTransport> transport = nullptr,
      std::unique_ptr<CredentialSource> credentials = nullptr);
  ~RestClient() override;

  absl::StatusOr<PodList> ListPods(absl::string_view ns, const ListOptions& options) override;
  absl::Status WatchPods(absl::string_view ns, const WatchOptions& options,
                         const WatchHandler<Pod>& handler, std::stop_token stop) override;
  absl::StatusOr<Pod> GetPod(absl::string_view ns, absl::string_view name) override;
  absl::StatusOr<Pod> CreatePod(const Pod& pod) override;
  absl::Status DeletePod(absl::string_view ns, absl::string_view name) override;
  absl::Status DeletePod(absl::string_view ns, absl::string_view name,
                         const CallOptions& options) override;
  absl::Status Bind(const Binding& binding) override;
  absl::Status Bind(const Binding& binding, const CallOptions& options) override;
  absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                              const PodStatusPatch& patch) override;
  absl::Status PatchPodStatus(absl::string_view ns, absl::string_view name,
                              const PodStatusPatch& patch, const CallOptions& options) override;
  absl::StatusOr<NodeList> ListNodes(const ListOptions& options) override;
  absl::Status WatchNodes(const WatchOptions& options, const WatchHandler<Node>& handler,
                          std::stop_token stop) override;
  absl::StatusOr<SelectorObjectList> ListSelectorObjects(SelectorResource resource,
                                                         const ListOptions& options) override;
  absl::Status WatchSelectorObjects(SelectorResource resource, const WatchOptions& options,
                                    const WatchHandler<SelectorObject>& handler,
                                    std::stop_token stop) override;
  absl::StatusOr<StorageObjectList> ListStorageObjects(StorageResource resource,
                                                       const ListOptions& options) override;
  absl::Status WatchStorageObjects(StorageResource resource, const WatchOptions& options,
                                   const WatchHandler<StorageObject>& handler,
                                   std::stop_token stop) override;
  absl::StatusOr<PodGroupList> ListPodGroups(const ListOptions& options) override;
  absl::Status WatchPodGroups(const WatchOptions& options, const WatchHandler<PodGroup>& handler,
                              std::stop_token stop) override;
  absl::Status PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                   absl::string_view status_patch,
                                   const CallOptions& options) override;
  absl::StatusOr<StorageObject> PatchStorageObject(StorageResource resource, absl::string_view ns,
                                                   absl::string_view name,
                                                   const StoragePatch& patch) override;
  absl::StatusOr<Node> GetNode(absl::string_view name) override;
  absl::StatusOr<Node> CreateNode(const Node& node) override;
  absl::Status DeleteNode(absl::string_view name) override;
  absl::Status CreateEvent(const Event& event) override;
  absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name) override;
  absl::StatusOr<Lease> CreateLease(const Lease& lease) override;
  absl::StatusOr<Lease> UpdateLease(const Lease& lease) override;
  absl::StatusOr<Lease> GetLease(absl::string_view ns, absl::string_view name,
                                 const CallOptions& options) override;
  absl::StatusOr<Lease> CreateLease(const Lease& lease, const CallOptions& options) override;
  absl::StatusOr<Lease> UpdateLease(const Lease& lease, const CallOptions& options) override;
  absl::StatusOr<std::string> Raw(absl::string_view method, absl::string_view path,
                                  absl::string_view body, absl::string_view content_type) override;

  const RestClientCounters& counters() const { return counters_; }
  const std::string& server() const { return config_.server; }

 private:
  struct Stats;
  RestClient(RestConfig config, const Clock& clock, RestClientOptions options,
             std::shared_ptr<http::HttpTransport> transport,
             std::unique_ptr<CredentialSource> credentials);

  struct Call {
    std::string method;
    std::string path;  // with query
    std::string body;
    std::string content_type = "application/json";
    std::string what;  // "bind pod default/p to node n1", for messages
  };
  // One unary request with auth, rate limit, retries; returns the 2xx body. Do times
  // DoWithRetries (request_duration_seconds). `options` bound it: each attempt's timeout
  // ends by the deadline, the stop token cancels an in-flight attempt and a retry sleep,
  // and a retry that would start past the deadline is not made.
  absl::StatusOr<std::string> Do(const Call& call, const CallOptions& options = {});
  absl::StatusOr<std::string> DoWithRetries(const Call& call, const CallOptions& options);
  // Sends once (auth + rate limit); maps nothing. Not at all once `deadline` passed
  // (DeadlineExceeded); the request's timeout ends by it.
  absl::StatusOr<http::HttpResponse> SendOnce(http::HttpRequest request, std::stop_token stop,
                                              absl::Time deadline = absl::InfiniteFuture());
  // A watch: frames lines and hands each to `on_line`; a line longer than
  // max_watch_line_bytes ends it with ResourceExhausted.
  absl::Status Stream(const std::string& path, const std::string& what,
                      const std::function<absl::Status(std::string_view line, bool* keep)>& on_line,
                      std::stop_token stop);
  absl::Status ErrorFromResponse(const http::HttpResponse& response, const Call& call) const;
  // The stats of one HTTP request sent, and of one retry caused by `resp` (no-ops
  // without stats).
  void CountRequest(absl::string_view method, const absl::StatusOr<http::HttpResponse>& resp);
  void CountRetry(absl::string_view method, const absl::StatusOr<http::HttpResponse>& resp);

  const RestConfig config_;
  const Clock& clock_;
  const RestClientOptions options_;
  std::shared_ptr<http::HttpTransport> transport_;
  std::unique_ptr<CredentialSource> credentials_;
  RateLimiter limiter_;
  RestClientCounters counters_;
  // The `host` label: config_.server without scheme and path.
  const std::string host_;
  // Null without RestClientOptions::stats.
  const std::unique_ptr<const Stats> stats_;
};

// "labelSelector=a%3Db&limit=500": the query string of list/watch options (no '?').
std::string EncodeListQuery(const ListOptions& options);
std::string EncodeWatchQuery(const WatchOptions& options);

}  // namespace trimaran::kube
