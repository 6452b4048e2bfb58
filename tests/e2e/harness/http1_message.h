#pragma once
// HTTP/1.1 message framing for the fault-injecting proxy (fault_proxy.h): parsing a
// request or response head (start line + header fields, RFC 9112 §2-§5) and finding
// where a message body ends (§6.3) while its bytes stream through unchanged.
//
//   Http1Head head = *ParseRequestHead(raw_head);     // raw_head ends with "\r\n\r\n"
//   BodyFramer framer = BodyFramer::ForRequest(head);  // Content-Length / chunked / none
//   while (!framer.done()) {
//     size_t used = *framer.Consume(bytes);  // a prefix of `bytes` belongs to the body
//     forward(bytes.substr(0, used));        // the raw bytes, chunk framing included
//   }
//
// The proxy forwards raw bytes, so chunked bodies pass with their framing intact and a
// watch stream is forwarded as each chunk arrives; BodyFramer only tracks the chunked
// state machine to know where the message ends (and, if asked, collects the decoded
// payload, which rules may inspect).
//
// Not supported (the messages are refused with InvalidArgument): obsolete line folding,
// transfer codings other than "chunked", conflicting Content-Length values, heads larger
// than kMaxHeadBytes.
//
// Thread-safety: functions are reentrant; BodyFramer is a value type, externally
// synchronized.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/http/headers.h"

namespace trimaran::e2e {

// Heads (start line + fields) longer than this are refused.
inline constexpr size_t kMaxHeadBytes = 64 * 1024;

// A parsed request or response head. For a request, `method` and `target` are set; for
// a response, `status` and `reason`.
struct Http1Head {
  std::string method{};   // "GET"
  std::string target{};   // "/api/v1/pods?watch=true" (origin form, as sent)
  int status = 0;         // 200
  std::string reason{};   // "OK"
  std::string version{};  // "HTTP/1.1"
  http::Headers headers{};

  // The target split at the first '?': path without the query, and the query without '?'.
  absl::string_view path() const;
  absl::string_view query() const;
  // HTTP/1.1 keeps the connection unless "Connection: close"; HTTP/1.0 closes unless
  // "Connection: keep-alive".
  bool KeepAlive() const;
};

// Where the head ends: the offset just past "\r\n\r\n" in `data`, or 0 while it has not
// arrived yet.
size_t FindHeadEnd(absl::string_view data);

// Parses a head ending with an empty line ("\r\n\r\n"; bare "\n" line ends are accepted).
absl::StatusOr<Http1Head> ParseRequestHead(absl::string_view raw);
absl::StatusOr<Http1Head> ParseResponseHead(absl::string_view raw);

// Serializes a response head: "HTTP/1.1 <status> <reason>\r\n" + fields + "\r\n". An
// empty `reason` becomes the standard phrase of `status`.
std::string SerializeResponseHead(int status, absl::string_view reason,
                                  const http::Headers& headers);

// The standard reason phrase ("Too Many Requests"), or "Unknown".
absl::string_view ReasonPhrase(int status);

// Tracks a message body as its raw bytes go by.
class BodyFramer {
 public:
  enum class Kind { kNone, kLength, kChunked, kUntilClose };

  // A request: chunked, else Content-Length, else no body.
  static absl::StatusOr<BodyFramer> ForRequest(const Http1Head& head);
  // A response to `request_method`: none for HEAD, 1xx, 204 and 304; chunked, else
  // Content-Length, else until the connection closes.
  static absl::StatusOr<BodyFramer> ForResponse(const Http1Head& head,
                                                absl::string_view request_method);

  Kind kind() const { return kind_; }
  bool done() const { return done_; }

  // Consumes the prefix of `data` that belongs to the body and returns its length (less
  // than data.size() only when the body ended inside `data`). InvalidArgument on bad
  // chunk framing. For kUntilClose every byte belongs to the body; call
  // FinishAtClose() when the connection closes.
  absl::StatusOr<size_t> Consume(absl::string_view data);
  // The connection closed: done for kUntilClose; for the others, whether the body was
  // complete (false: truncated).
  bool FinishAtClose();

  // When set, the decoded payload (chunk framing removed) is appended here, up to
  // `limit` bytes; the rest is dropped (see payload_truncated()).
  void CollectPayload(std::string* out, size_t limit);
  bool payload_truncated() const { return payload_truncated_; }

 private:
  enum class ChunkState { kSize, kData, kDataEnd, kTrailer };

  explicit BodyFramer(Kind kind, uint64_t length = 0);
  void Collect(absl::string_view payload);

  Kind kind_;
  bool done_ = false;
  uint64_t remaining_ = 0;  // kLength: body bytes left; kChunked kData: chunk bytes left
  ChunkState chunk_state_ = ChunkState::kSize;
  std::string line_;  // the partial size / CRLF / trailer line
  std::string* payload_ = nullptr;
  size_t payload_limit_ = 0;
  bool payload_truncated_ = false;
};

}  // namespace trimaran::e2e
