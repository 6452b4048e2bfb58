#include "kube/api/resource_list.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

TEST(ResourceNameTest, Classification) {
  struct TestCase {
    std::string name;
    bool native;
    bool extended;
    bool hugepages;
    bool scalar;
  };
  const std::vector<TestCase> cases = {
      {"cpu", true, false, false, false},
      {"memory", true, false, false, false},
      {"ephemeral-storage", true, false, false, false},
      {"pods", true, false, false, false},
      {"hugepages-2Mi", true, false, true, true},
      {"hugepages-1Gi", true, false, true, true},
      {"nvidia.com/gpu", false, true, false, true},
      {"example.com/foo", false, true, false, true},
      {"kubernetes.io/batteries", true, false, false, true},
      {"storage.kubernetes.io/x", true, false, false, true},
      {"attachable-volumes-aws-ebs", true, false, false, true},
      {"requests.example.com/foo", false, false, false, false},
      {"/gpu", false, false, false, false},
      {"example.com/", false, false, false, false},
      {"a/b/c", false, false, false, false},
      {"foo", true, false, false, false},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(IsNativeResource(tc.name), tc.native);
    EXPECT_EQ(IsExtendedResourceName(tc.name), tc.extended);
    EXPECT_EQ(IsHugePageResourceName(tc.name), tc.hugepages);
    EXPECT_EQ(IsScalarResourceName(tc.name), tc.scalar);
  }
}

}  // namespace
}  // namespace trimaran::kube
