#include "scheduler/metrics_availability_events.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched {
namespace {

using ::trimaran::sched::testing::FakeEventRecorder;
using ::trimaran::sched::testing::RecordedEvent;

std::optional<kube::Pod> FromEnv(const std::map<std::string, std::string>& env) {
  return SelfPodFromEnvironment([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(SelfPodFromEnvironmentTest, NeedsTheNameAndTheNamespace) {
  std::optional<kube::Pod> self = FromEnv({{"POD_NAME", "trimaran-scheduler-7d9f-abcde"},
                                           {"POD_NAMESPACE", "trimaran"},
                                           {"POD_UID", "u-1"}});
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->metadata.name, "trimaran-scheduler-7d9f-abcde");
  EXPECT_EQ(self->metadata.namespace_name, "trimaran");
  EXPECT_EQ(self->metadata.uid, "u-1");
  EXPECT_FALSE(FromEnv({{"POD_NAME", "x"}}).has_value());
  EXPECT_FALSE(FromEnv({{"POD_NAMESPACE", "trimaran"}}).has_value());
  EXPECT_FALSE(FromEnv({{"POD_NAME", ""}, {"POD_NAMESPACE", "trimaran"}}).has_value());
  EXPECT_TRUE(FromEnv({{"POD_NAME", "x"}, {"POD_NAMESPACE", "y"}}).has_value());  // no uid
}

TEST(MetricsAvailabilityEventsTest, EachChangeIsAnEventOnTheSchedulersPod) {
  FakeEventRecorder recorder;
  kube::Pod self;
  self.metadata.name = "sched-0";
  self.metadata.namespace_name = "trimaran";
  MetricsAvailabilityEvents events(recorder, self);
  events.MetricsUnavailable("TargetLoadPacking", "watcherAddress http://127.0.0.1:2020",
                            "no metrics have arrived from it");
  events.MetricsAvailable("TargetLoadPacking", "watcherAddress http://127.0.0.1:2020");
  EXPECT_THAT(
      recorder.Events(),
      ::testing::ElementsAre(
          RecordedEvent{.regarding = "trimaran/sched-0",
                        .type = EventType::kWarning,
                        .reason = "LoadMetricsUnavailable",
                        .action = "Scheduling",
                        .note = "TargetLoadPacking cannot use the load metrics of watcherAddress "
                                "http://127.0.0.1:2020: no metrics have arrived from it"},
          RecordedEvent{.regarding = "trimaran/sched-0",
                        .type = EventType::kNormal,
                        .reason = "LoadMetricsAvailable",
                        .action = "Scheduling",
                        .note = "TargetLoadPacking uses the load metrics of watcherAddress "
                                "http://127.0.0.1:2020 again"}));
}

TEST(MetricsAvailabilityEventsTest, WithoutAPodOnlyLogs) {
  FakeEventRecorder recorder;
  MetricsAvailabilityEvents events(recorder, std::nullopt);
  events.MetricsUnavailable("P", "s", "why");
  events.MetricsAvailable("P", "s");
  EXPECT_THAT(recorder.Events(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace trimaran::sched
