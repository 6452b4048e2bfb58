#include "scheduler/plugins/helper/label_selector.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"

namespace trimaran::sched::plugins {
namespace {

using kube::LabelSelector;
using kube::LabelSelectorOperator;
using ::trimaran::testing::StatusIs;

TEST(SelectorTest, MissingMatchesNothingEmptyMatchesEverything) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Selector missing, Selector::FromOptional(std::nullopt));
  EXPECT_FALSE(missing.Matches({}));
  EXPECT_FALSE(missing.Matches({{"a", "b"}}));
  EXPECT_TRUE(missing.MatchesNothing());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Selector empty, Selector::Compile(LabelSelector{}));
  EXPECT_TRUE(empty.Matches({}));
  EXPECT_TRUE(empty.Matches({{"a", "b"}}));
  EXPECT_TRUE(empty.MatchesEverything());
}

TEST(SelectorTest, Requirements) {
  LabelSelector sel;
  sel.match_labels = {{"app", "web"}};
  sel.match_expressions = {{"tier", LabelSelectorOperator::kIn, {"b", "a"}},
                           {"env", LabelSelectorOperator::kNotIn, {"prod"}},
                           {"team", LabelSelectorOperator::kExists, {}},
                           {"legacy", LabelSelectorOperator::kDoesNotExist, {}}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Selector s, Selector::Compile(sel));
  struct Case {
    std::string name;
    kube::Labels labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"all hold", {{"app", "web"}, {"tier", "a"}, {"team", "x"}}, true},
      {"NotIn holds with another value",
       {{"app", "web"}, {"tier", "b"}, {"team", "x"}, {"env", "dev"}},
       true},
      {"matchLabels value differs", {{"app", "db"}, {"tier", "a"}, {"team", "x"}}, false},
      {"In value absent", {{"app", "web"}, {"tier", "c"}, {"team", "x"}}, false},
      {"In key absent", {{"app", "web"}, {"team", "x"}}, false},
      {"NotIn value present",
       {{"app", "web"}, {"tier", "a"}, {"team", "x"}, {"env", "prod"}},
       false},
      {"Exists key absent", {{"app", "web"}, {"tier", "a"}}, false},
      {"DoesNotExist key present",
       {{"app", "web"}, {"tier", "a"}, {"team", "x"}, {"legacy", ""}},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(s.Matches(c.labels), c.want);
  }
}

TEST(SelectorTest, InvalidRequirementsAreErrors) {
  LabelSelector in_without_values;
  in_without_values.match_expressions = {{"a", LabelSelectorOperator::kIn, {}}};
  EXPECT_THAT(Selector::Compile(in_without_values), StatusIs(absl::StatusCode::kInvalidArgument));
  LabelSelector exists_with_values;
  exists_with_values.match_expressions = {{"a", LabelSelectorOperator::kExists, {"x"}}};
  EXPECT_THAT(Selector::Compile(exists_with_values), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace trimaran::sched::plugins
