#include "scheduler/framework/cycle_state.h"

#include <memory>
#include <string>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

struct IntData final : StateData {
  explicit IntData(int v) : value(v) {}
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<IntData>(value); }
  int value;
};

struct StringData final : StateData {
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<StringData>(*this); }
  std::string value;
};

TEST(CycleStateTest, WriteThenRead) {
  CycleState state;
  state.Write("PreFilterA", std::make_unique<IntData>(7));
  absl::StatusOr<const IntData*> got = state.Read<IntData>("PreFilterA");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ((*got)->value, 7);
  EXPECT_EQ(state.size(), 1u);
  EXPECT_NE(state.Get("PreFilterA"), nullptr);
}

TEST(CycleStateTest, MissingKeyIsNotFound) {
  const CycleState state;
  EXPECT_THAT(state.Read<IntData>("nope"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(state.Get("nope"), nullptr);
}

TEST(CycleStateTest, WrongTypeIsInternal) {
  CycleState state;
  state.Write("k", std::make_unique<IntData>(1));
  EXPECT_THAT(state.Read<StringData>("k"), StatusIs(absl::StatusCode::kInternal));
}

TEST(CycleStateTest, OverwriteAndDelete) {
  CycleState state;
  state.Write("k", std::make_unique<IntData>(1));
  state.Write("k", std::make_unique<IntData>(2));
  EXPECT_EQ((*state.Read<IntData>("k"))->value, 2);
  state.Delete("k");
  state.Delete("k");  // no-op
  EXPECT_EQ(state.size(), 0u);
}

TEST(CycleStateTest, ReadMutableUpdatesInPlace) {
  CycleState state;
  state.Write("k", std::make_unique<IntData>(1));
  absl::StatusOr<IntData*> data = state.ReadMutable<IntData>("k");
  ASSERT_THAT(data, IsOk());
  (*data)->value = 5;
  EXPECT_EQ((*state.Read<IntData>("k"))->value, 5);
  EXPECT_THAT(state.ReadMutable<IntData>("missing"), StatusIs(absl::StatusCode::kNotFound));
}

TEST(CycleStateTest, CloneIsIndependent) {
  CycleState state;
  state.Write("a", std::make_unique<IntData>(1));
  state.SetSkipFilterPlugins({"P1"});
  state.SetSkipScorePlugins({"P2"});
  state.set_record_plugin_metrics(true);

  std::unique_ptr<CycleState> clone = state.Clone();
  (*clone->ReadMutable<IntData>("a"))->value = 42;
  clone->Write("b", std::make_unique<IntData>(2));

  EXPECT_EQ((*state.Read<IntData>("a"))->value, 1);
  EXPECT_EQ(state.Get("b"), nullptr);
  EXPECT_EQ((*clone->Read<IntData>("a"))->value, 42);
  EXPECT_TRUE(clone->skip_filter_plugins().contains("P1"));
  EXPECT_TRUE(clone->skip_score_plugins().contains("P2"));
  EXPECT_TRUE(clone->record_plugin_metrics());
}

}  // namespace
}  // namespace trimaran::sched
