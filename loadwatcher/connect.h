#pragma once
// ConnectWatcher: a client of a remote load watcher from the address a user types
// (trimaranctl's --watcher): REST for http://host:port, https://host:port or a bare
// host:port (http), gRPC for grpc://host:port, TLS gRPC for grpcs://host:port. `ca_file`
// verifies a TLS watcher (its errors name --watcher-ca-file), `token_file` is sent as a
// bearer token (re-read when it rotates). An empty address gives no client (null).
//
// Thread-safety: ConnectWatcher is safe to call from any thread; the clients are safe
// for concurrent use (see http_client.h, grpc_client.h).
// Ownership: ConnectedClient owns the REST transport the client borrows; keep them
// together.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/http/transport.h"
#include "loadwatcher/client.h"

namespace trimaran::lw {

struct ConnectedClient {
  std::shared_ptr<http::HttpTransport> transport;  // REST only
  std::unique_ptr<Client> client;                  // null for an empty address
};

absl::StatusOr<ConnectedClient> ConnectWatcher(const std::string& address,
                                               const std::string& ca_file = "",
                                               const std::string& token_file = "");

}  // namespace trimaran::lw
