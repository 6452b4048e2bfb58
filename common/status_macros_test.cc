#include "common/status_macros.h"

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

absl::Status FailIf(bool fail) {
  if (fail) return absl::NotFoundError("pod default/p not found");
  return absl::OkStatus();
}

absl::StatusOr<int> ValueOr(bool fail) {
  if (fail) return absl::UnavailableError("apiserver down");
  return 42;
}

absl::Status Chain(bool fail, int* calls) {
  TRIMARAN_RETURN_IF_ERROR(FailIf(fail));
  ++*calls;
  return absl::OkStatus();
}

absl::StatusOr<int> Doubled(bool fail) {
  TRIMARAN_ASSIGN_OR_RETURN(int v, ValueOr(fail));
  return 2 * v;
}

TEST(StatusMacrosTest, ReturnIfErrorStopsAtFirstError) {
  int calls = 0;
  EXPECT_THAT(Chain(true, &calls), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(calls, 0);
  EXPECT_THAT(Chain(false, &calls), IsOk());
  EXPECT_EQ(calls, 1);
}

TEST(StatusMacrosTest, AssignOrReturn) {
  EXPECT_THAT(Doubled(true), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("down")));
  absl::StatusOr<int> ok = Doubled(false);
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ(*ok, 84);
}

TEST(StatusMacrosTest, AnnotateKeepsCodeAndPrependsContext) {
  absl::Status s = Annotate(absl::NotFoundError("no such node"), "binding pod default/web-1");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound, "binding pod default/web-1: no such node"));
  EXPECT_THAT(Annotate(absl::OkStatus(), "ctx"), IsOk());
}

}  // namespace
}  // namespace trimaran
