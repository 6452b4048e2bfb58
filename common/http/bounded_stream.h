#pragma once
// BoundedStream: the connection HttpServer hands cpp-httplib's request parser (issue 30
// point 5). Debian's cpp-httplib 0.11 buffers a request line or header line of any
// length, any number of headers and any chunked body, and its read timeout restarts at
// every byte (a client sending a byte every few seconds holds a worker forever). This
// stream sits between the socket (plain or TLS, non-blocking) and the parser:
//
//   * every byte goes through a RequestFramer first, so the parser never sees (and never
//     buffers) a byte past a limit; a refused request gets the framer's status (400, 413,
//     414, 431) with "Connection: close" instead of whatever the parser would answer;
//   * the head of a request must arrive within head_timeout and its body within
//     body_timeout, counted from the request's first byte (deadlines, not idle timers):
//     a slow client gets 408 and is closed;
//   * a read or write that makes no progress for read/write timeout fails.
//
// Thread-safety: none; the worker thread serving the connection owns it.

#include <httplib.h>
#include <openssl/ssl.h>

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/request_framer.h"

namespace trimaran::http {

struct StreamTimeouts {
  absl::Duration head = absl::Seconds(10);  // the whole head, from its first byte
  absl::Duration body = absl::Seconds(60);  // the whole body, from its first byte
  absl::Duration read = absl::Seconds(5);   // a read without progress
  absl::Duration write = absl::Seconds(5);  // a write without progress
};

// The answer to a refused request: `status`, "Connection: close", `reason` as the body.
std::string RefusalResponse(int status, absl::string_view reason);

class BoundedStream final : public httplib::Stream {
 public:
  // `fd` is made non-blocking; `ssl` (may be null) is already set on it. Neither is owned.
  BoundedStream(int fd, SSL* ssl, RequestLimits limits, StreamTimeouts timeouts);

  // Waits up to `idle` for the first byte of the next request (buffered bytes count).
  // False when the peer closed, failed or sent nothing in time.
  bool WaitForRequest(absl::Duration idle);
  // Starts the next request: its head deadline is head_timeout from now.
  void BeginRequest();
  // True when the current request was refused or timed out; refusal() is the answer.
  bool refused() const { return refused_status_ != 0; }
  // True when the last request was read to its end (the connection may be reused).
  bool message_done() const { return framer_.message_done(); }
  // Sends the refusal (status line, Connection: close, the reason as text) once.
  void SendRefusal();

  // httplib::Stream.
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

 private:
  // Reads more bytes into buf_ before `deadline`: > 0 bytes read, 0 end of stream,
  // -1 error, -2 deadline passed.
  ssize_t Fill(absl::Time deadline);
  ssize_t RawRead(char* ptr, size_t size);
  // Blocks until `events` (POLLIN/POLLOUT) or `deadline`; false at the deadline.
  bool Wait(short events, absl::Time deadline) const;
  bool WriteAll(absl::string_view data);
  void Refuse(int status, std::string why);

  const int fd_;
  SSL* const ssl_;
  const StreamTimeouts timeouts_;
  RequestFramer framer_;
  std::string buf_;  // received, not yet handed to the parser
  size_t buf_pos_ = 0;
  absl::Time head_deadline_ = absl::InfiniteFuture();
  absl::Time body_deadline_ = absl::InfiniteFuture();
  bool body_started_ = false;
  int refused_status_ = 0;
  std::string refused_reason_;
  bool refusal_sent_ = false;
};

}  // namespace trimaran::http
