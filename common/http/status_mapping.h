#pragma once
// The canonical HTTP/curl -> absl::StatusCode mapping, written down once
// (docs/architecture.md, "Error handling convention", rule 3). Every caller of
// HttpTransport maps outcomes through here so that "retry?", "re-list?" and "give up?"
// decisions mean the same thing everywhere.
//
// HTTP status (StatusFromHttp):
//
//   | HTTP                 | absl code           | consequence for the caller              |
//   |----------------------|---------------------|-----------------------------------------|
//   | 2xx                  | kOk                 |                                         |
//   | 1xx, 3xx             | kFailedPrecondition | unexpected (redirects are not followed) |
//   | 400, 422             | kInvalidArgument    | our request is wrong; do not retry      |
//   | 401                  | kUnauthenticated    | refresh credentials, then retry         |
//   | 403                  | kPermissionDenied   | RBAC problem; do not retry              |
//   | 404                  | kNotFound           | object absent                           |
//   | 408                  | kUnavailable        | retry with backoff                      |
//   | 409 on POST (create) | kAlreadyExists      | object exists                           |
//   | 409 otherwise        | kAborted            | conflict: re-read, then write again     |
//   | 410                  | kAborted            | "gone: re-list" (watch too old)         |
//   | 412                  | kFailedPrecondition | precondition (uid/resourceVersion) lost |
//   | 429                  | kUnavailable        | throttled; retry after Retry-After      |
//   | other 4xx            | kFailedPrecondition | request cannot succeed as sent          |
//   | 5xx                  | kUnavailable        | retry with backoff                      |
//   | anything else        | kUnknown            |                                         |
//
// Transport failures (StatusFromCurl):
//
//   | curl                                                   | absl code           |
//   |--------------------------------------------------------|---------------------|
//   | OPERATION_TIMEDOUT (total or connect timeout)          | kDeadlineExceeded   |
//   | COULDNT_CONNECT, COULDNT_RESOLVE_HOST/PROXY,           | kUnavailable        |
//   |   SEND_ERROR, RECV_ERROR, PARTIAL_FILE, GOT_NOTHING,   |                     |
//   |   SSL_CONNECT_ERROR, WEIRD_SERVER_REPLY, HTTP2*        |                     |
//   | PEER_FAILED_VERIFICATION, SSL_CACERT_BADFILE,          | kFailedPrecondition |
//   |   SSL_CERTPROBLEM, SSL_CIPHER, SSL_ENGINE_*,           |                     |
//   |   SSL_PINNEDPUBKEYNOTMATCH, SSL_ISSUER_ERROR, ...      |                     |
//   | URL_MALFORMAT, UNSUPPORTED_PROTOCOL, BAD_FUNCTION_ARG. | kInvalidArgument    |
//   | ABORTED_BY_CALLBACK                                    | kCancelled          |
//   | OUT_OF_MEMORY                                          | kResourceExhausted  |
//   | anything else                                          | kInternal           |
//
// CurlTransport reports its own idle timeout (HttpRequest::idle_timeout) as
// kDeadlineExceeded too, and a stop_token stop as kCancelled.
//
// Why TLS verification failures are kFailedPrecondition and not kUnavailable: a wrong CA,
// an expired certificate or an unreadable key file is a configuration problem that
// retrying cannot fix, and a blind retry loop would hide it. A failed handshake
// (SSL_CONNECT_ERROR: the peer reset or rejected us mid-handshake) stays kUnavailable,
// since servers restarting produce it too.
//
// Messages are lower-case and keep the cause: "<context>: <summary> (curl <n>: <curl's
// text>)", for example
//   GET https://127.0.0.1:6443/api: connection refused (curl 7: Failed to connect to
//   127.0.0.1 port 6443 after 0 ms: Couldn't connect to server)
//
// Thread-safety: pure functions; safe anywhere.

#include <curl/curl.h>

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/transport.h"

namespace trimaran::http {

// What the caller was doing, for the 409 rule and for the message.
struct HttpVerbContext {
  absl::string_view method{};  // "GET", "POST" (= create), ...
  // What was addressed, for the message: a URL, or better an object such as
  // "pod default/web-1". May be empty.
  absl::string_view target{};
  // False when `target` already names the operation ("bind pod ns/p to node n1"):
  // the method then only decides the code (the 409 rule), not the message.
  bool method_in_message = true;
};

// Maps an HTTP status to a Status per the table above; OK for 2xx. The message is
// "<method> <target>: <reason> (HTTP <code>): <body_or_message>", where the body is
// trimmed, whitespace-collapsed and cut to 512 bytes. Callers that decoded a structured
// error (a Kubernetes Status object) should pass its message instead of the raw body.
absl::Status StatusFromHttp(int http_code, absl::string_view body_or_message,
                            HttpVerbContext context);

// StatusFromHttp(response.status_code, response.body, context), with " (retry after
// Ns)" appended when a Retry-After header is present.
absl::Status StatusFromResponse(const HttpResponse& response, HttpVerbContext context);

// Maps a curl failure per the table above; OK for CURLE_OK. `context` is usually
// "<METHOD> <url>"; `detail` is curl's error buffer (CURLOPT_ERRORBUFFER), used instead
// of curl_easy_strerror when not empty; `os_errno` (CURLINFO_OS_ERRNO) refines the
// summary ("connection refused" rather than "cannot connect") when not 0.
absl::Status StatusFromCurl(CURLcode code, absl::string_view context, absl::string_view detail = "",
                            long os_errno = 0);

// True when sending the same request again, after a backoff, may succeed: kUnavailable
// (429, 5xx, connection problems) and kDeadlineExceeded (timeouts). Whether a
// non-idempotent request may be repeated is the caller's decision.
bool IsRetryable(const absl::Status& status);

// Parses a Retry-After value in its delta-seconds form ("120"). The HTTP-date form and
// malformed values give nullopt (the caller falls back to its own backoff).
std::optional<absl::Duration> ParseRetryAfter(absl::string_view value);

// ParseRetryAfter of the response's Retry-After header, if any.
std::optional<absl::Duration> RetryAfter(const HttpResponse& response);

}  // namespace trimaran::http
