#pragma once
// gMock matchers for absl::Status and absl::StatusOr<T>.
//
//   EXPECT_THAT(DoIt(), IsOk());
//   EXPECT_THAT(Parse("x"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cpu")));
//   TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(json));
//
// Thread-safety: stateless.

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::testing {
namespace internal {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace internal

MATCHER(IsOk, "is OK") {
  const absl::Status& s = internal::GetStatus(arg);
  if (!s.ok()) *result_listener << "status is " << s;
  return s.ok();
}

MATCHER_P(StatusIs, code, "has code " + std::string(absl::StatusCodeToString(code))) {
  const absl::Status& s = internal::GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + std::string(absl::StatusCodeToString(code))) {
  const absl::Status& s = internal::GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(s.message()), result_listener);
}

}  // namespace trimaran::testing

#define TRIMARAN_ASSERT_OK(expr) ASSERT_THAT((expr), ::trimaran::testing::IsOk())
#define TRIMARAN_EXPECT_OK(expr) EXPECT_THAT((expr), ::trimaran::testing::IsOk())

#define TRIMARAN_ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  TRIMARAN_ASSERT_OK_AND_ASSIGN_IMPL_(            \
      TRIMARAN_STATUS_MACROS_CONCAT_(trimaran_assert_statusor_, __LINE__), lhs, rexpr)
#define TRIMARAN_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                        \
  ASSERT_TRUE(statusor.ok()) << statusor.status();                \
  lhs = std::move(statusor).value()
