// The gRPC service and client, in process on 127.0.0.1:0.
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "common/stats/stats.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "loadwatcher/grpc_client.h"
#include "loadwatcher/grpc_server_limits.h"
#include "loadwatcher/grpc_service.h"
#include "loadwatcher/proto_convert.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_metrics_provider.h"

namespace trimaran::lw {
namespace {

using ::trimaran::lw::testing::FakeMetricsProvider;
using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::StatusIs;

class GrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
    target_ = "127.0.0.1:" + std::to_string(port_);
  }
  void TearDown() override {
    service_.Shutdown();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  void Fetch(double cpu) {
    provider_.SetNodes("15m", MakeWatcherMetrics()
                                  .Node("n1")
                                  .Cpu(kOpAvg, cpu)
                                  .DataCenter("dc1")
                                  .Node("n2")
                                  .Metric("x", kTypeMemory, kOpStd, "15m", 0.5)
                                  .Nodes());
    (void)watcher_.FetchOnce();
  }

  FakeClock clock_;
  FakeMetricsProvider provider_{"SignalFx", &clock_};
  stats::Registry registry_;
  Watcher watcher_{provider_, clock_, stats::Scope(registry_)};
  GrpcService service_{watcher_, absl::Milliseconds(10)};
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string target_;
};

TEST_F(GrpcTest, ProtoConversionIsLossless) {
  WatcherMetrics m =
      MakeWatcherMetrics().Node("a").Cpu(kOpAvg, 1.25).DataCenter("x").Node("b").Obj();
  loadwatcher::v1::WatcherMetrics pb;
  ToProto(m, &pb);
  EXPECT_EQ(FromProto(pb), m);
}

TEST_F(GrpcTest, GetLatestMetricsRoundTrip) {
  GrpcClient client({.target = target_, .timeout = absl::Seconds(10)});
  EXPECT_THAT(client.GetLatestMetrics(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(client.GetLatestMetrics(MetricsRequest{"1h", {}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  Fetch(40);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr all, client.GetLatestMetrics());
  EXPECT_EQ(*all, *watcher_.Latest()->metrics);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr one,
                                client.GetLatestMetrics(MetricsRequest{"15m", {"n2", "zz"}}));
  ASSERT_EQ(one->data.node_metrics_map.size(), 1u);
  EXPECT_EQ(one->data.node_metrics_map.at("n2").metrics.at(0).value, 0.5);
}

TEST_F(GrpcTest, AnAnswerOverTheReceiveCapIsResourceExhausted) {
  GrpcClient capped(
      {.target = target_, .timeout = absl::Seconds(10), .max_receive_message_bytes = 16});
  Fetch(40);
  EXPECT_THAT(capped.GetLatestMetrics(), StatusIs(absl::StatusCode::kResourceExhausted));
  GrpcClient roomy({.target = target_, .timeout = absl::Seconds(10)});
  TRIMARAN_EXPECT_OK(roomy.GetLatestMetrics().status());
  EXPECT_TRUE(roomy.remote());
}

TEST_F(GrpcTest, WatchMetricsStreamsEachNewSnapshotUntilCancelled) {
  auto channel = grpc::CreateChannel(target_, grpc::InsecureChannelCredentials());
  auto stub = loadwatcher::v1::LoadWatcher::NewStub(channel);
  Fetch(40);
  grpc::ClientContext context;
  loadwatcher::v1::WatchMetricsRequest req;
  req.set_window("15m");
  req.add_hosts("n1");
  auto reader = stub->WatchMetrics(&context, req);
  loadwatcher::v1::WatcherMetrics msg;
  ASSERT_TRUE(reader->Read(&msg));  // the current snapshot at once
  EXPECT_EQ(msg.node_metrics().at("n1").metrics(0).value(), 40);
  EXPECT_EQ(msg.node_metrics().size(), 1);
  clock_.Advance(absl::Seconds(60));
  Fetch(45);
  ASSERT_TRUE(reader->Read(&msg));  // the next one
  EXPECT_EQ(msg.node_metrics().at("n1").metrics(0).value(), 45);
  EXPECT_EQ(msg.timestamp(), 1'700'000'060);
  context.TryCancel();
  while (reader->Read(&msg)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

// Issue 30 point 4: a bounded number of WatchMetrics streams (each holds a thread) on a
// server whose threads are bounded; GetLatestMetrics keeps answering while the streams
// are at their cap, and a stream's place is given back when it ends.
TEST(GrpcLimitsTest, WatchStreamsAreCappedAndThreadsBounded) {
  FakeClock clock;
  FakeMetricsProvider provider{"SignalFx", &clock};
  provider.SetNodes("15m", MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Nodes());
  stats::Registry registry;
  Watcher watcher{provider, clock, stats::Scope(registry)};
  (void)watcher.FetchOnce();
  constexpr int kMaxStreams = 2;
  GrpcService service{watcher, absl::Milliseconds(10), kMaxStreams};
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  ApplyGrpcServerLimits({.max_threads = 8, .max_concurrent_streams = 4}, builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  const std::string target = "127.0.0.1:" + std::to_string(port);

  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto stub = loadwatcher::v1::LoadWatcher::NewStub(channel);
  loadwatcher::v1::WatchMetricsRequest req;
  req.set_window("15m");
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<loadwatcher::v1::WatcherMetrics>>> readers;
  loadwatcher::v1::WatcherMetrics msg;
  for (int i = 0; i < kMaxStreams; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    readers.push_back(stub->WatchMetrics(contexts.back().get(), req));
    ASSERT_TRUE(readers.back()->Read(&msg)) << "stream " << i;
  }
  EXPECT_EQ(service.open_watch_streams(), kMaxStreams);
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    auto refused = stub->WatchMetrics(&context, req);
    EXPECT_FALSE(refused->Read(&msg));
    const grpc::Status status = refused->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), ::testing::HasSubstr("too many WatchMetrics streams"));
  }
  GrpcClient client({.target = target, .timeout = absl::Seconds(10)});
  TRIMARAN_EXPECT_OK(client.GetLatestMetrics().status());

  // One ends: its place is free again.
  contexts[0]->TryCancel();
  while (readers[0]->Read(&msg)) {
  }
  (void)readers[0]->Finish();
  for (int i = 0; i < 500 && service.open_watch_streams() == kMaxStreams; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(service.open_watch_streams(), kMaxStreams - 1);
  grpc::ClientContext again;
  auto reader = stub->WatchMetrics(&again, req);
  EXPECT_TRUE(reader->Read(&msg));

  service.Shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace trimaran::lw
