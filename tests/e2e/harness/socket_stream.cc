#include "tests/e2e/harness/socket_stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace trimaran::e2e {
namespace {

// Poll slices: Shutdown() wakes poll at once; the slice only bounds how long a missed
// wake-up could go unnoticed.
constexpr absl::Duration kPollSlice = absl::Milliseconds(200);

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown TLS error" : out;
}

std::string Errno(int e) { return std::strerror(e); }

void SetNonBlockingNoDelay(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

absl::StatusOr<SslCtxPtr> NewContext(const SSL_METHOD* method) {
  SslCtxPtr ctx(SSL_CTX_new(method));
  if (ctx == nullptr) return absl::InternalError("SSL_CTX_new: " + OpenSslErrors());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

}  // namespace

absl::StatusOr<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                               const std::string& key_file) {
  absl::StatusOr<SslCtxPtr> ctx = NewContext(TLS_server_method());
  if (!ctx.ok()) return ctx.status();
  if (SSL_CTX_use_certificate_chain_file(ctx->get(), cert_file.c_str()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS certificate ", cert_file, ": ", OpenSslErrors()));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx->get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx->get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("TLS key ", key_file, ": ", OpenSslErrors()));
  }
  return ctx;
}

absl::StatusOr<SslCtxPtr> MakeClientTlsContext(const std::string& ca_file) {
  absl::StatusOr<SslCtxPtr> ctx = NewContext(TLS_client_method());
  if (!ctx.ok()) return ctx.status();
  if (SSL_CTX_load_verify_locations(ctx->get(), ca_file.c_str(), nullptr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("TLS CA ", ca_file, ": ", OpenSslErrors()));
  }
  SSL_CTX_set_verify(ctx->get(), SSL_VERIFY_PEER, nullptr);
  return ctx;
}

absl::StatusOr<std::unique_ptr<SocketStream>> SocketStream::Connect(
    const std::string& ip, int port, absl::Time deadline, std::function<bool()> cancelled) {
  const std::string host = ip == "localhost" ? "127.0.0.1" : ip;
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    if ((ntohl(v4->sin_addr.s_addr) >> 24) != 127) {
      return absl::InvalidArgumentError(absl::StrCat(ip, " is not a loopback address"));
    }
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    if (!IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) {
      return absl::InvalidArgumentError(absl::StrCat(ip, " is not a loopback address"));
    }
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in6);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("\"", ip, "\" is not an IP literal"));
  }
  int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket: " + Errno(errno));
  auto stream = std::make_unique<SocketStream>(fd);
  stream->cancelled_ = std::move(cancelled);
  const std::string where = absl::StrCat(ip, ":", port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) {
      return absl::UnavailableError(absl::StrCat("connect ", where, ": ", Errno(errno)));
    }
    if (absl::Status s = stream->Wait(POLLOUT, deadline, nullptr); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("connect ", where, ": ", s.message()));
    }
    int err = 0;
    socklen_t err_len = sizeof(err);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len);
    if (err != 0) return absl::UnavailableError(absl::StrCat("connect ", where, ": ", Errno(err)));
  }
  return stream;
}

SocketStream::SocketStream(int fd) : fd_(fd) { SetNonBlockingNoDelay(fd_); }

SocketStream::~SocketStream() {
  if (ssl_ != nullptr) {
    if (!shut_.load()) SSL_shutdown(ssl_);  // best effort close_notify; never waits
    SSL_free(ssl_);
  }
  ::close(fd_);
}

void SocketStream::Shutdown() {
  if (!shut_.exchange(true)) ::shutdown(fd_, SHUT_RDWR);
}

bool SocketStream::PeerHungUp() const {
  pollfd p{fd_, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

absl::Status SocketStream::RunGate(absl::Time deadline) {
  if (shut_.load()) return absl::CancelledError("connection shut down");
  return gate_ ? gate_(deadline) : absl::OkStatus();
}

absl::Status SocketStream::Wait(short events, absl::Time deadline,
                                const SocketStream* hangup_watch) {
  for (;;) {
    if (shut_.load()) return absl::CancelledError("connection shut down");
    if (cancelled_ && cancelled_()) return absl::CancelledError("cancelled");
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("I/O timed out");
    pollfd fds[2] = {{fd_, events, 0}, {-1, POLLRDHUP, 0}};
    if (hangup_watch != nullptr) fds[1].fd = hangup_watch->fd_;
    const int timeout_ms =
        static_cast<int>(absl::ToInt64Milliseconds(std::min(left, kPollSlice)) + 1);
    int n = ::poll(fds, 2, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError("poll: " + Errno(errno));
    }
    if (hangup_watch != nullptr &&
        ((fds[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0 || hangup_watch->shut_down())) {
      return absl::CancelledError("the other side of the proxy hung up");
    }
    if (fds[0].revents != 0) return absl::OkStatus();  // ready, or an error read/write reports
  }
}

absl::Status SocketStream::Handshake(bool server, absl::Time deadline) {
  for (;;) {
    if (absl::Status s = RunGate(deadline); !s.ok()) return s;
    ERR_clear_error();
    int r = server ? SSL_accept(ssl_) : SSL_connect(ssl_);
    if (r == 1) return absl::OkStatus();
    int err = SSL_get_error(ssl_, r);
    absl::Status s;
    if (err == SSL_ERROR_WANT_READ) {
      s = Wait(POLLIN, deadline, nullptr);
    } else if (err == SSL_ERROR_WANT_WRITE) {
      s = Wait(POLLOUT, deadline, nullptr);
    } else {
      std::string why = OpenSslErrors();
      if (!server) {
        long verify = SSL_get_verify_result(ssl_);
        if (verify != X509_V_OK) {
          why = absl::StrCat("certificate verification failed: ",
                             X509_verify_cert_error_string(verify));
        }
      }
      return absl::UnavailableError(absl::StrCat("TLS handshake: ", why));
    }
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("TLS handshake: ", s.message()));
  }
}

absl::Status SocketStream::StartTlsServer(SSL_CTX& ctx, absl::Time deadline) {
  ssl_ = SSL_new(&ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return absl::InternalError("SSL_new: " + OpenSslErrors());
  }
  return Handshake(/*server=*/true, deadline);
}

absl::Status SocketStream::StartTlsClient(SSL_CTX& ctx, const std::string& host,
                                          absl::Time deadline) {
  ssl_ = SSL_new(&ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return absl::InternalError("SSL_new: " + OpenSslErrors());
  }
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
  in6_addr ignored;
  const bool is_ip = ::inet_pton(AF_INET, host.c_str(), &ignored) == 1 ||
                     ::inet_pton(AF_INET6, host.c_str(), &ignored) == 1;
  if (is_ip) {
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("bad IP ", host));
    }
  } else {
    SSL_set_tlsext_host_name(ssl_, host.c_str());
    if (X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("bad host ", host));
    }
  }
  return Handshake(/*server=*/false, deadline);
}

absl::StatusOr<size_t> SocketStream::ReadSome(std::string* out, size_t max, absl::Time deadline,
                                              const SocketStream* hangup_watch) {
  const size_t old_size = out->size();
  for (;;) {
    if (absl::Status s = RunGate(deadline); !s.ok()) return s;
    out->resize(old_size + max);
    char* buf = out->data() + old_size;
    short wait_for = POLLIN;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      int r = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(max, 1 << 30)));
      if (r > 0) {
        out->resize(old_size + static_cast<size_t>(r));
        return static_cast<size_t>(r);
      }
      out->resize(old_size);
      int err = SSL_get_error(ssl_, r);
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (err == SSL_ERROR_WANT_WRITE) {
        wait_for = POLLOUT;
      } else if (err != SSL_ERROR_WANT_READ) {
        if (shut_.load()) return absl::CancelledError("connection shut down");
        if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
          if (errno == 0 || errno == ECONNRESET || errno == EPIPE) return 0;
          return absl::UnavailableError("TLS read: " + Errno(errno));
        }
        return absl::UnavailableError("TLS read: " + OpenSslErrors());
      }
    } else {
      ssize_t r = ::recv(fd_, buf, max, 0);
      if (r >= 0) {
        out->resize(old_size + static_cast<size_t>(r));
        return static_cast<size_t>(r);
      }
      out->resize(old_size);
      if (errno == EINTR) continue;
      if (errno == ECONNRESET) return 0;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        return absl::UnavailableError("read: " + Errno(errno));
      }
    }
    if (absl::Status s = Wait(wait_for, deadline, hangup_watch); !s.ok()) return s;
  }
}

absl::Status SocketStream::WriteAll(absl::string_view data, absl::Time deadline) {
  while (!data.empty()) {
    if (absl::Status s = RunGate(deadline); !s.ok()) return s;
    short wait_for = POLLOUT;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      int r =
          SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 30)));
      if (r > 0) {
        data.remove_prefix(static_cast<size_t>(r));
        continue;
      }
      int err = SSL_get_error(ssl_, r);
      if (err == SSL_ERROR_WANT_READ) {
        wait_for = POLLIN;
      } else if (err != SSL_ERROR_WANT_WRITE) {
        if (shut_.load()) return absl::CancelledError("connection shut down");
        return absl::UnavailableError("TLS write: " +
                                      (err == SSL_ERROR_SYSCALL ? Errno(errno) : OpenSslErrors()));
      }
    } else {
      ssize_t r = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (r >= 0) {
        data.remove_prefix(static_cast<size_t>(r));
        continue;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        if (shut_.load()) return absl::CancelledError("connection shut down");
        return absl::UnavailableError("write: " + Errno(errno));
      }
    }
    if (absl::Status s = Wait(wait_for, deadline, nullptr); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace trimaran::e2e
