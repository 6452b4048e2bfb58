#include "tests/e2e/harness/http1_message.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trimaran::e2e {
namespace {

constexpr size_t kMaxLineBytes = 8 * 1024;

bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::StrContains("!#$%&'*+-.^_`|~", c);
}

// Splits the head into lines (without their "\r\n"), up to the empty line.
absl::StatusOr<std::vector<absl::string_view>> HeadLines(absl::string_view raw) {
  if (raw.size() > kMaxHeadBytes) {
    return absl::InvalidArgumentError(absl::StrCat("head longer than ", kMaxHeadBytes, " bytes"));
  }
  std::vector<absl::string_view> lines;
  while (!raw.empty()) {
    size_t nl = raw.find('\n');
    if (nl == absl::string_view::npos) return absl::InvalidArgumentError("head not terminated");
    absl::string_view line = raw.substr(0, nl);
    raw.remove_prefix(nl + 1);
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) {
      if (lines.empty()) continue;  // RFC 9112 §2.2: ignore empty lines before the start line
      return lines;
    }
    lines.push_back(line);
  }
  return absl::InvalidArgumentError("head not terminated by an empty line");
}

absl::Status ParseFields(const std::vector<absl::string_view>& lines, http::Headers* out) {
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (line.front() == ' ' || line.front() == '\t') {
      return absl::InvalidArgumentError("obsolete line folding in a header field");
    }
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos || colon == 0) {
      return absl::InvalidArgumentError(absl::StrCat("malformed header field \"", line, "\""));
    }
    absl::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), IsTokenChar)) {
      return absl::InvalidArgumentError(absl::StrCat("bad header field name \"", name, "\""));
    }
    out->Add(std::string(name), std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return absl::OkStatus();
}

bool ValidVersion(absl::string_view v) { return v == "HTTP/1.1" || v == "HTTP/1.0"; }

// Content-Length: every value (and comma-separated element) must be the same number.
absl::StatusOr<std::optional<uint64_t>> ContentLength(const http::Headers& headers) {
  std::optional<uint64_t> length;
  for (absl::string_view value : headers.GetAll("Content-Length")) {
    for (absl::string_view part : absl::StrSplit(value, ',')) {
      part = absl::StripAsciiWhitespace(part);
      uint64_t n = 0;
      if (part.empty() || !std::all_of(part.begin(), part.end(), absl::ascii_isdigit) ||
          !absl::SimpleAtoi(part, &n)) {
        return absl::InvalidArgumentError(absl::StrCat("bad Content-Length \"", value, "\""));
      }
      if (length.has_value() && *length != n) {
        return absl::InvalidArgumentError("conflicting Content-Length values");
      }
      length = n;
    }
  }
  return length;
}

// nullopt: no Transfer-Encoding; true: the final coding is chunked; false: it is not.
std::optional<bool> FinalCodingIsChunked(const http::Headers& headers) {
  std::vector<absl::string_view> values = headers.GetAll("Transfer-Encoding");
  if (values.empty()) return std::nullopt;
  std::vector<absl::string_view> codings = absl::StrSplit(values.back(), ',');
  return absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(codings.back()), "chunked");
}

}  // namespace

absl::string_view Http1Head::path() const {
  absl::string_view t = target;
  return t.substr(0, t.find('?'));
}

absl::string_view Http1Head::query() const {
  absl::string_view t = target;
  size_t q = t.find('?');
  return q == absl::string_view::npos ? absl::string_view() : t.substr(q + 1);
}

bool Http1Head::KeepAlive() const {
  bool close = false;
  bool keep_alive = false;
  for (absl::string_view value : headers.GetAll("Connection")) {
    for (absl::string_view option : absl::StrSplit(value, ',')) {
      option = absl::StripAsciiWhitespace(option);
      close |= absl::EqualsIgnoreCase(option, "close");
      keep_alive |= absl::EqualsIgnoreCase(option, "keep-alive");
    }
  }
  if (close) return false;
  return version == "HTTP/1.1" || keep_alive;
}

size_t FindHeadEnd(absl::string_view data) {
  // Accept "\n\n" as well as "\r\n\r\n" (RFC 9112 §2.2 allows bare LF line ends).
  for (size_t i = data.find('\n'); i != absl::string_view::npos; i = data.find('\n', i + 1)) {
    if (i + 1 < data.size() && data[i + 1] == '\n') return i + 2;
    if (i + 2 < data.size() && data[i + 1] == '\r' && data[i + 2] == '\n') return i + 3;
  }
  return 0;
}

absl::StatusOr<Http1Head> ParseRequestHead(absl::string_view raw) {
  absl::StatusOr<std::vector<absl::string_view>> lines = HeadLines(raw);
  if (!lines.ok()) return lines.status();
  std::vector<absl::string_view> parts = absl::StrSplit(lines->front(), ' ');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || !ValidVersion(parts[2]) ||
      !std::all_of(parts[0].begin(), parts[0].end(), IsTokenChar)) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed request line \"", lines->front(), "\""));
  }
  Http1Head head;
  head.method = std::string(parts[0]);
  head.target = std::string(parts[1]);
  head.version = std::string(parts[2]);
  if (absl::Status s = ParseFields(*lines, &head.headers); !s.ok()) return s;
  return head;
}

absl::StatusOr<Http1Head> ParseResponseHead(absl::string_view raw) {
  absl::StatusOr<std::vector<absl::string_view>> lines = HeadLines(raw);
  if (!lines.ok()) return lines.status();
  absl::string_view line = lines->front();
  std::vector<absl::string_view> parts = absl::StrSplit(line, absl::MaxSplits(' ', 2));
  int status = 0;
  if (parts.size() < 2 || !ValidVersion(parts[0]) || parts[1].size() != 3 ||
      !absl::SimpleAtoi(parts[1], &status) || status < 100) {
    return absl::InvalidArgumentError(absl::StrCat("malformed status line \"", line, "\""));
  }
  Http1Head head;
  head.version = std::string(parts[0]);
  head.status = status;
  head.reason = parts.size() == 3 ? std::string(parts[2]) : "";
  if (absl::Status s = ParseFields(*lines, &head.headers); !s.ok()) return s;
  return head;
}

absl::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Content Too Large";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Unknown";
  }
}

std::string SerializeResponseHead(int status, absl::string_view reason,
                                  const http::Headers& headers) {
  std::string out = absl::StrCat("HTTP/1.1 ", status, " ",
                                 reason.empty() ? ReasonPhrase(status) : reason, "\r\n");
  for (const auto& [name, value] : headers) absl::StrAppend(&out, name, ": ", value, "\r\n");
  out += "\r\n";
  return out;
}

BodyFramer::BodyFramer(Kind kind, uint64_t length) : kind_(kind), remaining_(length) {
  done_ = kind == Kind::kNone || (kind == Kind::kLength && length == 0);
}

absl::StatusOr<BodyFramer> BodyFramer::ForRequest(const Http1Head& head) {
  std::optional<bool> chunked = FinalCodingIsChunked(head.headers);
  if (chunked.has_value()) {
    if (!*chunked) {
      return absl::InvalidArgumentError("request Transfer-Encoding does not end with chunked");
    }
    return BodyFramer(Kind::kChunked);
  }
  absl::StatusOr<std::optional<uint64_t>> length = ContentLength(head.headers);
  if (!length.ok()) return length.status();
  return length->has_value() ? BodyFramer(Kind::kLength, **length) : BodyFramer(Kind::kNone);
}

absl::StatusOr<BodyFramer> BodyFramer::ForResponse(const Http1Head& head,
                                                   absl::string_view request_method) {
  if (request_method == "HEAD" || head.status < 200 || head.status == 204 || head.status == 304) {
    return BodyFramer(Kind::kNone);
  }
  std::optional<bool> chunked = FinalCodingIsChunked(head.headers);
  if (chunked.has_value()) return BodyFramer(*chunked ? Kind::kChunked : Kind::kUntilClose);
  absl::StatusOr<std::optional<uint64_t>> length = ContentLength(head.headers);
  if (!length.ok()) return length.status();
  return length->has_value() ? BodyFramer(Kind::kLength, **length) : BodyFramer(Kind::kUntilClose);
}

void BodyFramer::CollectPayload(std::string* out, size_t limit) {
  payload_ = out;
  payload_limit_ = limit;
}

void BodyFramer::Collect(absl::string_view payload) {
  if (payload_ == nullptr || payload.empty()) return;
  size_t room = payload_limit_ > payload_->size() ? payload_limit_ - payload_->size() : 0;
  if (payload.size() > room) payload_truncated_ = true;
  payload_->append(payload.data(), std::min(room, payload.size()));
}

absl::StatusOr<size_t> BodyFramer::Consume(absl::string_view data) {
  switch (kind_) {
    case Kind::kNone:
      return 0;
    case Kind::kUntilClose:
      Collect(data);
      return data.size();
    case Kind::kLength: {
      size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size()));
      Collect(data.substr(0, n));
      remaining_ -= n;
      done_ = remaining_ == 0;
      return n;
    }
    case Kind::kChunked:
      break;
  }
  size_t i = 0;
  while (i < data.size() && !done_) {
    if (chunk_state_ == ChunkState::kData) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size() - i));
      Collect(data.substr(i, n));
      i += n;
      remaining_ -= n;
      if (remaining_ == 0) chunk_state_ = ChunkState::kDataEnd;
      continue;
    }
    // The other states read one line.
    size_t nl = data.find('\n', i);
    size_t end = nl == absl::string_view::npos ? data.size() : nl;
    line_.append(data.data() + i, end - i);
    if (line_.size() > kMaxLineBytes) {
      return absl::InvalidArgumentError("chunk size or trailer line too long");
    }
    if (nl == absl::string_view::npos) return data.size();
    i = nl + 1;
    absl::string_view line = line_;
    absl::ConsumeSuffix(&line, "\r");
    switch (chunk_state_) {
      case ChunkState::kSize: {
        absl::string_view size = absl::StripAsciiWhitespace(line.substr(0, line.find(';')));
        uint64_t n = 0;
        if (size.empty() || size.size() > 15 ||
            !std::all_of(size.begin(), size.end(), absl::ascii_isxdigit) ||
            !absl::SimpleHexAtoi(size, &n)) {
          return absl::InvalidArgumentError(absl::StrCat("bad chunk size line \"", line, "\""));
        }
        remaining_ = n;
        chunk_state_ = n == 0 ? ChunkState::kTrailer : ChunkState::kData;
        break;
      }
      case ChunkState::kDataEnd:
        if (!line.empty()) return absl::InvalidArgumentError("chunk data not followed by CRLF");
        chunk_state_ = ChunkState::kSize;
        break;
      case ChunkState::kTrailer:
        if (line.empty()) done_ = true;  // else a trailer field: skipped
        break;
      case ChunkState::kData:
        break;
    }
    line_.clear();
  }
  return i;
}

bool BodyFramer::FinishAtClose() {
  if (kind_ == Kind::kUntilClose) done_ = true;
  return done_;
}

}  // namespace trimaran::e2e
