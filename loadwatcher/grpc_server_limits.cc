#include "loadwatcher/grpc_server_limits.h"

#include "grpcpp/resource_quota.h"

namespace trimaran::lw {

void ApplyGrpcServerLimits(const GrpcServerLimits& limits, grpc::ServerBuilder& builder) {
  grpc::ResourceQuota quota("load-watcher-grpc");
  quota.SetMaxThreads(limits.max_threads);
  builder.SetResourceQuota(quota);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 2);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_concurrent_streams);
  builder.SetMaxReceiveMessageSize(limits.max_receive_message_bytes);
}

}  // namespace trimaran::lw
