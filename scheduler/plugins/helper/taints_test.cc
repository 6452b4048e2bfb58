#include "scheduler/plugins/helper/taints.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::TaintEffect;
using kube::TolerationOperator;

kube::Toleration Tol(std::string key, TolerationOperator op, std::string value,
                     TaintEffect effect) {
  kube::Toleration t;
  t.key = std::move(key);
  t.op = op;
  t.value = std::move(value);
  t.effect = effect;
  return t;
}

TEST(ToleratesTaintTest, Table) {
  constexpr auto kEq = TolerationOperator::kEqual;
  constexpr auto kEx = TolerationOperator::kExists;
  const kube::Taint taint{"k", "v", TaintEffect::kNoSchedule, std::nullopt};
  struct Case {
    std::string name;
    kube::Toleration toleration;
    bool want;
  };
  const std::vector<Case> cases = {
      {"equal key value effect", Tol("k", kEq, "v", TaintEffect::kNoSchedule), true},
      {"equal, other value", Tol("k", kEq, "w", TaintEffect::kNoSchedule), false},
      {"equal, other key", Tol("x", kEq, "v", TaintEffect::kNoSchedule), false},
      {"equal, empty effect matches all", Tol("k", kEq, "v", TaintEffect::kAll), true},
      {"other effect", Tol("k", kEq, "v", TaintEffect::kNoExecute), false},
      {"exists any value", Tol("k", kEx, "", TaintEffect::kNoSchedule), true},
      {"exists other key", Tol("x", kEx, "", TaintEffect::kAll), false},
      {"empty key exists matches everything", Tol("", kEx, "", TaintEffect::kAll), true},
      {"empty key exists, other effect", Tol("", kEx, "", TaintEffect::kPreferNoSchedule), false},
      {"empty key equal does not match a keyed taint", Tol("", kEq, "v", TaintEffect::kAll), false},
      // Values the codec did not recognise (kube/api/unrecognized.h), as upstream: an
      // unknown operator tolerates nothing, an unknown effect matches no known effect.
      {"unknown operator", Tol("k", TolerationOperator::kUnrecognized, "v", TaintEffect::kAll),
       false},
      {"unknown operator, empty key",
       Tol("", TolerationOperator::kUnrecognized, "", TaintEffect::kAll), false},
      {"unknown effect", Tol("k", kEq, "v", TaintEffect::kUnrecognized), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ToleratesTaint(c.toleration, taint), c.want);
  }
}

// A taint whose effect is unknown is neither NoSchedule nor NoExecute: TaintToleration's
// filter ignores it (as upstream, which only filters those two), and it is not tolerated
// by mistake either.
TEST(FindMatchingUntoleratedTaintTest, UnknownEffectIsIgnoredByTheFilter) {
  const std::vector<kube::Taint> taints = {
      {"odd", "", TaintEffect::kUnrecognized, std::nullopt},
  };
  EXPECT_FALSE(IsDoNotScheduleTaint(taints[0]));
  EXPECT_EQ(FindMatchingUntoleratedTaint(taints, {}, IsDoNotScheduleTaint), nullptr);
  const std::vector<kube::Toleration> none = {
      Tol("odd", TolerationOperator::kUnrecognized, "", TaintEffect::kAll)};
  EXPECT_FALSE(TolerationsTolerateTaint(none, taints[0]));
}

TEST(FindMatchingUntoleratedTaintTest, FirstUntoleratedInOrder) {
  const std::vector<kube::Taint> taints = {
      {"soft", "", TaintEffect::kPreferNoSchedule, std::nullopt},
      {"a", "1", TaintEffect::kNoSchedule, std::nullopt},
      {"b", "2", TaintEffect::kNoExecute, std::nullopt},
  };
  std::vector<kube::Toleration> tolerations;
  const kube::Taint* t = FindMatchingUntoleratedTaint(taints, tolerations, IsDoNotScheduleTaint);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "a");  // "soft" is PreferNoSchedule: filtered out

  tolerations.push_back(Tol("a", TolerationOperator::kEqual, "1", TaintEffect::kAll));
  t = FindMatchingUntoleratedTaint(taints, tolerations, IsDoNotScheduleTaint);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "b");

  tolerations.push_back(Tol("b", TolerationOperator::kExists, "", TaintEffect::kNoExecute));
  EXPECT_EQ(FindMatchingUntoleratedTaint(taints, tolerations, IsDoNotScheduleTaint), nullptr);
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
