#include "scheduler/plugins/node_resources_fit/args.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr absl::string_view kPath = "profiles[0].pluginConfig[1].args";

absl::StatusOr<NodeResourcesFitArgs> Decode(const std::string& yaml) {
  return DecodeNodeResourcesFitArgs(PluginArgs{YAML::Load(yaml), std::string(kPath)});
}

TEST(NodeResourcesFitArgsTest, Defaults) {
  const NodeResourcesFitArgs defaults = DefaultNodeResourcesFitArgs();
  EXPECT_EQ(defaults.scoring_strategy.type, ScoringStrategyType::kLeastAllocated);
  EXPECT_EQ(defaults.scoring_strategy.resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  EXPECT_FALSE(defaults.scoring_strategy.requested_to_capacity_ratio.has_value());
  EXPECT_THAT(ValidateNodeResourcesFitArgs(defaults, kPath), IsOk());

  // A Null node (no args in the config) and an empty mapping both mean the defaults.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeResourcesFitArgs from_null,
                                DecodeNodeResourcesFitArgs(PluginArgs{YAML::Node(), ""}));
  EXPECT_EQ(from_null, defaults);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeResourcesFitArgs from_empty, Decode("{}"));
  EXPECT_EQ(from_empty, defaults);
}

TEST(NodeResourcesFitArgsTest, DecodeValid) {
  struct Case {
    std::string name;
    std::string yaml;
    NodeResourcesFitArgs want;
  };
  NodeResourcesFitArgs most = DefaultNodeResourcesFitArgs();
  most.scoring_strategy.type = ScoringStrategyType::kMostAllocated;

  NodeResourcesFitArgs weighted = most;
  // weight 0 (and a missing weight) default to 1.
  weighted.scoring_strategy.resources = {{"cpu", 3}, {"memory", 1}, {"example.com/gpu", 1}};

  NodeResourcesFitArgs rtcr = DefaultNodeResourcesFitArgs();
  rtcr.scoring_strategy.type = ScoringStrategyType::kRequestedToCapacityRatio;
  rtcr.scoring_strategy.requested_to_capacity_ratio =
      RequestedToCapacityRatioParam{{{0, 0}, {100, 10}}};

  NodeResourcesFitArgs ignored = DefaultNodeResourcesFitArgs();
  ignored.ignored_resources = {"example.com/foo"};
  ignored.ignored_resource_groups = {"example.org"};

  const Case cases[] = {
      // Empty resources get cpu:1, memory:1.
      {"most allocated", "scoringStrategy: {type: MostAllocated}", most},
      {"weights",
       "scoringStrategy:\n"
       "  type: MostAllocated\n"
       "  resources:\n"
       "  - {name: cpu, weight: 3}\n"
       "  - {name: memory, weight: 0}\n"
       "  - {name: example.com/gpu}\n",
       weighted},
      {"rtcr",
       "scoringStrategy:\n"
       "  type: RequestedToCapacityRatio\n"
       "  requestedToCapacityRatio:\n"
       "    shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n",
       rtcr},
      {"ignored, with apiVersion and kind",
       "apiVersion: kubescheduler.config.k8s.io/v1\n"
       "kind: NodeResourcesFitArgs\n"
       "ignoredResources: [example.com/foo]\n"
       "ignoredResourceGroups: [example.org]\n",
       ignored},
      // JSON is YAML too.
      {"json", R"({"scoringStrategy": {"type": "MostAllocated", "resources": []}})", most},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeResourcesFitArgs got, Decode(c.yaml));
    EXPECT_EQ(got, c.want);
  }
}

TEST(NodeResourcesFitArgsTest, DecodeInvalid) {
  struct Case {
    std::string name;
    std::string yaml;
    // Every error must be reported, each with its full path.
    std::vector<std::string> want_errors;
  };
  const std::string p(kPath);
  const Case cases[] = {
      {"weights out of range",
       "scoringStrategy:\n"
       "  type: MostAllocated\n"
       "  resources: [{name: cpu, weight: 101}, {name: memory, weight: -1}]\n",
       {p + ".scoringStrategy.resources[0].weight: must be in (0, 100], got 101",
        p + ".scoringStrategy.resources[1].weight: must be in (0, 100], got -1"}},
      {"unknown type",
       "scoringStrategy: {type: Fancy}",
       {p + ".scoringStrategy.type: Unsupported value: \"Fancy\""}},
      // A strategy without type is invalid (no default inside an explicit strategy).
      {"missing type",
       "scoringStrategy: {resources: [{name: cpu, weight: 1}]}",
       {p + ".scoringStrategy.type: Unsupported value: \"\""}},
      {"rtcr without shape",
       "scoringStrategy: {type: RequestedToCapacityRatio}",
       {p + ".scoringStrategy.requestedToCapacityRatio: Required value"}},
      {"rtcr with empty shape",
       "scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: []}}",
       {p + ".scoringStrategy.requestedToCapacityRatio.shape: Required value"}},
      {"rtcr params with another type",
       "scoringStrategy: {type: LeastAllocated, requestedToCapacityRatio: {shape: "
       "[{utilization: 0, score: 0}]}}",
       {p + ".scoringStrategy.requestedToCapacityRatio: Forbidden"}},
      // Not increasing (reported once), then every out-of-range value.
      {"bad shape",
       "scoringStrategy:\n"
       "  type: RequestedToCapacityRatio\n"
       "  requestedToCapacityRatio:\n"
       "    shape:\n"
       "    - {utilization: 50, score: 11}\n"
       "    - {utilization: 50, score: 5}\n"
       "    - {utilization: 101, score: -1}\n",
       {p + ".scoringStrategy.requestedToCapacityRatio.shape[1].utilization: utilization values "
            "must be sorted in strictly increasing order",
        p + ".scoringStrategy.requestedToCapacityRatio.shape[0].score: must be in [0, 10], got 11",
        p + ".scoringStrategy.requestedToCapacityRatio.shape[2].utilization: must be in [0, 100]",
        p + ".scoringStrategy.requestedToCapacityRatio.shape[2].score: must be in [0, 10]"}},
      {"ignored names",
       "ignoredResources: [\"-bad\", \"example.com/ok\"]\n"
       "ignoredResourceGroups: [\"example.com/gpu\", \"Bad_\"]\n",
       {p + ".ignoredResources[0]: must be a qualified name",
        p + ".ignoredResourceGroups[0]: resource group name can't contain '/'",
        p + ".ignoredResourceGroups[1]: must be a qualified name"}},
      {"unknown fields and bad types",
       "scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: heavy, extra: 1}]}\n"
       "ignoredResources: foo\n"
       "bogus: true\n",
       {p + ".scoringStrategy.resources[0].extra: unknown field",
        p + ".scoringStrategy.resources[0].weight: must be an integer",
        p + ".ignoredResources: must be a list of strings", p + ".bogus: unknown field"}},
      {"wrong kind",
       "kind: NodeResourcesBalancedAllocationArgs",
       {p + ".kind: must be \"NodeResourcesFitArgs\""}},
      {"not a mapping", "[1, 2]", {p + ": must be a mapping"}},
      {"empty resource name",
       "scoringStrategy: {type: MostAllocated, resources: [{weight: 1}]}",
       {p + ".scoringStrategy.resources[0].name: Required value"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const absl::StatusOr<NodeResourcesFitArgs> got = Decode(c.yaml);
    ASSERT_THAT(got.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    const std::string message(got.status().message());
    for (const std::string& want : c.want_errors) EXPECT_THAT(message, HasSubstr(want));
    // Exactly as many errors as expected ("; "-separated).
    size_t count = 1;
    for (size_t pos = message.find("; "); pos != std::string::npos;
         pos = message.find("; ", pos + 2)) {
      ++count;
    }
    EXPECT_EQ(count, c.want_errors.size()) << message;
  }
}

TEST(NodeResourcesFitArgsTest, ValidateWithoutPath) {
  NodeResourcesFitArgs args = DefaultNodeResourcesFitArgs();
  args.scoring_strategy.resources[0].weight = 0;
  EXPECT_THAT(ValidateNodeResourcesFitArgs(args, ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("scoringStrategy.resources[0].weight: must be in (0, 100]")));
}

}  // namespace
}  // namespace trimaran::sched::plugins
