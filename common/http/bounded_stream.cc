#include "common/http/bounded_stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trimaran::http {
namespace {

constexpr size_t kReadChunk = 16 << 10;

const char* ReasonPhrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void AddressOf(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

}  // namespace

std::string RefusalResponse(int status, absl::string_view reason) {
  const std::string body = absl::StrCat(reason, "\n");
  return absl::StrCat("HTTP/1.1 ", status, " ", ReasonPhrase(status),
                      "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ",
                      body.size(), "\r\nConnection: close\r\n\r\n", body);
}

BoundedStream::BoundedStream(int fd, SSL* ssl, RequestLimits limits, StreamTimeouts timeouts)
    : fd_(fd), ssl_(ssl), timeouts_(timeouts), framer_(limits) {
  const int flags = fcntl(fd_, F_GETFL, 0);
  if (flags >= 0) fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

bool BoundedStream::Wait(short events, absl::Time deadline) const {
  for (;;) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd p{.fd = fd_, .events = events, .revents = 0};
    const int ms = static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
    const int n = poll(&p, 1, ms);
    if (n > 0) return true;  // readable, writable, or an error the next call reports
    if (n < 0 && errno != EINTR) return true;
  }
}

ssize_t BoundedStream::RawRead(char* ptr, size_t size) {
  if (ssl_ != nullptr) {
    const int n = SSL_read(ssl_, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0) return n;
    const int err = SSL_get_error(ssl_, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      errno = EAGAIN;
      return -1;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return 0;
    errno = EIO;
    return -1;
  }
  return recv(fd_, ptr, size, 0);
}

ssize_t BoundedStream::Fill(absl::Time deadline) {
  buf_.erase(0, buf_pos_);
  buf_pos_ = 0;
  const size_t old = buf_.size();
  buf_.resize(old + kReadChunk);
  for (;;) {
    const ssize_t n = RawRead(buf_.data() + old, kReadChunk);
    if (n >= 0) {
      buf_.resize(old + static_cast<size_t>(n));
      return n;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      buf_.resize(old);
      return -1;
    }
    const short events =
        ssl_ != nullptr && SSL_want_write(ssl_) ? static_cast<short>(POLLOUT) : POLLIN;
    if (!Wait(events, deadline)) {
      buf_.resize(old);
      return -2;
    }
  }
}

bool BoundedStream::WaitForRequest(absl::Duration idle) {
  if (buf_pos_ < buf_.size()) return true;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  return Fill(absl::Now() + idle) > 0;
}

void BoundedStream::BeginRequest() {
  framer_.BeginRequest();
  head_deadline_ = absl::Now() + timeouts_.head;
  body_deadline_ = absl::InfiniteFuture();
  body_started_ = false;
}

void BoundedStream::Refuse(int status, std::string why) {
  if (refused_status_ != 0) return;
  refused_status_ = status;
  refused_reason_ = std::move(why);
}

ssize_t BoundedStream::read(char* ptr, size_t size) {
  if (refused()) return -1;
  if (size == 0) return 0;
  for (;;) {
    if (framer_.message_done()) return 0;
    if (!framer_.in_head() && !body_started_) {
      body_started_ = true;
      body_deadline_ = absl::Now() + timeouts_.body;
    }
    if (buf_pos_ < buf_.size()) {
      const absl::string_view avail(buf_.data() + buf_pos_, std::min(size, buf_.size() - buf_pos_));
      const size_t n = framer_.Consume(avail);
      if (framer_.failed()) {
        Refuse(framer_.error_status(), framer_.error());
        if (n == 0) return -1;
      }
      if (n == 0) return framer_.message_done() ? 0 : -1;
      std::memcpy(ptr, avail.data(), n);
      buf_pos_ += n;
      return static_cast<ssize_t>(n);
    }
    const bool head = framer_.in_head();
    const absl::Time stall = absl::Now() + timeouts_.read;
    const absl::Time deadline = head ? head_deadline_ : body_deadline_;
    const ssize_t got = Fill(std::min(stall, deadline));
    if (got == -2 && stall < deadline) {
      Refuse(408, absl::StrCat("no request bytes for ", absl::FormatDuration(timeouts_.read)));
      return -1;
    }
    if (got == -2) {
      Refuse(408, head ? absl::StrCat("request head not received within ",
                                      absl::FormatDuration(timeouts_.head))
                       : absl::StrCat("request body not received within ",
                                      absl::FormatDuration(timeouts_.body)));
      return -1;
    }
    if (got <= 0) return got;
  }
}

bool BoundedStream::is_readable() const {
  if (buf_pos_ < buf_.size()) return true;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  return Wait(POLLIN, framer_.in_head() ? head_deadline_ : body_deadline_);
}

bool BoundedStream::is_writable() const { return Wait(POLLOUT, absl::Now() + timeouts_.write); }

bool BoundedStream::WriteAll(absl::string_view data) {
  absl::Time deadline = absl::Now() + timeouts_.write;
  while (!data.empty()) {
    ssize_t n;
    if (ssl_ != nullptr) {
      n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 30)));
      if (n <= 0) {
        const int err = SSL_get_error(ssl_, static_cast<int>(n));
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) return false;
        if (!Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) return false;
        continue;
      }
    } else {
      n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
        if (!Wait(POLLOUT, deadline)) return false;
        continue;
      }
    }
    data.remove_prefix(static_cast<size_t>(n));
    deadline = absl::Now() + timeouts_.write;  // progress: a new window
  }
  return true;
}

ssize_t BoundedStream::write(const char* ptr, size_t size) {
  // After a refusal the parser's own answer is dropped; SendRefusal sends ours.
  if (refused()) return static_cast<ssize_t>(size);
  return WriteAll(absl::string_view(ptr, size)) ? static_cast<ssize_t>(size) : -1;
}

void BoundedStream::SendRefusal() {
  if (!refused() || refusal_sent_) return;
  refusal_sent_ = true;
  WriteAll(RefusalResponse(refused_status_, refused_reason_));
}

void BoundedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
}

void BoundedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
}

}  // namespace trimaran::http
