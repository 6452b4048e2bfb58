#include "common/http/curl_transport.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/http/status_mapping.h"
#include "common/status_macros.h"

namespace trimaran::http {
namespace {

// libcurl's process-wide init, done once and never undone (curl_global_cleanup is not
// safe while other threads may still use curl).
absl::Status GlobalInit() {
  static const absl::Status* const status = [] {
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
      return new absl::Status(absl::FailedPreconditionError(
          absl::StrCat("curl_global_init failed: ", curl_easy_strerror(rc))));
    }
    const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
    if ((info->features & CURL_VERSION_SSL) == 0) {
      return new absl::Status(
          absl::FailedPreconditionError("libcurl was built without TLS support"));
    }
    return new absl::Status();
  }();
  return *status;
}

absl::Status ValidateTls(const TlsOptions& tls) {
  auto both = [](const std::string& file, const std::string& pem, absl::string_view what) {
    if (!file.empty() && !pem.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tls: both a file and PEM data are set for the ", what));
    }
    return absl::OkStatus();
  };
  TRIMARAN_RETURN_IF_ERROR(both(tls.ca_file, tls.ca_pem, "CA"));
  TRIMARAN_RETURN_IF_ERROR(both(tls.client_cert_file, tls.client_cert_pem, "client certificate"));
  TRIMARAN_RETURN_IF_ERROR(both(tls.client_key_file, tls.client_key_pem, "client key"));
  bool has_cert = !tls.client_cert_file.empty() || !tls.client_cert_pem.empty();
  bool has_key = !tls.client_key_file.empty() || !tls.client_key_pem.empty();
  if (has_cert != has_key) {
    return absl::InvalidArgumentError(
        "tls: a client certificate and a client key must be given together");
  }
  return absl::OkStatus();
}

bool IsValidMethod(absl::string_view method) {
  if (method.empty() || method.size() > 16) return false;
  return std::all_of(method.begin(), method.end(),
                     [](char c) { return absl::ascii_isupper(static_cast<unsigned char>(c)); });
}

bool IsLoopbackHost(absl::string_view host) {
  return host == "localhost" || absl::EndsWith(host, ".localhost") ||
         absl::StartsWith(host, "127.") || host == "[::1]";
}

// The parts of a URL that the transport needs, parsed by libcurl itself so that the
// parse matches what libcurl will connect to.
struct ParsedUrl {
  std::string scheme;
  std::string host;  // IPv6 literals keep their brackets
  std::string port;  // explicit or the scheme's default
  bool explicit_port = false;
  std::string url;  // the URL to request (host replaced by server_name if any)
};

struct CurluDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using CurluPtr = std::unique_ptr<CURLU, CurluDeleter>;

absl::StatusOr<std::string> GetPart(CURLU* u, CURLUPart part, unsigned flags) {
  char* value = nullptr;
  CURLUcode rc = curl_url_get(u, part, &value, flags);
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(curl_url_strerror(rc));
  }
  std::string out(value);
  curl_free(value);
  return out;
}

absl::StatusOr<ParsedUrl> ParseUrl(const std::string& url, absl::string_view server_name) {
  CurluPtr u(curl_url());
  if (u == nullptr) return absl::ResourceExhaustedError("out of memory");
  CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0);
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed url \"", url, "\": ", curl_url_strerror(rc)));
  }
  ParsedUrl out;
  TRIMARAN_ASSIGN_OR_RETURN(out.scheme, GetPart(u.get(), CURLUPART_SCHEME, 0));
  if (out.scheme != "http" && out.scheme != "https") {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported scheme \"", out.scheme, "\" in url ", url));
  }
  TRIMARAN_ASSIGN_OR_RETURN(out.host, GetPart(u.get(), CURLUPART_HOST, 0));
  out.explicit_port = GetPart(u.get(), CURLUPART_PORT, 0).ok();
  TRIMARAN_ASSIGN_OR_RETURN(out.port, GetPart(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT));
  if (!server_name.empty()) {
    std::string name(server_name);
    rc = curl_url_set(u.get(), CURLUPART_HOST, name.c_str(), 0);
    if (rc != CURLUE_OK) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad tls server name \"", server_name, "\": ", curl_url_strerror(rc)));
    }
    TRIMARAN_ASSIGN_OR_RETURN(out.url, GetPart(u.get(), CURLUPART_URL, 0));
  } else {
    out.url = url;
  }
  return out;
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

absl::Status Append(SlistPtr& list, const std::string& line) {
  curl_slist* next = curl_slist_append(list.get(), line.c_str());
  if (next == nullptr) return absl::ResourceExhaustedError("out of memory building headers");
  (void)list.release();
  list.reset(next);
  return absl::OkStatus();
}

// State shared with libcurl's callbacks during one transfer.
struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse response;
  bool stopped_by_callback = false;                    // on_chunk returned false
  size_t max_body_bytes = 0;                           // the collected body's cap
  bool too_large = false;                              // the body passed the cap
  bool cancelled = false;                              // stop_token fired
  bool idle_timed_out = false;                         // no byte for request->idle_timeout
  std::chrono::steady_clock::duration idle_timeout{};  // zero: no idle limit
  std::chrono::steady_clock::time_point last_data;
};

size_t OnHeader(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nitems;
  t->last_data = std::chrono::steady_clock::now();
  absl::string_view line(data, n);
  absl::string_view trimmed = absl::StripTrailingAsciiWhitespace(line);
  if (absl::StartsWith(trimmed, "HTTP/")) {
    // A new response starts (after 1xx interim responses): keep only the final one.
    t->response.headers.clear();
    absl::string_view rest = trimmed.substr(
        trimmed.find(' ') == absl::string_view::npos ? trimmed.size() : trimmed.find(' ') + 1);
    int code = 0;
    if (absl::SimpleAtoi(rest.substr(0, 3), &code)) t->response.status_code = code;
    return n;
  }
  if (trimmed.empty()) return n;
  if (absl::ascii_isspace(static_cast<unsigned char>(line.front()))) {
    // Obsolete line folding: continue the previous value.
    if (t->response.headers.size() > 0) {
      Headers folded;
      size_t i = 0, last = t->response.headers.size() - 1;
      for (const auto& [k, v] : t->response.headers) {
        folded.Add(k, i++ == last ? absl::StrCat(v, " ", absl::StripAsciiWhitespace(line)) : v);
      }
      t->response.headers = std::move(folded);
    }
    return n;
  }
  size_t colon = trimmed.find(':');
  if (colon == absl::string_view::npos) return n;
  t->response.headers.Add(std::string(absl::StripAsciiWhitespace(trimmed.substr(0, colon))),
                          std::string(absl::StripAsciiWhitespace(trimmed.substr(colon + 1))));
  return n;
}

size_t OnWrite(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nmemb;
  t->last_data = std::chrono::steady_clock::now();
  if (t->request->stop_token.stop_requested()) {
    t->cancelled = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  if (t->request->on_chunk && t->response.ok()) {
    if (!t->request->on_chunk(absl::string_view(data, n))) {
      t->stopped_by_callback = true;
      return 0;
    }
    return n;
  }
  if (t->response.body.size() + n > t->max_body_bytes) {
    t->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, n);
  return n;
}

int OnProgress(void* userdata, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(userdata);
  if (t->request->stop_token.stop_requested()) {
    t->cancelled = true;
    return 1;  // aborts the transfer with CURLE_ABORTED_BY_CALLBACK
  }
  if (t->idle_timeout.count() > 0 &&
      std::chrono::steady_clock::now() - t->last_data > t->idle_timeout) {
    t->idle_timed_out = true;
    return 1;
  }
  return 0;
}

long ToMillis(absl::Duration d) {
  int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(d, absl::Milliseconds(1)));
  return static_cast<long>(std::clamp<int64_t>(ms, 1, INT32_MAX));
}

// Sets an option and turns a failure into a Status naming the option.
template <typename T>
absl::Status Set(CURL* h, CURLoption option, T value, absl::string_view name) {
  CURLcode rc = curl_easy_setopt(h, option, value);
  if (rc != CURLE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("curl option ", name, ": ", curl_easy_strerror(rc)));
  }
  return absl::OkStatus();
}

#define TRIMARAN_CURL_SET(h, option, value) TRIMARAN_RETURN_IF_ERROR(Set(h, option, value, #option))

absl::Status SetBlob(CURL* h, CURLoption option, const std::string& pem, absl::string_view name) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  return Set(h, option, &blob, name);
}

absl::Status ApplyTls(CURL* h, const TlsOptions& tls) {
  if (tls.insecure_skip_verify) {
    TRIMARAN_CURL_SET(h, CURLOPT_SSL_VERIFYPEER, 0L);
    TRIMARAN_CURL_SET(h, CURLOPT_SSL_VERIFYHOST, 0L);
  } else {
    TRIMARAN_CURL_SET(h, CURLOPT_SSL_VERIFYPEER, 1L);
    TRIMARAN_CURL_SET(h, CURLOPT_SSL_VERIFYHOST, 2L);
  }
  // A configured CA is the only trust root: drop the build's default bundle and dir.
  if (!tls.ca_file.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_CAPATH, static_cast<char*>(nullptr));
    TRIMARAN_CURL_SET(h, CURLOPT_CAINFO, tls.ca_file.c_str());
  } else if (!tls.ca_pem.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_CAPATH, static_cast<char*>(nullptr));
    TRIMARAN_CURL_SET(h, CURLOPT_CAINFO, static_cast<char*>(nullptr));
    TRIMARAN_RETURN_IF_ERROR(SetBlob(h, CURLOPT_CAINFO_BLOB, tls.ca_pem, "CURLOPT_CAINFO_BLOB"));
  }
  if (!tls.client_cert_file.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_SSLCERTTYPE, "PEM");
    TRIMARAN_CURL_SET(h, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
  } else if (!tls.client_cert_pem.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_SSLCERTTYPE, "PEM");
    TRIMARAN_RETURN_IF_ERROR(
        SetBlob(h, CURLOPT_SSLCERT_BLOB, tls.client_cert_pem, "CURLOPT_SSLCERT_BLOB"));
  }
  if (!tls.client_key_file.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_SSLKEYTYPE, "PEM");
    TRIMARAN_CURL_SET(h, CURLOPT_SSLKEY, tls.client_key_file.c_str());
  } else if (!tls.client_key_pem.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_SSLKEYTYPE, "PEM");
    TRIMARAN_RETURN_IF_ERROR(
        SetBlob(h, CURLOPT_SSLKEY_BLOB, tls.client_key_pem, "CURLOPT_SSLKEY_BLOB"));
  }
  return absl::OkStatus();
}

// The connection: URL, protocols, HTTP/1.1, no redirects, keep-alive; no proxy for
// loopback hosts; curl writes its error text into `errbuf`.
absl::Status SetConnection(CURL* h, const ParsedUrl& url, char* errbuf) {
  TRIMARAN_CURL_SET(h, CURLOPT_URL, url.url.c_str());
  TRIMARAN_CURL_SET(h, CURLOPT_PROTOCOLS_STR, "http,https");
  TRIMARAN_CURL_SET(h, CURLOPT_NOSIGNAL, 1L);
  TRIMARAN_CURL_SET(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  TRIMARAN_CURL_SET(h, CURLOPT_FOLLOWLOCATION, 0L);
  TRIMARAN_CURL_SET(h, CURLOPT_ERRORBUFFER, errbuf);
  TRIMARAN_CURL_SET(h, CURLOPT_TCP_KEEPALIVE, 1L);
  TRIMARAN_CURL_SET(h, CURLOPT_TCP_KEEPIDLE, 30L);
  TRIMARAN_CURL_SET(h, CURLOPT_TCP_KEEPINTVL, 15L);
  if (IsLoopbackHost(url.host)) TRIMARAN_CURL_SET(h, CURLOPT_NOPROXY, "*");
  return absl::OkStatus();
}

absl::Status SetMethodAndBody(CURL* h, const HttpRequest& request) {
  if (request.method == "GET" && request.body.empty()) {
    TRIMARAN_CURL_SET(h, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    TRIMARAN_CURL_SET(h, CURLOPT_NOBODY, 1L);
  } else {
    if (request.method != "POST") {
      TRIMARAN_CURL_SET(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    if (request.method == "POST" || request.method == "PUT" || request.method == "PATCH" ||
        !request.body.empty()) {
      TRIMARAN_CURL_SET(h, CURLOPT_POSTFIELDSIZE_LARGE,
                        static_cast<curl_off_t>(request.body.size()));
      TRIMARAN_CURL_SET(h, CURLOPT_POSTFIELDS, request.body.data());
    }
  }
  return absl::OkStatus();
}

// The request's headers as given, those curl would add on its own suppressed, the
// User-Agent; with tls.server_name, the connection to the URL's host:port while the
// TLS name (and Host) is server_name's. `headers` and `connect_to` must outlive the
// transfer.
absl::Status SetHeaders(CURL* h, const HttpRequest& request, const TlsOptions& tls,
                        const ParsedUrl& url, const std::string& user_agent, SlistPtr& headers,
                        SlistPtr& connect_to) {
  // (A header with an empty value is curl's "Name;" syntax.)
  for (const auto& [name, value] : request.headers) {
    TRIMARAN_RETURN_IF_ERROR(
        Append(headers, value.empty() ? absl::StrCat(name, ";") : absl::StrCat(name, ": ", value)));
  }
  // "Name:" suppresses a header curl would add on its own: no 100-continue round trip,
  // and no made-up form Content-Type for bodies.
  if (!request.headers.Has("Expect")) TRIMARAN_RETURN_IF_ERROR(Append(headers, "Expect:"));
  if (!request.headers.Has("Content-Type")) {
    TRIMARAN_RETURN_IF_ERROR(Append(headers, "Content-Type:"));
  }
  if (!request.headers.Has("User-Agent") && !user_agent.empty()) {
    TRIMARAN_RETURN_IF_ERROR(Append(headers, absl::StrCat("User-Agent: ", user_agent)));
  }
  if (!tls.server_name.empty()) {
    // Connect to the URL's host:port, but present and verify tls.server_name.
    TRIMARAN_RETURN_IF_ERROR(Append(
        connect_to, absl::StrCat(tls.server_name, ":", url.port, ":", url.host, ":", url.port)));
    TRIMARAN_CURL_SET(h, CURLOPT_CONNECT_TO, connect_to.get());
    if (!request.headers.Has("Host")) {
      std::string host = absl::StrCat("Host: ", url.host);
      if (url.explicit_port) absl::StrAppend(&host, ":", url.port);
      TRIMARAN_RETURN_IF_ERROR(Append(headers, host));
    }
  }
  TRIMARAN_CURL_SET(h, CURLOPT_HTTPHEADER, headers.get());
  return absl::OkStatus();
}

// The total and connect timeouts (the request's, else the transport's defaults; a
// stream has no total limit unless the request sets one), and the idle timeout, which
// OnProgress checks through `transfer`.
absl::Status SetTimeouts(CURL* h, const HttpRequest& request, const CurlTransportOptions& options,
                         Transfer& transfer) {
  const bool streaming = static_cast<bool>(request.on_chunk);
  absl::Duration total = request.timeout;
  if (total == absl::ZeroDuration()) {
    total = streaming ? absl::InfiniteDuration() : options.default_timeout;
  }
  if (total != absl::InfiniteDuration() && total > absl::ZeroDuration()) {
    TRIMARAN_CURL_SET(h, CURLOPT_TIMEOUT_MS, ToMillis(total));
  }
  absl::Duration connect = request.connect_timeout == absl::ZeroDuration()
                               ? options.default_connect_timeout
                               : request.connect_timeout;
  if (connect != absl::InfiniteDuration() && connect > absl::ZeroDuration()) {
    TRIMARAN_CURL_SET(h, CURLOPT_CONNECTTIMEOUT_MS, ToMillis(connect));
  }
  // The idle timeout is checked in the progress callback, which curl calls at least
  // about once a second. (CURLOPT_LOW_SPEED_TIME is no substitute: curl averages the
  // speed over ~5 s, so it fires seconds late.)
  if (request.idle_timeout > absl::ZeroDuration() &&
      request.idle_timeout != absl::InfiniteDuration()) {
    transfer.idle_timeout = absl::ToChronoMilliseconds(request.idle_timeout);
  }
  return absl::OkStatus();
}

// Headers and body into `transfer`; the progress callback only when there is a stop
// token or an idle timeout to check.
absl::Status SetCallbacks(CURL* h, const HttpRequest& request, Transfer& transfer) {
  TRIMARAN_CURL_SET(h, CURLOPT_HEADERFUNCTION, &OnHeader);
  TRIMARAN_CURL_SET(h, CURLOPT_HEADERDATA, static_cast<void*>(&transfer));
  TRIMARAN_CURL_SET(h, CURLOPT_WRITEFUNCTION, &OnWrite);
  TRIMARAN_CURL_SET(h, CURLOPT_WRITEDATA, static_cast<void*>(&transfer));
  if (request.stop_token.stop_possible() || transfer.idle_timeout.count() > 0) {
    TRIMARAN_CURL_SET(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
    TRIMARAN_CURL_SET(h, CURLOPT_XFERINFODATA, static_cast<void*>(&transfer));
    TRIMARAN_CURL_SET(h, CURLOPT_NOPROGRESS, 0L);
  }
  return absl::OkStatus();
}

// Runs the transfer set up on `h`; the response, or why there is none (`context`
// names the request in the error).
absl::StatusOr<HttpResponse> Perform(CURL* h, const HttpRequest& request, Transfer& transfer,
                                     const std::string& context, const char* errbuf) {
  transfer.last_data = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(h);
  if (transfer.cancelled) return absl::CancelledError(absl::StrCat(context, ": cancelled"));
  if (transfer.idle_timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(context, ": timed out: no data for ",
                                                    absl::FormatDuration(request.idle_timeout),
                                                    " (idle timeout)"));
  }
  if (transfer.too_large) {
    return absl::ResourceExhaustedError(
        absl::StrCat(context, ": response body exceeds ", transfer.max_body_bytes, " bytes"));
  }
  if (rc == CURLE_WRITE_ERROR && transfer.stopped_by_callback) rc = CURLE_OK;
  if (rc != CURLE_OK) {
    long os_errno = 0;
    curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
    return StatusFromCurl(rc, context, errbuf, os_errno);
  }
  long code = 0;
  if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code != 0) {
    transfer.response.status_code = static_cast<int>(code);
  }
  return std::move(transfer.response);
}

// Returns the handle to the pool (or frees it) when the request ends, however it ends.
class HandleLease {
 public:
  HandleLease(CURL* h, std::function<void(CURL*)> release) : h_(h), release_(std::move(release)) {}
  ~HandleLease() { release_(h_); }
  HandleLease(const HandleLease&) = delete;
  HandleLease& operator=(const HandleLease&) = delete;
  CURL* get() const { return h_; }

 private:
  CURL* h_;
  std::function<void(CURL*)> release_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CurlTransport>> CurlTransport::Create(CurlTransportOptions options) {
  TRIMARAN_RETURN_IF_ERROR(GlobalInit());
  TRIMARAN_RETURN_IF_ERROR(ValidateTls(options.tls));
  return std::unique_ptr<CurlTransport>(new CurlTransport(std::move(options)));
}

CurlTransport::CurlTransport(CurlTransportOptions options) : options_(std::move(options)) {}

CurlTransport::~CurlTransport() {
  absl::MutexLock lock(&mu_);
  for (CURL* h : idle_) curl_easy_cleanup(h);
  idle_.clear();
}

int CurlTransport::IdleHandlesForTest() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(idle_.size());
}

absl::StatusOr<CURL*> CurlTransport::Acquire() {
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      CURL* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  CURL* h = curl_easy_init();
  if (h == nullptr) return absl::ResourceExhaustedError("curl_easy_init failed");
  return h;
}

void CurlTransport::Release(CURL* h) {
  // Forget every per-request option (they point into the finished request) but keep
  // the connection, DNS and TLS session caches.
  curl_easy_reset(h);
  {
    absl::MutexLock lock(&mu_);
    if (static_cast<int>(idle_.size()) < options_.max_idle_handles) {
      idle_.push_back(h);
      return;
    }
  }
  curl_easy_cleanup(h);
}

absl::StatusOr<HttpResponse> CurlTransport::Send(const HttpRequest& request) {
  const TlsOptions& tls = request.tls.has_value() ? *request.tls : options_.tls;
  std::string context = absl::StrCat(request.method, " ", request.url);
  TRIMARAN_RETURN_IF_ERROR(Annotate(ValidateTls(tls), context));
  if (!IsValidMethod(request.method)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid http method \"", request.method, "\" for ", request.url));
  }
  TRIMARAN_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(request.url, tls.server_name));
  if (!url.explicit_port) absl::StrAppend(&context, " (", url.host, ":", url.port, ")");
  if (request.stop_token.stop_requested()) {
    return absl::CancelledError(absl::StrCat(context, ": cancelled"));
  }

  // Everything the handle points to during the transfer is declared before the lease,
  // so the handle is reset (and pooled) before any of it goes away.
  Transfer transfer;
  transfer.request = &request;
  transfer.max_body_bytes =
      request.max_body_bytes != 0 ? request.max_body_bytes : options_.default_max_body_bytes;
  char errbuf[CURL_ERROR_SIZE];
  errbuf[0] = '\0';
  SlistPtr headers;
  SlistPtr connect_to;

  TRIMARAN_ASSIGN_OR_RETURN(CURL * raw, Acquire());
  HandleLease lease(raw, [this](CURL* h) { Release(h); });
  CURL* h = lease.get();

  TRIMARAN_RETURN_IF_ERROR(SetConnection(h, url, errbuf));
  TRIMARAN_RETURN_IF_ERROR(SetMethodAndBody(h, request));
  TRIMARAN_RETURN_IF_ERROR(
      SetHeaders(h, request, tls, url, options_.user_agent, headers, connect_to));
  if (url.scheme == "https") TRIMARAN_RETURN_IF_ERROR(Annotate(ApplyTls(h, tls), context));
  TRIMARAN_RETURN_IF_ERROR(SetTimeouts(h, request, options_, transfer));
  TRIMARAN_RETURN_IF_ERROR(SetCallbacks(h, request, transfer));
  return Perform(h, request, transfer, context, errbuf);
}

}  // namespace trimaran::http
