#include "scheduler/extender/client_names.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched::extender {
namespace {

http::ServerRequest FromCertificate(std::string cn, std::vector<std::string> dns) {
  http::ServerRequest r;
  r.peer_certificate_subject = cn.empty() ? "O=ops" : "CN=" + cn;
  r.peer_certificate_common_name = std::move(cn);
  r.peer_certificate_dns_names = std::move(dns);
  return r;
}

TEST(ClientNamePolicyTest, CommonNameOrDnsNameMustBeAllowed) {
  const ClientNamePolicy policy{.allowed_names = {"system:kube-scheduler", "ks.example"}};
  struct Case {
    std::string what;
    http::ServerRequest request;
    int want;  // 200: served
  };
  const std::vector<Case> cases = {
      {"allowed common name", FromCertificate("system:kube-scheduler", {}), 200},
      {"allowed DNS name", FromCertificate("someone", {"other.example", "ks.example"}), 200},
      {"neither", FromCertificate("someone", {"other.example"}), 403},
      {"no common name, no DNS name", FromCertificate("", {}), 403},
      {"case matters", FromCertificate("System:Kube-Scheduler", {}), 403},
      {"no certificate", http::ServerRequest{}, 401},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    http::ServerResponse res;
    const bool served = policy.Check(c.request, res);
    EXPECT_EQ(served, c.want == 200);
    if (!served) {
      EXPECT_EQ(res.status, c.want);
    }
  }
  http::ServerResponse res;
  policy.Check(FromCertificate("mallory", {}), res);
  EXPECT_THAT(res.body, ::testing::HasSubstr("\"mallory\" is not in --extender-allowed-names"));
}

TEST(ClientNamePolicyTest, EmptyListAllowsEveryCertificateOfTheCa) {
  const ClientNamePolicy policy{};
  http::ServerResponse res;
  EXPECT_TRUE(policy.Check(FromCertificate("anyone", {}), res));
  EXPECT_FALSE(policy.Check(http::ServerRequest{}, res));
  EXPECT_EQ(res.status, 401);
}

TEST(ClientNamePolicyTest, UnauthenticatedModeChecksNothing) {
  const ClientNamePolicy policy{.require_client_certificate = false};
  http::ServerResponse res;
  EXPECT_TRUE(policy.Check(http::ServerRequest{}, res));
}

}  // namespace
}  // namespace trimaran::sched::extender
