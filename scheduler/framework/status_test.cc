#include "scheduler/framework/status.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(StatusTest, DefaultIsSuccessWithoutReasons) {
  const Status s;
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_EQ(s.code(), Code::kSuccess);
  EXPECT_THAT(s.reasons(), IsEmpty());
  EXPECT_EQ(s.plugin(), "");
  EXPECT_EQ(s.Message(), "");
  EXPECT_EQ(s, Status::Success());
  EXPECT_TRUE(s.AsAbsl().ok());
  EXPECT_EQ(s.ToString(), "Success");
}

TEST(StatusTest, SuccessIsSmall) {
  // Two words: the code and a null shared block. Returning it is a register move.
  EXPECT_LE(sizeof(Status), 3 * sizeof(void*));
}

TEST(StatusTest, CodePredicates) {
  struct TestCase {
    std::string name;
    Status status;
    bool success, skip, wait, error, rejected;
  };
  const std::vector<TestCase> cases = {
      {"success", Status::Success(), true, false, false, false, false},
      {"skip", Status::Skip(), false, true, false, false, false},
      {"wait", Status::Wait(), false, false, true, false, false},
      {"error", Status::Error("boom"), false, false, false, true, false},
      {"unschedulable", Status::Unschedulable("Too many pods"), false, false, false, false, true},
      {"unresolvable", Status::UnschedulableAndUnresolvable("x"), false, false, false, false, true},
      {"pending", Status::Pending("waiting for driver"), false, false, false, false, true},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.status.IsSuccess(), tc.success);
    EXPECT_EQ(tc.status.IsSkip(), tc.skip);
    EXPECT_EQ(tc.status.IsWait(), tc.wait);
    EXPECT_EQ(tc.status.IsError(), tc.error);
    EXPECT_EQ(tc.status.IsRejected(), tc.rejected);
  }
}

TEST(StatusTest, CodeNames) {
  EXPECT_EQ(CodeName(Code::kSuccess), "Success");
  EXPECT_EQ(CodeName(Code::kError), "Error");
  EXPECT_EQ(CodeName(Code::kUnschedulable), "Unschedulable");
  EXPECT_EQ(CodeName(Code::kUnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
  EXPECT_EQ(CodeName(Code::kWait), "Wait");
  EXPECT_EQ(CodeName(Code::kSkip), "Skip");
  EXPECT_EQ(CodeName(Code::kPending), "Pending");
}

TEST(StatusTest, ReasonsAndMessage) {
  Status s = Status::Unschedulable({"Insufficient cpu", "Insufficient memory"});
  EXPECT_THAT(s.reasons(), ElementsAre("Insufficient cpu", "Insufficient memory"));
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory");
  s.AppendReason("Too many pods");
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory, Too many pods");
  s.SetPlugin("NodeResourcesFit");
  EXPECT_EQ(s.ToString(),
            "Unschedulable: Insufficient cpu, Insufficient memory, Too many pods "
            "(plugin=NodeResourcesFit)");
}

TEST(StatusTest, CopiesShareAndCopyOnWrite) {
  const Status prebuilt = Status::Unschedulable("Too many pods").WithPlugin("NodeResourcesFit");
  Status copy = prebuilt;
  EXPECT_EQ(copy, prebuilt);
  // Same plugin: no change, still equal and shared.
  copy.SetPlugin("NodeResourcesFit");
  EXPECT_EQ(copy.reasons().data(), prebuilt.reasons().data());
  // A change detaches the copy and leaves the original alone.
  copy.SetPlugin("Other");
  copy.AppendReason("more");
  EXPECT_EQ(prebuilt.plugin(), "NodeResourcesFit");
  EXPECT_THAT(prebuilt.reasons(), ElementsAre("Too many pods"));
  EXPECT_EQ(copy.plugin(), "Other");
  EXPECT_THAT(copy.reasons(), ElementsAre("Too many pods", "more"));
  EXPECT_NE(copy, prebuilt);
}

TEST(StatusTest, PrebuiltStatusIsSafeToShareAcrossThreads) {
  // What Filter does on many threads at once: return copies of one prebuilt rejection,
  // which the runtime then attributes to the plugin (a no-op here) or to another name.
  static const Status kPrebuilt = Status::Unschedulable("Too many pods").WithPlugin("P");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 1000; ++i) {
        Status s = kPrebuilt;
        s.SetPlugin("P");
        if (i % 10 == t) s.SetPlugin("Q");
        EXPECT_EQ(s.Message(), "Too many pods");
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(kPrebuilt.plugin(), "P");
}

TEST(StatusTest, WithPluginOnTemporary) {
  const Status s = Status::Error("x").WithPlugin("P");
  EXPECT_EQ(s.plugin(), "P");
  EXPECT_EQ(s.code(), Code::kError);
}

TEST(StatusTest, FromAbslAndBack) {
  EXPECT_TRUE(Status::FromAbsl(absl::OkStatus()).IsSuccess());

  const absl::Status unavailable = absl::UnavailableError("apiserver down");
  const Status s = Status::FromAbsl(unavailable);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_THAT(s.reasons(), ElementsAre("apiserver down"));
  // The original error survives the round trip, code and all.
  EXPECT_EQ(s.AsAbsl(), unavailable);
}

TEST(StatusTest, AsAbslMapping) {
  struct TestCase {
    std::string name;
    Status status;
    absl::StatusCode want_code;
    std::string want_message;
  };
  const std::vector<TestCase> cases = {
      {"success", Status::Success(), absl::StatusCode::kOk, ""},
      {"wait", Status::Wait(), absl::StatusCode::kOk, ""},
      {"skip", Status::Skip(), absl::StatusCode::kOk, ""},
      {"plain error", Status::Error("bad input"), absl::StatusCode::kInternal, "bad input"},
      {"error with plugin", Status::Error("bad").WithPlugin("P"), absl::StatusCode::kInternal,
       "P: bad"},
      {"unschedulable", Status::Unschedulable("Insufficient cpu").WithPlugin("NodeResourcesFit"),
       absl::StatusCode::kFailedPrecondition, "NodeResourcesFit: Insufficient cpu"},
      {"unresolvable", Status::UnschedulableAndUnresolvable({"a", "b"}),
       absl::StatusCode::kFailedPrecondition, "a, b"},
      {"pending", Status::Pending("later"), absl::StatusCode::kFailedPrecondition, "later"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    const absl::Status got = tc.status.AsAbsl();
    EXPECT_EQ(got.code(), tc.want_code);
    EXPECT_EQ(got.message(), tc.want_message);
  }
}

TEST(StatusTest, Equality) {
  EXPECT_EQ(Status::Unschedulable("a"), Status::Unschedulable("a"));
  EXPECT_NE(Status::Unschedulable("a"), Status::UnschedulableAndUnresolvable("a"));
  EXPECT_NE(Status::Unschedulable("a"), Status::Unschedulable("b"));
  EXPECT_NE(Status::Unschedulable("a"), Status::Unschedulable("a").WithPlugin("P"));
  EXPECT_EQ(Status(Code::kSkip), Status::Skip());
  EXPECT_NE(Status::FromAbsl(absl::InternalError("x")), Status::FromAbsl(absl::UnknownError("x")));
}

}  // namespace
}  // namespace trimaran::sched
