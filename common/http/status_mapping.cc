#include "common/http/status_mapping.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace trimaran::http {
namespace {

constexpr size_t kMaxBodyInMessage = 512;

absl::string_view ReasonPhrase(int code) {
  switch (code) {
    case 300:
      return "multiple choices";
    case 301:
      return "moved permanently";
    case 302:
      return "found";
    case 303:
      return "see other";
    case 304:
      return "not modified";
    case 307:
      return "temporary redirect";
    case 308:
      return "permanent redirect";
    case 400:
      return "bad request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not found";
    case 405:
      return "method not allowed";
    case 406:
      return "not acceptable";
    case 408:
      return "request timeout";
    case 409:
      return "conflict";
    case 410:
      return "gone: re-list";
    case 411:
      return "length required";
    case 412:
      return "precondition failed";
    case 413:
      return "payload too large";
    case 415:
      return "unsupported media type";
    case 422:
      return "unprocessable entity";
    case 429:
      return "too many requests";
    case 500:
      return "internal server error";
    case 501:
      return "not implemented";
    case 502:
      return "bad gateway";
    case 503:
      return "service unavailable";
    case 504:
      return "gateway timeout";
    default:
      break;
  }
  if (code >= 100 && code < 200) return "unexpected informational response";
  if (code >= 300 && code < 400) return "unexpected redirect";
  if (code >= 400 && code < 500) return "client error";
  if (code >= 500 && code < 600) return "server error";
  return "invalid http status";
}

absl::StatusCode CodeForHttp(int code, absl::string_view method) {
  if (code >= 200 && code < 300) return absl::StatusCode::kOk;
  switch (code) {
    case 400:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 408:
    case 429:
      return absl::StatusCode::kUnavailable;
    case 409:
      return method == "POST" ? absl::StatusCode::kAlreadyExists : absl::StatusCode::kAborted;
    case 410:
      return absl::StatusCode::kAborted;
    default:
      break;
  }
  if (code >= 500 && code < 600) return absl::StatusCode::kUnavailable;
  if ((code >= 100 && code < 200) || (code >= 300 && code < 500)) {
    return absl::StatusCode::kFailedPrecondition;
  }
  return absl::StatusCode::kUnknown;
}

// Trims, collapses runs of whitespace (JSON bodies span lines) and truncates.
std::string CompactBody(absl::string_view body) {
  body = absl::StripAsciiWhitespace(body);
  std::string out;
  out.reserve(std::min(body.size(), kMaxBodyInMessage + 3));
  bool in_space = false;
  for (char c : body) {
    if (out.size() >= kMaxBodyInMessage) {
      out += "...";
      break;
    }
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      in_space = true;
      continue;
    }
    if (in_space) out += ' ';
    in_space = false;
    out += c;
  }
  return out;
}

struct CurlClass {
  absl::StatusCode code;
  absl::string_view summary;
  bool names_os_error = false;  // the summary already says what os_errno says
};

CurlClass ClassifyCurl(CURLcode code, long os_errno) {
  using C = absl::StatusCode;
  switch (code) {
    case CURLE_OK:
      return {C::kOk, ""};
    case CURLE_OPERATION_TIMEDOUT:
      return {C::kDeadlineExceeded, "timed out"};
    case CURLE_COULDNT_CONNECT:
      if (os_errno == ECONNREFUSED) return {C::kUnavailable, "connection refused", true};
      if (os_errno == ENETUNREACH || os_errno == EHOSTUNREACH) {
        return {C::kUnavailable, "host unreachable", true};
      }
      return {C::kUnavailable, "cannot connect"};
    case CURLE_COULDNT_RESOLVE_HOST:
      return {C::kUnavailable, "cannot resolve host"};
    case CURLE_COULDNT_RESOLVE_PROXY:
      return {C::kUnavailable, "cannot resolve proxy"};
    case CURLE_SEND_ERROR:
      return {C::kUnavailable, "send failed"};
    case CURLE_RECV_ERROR:
      if (os_errno == ECONNRESET) return {C::kUnavailable, "connection reset", true};
      return {C::kUnavailable, "receive failed"};
    case CURLE_PARTIAL_FILE:
      return {C::kUnavailable, "response cut short"};
    case CURLE_GOT_NOTHING:
      return {C::kUnavailable, "empty reply from server"};
    case CURLE_WEIRD_SERVER_REPLY:
      return {C::kUnavailable, "malformed reply from server"};
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
      return {C::kUnavailable, "http/2 or http/3 protocol error"};
    case CURLE_SSL_CONNECT_ERROR:
      return {C::kUnavailable, "TLS handshake failed"};
    case CURLE_PEER_FAILED_VERIFICATION:
      return {C::kFailedPrecondition, "TLS certificate verification failed"};
    case CURLE_SSL_CACERT_BADFILE:
      return {C::kFailedPrecondition, "TLS CA certificates cannot be loaded"};
    case CURLE_SSL_CERTPROBLEM:
      return {C::kFailedPrecondition, "TLS client certificate or key cannot be used"};
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return {C::kFailedPrecondition, "TLS configuration error"};
    case CURLE_URL_MALFORMAT:
      return {C::kInvalidArgument, "malformed url"};
    case CURLE_UNSUPPORTED_PROTOCOL:
      return {C::kInvalidArgument, "unsupported protocol"};
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION:
      return {C::kInvalidArgument, "invalid request option"};
    case CURLE_ABORTED_BY_CALLBACK:
      return {C::kCancelled, "cancelled"};
    case CURLE_OUT_OF_MEMORY:
      return {C::kResourceExhausted, "out of memory"};
    default:
      return {C::kInternal, "transfer failed"};
  }
}

}  // namespace

absl::Status StatusFromHttp(int http_code, absl::string_view body_or_message,
                            HttpVerbContext context) {
  absl::StatusCode code = CodeForHttp(http_code, context.method);
  if (code == absl::StatusCode::kOk) return absl::OkStatus();
  std::string message;
  if (context.method_in_message && !context.method.empty()) {
    absl::StrAppend(&message, context.method, " ");
  }
  if (!context.target.empty()) absl::StrAppend(&message, context.target);
  if (!message.empty()) {
    if (message.back() == ' ') message.pop_back();
    message += ": ";
  }
  absl::StrAppend(&message, ReasonPhrase(http_code), " (HTTP ", http_code, ")");
  std::string body = CompactBody(body_or_message);
  if (!body.empty()) absl::StrAppend(&message, ": ", body);
  return absl::Status(code, message);
}

absl::Status StatusFromResponse(const HttpResponse& response, HttpVerbContext context) {
  absl::Status status = StatusFromHttp(response.status_code, response.body, context);
  if (status.ok()) return status;
  std::optional<absl::Duration> retry_after = RetryAfter(response);
  if (!retry_after.has_value()) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (retry after ",
                                                  absl::FormatDuration(*retry_after), ")"));
}

absl::Status StatusFromCurl(CURLcode code, absl::string_view context, absl::string_view detail,
                            long os_errno) {
  CurlClass cls = ClassifyCurl(code, os_errno);
  if (cls.code == absl::StatusCode::kOk) return absl::OkStatus();
  absl::string_view text = absl::StripAsciiWhitespace(detail);
  if (text.empty()) text = curl_easy_strerror(code);
  std::string message;
  if (!context.empty()) absl::StrAppend(&message, context, ": ");
  absl::StrAppend(&message, cls.summary, " (curl ", static_cast<int>(code), ": ", text);
  // Name the OS error when curl's own text does not already carry it.
  if (os_errno != 0 && !cls.names_os_error) {
    absl::string_view os_text = std::strerror(static_cast<int>(os_errno));
    if (!absl::StrContains(absl::AsciiStrToLower(text), absl::AsciiStrToLower(os_text)))
      absl::StrAppend(&message, "; ", os_text);
  }
  message += ")";
  return absl::Status(cls.code, message);
}

bool IsRetryable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

std::optional<absl::Duration> ParseRetryAfter(absl::string_view value) {
  value = absl::StripAsciiWhitespace(value);
  if (value.empty() || value.size() > 10) return std::nullopt;
  for (char c : value) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(value, &seconds)) return std::nullopt;
  return absl::Seconds(seconds);
}

std::optional<absl::Duration> RetryAfter(const HttpResponse& response) {
  std::optional<absl::string_view> value = response.headers.Get("Retry-After");
  if (!value.has_value()) return std::nullopt;
  return ParseRetryAfter(*value);
}

}  // namespace trimaran::http
