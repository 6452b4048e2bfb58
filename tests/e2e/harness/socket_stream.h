#pragma once
// SocketStream: one TCP connection on loopback, plain or TLS (OpenSSL), for the
// fault-injecting proxy (fault_proxy.h). Every read, write, connect and handshake is
// bounded by a deadline (the socket is non-blocking underneath and waited on with
// poll), and another thread can end the connection at any time with Shutdown(), which
// wakes a blocked operation at once (shutdown(2): the peer sees the connection close).
//
//   absl::StatusOr<std::unique_ptr<SocketStream>> up = SocketStream::Connect(
//       "127.0.0.1", port, absl::Now() + absl::Seconds(5));
//   (*up)->StartTlsClient(*client_ctx, "127.0.0.1", deadline);
//   (*up)->WriteAll(request_bytes, deadline);
//   std::string in;
//   absl::StatusOr<size_t> n = (*up)->ReadSome(&in, 16384, deadline);  // 0: closed
//
// A gate, when set, runs before every read and write attempt: it may block (the proxy
// pauses I/O this way) and returns a non-OK status to abandon the operation.
//
// TLS: contexts come from MakeServerTlsContext / MakeClientTlsContext; HTTP/1.1 only
// (no ALPN); a client verifies the server's certificate against the given CA and the
// host name or IP (verification is never skipped). An EOF without close_notify is an
// ordinary close (the HTTP framing tells whether a message was complete).
//
// Connect refuses any address outside 127.0.0.0/8 and ::1.
//
// Signals: plain writes use MSG_NOSIGNAL, but OpenSSL writes with write(2), so use the
// stream on threads with SIGPIPE blocked (the proxy's threads are).
//
// Thread-safety: one owner thread does the I/O; Shutdown(), shut_down() and
// PeerHungUp() are safe from any thread while the stream exists.

#include <openssl/ssl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trimaran::e2e {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// A TLS 1.2+ server context serving `cert_file` (PEM chain) with `key_file`.
// InvalidArgument names the file that does not load.
absl::StatusOr<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                               const std::string& key_file);
// A TLS 1.2+ client context that trusts only the CAs in `ca_file`.
absl::StatusOr<SslCtxPtr> MakeClientTlsContext(const std::string& ca_file);

class SocketStream {
 public:
  // Runs before every I/O attempt with the operation's deadline; non-OK abandons it.
  using Gate = std::function<absl::Status(absl::Time deadline)>;

  // Connects to ip:port (IPv4 or IPv6 literal on loopback; "localhost" means 127.0.0.1).
  // `cancelled`, when set, is polled while waiting (here and in every later wait of the
  // stream): true abandons the wait with Cancelled.
  static absl::StatusOr<std::unique_ptr<SocketStream>> Connect(
      const std::string& ip, int port, absl::Time deadline,
      std::function<bool()> cancelled = nullptr);
  // Adopts a connected socket (made non-blocking here).
  explicit SocketStream(int fd);
  ~SocketStream();
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  void set_gate(Gate gate) { gate_ = std::move(gate); }

  // TLS handshakes. StartTlsClient verifies the peer against `host` (an IP literal is
  // checked against the IP SANs).
  absl::Status StartTlsServer(SSL_CTX& ctx, absl::Time deadline);
  absl::Status StartTlsClient(SSL_CTX& ctx, const std::string& host, absl::Time deadline);
  bool tls() const { return ssl_ != nullptr; }

  // Appends up to `max` bytes to `out` as soon as some arrive; returns how many (0: the
  // peer closed). DeadlineExceeded when nothing arrives in time; Cancelled after
  // Shutdown() or, when `hangup_watch` is given, once that other stream's peer hangs up
  // (the proxy watches its client while it waits for the upstream).
  absl::StatusOr<size_t> ReadSome(std::string* out, size_t max, absl::Time deadline,
                                  const SocketStream* hangup_watch = nullptr);
  // Writes all of `data`.
  absl::Status WriteAll(absl::string_view data, absl::Time deadline);

  // Ends the connection now (see the file comment). Idempotent.
  void Shutdown();
  bool shut_down() const { return shut_.load(); }
  // True when the peer has closed or reset its side.
  bool PeerHungUp() const;

 private:
  // Waits until the socket is ready for `events` (POLLIN / POLLOUT).
  absl::Status Wait(short events, absl::Time deadline, const SocketStream* hangup_watch);
  absl::Status Handshake(bool server, absl::Time deadline);
  absl::Status RunGate(absl::Time deadline);

  const int fd_;
  SSL* ssl_ = nullptr;
  Gate gate_;
  std::function<bool()> cancelled_;
  std::atomic<bool> shut_{false};
};

}  // namespace trimaran::e2e
