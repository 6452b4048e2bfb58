#include "common/http/request_framer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace trimaran::http {
namespace {

constexpr size_t kMaxChunkSizeLineBytes = 1024;

}  // namespace

void RequestFramer::BeginRequest() {
  if (state_ == State::kFailed) return;
  state_ = State::kRequestLine;
  line_.clear();
  line_bytes_ = 0;
  head_bytes_ = 0;
  headers_ = 0;
  chunked_ = false;
  has_length_ = false;
  content_length_ = 0;
  remaining_ = 0;
  body_bytes_ = 0;
}

bool RequestFramer::Fail(int status, std::string why) {
  state_ = State::kFailed;
  error_status_ = status;
  error_ = std::move(why);
  return false;
}

size_t RequestFramer::Consume(absl::string_view data) {
  size_t used = 0;
  while (used < data.size()) {
    switch (state_) {
      case State::kDone:
      case State::kFailed:
        return used;
      case State::kBodyTooLarge:
        Fail(413, absl::StrCat("request body of ", content_length_, " bytes is over the limit of ",
                               limits_.max_body_bytes, " bytes"));
        return used;
      case State::kBody:
      case State::kChunkData: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size() - used));
        used += n;
        remaining_ -= n;
        if (remaining_ == 0) state_ = state_ == State::kBody ? State::kDone : State::kChunkDataEnd;
        break;
      }
      default:
        if (!LineByte(data[used])) return used;
        ++used;
        break;
    }
  }
  return used;
}

bool RequestFramer::LineByte(char c) {
  ++line_bytes_;
  if (state_ == State::kRequestLine || state_ == State::kHeaderLine) {
    ++head_bytes_;
    if (state_ == State::kRequestLine && line_bytes_ > limits_.max_request_line_bytes) {
      return Fail(414, absl::StrCat("request line over the limit of ",
                                    limits_.max_request_line_bytes, " bytes"));
    }
    if (head_bytes_ > limits_.max_header_bytes) {
      return Fail(
          431, absl::StrCat("request head over the limit of ", limits_.max_header_bytes, " bytes"));
    }
  } else if (line_bytes_ > kMaxChunkSizeLineBytes) {
    return Fail(400, absl::StrCat("chunk size line over ", kMaxChunkSizeLineBytes, " bytes"));
  }
  if (c != '\n') {
    line_.push_back(c);
    return true;
  }
  return EndOfLine();
}

bool RequestFramer::EndOfLine() {
  absl::string_view line = line_;
  absl::ConsumeSuffix(&line, "\r");
  bool ok = true;
  switch (state_) {
    case State::kRequestLine:
      state_ = State::kHeaderLine;
      break;
    case State::kHeaderLine:
      ok = line.empty() ? EndOfHead() : HeaderLine(line);
      break;
    case State::kChunkSize:
      ok = ChunkSizeLine(line);
      break;
    case State::kChunkDataEnd:
      if (!line.empty()) ok = Fail(400, "chunk data longer than its size");
      if (ok) state_ = State::kChunkSize;
      break;
    case State::kTrailer:
      if (!line.empty()) ok = Fail(400, "chunked trailers are not supported");
      if (ok) state_ = State::kDone;
      break;
    default:
      break;
  }
  line_.clear();
  line_bytes_ = 0;
  return ok;
}

bool RequestFramer::HeaderLine(absl::string_view line) {
  if (++headers_ > limits_.max_headers) {
    return Fail(431, absl::StrCat("more than ", limits_.max_headers, " request headers"));
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos || colon == 0) return Fail(400, "malformed header line");
  const absl::string_view name = line.substr(0, colon);
  const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
  if (absl::EqualsIgnoreCase(name, "Content-Length")) {
    uint64_t n = 0;
    if (value.empty() || !std::all_of(value.begin(), value.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(value, &n)) {
      return Fail(400, "malformed Content-Length");
    }
    if (has_length_ && n != content_length_) return Fail(400, "conflicting Content-Length");
    has_length_ = true;
    content_length_ = n;
  } else if (absl::EqualsIgnoreCase(name, "Transfer-Encoding")) {
    if (!absl::EqualsIgnoreCase(value, "chunked")) {
      return Fail(400, absl::StrCat("transfer coding \"", value, "\" is not supported"));
    }
    chunked_ = true;
  }
  return true;
}

bool RequestFramer::EndOfHead() {
  if (chunked_ && has_length_) {
    return Fail(400, "both Content-Length and Transfer-Encoding");
  }
  if (chunked_) {
    state_ = State::kChunkSize;
  } else if (content_length_ > limits_.max_body_bytes) {
    state_ = State::kBodyTooLarge;
  } else if (content_length_ > 0) {
    state_ = State::kBody;
    remaining_ = content_length_;
  } else {
    state_ = State::kDone;
  }
  return true;
}

bool RequestFramer::ChunkSizeLine(absl::string_view line) {
  const absl::string_view size = absl::StripAsciiWhitespace(line.substr(0, line.find(';')));
  if (size.empty() || size.size() > 15 ||
      !std::all_of(size.begin(), size.end(), absl::ascii_isxdigit)) {
    return Fail(400, "malformed chunk size");
  }
  uint64_t n = 0;
  for (char c : size) {
    n = n * 16 +
        static_cast<uint64_t>(absl::ascii_isdigit(c) ? c - '0' : absl::ascii_tolower(c) - 'a' + 10);
  }
  if (n > limits_.max_body_bytes - std::min<uint64_t>(body_bytes_, limits_.max_body_bytes)) {
    return Fail(413, absl::StrCat("chunked request body over the limit of ", limits_.max_body_bytes,
                                  " bytes"));
  }
  body_bytes_ += n;
  if (n == 0) {
    state_ = State::kTrailer;
  } else {
    state_ = State::kChunkData;
    remaining_ = n;
  }
  return true;
}

}  // namespace trimaran::http
