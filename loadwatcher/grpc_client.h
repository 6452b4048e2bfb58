#pragma once
// GrpcClient: loadwatcher::Client over trimaran.loadwatcher.v1.LoadWatcher
// (`watcherAddress: grpc://host:port` or `dns:///host:port`; the caller strips
// "grpc://" or "grpcs://"). Plaintext channel unless credentials are given (the pool
// passes TLS credentials for grpcs://). With `token_file`, every call carries the
// metadata "authorization: Bearer <token>", the file re-read when it rotates; a token
// file that cannot be read fails the call (FailedPrecondition) before sending.
//
// gRPC status codes map to absl codes one to one (UNAVAILABLE before the server's
// first fetch or when the server cannot be reached; RESOURCE_EXHAUSTED for an answer
// larger than max_receive_message_bytes, 64 MiB by default). The deadline is the
// smaller of `timeout` and the request's.
//
// Thread-safety: safe for concurrent use (gRPC channels and stubs are).

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/http/token_file.h"
#include "grpcpp/grpcpp.h"
#include "loadwatcher/client.h"
#include "proto/loadwatcher/v1/loadwatcher.grpc.pb.h"

namespace trimaran::lw {

struct GrpcClientOptions {
  std::string target{};  // "127.0.0.1:2021", "dns:///load-watcher:2021"
  absl::Duration timeout = absl::Seconds(55);
  std::shared_ptr<grpc::ChannelCredentials> credentials{};      // default: insecure
  size_t max_receive_message_bytes = kDefaultMaxResponseBytes;  // at most INT_MAX
  std::string token_file{};                                     // bearer token file
};

class GrpcClient final : public Client {
 public:
  explicit GrpcClient(GrpcClientOptions options);
  using Client::GetLatestMetrics;
  absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics(const MetricsRequest& request) override;
  bool remote() const override { return true; }

 private:
  const GrpcClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<loadwatcher::v1::LoadWatcher::Stub> stub_;
  std::unique_ptr<http::TokenFile> token_;  // null without token_file
};

}  // namespace trimaran::lw
