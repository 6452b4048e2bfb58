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
}

absl::StatusOr<WatcherMetricsPtr> GrpcClient::GetLatestMetrics(const MetricsRequest& request) {
  loadwatcher::v1::GetLatestMetricsRequest req;
  req.set_window(request.window);
  for (const std::string& host : request.hosts) req.add_hosts(host);
  grpc::ClientContext context;
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
