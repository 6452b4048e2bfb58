#include "scheduler/plugins/node_affinity/args.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

PluginArgs Args(const std::string& yaml) {
  return PluginArgs{yaml.empty() ? YAML::Node() : YAML::Load(yaml),
                    "profiles[0].pluginConfig[1].args"};
}

TEST(NodeAffinityArgsTest, NullGivesDefaults) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeAffinityArgs a, DecodeNodeAffinityArgs(Args("")));
  EXPECT_FALSE(a.added_affinity.has_value());
}

TEST(NodeAffinityArgsTest, DecodesEveryField) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeAffinityArgs a, DecodeNodeAffinityArgs(Args(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: NodeAffinityArgs
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: zone, operator: In, values: [a, b]}
      - {key: gen, operator: Gt, values: ["3"]}
      matchFields:
      - {key: metadata.name, operator: NotIn, values: [n9]}
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 7
    preference:
      matchExpressions: [{key: ssd, operator: Exists}]
)")));
  ASSERT_TRUE(a.added_affinity.has_value());
  ASSERT_TRUE(a.added_affinity->required.has_value());
  const auto& terms = a.added_affinity->required->node_selector_terms;
  ASSERT_EQ(terms.size(), 1u);
  ASSERT_EQ(terms[0].match_expressions.size(), 2u);
  EXPECT_EQ(terms[0].match_expressions[0].key, "zone");
  EXPECT_EQ(terms[0].match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(terms[0].match_expressions[1].op, kube::NodeSelectorOperator::kGt);
  ASSERT_EQ(terms[0].match_fields.size(), 1u);
  EXPECT_EQ(terms[0].match_fields[0].op, kube::NodeSelectorOperator::kNotIn);
  ASSERT_EQ(a.added_affinity->preferred.size(), 1u);
  EXPECT_EQ(a.added_affinity->preferred[0].weight, 7);
  EXPECT_EQ(a.added_affinity->preferred[0].preference.match_expressions[0].op,
            kube::NodeSelectorOperator::kExists);
}

TEST(NodeAffinityArgsTest, DecodeErrorsListEveryFieldWithPath) {
  const absl::StatusOr<NodeAffinityArgs> a = DecodeNodeAffinityArgs(Args(R"(
addedAffinity:
  extra: 1
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions: [{key: zone, operator: Near, values: [a]}]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: heavy
)"));
  const std::string p = "profiles[0].pluginConfig[1].args.addedAffinity";
  EXPECT_THAT(a.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(p + ".extra: unknown field"),
                             HasSubstr(p + ".requiredDuringSchedulingIgnoredDuringExecution."
                                           "nodeSelectorTerms[0].matchExpressions[0].operator: "
                                           "Unsupported value: \"Near\""),
                             HasSubstr(p + ".preferredDuringSchedulingIgnoredDuringExecution[0]."
                                           "weight: Invalid type"))));
}

TEST(NodeAffinityArgsTest, ValidateReportsEveryError) {
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<std::string> want;  // substrings, each prefixed by the args path
  };
  const std::vector<Case> cases = {
      {"no terms",
       "addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}",
       {".addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
        "Required value"}},
      {"bad requirements and weight",
       R"(
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions: [{key: zone, operator: In}]
      matchFields: [{key: metadata.name, operator: In, values: [a, b]}]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 101
    preference: {matchExpressions: [{key: gen, operator: Lt, values: [x]}]}
)",
       {".addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[0].values: Required value",
        ".addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].values: Required value: must have one element",
        ".addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
        "value: 101: must be in the range 1-100",
        ".addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
        "matchExpressions[0].values[0]: Invalid value: \"x\""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const absl::StatusOr<NodeAffinityArgs> a = DecodeNodeAffinityArgs(Args(c.yaml));
    ASSERT_THAT(a.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    for (const std::string& w : c.want) {
      EXPECT_THAT(std::string(a.status().message()),
                  HasSubstr("profiles[0].pluginConfig[1].args" + w));
    }
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
