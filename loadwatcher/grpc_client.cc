#include "loadwatcher/grpc_client.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loadwatcher/proto_convert.h"

namespace trimaran::lw {

GrpcClient::GrpcClient(GrpcClientOptions options) : options_(std::move(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<size_t>(options_.max_receive_message_bytes, std::numeric_limits<int>::max())));
  channel_ = grpc::CreateCustomChannel(
      options_.target,
      options_.credentials != nullptr ? options_.credentials : grpc::InsecureChannelCredentials(),
      args);
  stub_ = loadwatcher::v1::LoadWatcher::NewStub(channel_);
  if (!options_.token_file.empty()) token_ = std::make_unique<http::TokenFile>(options_.token_file);
}

absl::StatusOr<WatcherMetricsPtr> GrpcClient::GetLatestMetrics(const MetricsRequest& request) {
  loadwatcher::v1::GetLatestMetricsRequest req;
  req.set_window(request.window);
  for (const std::string& host : request.hosts) req.add_hosts(host);
  grpc::ClientContext context;
  if (token_ != nullptr) {
    absl::StatusOr<std::string> token = token_->Get();
    if (!token.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("load-watcher bearer token: ", token.status().message()));
    }
    context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  }
  context.set_deadline(
      absl::ToChronoTime(absl::Now() + std::min(options_.timeout, request.timeout)));
  loadwatcher::v1::WatcherMetrics response;
  grpc::Status status = stub_->GetLatestMetrics(&context, req, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat("get load-watcher metrics from ", options_.target, ": ",
                                     status.error_message()));
  }
  return std::make_shared<const WatcherMetrics>(FromProto(response));
}

}  // namespace trimaran::lw
