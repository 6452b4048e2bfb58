#include "kube/plain_http.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;

kube::RestConfig WithEveryToken(std::string server) {
  kube::RestConfig c;
  c.server = std::move(server);
  c.bearer_token = "static-token";
  c.bearer_token_file = "/var/run/token";
  c.exec = kube::ExecConfig{.command = "aws"};
  c.source = "kubeconfig /home/u/.kube/config (context dev)";
  return c;
}

TEST(KubePlainHttpTest, HttpServerLosesEveryBearerTokenWithAWarning) {
  kube::RestConfig c = WithEveryToken("http://127.0.0.1:8080");
  const std::string warning = DropCredentialsOverPlainHttp(c);
  EXPECT_THAT(warning, HasSubstr("http://127.0.0.1:8080"));
  EXPECT_THAT(warning, HasSubstr("kubeconfig /home/u/.kube/config (context dev)"));
  EXPECT_THAT(warning, HasSubstr("not sent over plain HTTP"));
  EXPECT_EQ(c.bearer_token, "");
  EXPECT_EQ(c.bearer_token_file, "");
  EXPECT_FALSE(c.exec.has_value());
  EXPECT_EQ(c.server, "http://127.0.0.1:8080");  // still used, unauthenticated
}

TEST(KubePlainHttpTest, HttpsServerKeepsItsCredentials) {
  for (const char* server : {"https://10.0.0.1:6443", "HTTPS://api.example:443"}) {
    kube::RestConfig c = WithEveryToken(server);
    EXPECT_EQ(DropCredentialsOverPlainHttp(c), "") << server;
    EXPECT_EQ(c.bearer_token, "static-token");
    EXPECT_EQ(c.bearer_token_file, "/var/run/token");
    EXPECT_TRUE(c.exec.has_value());
  }
}

TEST(KubePlainHttpTest, HttpServerWithoutTokenSaysNothing) {
  kube::RestConfig c;
  c.server = "http://127.0.0.1:8080";
  EXPECT_EQ(DropCredentialsOverPlainHttp(c), "");
}

TEST(KubePlainHttpTest, SchedulerUrlsOtherThanHttpsGetNoKubeconfigCredentials) {
  EXPECT_TRUE(KubeconfigCredentialsAllowed("https://127.0.0.1:10259"));
  EXPECT_FALSE(KubeconfigCredentialsAllowed("http://127.0.0.1:10259"));
  EXPECT_FALSE(KubeconfigCredentialsAllowed("127.0.0.1:10259"));
  EXPECT_THAT(PlainHttpSchedulerWarning("--scheduler", "http://s:10251"),
              HasSubstr("--scheduler http://s:10251 is not https"));
}

}  // namespace
}  // namespace trimaran::kube
