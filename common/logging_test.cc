#include "common/logging.h"

#include <memory>

#include "common/check.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(LoggingTest, VerbosityMapsToLevels) {
  SetVerbosity(0);
  EXPECT_EQ(Log(Component::kQueue).level(), spdlog::level::info);
  EXPECT_FALSE(VLogIsOn(4));
  SetVerbosity(4);
  EXPECT_EQ(Log(Component::kQueue).level(), spdlog::level::debug);
  EXPECT_TRUE(VLogIsOn(4));
  EXPECT_FALSE(VLogIsOn(5));
  SetVerbosity(6);
  EXPECT_EQ(Log(Component::kPlugin).level(), spdlog::level::trace);
  SetVerbosity(0);
}

TEST(LoggingTest, ComponentNames) {
  EXPECT_EQ(ComponentName(Component::kQueue), "queue");
  EXPECT_EQ(ComponentName(Component::kLoadWatcher), "loadwatcher");
  EXPECT_EQ(Log(Component::kProvider).name(), "provider");
}

TEST(LoggingTest, PerComponentLevels) {
  SetVerbosity(0);
  EXPECT_THAT(SetComponentLevels("queue=debug,provider=trace"), IsOk());
  EXPECT_EQ(Log(Component::kQueue).level(), spdlog::level::debug);
  EXPECT_EQ(Log(Component::kProvider).level(), spdlog::level::trace);
  EXPECT_EQ(Log(Component::kCache).level(), spdlog::level::info);
  EXPECT_THAT(SetComponentLevels("nosuch=debug"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nosuch")));
  EXPECT_THAT(SetComponentLevels("queue=loud"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("loud")));
  EXPECT_THAT(SetComponentLevels("queue"), StatusIs(absl::StatusCode::kInvalidArgument));
  SetVerbosity(0);
}

TEST(LoggingTest, MessageFormatIsKlogLike) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("queue", sink);
  logger.set_pattern("%L%m%d %H:%M:%S.%f %t %n] %v");
  logger.warn("pod requeued pod={}", "default/p");
  EXPECT_THAT(out.str(), ::testing::StartsWith("W"));
  EXPECT_THAT(out.str(), HasSubstr(" queue] pod requeued pod=default/p"));
}

TEST(LoggingTest, JsonLinesWithKubeFieldNames) {
  EXPECT_EQ(FormatJsonLogLine(1764180000.5, 2, "", "binder",
                              "Successfully bound pod to node pod=default/web-1 node=node-3 "
                              "evaluatedNodes=5 feasibleNodes=3"),
            "{\"ts\":1764180000.500000,\"v\":2,\"logger\":\"binder\",\"msg\":\"Successfully "
            "bound pod to node\",\"pod\":\"default/web-1\",\"node\":\"node-3\","
            "\"evaluatedNodes\":\"5\",\"feasibleNodes\":\"3\"}");
  // Quoted values and values with spaces; escapes; a message without pairs.
  EXPECT_EQ(FormatJsonLogLine(1, 0, "warning", "kube", "watch failed err=\"a \\\"b\\\" c\" n=1"),
            "{\"ts\":1.000000,\"v\":0,\"severity\":\"warning\",\"logger\":\"kube\","
            "\"msg\":\"watch failed\",\"err\":\"a \\\\\\\"b\\\\\\\" c\",\"n\":\"1\"}");
  EXPECT_EQ(FormatJsonLogLine(1, 0, "", "main", "line\nbreak"),
            "{\"ts\":1.000000,\"v\":0,\"logger\":\"main\",\"msg\":\"line\\nbreak\"}");
  // A word with '=' inside the prose is not a key only when it does not look like one.
  EXPECT_EQ(FormatJsonLogLine(1, 0, "", "main", "1+1=2 ok"),
            "{\"ts\":1.000000,\"v\":0,\"logger\":\"main\",\"msg\":\"1+1=2 ok\"}");
}

TEST(LoggingTest, SetLoggingFormat) {
  EXPECT_THAT(SetLoggingFormat("json"), IsOk());
  EXPECT_THAT(SetLoggingFormat("text"), IsOk());
  EXPECT_THAT(SetLoggingFormat("xml"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("text or json")));
}

TEST(CheckTest, BugCountsAndContinues) {
  uint64_t before = BugCount();
  TRIMARAN_BUG("impossible state in test");
  EXPECT_EQ(BugCount(), before + 1);
}

TEST(CheckDeathTest, CheckAbortsWithMessage) {
  EXPECT_DEATH(TRIMARAN_CHECK(1 + 1 == 3) << "arithmetic broke", "check failed: 1 \\+ 1 == 3");
}

}  // namespace
}  // namespace trimaran
