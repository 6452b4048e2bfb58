#include "kube/rest_client.h"

#include <algorithm>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/http/status_mapping.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/url_escape.h"
#include "kube/api/json_codec.h"

namespace trimaran::kube {
namespace {

// One path segment: every byte but RFC 3986's unreserved characters percent-encoded, so
// that a name from outside (an extender's binding request) cannot add segments, a query
// or a fragment. Valid object names pass unchanged.
std::string PathSegment(absl::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  // "." and ".." are not names: a server would resolve them as dot segments.
  if (out == "." || out == "..") return out == "." ? "%2E" : "%2E%2E";
  return out;
}

std::string PodsPath(absl::string_view ns) {
  if (ns.empty()) return "/api/v1/pods";
  return absl::StrCat("/api/v1/namespaces/", PathSegment(ns), "/pods");
}

std::string LeasePath(absl::string_view ns, absl::string_view name) {
  std::string p = absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", ns, "/leases");
  if (!name.empty()) absl::StrAppend(&p, "/", name);
  return p;
}

// "https://10.0.0.1:6443/prefix" -> "10.0.0.1:6443" (client-go's URL.Host).
std::string HostOf(absl::string_view server) {
  if (size_t scheme = server.find("://"); scheme != absl::string_view::npos) {
    server.remove_prefix(scheme + 3);
  }
  return std::string(server.substr(0, server.find('/')));
}

// client-go's code label: the HTTP status, or "<error>" when there is no response.
std::string CodeOf(const absl::StatusOr<http::HttpResponse>& resp) {
  return resp.ok() ? absl::StrCat(resp->status_code) : "<error>";
}

}  // namespace

// client-go's request metrics (rest_client.h), declared once.
struct RestClient::Stats {
  explicit Stats(const stats::Scope& scope)
      : requests(scope.CounterFamily(
            "requests_total",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            {"code", "method", "host"})),
        duration(scope.HistogramFamily("request_duration_seconds",
                                       "Request latency in seconds. Broken down by verb, and host.",
                                       {"verb", "host"},
                                       {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60})),
        retries(scope.CounterFamily(
            "request_retries_total",
            "Number of request retries, partitioned by status code, verb, and host.",
            {"code", "verb", "host"})) {}

  stats::Family<stats::Counter>& requests;
  stats::Family<stats::Histogram>& duration;
  stats::Family<stats::Counter>& retries;
};

namespace {
void AppendParam(std::string& q, absl::string_view key, absl::string_view value) {
  if (value.empty()) return;
  if (!q.empty()) q.push_back('&');
  absl::StrAppend(&q, key, "=", QueryEscape(value));
}
}  // namespace

std::string EncodeListQuery(const ListOptions& o) {
  std::string q;
  AppendParam(q, "labelSelector", o.label_selector);
  AppendParam(q, "fieldSelector", o.field_selector);
  if (o.limit > 0) AppendParam(q, "limit", absl::StrCat(o.limit));
  AppendParam(q, "continue", o.continue_token);
  AppendParam(q, "resourceVersion", o.resource_version);
  return q;
}

std::string EncodeWatchQuery(const WatchOptions& o) {
  std::string q = "watch=true";
  AppendParam(q, "labelSelector", o.label_selector);
  AppendParam(q, "fieldSelector", o.field_selector);
  AppendParam(q, "resourceVersion", o.resource_version);
  if (o.allow_watch_bookmarks) AppendParam(q, "allowWatchBookmarks", "true");
  if (o.timeout > absl::ZeroDuration()) {
    AppendParam(q, "timeoutSeconds", absl::StrCat(absl::ToInt64Seconds(o.timeout)));
  }
  return q;
}

absl::StatusOr<std::unique_ptr<RestClient>> RestClient::Create(
    const RestConfig& config, const Clock& clock, RestClientOptions options,
    std::shared_ptr<http::HttpTransport> transport, std::unique_ptr<CredentialSource> credentials) {
  if (config.server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no apiserver address in the client configuration (", config.source, ")"));
  }
  if (!transport) {
    http::CurlTransportOptions topts;
    topts.tls = config.tls;
    topts.user_agent = config.user_agent;
    topts.default_timeout = options.request_timeout;
    TRIMARAN_ASSIGN_OR_RETURN(auto curl, http::CurlTransport::Create(topts));
    transport = std::move(curl);
  }
  if (!credentials) {
    TRIMARAN_ASSIGN_OR_RETURN(credentials, MakeCredentialSource(config, clock));
  }
  return std::unique_ptr<RestClient>(
      new RestClient(config, clock, options, std::move(transport), std::move(credentials)));
}

RestClient::RestClient(RestConfig config, const Clock& clock, RestClientOptions options,
                       std::shared_ptr<http::HttpTransport> transport,
                       std::unique_ptr<CredentialSource> credentials)
    : config_(std::move(config)),
      clock_(clock),
      options_(options),
      transport_(std::move(transport)),
      credentials_(std::move(credentials)),
      limiter_(config_.qps, config_.burst, clock),
      host_(HostOf(config_.server)),
      stats_(options_.stats.has_value() ? std::make_unique<const Stats>(*options_.stats)
                                        : nullptr) {}

RestClient::~RestClient() = default;

void RestClient::CountRequest(absl::string_view method,
                              const absl::StatusOr<http::HttpResponse>& resp) {
  if (stats_ == nullptr) return;
  stats_->requests.WithLabels({CodeOf(resp), method, host_}).Inc();
}

void RestClient::CountRetry(absl::string_view method,
                            const absl::StatusOr<http::HttpResponse>& resp) {
  if (stats_ == nullptr) return;
  stats_->retries.WithLabels({CodeOf(resp), method, host_}).Inc();
}

absl::StatusOr<http::HttpResponse> RestClient::SendOnce(http::HttpRequest request,
                                                        std::stop_token stop, absl::Time deadline) {
  TRIMARAN_RETURN_IF_ERROR(limiter_.Accept(stop));
  for (int attempt = 0;; ++attempt) {
    TRIMARAN_ASSIGN_OR_RETURN(Credentials creds, credentials_->Get());
    http::HttpRequest req = request;
    if (!creds.bearer_token.empty()) {
      req.headers.Set("Authorization", "Bearer " + creds.bearer_token);
    }
    if (!creds.client_cert_pem.empty()) {
      http::TlsOptions tls = config_.tls;
      tls.client_cert_file.clear();
      tls.client_key_file.clear();
      tls.client_cert_pem = creds.client_cert_pem;
      tls.client_key_pem = creds.client_key_pem;
      req.tls = tls;
    }
    req.stop_token = stop;
    if (deadline != absl::InfiniteFuture()) {
      // Checked as late as possible, and the attempt ends by the deadline (cancelled
      // like a client-go context).
      const absl::Duration left = deadline - clock_.Now();
      if (left <= absl::ZeroDuration()) {
        return absl::DeadlineExceededError("deadline exceeded before sending");
      }
      req.timeout = req.timeout == absl::ZeroDuration() ? left : std::min(req.timeout, left);
    }
    counters_.requests.fetch_add(1, std::memory_order_relaxed);
    absl::StatusOr<http::HttpResponse> resp = transport_->Send(req);
    CountRequest(req.method, resp);
    if (resp.ok() && resp->status_code == 401 && attempt == 0) {
      // Expired or rotated credentials: refresh once.
      credentials_->Invalidate();
      counters_.credential_refreshes.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    return resp;
  }
}

absl::Status RestClient::ErrorFromResponse(const http::HttpResponse& response,
                                           const Call& call) const {
  std::string message = response.body;
  if (auto status = DecodeStatus(response.body); status.ok() && !status->message.empty()) {
    message = status->message;
  }
  // Name the operation and the server: "list nodes on https://10.0.0.1:443: ...".
  std::string target = absl::StrCat(call.what, " on ", config_.server);
  absl::Status s =
      http::StatusFromHttp(response.status_code, message,
                           {.method = call.method, .target = target, .method_in_message = false});
  if (auto after = http::RetryAfter(response)) {
    s = Annotate(s, absl::StrCat("retry after ", absl::FormatDuration(*after)));
  }
  return s;
}

absl::StatusOr<std::string> RestClient::Do(const Call& call, const CallOptions& options) {
  if (stats_ == nullptr) return DoWithRetries(call, options);
  const absl::Time start = clock_.Now();
  absl::StatusOr<std::string> result = DoWithRetries(call, options);
  stats_->duration.WithLabels({call.method, host_})
      .Observe(absl::ToDoubleSeconds(clock_.Now() - start));
  return result;
}

absl::StatusOr<std::string> RestClient::DoWithRetries(const Call& call,
                                                      const CallOptions& options) {
  http::HttpRequest req;
  req.method = call.method;
  req.url = config_.server + call.path;
  req.body = call.body;
  req.timeout = options_.request_timeout;
  req.headers.Set("Accept", "application/json");
  if (!call.body.empty()) req.headers.Set("Content-Type", call.content_type);
  absl::Duration backoff = options_.initial_backoff;
  absl::Status last;
  for (int attempt = 0; attempt <= options_.max_retries; ++attempt) {
    if (absl::Status s = CheckCallOptions(options, clock_.Now(), call.what); !s.ok()) {
      return last.ok() ? s : Annotate(s, last.message());
    }
    absl::StatusOr<http::HttpResponse> resp = SendOnce(req, options.stop, options.deadline);
    std::optional<absl::Duration> retry_after;
    if (!resp.ok()) {
      last = Annotate(resp.status(), call.what);
      if (options.stop.stop_requested()) {
        return absl::CancelledError(absl::StrCat(call.what, ": cancelled"));
      }
      // Connection failures: only safe to repeat for reads.
      if (call.method != "GET" || !http::IsRetryable(resp.status())) return last;
    } else if (resp->ok()) {
      return std::move(resp->body);
    } else {
      last = ErrorFromResponse(*resp, call);
      if (!(resp->status_code == 429 || resp->status_code >= 500)) return last;
      retry_after = http::RetryAfter(*resp);
    }
    if (attempt == options_.max_retries) break;
    absl::Duration wait = retry_after ? std::min(*retry_after, absl::Seconds(60)) : backoff;
    backoff = std::min(backoff * 2, options_.max_backoff);
    if (clock_.Now() + wait >= options.deadline) {
      // The wait (a Retry-After of 60 s, say) would end past the caller's deadline.
      return absl::DeadlineExceededError(
          absl::StrCat(call.what, ": deadline exceeded before the retry after ",
                       absl::FormatDuration(wait), ": ", last.message()));
    }
    counters_.retries.fetch_add(1, std::memory_order_relaxed);
    CountRetry(call.method, resp);
    Log(Component::kKube)
        .warn("retrying request op=\"{}\" attempt={} wait={} err=\"{}\"", call.what, attempt + 1,
              absl::FormatDuration(wait), last.message());
    if (!clock_.SleepFor(wait, options.stop)) {
      return absl::CancelledError(absl::StrCat(call.what, ": cancelled: ", last.message()));
    }
  }
  return last;
}

absl::Status RestClient::Stream(
    const std::string& path, const std::string& what,
    const std::function<absl::Status(std::string_view line, bool* keep)>& on_line,
    std::stop_token stop) {
  http::HttpRequest req;
  req.method = "GET";
  req.url = config_.server + path;
  req.timeout = absl::InfiniteDuration();
  req.idle_timeout = options_.watch_idle_timeout;
  req.headers.Set("Accept", "application/json");
  // `buffer` holds at most one partial line (bounded by max_watch_line_bytes) plus the
  // chunk being framed; `scanned` bytes of it are known to hold no newline, so a long
  // line arriving in many chunks is scanned once.
  std::string buffer;
  absl::Status line_error;
  bool keep = true;
  const size_t max_line = options_.max_watch_line_bytes;
  const auto too_long = [&](size_t bytes) {
    counters_.watch_lines_too_long.fetch_add(1, std::memory_order_relaxed);
    return absl::ResourceExhaustedError(
        absl::StrCat("watch event line exceeds ", max_line, " bytes (", bytes, " bytes read)"));
  };
  req.on_chunk = [&](absl::string_view chunk) {
    size_t scanned = buffer.size();
    buffer.append(chunk.data(), chunk.size());
    size_t start = 0;
    while (true) {
      size_t nl = buffer.find('\n', scanned);
      if (nl == std::string::npos) break;
      std::string_view line(buffer.data() + start, nl - start);
      start = nl + 1;
      scanned = start;
      if (line.empty()) continue;
      if (line.size() > max_line) {
        line_error = too_long(line.size());
        return false;
      }
      line_error = on_line(line, &keep);
      if (!line_error.ok() || !keep) return false;
    }
    buffer.erase(0, start);
    if (buffer.size() > max_line) {
      line_error = too_long(buffer.size());
      buffer.clear();
      return false;
    }
    return true;
  };
  absl::StatusOr<http::HttpResponse> resp = SendOnce(std::move(req), stop);
  if (stop.stop_requested()) return absl::CancelledError(absl::StrCat(what, ": stopped"));
  if (!resp.ok()) return Annotate(resp.status(), what);
  if (!resp->ok()) return ErrorFromResponse(*resp, {.method = "GET", .path = path, .what = what});
  if (!line_error.ok()) return Annotate(line_error, what);
  if (keep && !buffer.empty()) {
    // The stream ended in the middle of an event: a truncated watch.
    counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
    return absl::UnavailableError(
        absl::StrCat(what, ": watch stream ended inside an event (", buffer.size(), " bytes)"));
  }
  return absl::OkStatus();
}

namespace {

// A watch line that is not an event at all (not JSON, no known type) is delivered as an
// undecodable MODIFIED, which applies nothing: the handler counts it and the stream
// moves on, instead of reconnecting from the same resourceVersion to the same line.
template <typename T>
WatchEvent<T> DecodeWatchLine(std::string_view line, absl::StatusOr<WatchEvent<T>> decoded) {
  if (decoded.ok()) return *std::move(decoded);
  WatchEvent<T> ev;
  ev.type = WatchEventType::kModified;
  ev.undecodable.emplace();
  ev.undecodable->position = absl::StrCat("watch line of ", line.size(), " bytes");
  ev.undecodable->status = std::move(decoded).status();
  return ev;
}

}  // namespace

// ---- Pods ----

absl::StatusOr<PodList> RestClient::ListPods(absl::string_view ns, const ListOptions& options) {
  std::string q = EncodeListQuery(options);
  Call call{.method = "GET",
            .path = PodsPath(ns) + (q.empty() ? "" : "?" + q),
            .what = absl::StrCat("list pods", ns.empty() ? "" : absl::StrCat(" in ", ns))};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<PodList> list = DecodePodList(body);
  if (!list.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", list.status().message()));
  return list;
}

absl::Status RestClient::WatchPods(absl::string_view ns, const WatchOptions& options,
                                   const WatchHandler<Pod>& handler, std::stop_token stop) {
  std::string what = absl::StrCat("watch pods from resourceVersion ", options.resource_version);
  return Stream(
      PodsPath(ns) + "?" + EncodeWatchQuery(options), what,
      [&](std::string_view line, bool* keep) -> absl::Status {
        WatchEvent<Pod> ev = DecodeWatchLine<Pod>(line, DecodePodWatchEvent(line));
        counters_.watch_events.fetch_add(1, std::memory_order_relaxed);
        if (ev.undecodable) counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
        *keep = handler(std::move(ev));
        return absl::OkStatus();
      },
      stop);
}

absl::StatusOr<Pod> RestClient::GetPod(absl::string_view ns, absl::string_view name) {
  Call call{.method = "GET",
            .path = absl::StrCat(PodsPath(ns), "/", PathSegment(name)),
            .what = absl::StrCat("get pod ", ns, "/", name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<Pod> pod = DecodePod(body);
  if (!pod.ok()) return absl::InternalError(absl::StrCat(call.what, ": ", pod.status().message()));
  return pod;
}

absl::StatusOr<Pod> RestClient::CreatePod(const Pod& pod) {
  Call call{
      .method = "POST",
      .path = PodsPath(pod.metadata.namespace_name),
      .body = EncodePod(pod),
      .what = absl::StrCat("create pod ", pod.metadata.namespace_name, "/", pod.metadata.name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<Pod> out = DecodePod(body);
  if (!out.ok()) return absl::InternalError(absl::StrCat(call.what, ": ", out.status().message()));
  return out;
}

absl::Status RestClient::DeletePod(absl::string_view ns, absl::string_view name) {
  return DeletePod(ns, name, CallOptions{});
}

absl::Status RestClient::DeletePod(absl::string_view ns, absl::string_view name,
                                   const CallOptions& options) {
  Call call{.method = "DELETE",
            .path = absl::StrCat(PodsPath(ns), "/", PathSegment(name)),
            .what = absl::StrCat("delete pod ", ns, "/", name)};
  return Do(call, options).status();
}

absl::Status RestClient::Bind(const Binding& binding) { return Bind(binding, CallOptions{}); }

absl::Status RestClient::Bind(const Binding& binding, const CallOptions& options) {
  Call call{.method = "POST",
            .path = absl::StrCat(PodsPath(binding.metadata.namespace_name), "/",
                                 PathSegment(binding.metadata.name), "/binding"),
            .body = EncodeBinding(binding),
            .what = absl::StrCat("bind pod ", binding.metadata.namespace_name, "/",
                                 binding.metadata.name, " to node ", binding.target.name)};
  return Do(call, options).status();
}

absl::Status RestClient::PatchPodStatus(absl::string_view ns, absl::string_view name,
                                        const PodStatusPatch& patch) {
  return PatchPodStatus(ns, name, patch, CallOptions{});
}

absl::Status RestClient::PatchPodStatus(absl::string_view ns, absl::string_view name,
                                        const PodStatusPatch& patch, const CallOptions& options) {
  Call call{.method = "PATCH",
            .path = absl::StrCat(PodsPath(ns), "/", PathSegment(name), "/status"),
            .body = EncodePodStatusPatch(patch),
            .content_type = "application/strategic-merge-patch+json",
            .what = absl::StrCat("patch status of pod ", ns, "/", name)};
  return Do(call, options).status();
}

// ---- Nodes ----

absl::StatusOr<NodeList> RestClient::ListNodes(const ListOptions& options) {
  std::string q = EncodeListQuery(options);
  Call call{
      .method = "GET", .path = "/api/v1/nodes" + (q.empty() ? "" : "?" + q), .what = "list nodes"};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<NodeList> list = DecodeNodeList(body);
  if (!list.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", list.status().message()));
  return list;
}

absl::Status RestClient::WatchNodes(const WatchOptions& options, const WatchHandler<Node>& handler,
                                    std::stop_token stop) {
  std::string what = absl::StrCat("watch nodes from resourceVersion ", options.resource_version);
  return Stream(
      "/api/v1/nodes?" + EncodeWatchQuery(options), what,
      [&](std::string_view line, bool* keep) -> absl::Status {
        WatchEvent<Node> ev = DecodeWatchLine<Node>(line, DecodeNodeWatchEvent(line));
        counters_.watch_events.fetch_add(1, std::memory_order_relaxed);
        if (ev.undecodable) counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
        *keep = handler(std::move(ev));
        return absl::OkStatus();
      },
      stop);
}

// ---- Namespaces, Services, ReplicationControllers, ReplicaSets, StatefulSets ----

absl::StatusOr<SelectorObjectList> RestClient::ListSelectorObjects(SelectorResource resource,
                                                                   const ListOptions& options) {
  std::string q = EncodeListQuery(options);
  const std::string_view name = PluralName(resource);
  Call call{.method = "GET",
            .path = absl::StrCat(std::string(CollectionPath(resource)), q.empty() ? "" : "?", q),
            .what = absl::StrCat("list ", std::string(name))};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<SelectorObjectList> list = DecodeSelectorObjectList(body, resource);
  if (!list.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", list.status().message()));
  return list;
}

absl::Status RestClient::WatchSelectorObjects(SelectorResource resource,
                                              const WatchOptions& options,
                                              const WatchHandler<SelectorObject>& handler,
                                              std::stop_token stop) {
  std::string what = absl::StrCat("watch ", std::string(PluralName(resource)),
                                  " from resourceVersion ", options.resource_version);
  return Stream(
      absl::StrCat(std::string(CollectionPath(resource)), "?", EncodeWatchQuery(options)), what,
      [&](std::string_view line, bool* keep) -> absl::Status {
        WatchEvent<SelectorObject> ev =
            DecodeWatchLine<SelectorObject>(line, DecodeSelectorObjectWatchEvent(line));
        counters_.watch_events.fetch_add(1, std::memory_order_relaxed);
        if (ev.undecodable) counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
        *keep = handler(std::move(ev));
        return absl::OkStatus();
      },
      stop);
}

// ---- PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes ----

absl::StatusOr<StorageObjectList> RestClient::ListStorageObjects(StorageResource resource,
                                                                 const ListOptions& options) {
  std::string q = EncodeListQuery(options);
  Call call{.method = "GET",
            .path = absl::StrCat(std::string(CollectionPath(resource)), q.empty() ? "" : "?", q),
            .what = absl::StrCat("list ", std::string(PluralName(resource)))};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<StorageObjectList> list = DecodeStorageObjectList(body, resource);
  if (!list.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", list.status().message()));
  return list;
}

absl::Status RestClient::WatchStorageObjects(StorageResource resource, const WatchOptions& options,
                                             const WatchHandler<StorageObject>& handler,
                                             std::stop_token stop) {
  std::string what = absl::StrCat("watch ", std::string(PluralName(resource)),
                                  " from resourceVersion ", options.resource_version);
  return Stream(
      absl::StrCat(std::string(CollectionPath(resource)), "?", EncodeWatchQuery(options)), what,
      [&](std::string_view line, bool* keep) -> absl::Status {
        WatchEvent<StorageObject> ev =
            DecodeWatchLine<StorageObject>(line, DecodeStorageObjectWatchEvent(line, resource));
        if (ev.undecodable && ev.object.resource() != ObjectResource(resource)) {
          // Keep the kind of the informer's resource so its key is right.
          ObjectMeta meta = ev.object.metadata;
          ev.object = StorageObject::Empty(resource);
          ev.object.metadata = std::move(meta);
        }
        counters_.watch_events.fetch_add(1, std::memory_order_relaxed);
        if (ev.undecodable) counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
        *keep = handler(std::move(ev));
        return absl::OkStatus();
      },
      stop);
}

// ---- PodGroups ----

namespace {
constexpr char kPodGroupsPath[] = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
}  // namespace

absl::StatusOr<PodGroupList> RestClient::ListPodGroups(const ListOptions& options) {
  std::string q = EncodeListQuery(options);
  Call call{.method = "GET",
            .path = absl::StrCat(kPodGroupsPath, q.empty() ? "" : "?", q),
            .what = "list podgroups"};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<PodGroupList> list = DecodePodGroupList(body);
  if (!list.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", list.status().message()));
  return list;
}

absl::Status RestClient::WatchPodGroups(const WatchOptions& options,
                                        const WatchHandler<PodGroup>& handler,
                                        std::stop_token stop) {
  std::string what =
      absl::StrCat("watch podgroups from resourceVersion ", options.resource_version);
  return Stream(
      absl::StrCat(kPodGroupsPath, "?", EncodeWatchQuery(options)), what,
      [&](std::string_view line, bool* keep) -> absl::Status {
        WatchEvent<PodGroup> ev = DecodeWatchLine<PodGroup>(line, DecodePodGroupWatchEvent(line));
        counters_.watch_events.fetch_add(1, std::memory_order_relaxed);
        if (ev.undecodable) counters_.watch_decode_errors.fetch_add(1, std::memory_order_relaxed);
        *keep = handler(std::move(ev));
        return absl::OkStatus();
      },
      stop);
}

absl::Status RestClient::PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                             absl::string_view status_patch,
                                             const CallOptions& options) {
  Call call{.method = "PATCH",
            .path = PodGroupStatusPath(ns, name),
            .body = std::string(status_patch),
            .content_type = "application/merge-patch+json",
            .what = absl::StrCat("patch status of podgroup ", ns, "/", name)};
  return Do(call, options).status();
}

absl::StatusOr<StorageObject> RestClient::PatchStorageObject(StorageResource resource,
                                                             absl::string_view ns,
                                                             absl::string_view name,
                                                             const StoragePatch& patch) {
  const std::string collection =
      IsNamespaced(resource)
          ? absl::StrCat("/api/v1/namespaces/", ns, "/", std::string(PluralName(resource)))
          : std::string(CollectionPath(resource));
  Call call{.method = "PATCH",
            .path = absl::StrCat(collection, "/", name),
            .body = EncodeStoragePatch(patch),
            .content_type = "application/merge-patch+json",
            .what = absl::StrCat("patch ", std::string(PluralName(resource)), " ",
                                 IsNamespaced(resource) ? absl::StrCat(ns, "/") : "", name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<StorageObject> object = DecodeStorageObject(body, resource);
  if (!object.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", object.status().message()));
  return object;
}

absl::StatusOr<Node> RestClient::GetNode(absl::string_view name) {
  Call call{.method = "GET",
            .path = absl::StrCat("/api/v1/nodes/", name),
            .what = absl::StrCat("get node ", name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<Node> node = DecodeNode(body);
  if (!node.ok())
    return absl::InternalError(absl::StrCat(call.what, ": ", node.status().message()));
  return node;
}

absl::StatusOr<Node> RestClient::CreateNode(const Node& node) {
  Call call{.method = "POST",
            .path = "/api/v1/nodes",
            .body = EncodeNode(node),
            .what = absl::StrCat("create node ", node.metadata.name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call));
  absl::StatusOr<Node> out = DecodeNode(body);
  if (!out.ok()) return absl::InternalError(absl::StrCat(call.what, ": ", out.status().message()));
  return out;
}

absl::Status RestClient::DeleteNode(absl::string_view name) {
  Call call{.method = "DELETE",
            .path = absl::StrCat("/api/v1/nodes/", name),
            .what = absl::StrCat("delete node ", name)};
  return Do(call).status();
}

// ---- Events ----

absl::Status RestClient::CreateEvent(const Event& event) {
  Call call{.method = "POST",
            .path = absl::StrCat("/apis/events.k8s.io/v1/namespaces/",
                                 event.metadata.namespace_name, "/events"),
            .body = EncodeEvent(event),
            .what = absl::StrCat("create event ", event.metadata.namespace_name, "/",
                                 event.metadata.name)};
  return Do(call).status();
}

// ---- Leases ----

absl::StatusOr<Lease> RestClient::GetLease(absl::string_view ns, absl::string_view name) {
  return GetLease(ns, name, CallOptions{});
}

absl::StatusOr<Lease> RestClient::GetLease(absl::string_view ns, absl::string_view name,
                                           const CallOptions& options) {
  Call call{.method = "GET",
            .path = LeasePath(ns, name),
            .what = absl::StrCat("get lease ", ns, "/", name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call, options));
  absl::StatusOr<Lease> lease = DecodeLease(body);
  if (!lease.ok()) {
    return absl::InternalError(absl::StrCat(call.what, ": ", lease.status().message()));
  }
  return lease;
}

absl::StatusOr<Lease> RestClient::CreateLease(const Lease& lease) {
  return CreateLease(lease, CallOptions{});
}

absl::StatusOr<Lease> RestClient::CreateLease(const Lease& lease, const CallOptions& options) {
  Call call{.method = "POST",
            .path = LeasePath(lease.metadata.namespace_name, ""),
            .body = EncodeLease(lease),
            .what = absl::StrCat("create lease ", lease.metadata.namespace_name, "/",
                                 lease.metadata.name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call, options));
  absl::StatusOr<Lease> out = DecodeLease(body);
  if (!out.ok()) return absl::InternalError(absl::StrCat(call.what, ": ", out.status().message()));
  return out;
}

absl::StatusOr<Lease> RestClient::UpdateLease(const Lease& lease) {
  return UpdateLease(lease, CallOptions{});
}

absl::StatusOr<Lease> RestClient::UpdateLease(const Lease& lease, const CallOptions& options) {
  Call call{.method = "PUT",
            .path = LeasePath(lease.metadata.namespace_name, lease.metadata.name),
            .body = EncodeLease(lease),
            .what = absl::StrCat("update lease ", lease.metadata.namespace_name, "/",
                                 lease.metadata.name)};
  TRIMARAN_ASSIGN_OR_RETURN(std::string body, Do(call, options));
  absl::StatusOr<Lease> out = DecodeLease(body);
  if (!out.ok()) return absl::InternalError(absl::StrCat(call.what, ": ", out.status().message()));
  return out;
}

absl::StatusOr<std::string> RestClient::Raw(absl::string_view method, absl::string_view path,
                                            absl::string_view body,
                                            absl::string_view content_type) {
  Call call{.method = std::string(method),
            .path = std::string(path),
            .body = std::string(body),
            .content_type = std::string(content_type),
            .what = absl::StrCat(method, " ", path)};
  return Do(call);
}

}  // namespace trimaran::kube
