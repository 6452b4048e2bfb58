#include "kube/api/object_names.h"

#include <string>

#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

TEST(ObjectNamesTest, Dns1123Subdomain) {
  for (const char* ok : {"a", "web-1", "node-0.zone-a", "ip-10-0-0-1.ec2.internal", "0"}) {
    EXPECT_TRUE(IsDns1123Subdomain(ok)) << ok;
  }
  for (const char* bad : {"", "-a", "a-", "A", "a/b", "..", "a..b", ".a", "a.", "a%2Fb", "a?b",
                          "a#b", "a b", "../../nodes/x", "a_b"}) {
    EXPECT_FALSE(IsDns1123Subdomain(bad)) << bad;
  }
  EXPECT_TRUE(IsDns1123Subdomain(std::string(253, 'a')));
  EXPECT_FALSE(IsDns1123Subdomain(std::string(254, 'a')));
}

TEST(ObjectNamesTest, Dns1123Label) {
  EXPECT_TRUE(IsDns1123Label("default"));
  EXPECT_TRUE(IsDns1123Label("kube-system"));
  EXPECT_FALSE(IsDns1123Label("a.b"));
  EXPECT_FALSE(IsDns1123Label("a/b"));
  EXPECT_FALSE(IsDns1123Label(""));
  EXPECT_TRUE(IsDns1123Label(std::string(63, 'a')));
  EXPECT_FALSE(IsDns1123Label(std::string(64, 'a')));
}

}  // namespace
}  // namespace trimaran::kube
