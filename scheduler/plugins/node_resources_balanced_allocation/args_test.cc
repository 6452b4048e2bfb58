#include "scheduler/plugins/node_resources_balanced_allocation/args.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

constexpr absl::string_view kPath = "profiles[0].pluginConfig[2].args";

absl::StatusOr<NodeResourcesBalancedAllocationArgs> Decode(const std::string& yaml) {
  return DecodeNodeResourcesBalancedAllocationArgs(
      PluginArgs{YAML::Load(yaml), std::string(kPath)});
}

TEST(NodeResourcesBalancedAllocationArgsTest, DecodeValid) {
  const NodeResourcesBalancedAllocationArgs defaults = DefaultNodeResourcesBalancedAllocationArgs();
  EXPECT_EQ(defaults.resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<ResourceSpec> want;
  };
  const Case cases[] = {
      {"null", "", {{"cpu", 1}, {"memory", 1}}},
      {"empty resources", "resources: []", {{"cpu", 1}, {"memory", 1}}},
      // weight 0 and a missing weight default to 1.
      {"custom",
       "kind: NodeResourcesBalancedAllocationArgs\n"
       "resources: [{name: cpu, weight: 0}, {name: example.com/gpu}]",
       {{"cpu", 1}, {"example.com/gpu", 1}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeResourcesBalancedAllocationArgs got, Decode(c.yaml));
    EXPECT_EQ(got.resources, c.want);
  }
}

TEST(NodeResourcesBalancedAllocationArgsTest, DecodeInvalid) {
  const std::string p(kPath);
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<std::string> want_errors;
  };
  const Case cases[] = {
      {"weights and duplicates",
       "resources: [{name: cpu, weight: 2}, {name: memory}, {name: cpu, weight: 1}]",
       {p + ".resources[0].weight: must be 1, got 2",
        p + ".resources[2].name: Duplicate value: \"cpu\""}},
      {"unknown fields and types",
       "resources: [{name: cpu, weight: x}]\nextra: 1",
       {p + ".resources[0].weight: must be an integer", p + ".extra: unknown field"}},
      {"resources not a list", "resources: cpu", {p + ".resources: must be a list"}},
      {"wrong kind", "kind: NodeResourcesFitArgs", {p + ".kind: must be"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = Decode(c.yaml);
    ASSERT_THAT(got.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    const std::string message(got.status().message());
    for (const std::string& want : c.want_errors) EXPECT_THAT(message, HasSubstr(want));
    size_t count = 1;
    for (size_t pos = message.find("; "); pos != std::string::npos;
         pos = message.find("; ", pos + 2)) {
      ++count;
    }
    EXPECT_EQ(count, c.want_errors.size()) << message;
  }
}

TEST(NodeResourcesBalancedAllocationArgsTest, Validate) {
  NodeResourcesBalancedAllocationArgs args{{{"", 1}, {"memory", 3}}};
  EXPECT_THAT(ValidateNodeResourcesBalancedAllocationArgs(args, ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("resources[0].name: Required value; resources[1].weight: must be "
                                 "1, got 3")));
}

}  // namespace
}  // namespace trimaran::sched::plugins
