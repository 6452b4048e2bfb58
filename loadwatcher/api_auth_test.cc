// The bearer token on the watcher's REST and gRPC APIs (ApiAuthenticator), with the
// real HttpServer, gRPC service and clients in process on 127.0.0.1, and the secured
// clients' token file rotating.
#include "loadwatcher/api_auth.h"

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/stats/stats.h"
#include "common/stats/text_format.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "loadwatcher/grpc_client.h"
#include "loadwatcher/grpc_service.h"
#include "loadwatcher/http_client.h"
#include "loadwatcher/http_handlers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_metrics_provider.h"

namespace trimaran::lw {
namespace {

using ::testing::HasSubstr;
using ::trimaran::lw::testing::FakeMetricsProvider;
using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

class ApiAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    token_file_ = dir_.Write("token", "t0ken\n");
    auth_ = std::make_unique<ApiAuthenticator>(token_file_, stats::Scope(registry_, "lw_"),
                                               absl::Seconds(10));
    provider_.SetNodes("15m", MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Nodes());
    (void)watcher_.FetchOnce();  // 15m succeeds; the other windows are not scripted

    http::HttpServerOptions options{.name = "watcher"};
    auth_->ProtectHttp(options);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(server_, http::HttpServer::Create(options));
    ASSERT_THAT(AddWatcherRoutes(watcher_, *server_), IsOk());
    ASSERT_THAT(server_->AddRoute({.path = "/healthz",
                                   .handler = [](const http::ServerRequest&,
                                                 http::ServerResponse& r) { r.body = "ok"; }}),
                IsOk());
    ASSERT_THAT(server_->Start(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(transport_, http::CurlTransport::Create());

    service_.RequireAuth(auth_.get());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &grpc_port_);
    builder.RegisterService(&service_);
    grpc_server_ = builder.BuildAndStart();
    ASSERT_NE(grpc_server_, nullptr);
  }
  void TearDown() override {
    service_.Shutdown();
    if (grpc_server_) {
      grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    }
  }

  int Status(const std::string& path, const std::string& authorization) {
    http::HttpRequest req{.url = absl::StrCat(server_->url(), path)};
    if (!authorization.empty()) req.headers.Set("Authorization", authorization);
    absl::StatusOr<http::HttpResponse> r = transport_->Send(req);
    return r.ok() ? r->status_code : -1;
  }
  double Refused(const std::string& api) {
    const std::string text = registry_.PrometheusText();
    const std::string series =
        absl::StrCat("lw_unauthenticated_requests_total{api=\"", api, "\"} ");
    const size_t at = text.find(series);
    return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size()));
  }
  void Rotate(const std::string& token) {
    const std::string tmp = dir_.Write("token.tmp", token);
    ASSERT_EQ(std::rename(tmp.c_str(), token_file_.c_str()), 0);
  }

  trimaran::testing::TempDirForTest dir_;
  std::string token_file_;
  stats::Registry registry_;
  std::unique_ptr<ApiAuthenticator> auth_;
  FakeClock clock_;
  FakeMetricsProvider provider_{"Prometheus", &clock_};
  Watcher watcher_{provider_, clock_, stats::Scope(registry_)};
  std::unique_ptr<http::HttpServer> server_;
  std::unique_ptr<http::CurlTransport> transport_;
  GrpcService service_{watcher_, absl::Milliseconds(10)};
  std::unique_ptr<grpc::Server> grpc_server_;
  int grpc_port_ = 0;
};

TEST_F(ApiAuthTest, RestNeedsTheTokenExceptOnProbePaths) {
  EXPECT_EQ(Status("/watcher", "Bearer t0ken"), 200);
  EXPECT_EQ(Status("/watcher/health", "Bearer t0ken"), 200);
  EXPECT_EQ(Status("/watcher", ""), 401);
  EXPECT_EQ(Status("/watcher", "Bearer t0ke"), 401);
  EXPECT_EQ(Status("/watcher", "Basic dDBrZW4="), 401);
  EXPECT_EQ(Status("/", ""), 401);              // the index lists the API: protected too
  EXPECT_EQ(Status("/no-such-path", ""), 401);  // no probing for routes without a token
  EXPECT_EQ(Status("/no-such-path", "Bearer t0ken"), 404);
  EXPECT_EQ(Status("/healthz", ""), 200);
  EXPECT_EQ(Refused("rest"), 5);
  EXPECT_EQ(Refused("grpc"), 0);

  // The token file rotates: the new token at once, the old one no longer.
  ASSERT_NO_FATAL_FAILURE(Rotate("n3w-t0ken"));
  EXPECT_EQ(Status("/watcher", "Bearer n3w-t0ken"), 200);
  EXPECT_EQ(Status("/watcher", "Bearer t0ken"), 401);
  EXPECT_EQ(Refused("rest"), 6);
}

TEST_F(ApiAuthTest, HttpClientSendsTheCurrentToken) {
  const std::string client_token = dir_.Write("client-token", "t0ken");
  HttpClient with(*transport_, {.address = server_->url(), .token_file = client_token});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr m, with.GetLatestMetrics());
  EXPECT_TRUE(m->data.node_metrics_map.contains("n1"));
  HttpClient without(*transport_, {.address = server_->url()});
  EXPECT_THAT(without.GetLatestMetrics(),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("401")));
  HttpClient missing(*transport_, {.address = server_->url(), .token_file = dir_.Path("none")});
  EXPECT_THAT(missing.GetLatestMetrics(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("none")));
}

TEST_F(ApiAuthTest, GrpcNeedsTheTokenOnEveryMethod) {
  const std::string target = absl::StrCat("127.0.0.1:", grpc_port_);
  GrpcClient with({.target = target, .timeout = absl::Seconds(10), .token_file = token_file_});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr m, with.GetLatestMetrics());
  EXPECT_TRUE(m->data.node_metrics_map.contains("n1"));
  GrpcClient without({.target = target, .timeout = absl::Seconds(10)});
  EXPECT_THAT(without.GetLatestMetrics(), StatusIs(absl::StatusCode::kUnauthenticated));

  // The streaming method too.
  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto stub = loadwatcher::v1::LoadWatcher::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  loadwatcher::v1::WatchMetricsRequest request;
  auto reader = stub->WatchMetrics(&context, request);
  loadwatcher::v1::WatcherMetrics message;
  EXPECT_FALSE(reader->Read(&message));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Refused("grpc"), 2);
}

}  // namespace
}  // namespace trimaran::lw
