#include "loadwatcher/grpc_service.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "loadwatcher/client.h"
#include "loadwatcher/proto_convert.h"

namespace trimaran::lw {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

std::string WindowOrDefault(const std::string& window) {
  return window.empty() ? std::string(kWindow15m) : window;
}

}  // namespace

grpc::Status GrpcService::GetLatestMetrics(grpc::ServerContext* context,
                                           const loadwatcher::v1::GetLatestMetricsRequest* request,
                                           loadwatcher::v1::WatcherMetrics* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->CheckGrpc(*context); !s.ok()) return s;
  }
  absl::StatusOr<Snapshot> snapshot = watcher_.Latest(WindowOrDefault(request->window()));
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  std::vector<std::string> hosts(request->hosts().begin(), request->hosts().end());
  if (hosts.empty()) {
    ToProto(*snapshot->metrics, response);
  } else {
    ToProto(FilterHosts(*snapshot->metrics, hosts), response);
  }
  return grpc::Status::OK;
}

grpc::Status GrpcService::WatchMetrics(
    grpc::ServerContext* context, const loadwatcher::v1::WatchMetricsRequest* request,
    grpc::ServerWriter<loadwatcher::v1::WatcherMetrics>* writer) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->CheckGrpc(*context); !s.ok()) return s;
  }
  const std::string window = WindowOrDefault(request->window());
  if (WindowSeconds(window) == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "unknown window \"" + window + "\" (want 15m, 10m or 5m)");
  }
  // A place among the open streams, given back when this one ends.
  if (open_watch_streams_.fetch_add(1) >= max_watch_streams_) {
    open_watch_streams_.fetch_sub(1);
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "too many WatchMetrics streams open (at most " +
                            std::to_string(max_watch_streams_) + "); retry later");
  }
  struct Release {
    std::atomic<int>& open;
    ~Release() { open.fetch_sub(1); }
  } release{open_watch_streams_};
  const std::vector<std::string> hosts(request->hosts().begin(), request->hosts().end());
  const WatcherMetrics* last_sent = nullptr;
  std::shared_ptr<const WatcherMetrics> keep;  // keeps last_sent alive for the comparison
  uint64_t generation = 0;
  loadwatcher::v1::WatcherMetrics message;
  while (!context->IsCancelled() && !shutdown_.load()) {
    generation = watcher_.generation();
    absl::StatusOr<Snapshot> snapshot = watcher_.Latest(window);
    if (snapshot.ok() && snapshot->metrics.get() != last_sent) {
      // The shared snapshot itself when no hosts are named (no copy).
      ToProto(*FilterHosts(snapshot->metrics, hosts), &message);
      if (!writer->Write(message)) break;  // the client has gone
      keep = snapshot->metrics;
      last_sent = keep.get();
    }
    watcher_.AwaitGeneration(generation, poll_interval_);
  }
  return grpc::Status::OK;
}

}  // namespace trimaran::lw
