#pragma once
// Bounds on the load watcher's gRPC server (issue 30 point 4), applied to its
// ServerBuilder: the sync server's threads (a grpc::ResourceQuota: a call that would need
// one more thread is refused with RESOURCE_EXHAUSTED instead of growing the pool), the
// concurrent streams of one HTTP/2 connection, and the size of a request. Together with
// GrpcService's cap on WatchMetrics streams, no number of clients can take more than
// max_threads threads.
//
// Thread-safety: call before BuildAndStart(), from the thread that builds the server.

#include "grpcpp/server_builder.h"

namespace trimaran::lw {

struct GrpcServerLimits {
  int max_threads = 16;                      // every RPC in progress and the pollers
  int max_concurrent_streams = 8;            // per connection (GRPC_ARG_MAX_CONCURRENT_STREAMS)
  int max_receive_message_bytes = 64 << 10;  // requests are a window and host names
};

void ApplyGrpcServerLimits(const GrpcServerLimits& limits, grpc::ServerBuilder& builder);

}  // namespace trimaran::lw
