#pragma once
// RequestFramer: the bounded reading of HTTP/1.1 requests (issue 30 point 5). It sees
// every byte of a connection before the HTTP parser does (HttpServer's BoundedStream
// hands the parser only what Consume accepted), follows the message framing (request
// line, headers, a Content-Length or chunked body) and refuses, before anything past the
// limit is buffered:
//
//   * a request line longer than max_request_line_bytes         -> 414
//   * a head (request line + headers) over max_header_bytes, or
//     more than max_headers header lines                        -> 431
//   * a body (Content-Length or the sum of the chunks) over
//     max_body_bytes                                            -> 413
//   * malformed framing: a bad Content-Length, Content-Length with Transfer-Encoding,
//     a transfer coding other than chunked, a bad chunk size line, trailers -> 400
//
// A request without Content-Length or chunked coding has no body (RFC 9112 6.3), so the
// parser sees end-of-stream after its head instead of waiting for the peer to close.
// At the end of a message Consume accepts nothing until BeginRequest.
//
// Thread-safety: none; one connection's reader uses it.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace trimaran::http {

struct RequestLimits {
  size_t max_request_line_bytes = size_t{8} << 10;
  size_t max_header_bytes = size_t{64} << 10;
  int max_headers = 100;
  size_t max_body_bytes = size_t{8} << 20;
};

class RequestFramer {
 public:
  explicit RequestFramer(RequestLimits limits) : limits_(limits) {}

  // Starts the next request on the connection.
  void BeginRequest();

  // Accepts a prefix of `data` that belongs to the current request and returns its
  // length: 0 at the end of the message, or when the first byte refused breaks a limit
  // (failed() is then true). Bytes up to the one that breaks a limit are accepted.
  size_t Consume(absl::string_view data);

  // True once the current request's last byte was accepted.
  bool message_done() const { return state_ == State::kDone; }
  // True while nothing of the current request has been accepted.
  bool idle() const { return state_ == State::kRequestLine && line_bytes_ == 0; }
  // True while the head (request line, headers) is being read.
  bool in_head() const { return state_ == State::kRequestLine || state_ == State::kHeaderLine; }
  bool failed() const { return state_ == State::kFailed; }
  // With failed(): the HTTP status to answer (400, 413, 414, 431) and why.
  int error_status() const { return error_status_; }
  const std::string& error() const { return error_; }

 private:
  enum class State {
    kRequestLine,
    kHeaderLine,
    kBodyTooLarge,  // the head declared a body over the limit; refused at its first byte
    kBody,          // Content-Length bytes left in remaining_
    kChunkSize,
    kChunkData,
    kChunkDataEnd,  // the CRLF after a chunk's data
    kTrailer,       // the line after the last chunk: must be empty
    kDone,
    kFailed,
  };

  // One byte of a line-oriented state; false when it broke a limit.
  bool LineByte(char c);
  bool EndOfLine();
  bool EndOfHead();
  bool HeaderLine(absl::string_view line);
  bool ChunkSizeLine(absl::string_view line);
  bool Fail(int status, std::string why);

  const RequestLimits limits_;
  State state_ = State::kRequestLine;
  std::string line_;       // the current line without its LF (bounded by the limits)
  size_t line_bytes_ = 0;  // bytes of the current line, LF included
  size_t head_bytes_ = 0;  // bytes of the head so far
  int headers_ = 0;
  bool chunked_ = false;
  bool has_length_ = false;
  uint64_t content_length_ = 0;
  uint64_t remaining_ = 0;  // of a Content-Length body or a chunk
  uint64_t body_bytes_ = 0;
  int error_status_ = 0;
  std::string error_;
};

}  // namespace trimaran::http
