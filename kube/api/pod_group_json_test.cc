#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_group.h"

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;

constexpr char kPodGroup[] = R"({
  "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
  "metadata": {"name": "spark-1", "namespace": "jobs", "uid": "u1", "resourceVersion": "7",
               "creationTimestamp": "2026-11-26T10:00:00Z"},
  "spec": {"minMember": 8, "minResources": {"cpu": "4", "memory": "8Gi"},
           "scheduleTimeoutSeconds": 30},
  "status": {"phase": "Scheduling", "occupiedBy": "jobs/spark", "scheduled": 3, "running": 2,
             "succeeded": 1, "failed": 0, "scheduleStartTime": "2026-11-26T10:00:05Z"}
})";

TEST(PodGroupJsonTest, DecodesEveryField) {
  absl::StatusOr<PodGroup> pg = DecodePodGroup(kPodGroup);
  ASSERT_TRUE(pg.ok()) << pg.status();
  EXPECT_EQ(pg->metadata.name, "spark-1");
  EXPECT_EQ(pg->metadata.namespace_name, "jobs");
  EXPECT_EQ(pg->spec.min_member, 8);
  ASSERT_TRUE(pg->spec.min_resources.has_value());
  EXPECT_EQ(pg->spec.min_resources->at("cpu").MilliValue(), 4000);
  EXPECT_EQ(pg->spec.schedule_timeout_seconds, 30);
  EXPECT_EQ(pg->status.phase, PodGroupPhase::kScheduling);
  EXPECT_EQ(pg->status.occupied_by, "jobs/spark");
  EXPECT_EQ(pg->status.scheduled, 3);
  EXPECT_EQ(pg->status.running, 2);
  EXPECT_EQ(pg->status.succeeded, 1);
  EXPECT_EQ(pg->status.schedule_start_time, absl::FromUnixSeconds(1795687205));
}

TEST(PodGroupJsonTest, RoundTrips) {
  absl::StatusOr<PodGroup> pg = DecodePodGroup(kPodGroup);
  ASSERT_TRUE(pg.ok()) << pg.status();
  absl::StatusOr<PodGroup> again = DecodePodGroup(EncodePodGroup(*pg));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *pg);
}

TEST(PodGroupJsonTest, UnknownPhaseIsUnrecognizedNotAnError) {
  absl::StatusOr<PodGroup> pg =
      DecodePodGroup(R"({"metadata": {"name": "a"}, "status": {"phase": "Exploded"}})");
  ASSERT_TRUE(pg.ok()) << pg.status();
  EXPECT_EQ(pg->status.phase, PodGroupPhase::kUnrecognized);
  EXPECT_EQ(pg->spec.min_member, 0);
}

TEST(PodGroupJsonTest, WrongTypeNamesTheField) {
  absl::StatusOr<PodGroup> pg = DecodePodGroup(R"({"spec": {"minMember": "eight"}})");
  ASSERT_FALSE(pg.ok());
  EXPECT_THAT(pg.status().message(), HasSubstr("spec.minMember"));
}

TEST(PodGroupJsonTest, ListSkipsBadItems) {
  absl::StatusOr<PodGroupList> list = DecodePodGroupList(
      R"({"kind": "PodGroupList", "metadata": {"resourceVersion": "9"},
          "items": [{"metadata": {"name": "a"}, "spec": {"minMember": 2}},
                    {"metadata": {"name": "b"}, "spec": {"minMember": []}}]})");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].metadata.name, "a");
  ASSERT_EQ(list->skipped.size(), 1u);
  EXPECT_EQ(list->skipped[0].name, "b");
}

TEST(PodGroupJsonTest, WatchEventAndStatusPatch) {
  absl::StatusOr<WatchEvent<PodGroup>> ev = DecodePodGroupWatchEvent(
      R"({"type": "MODIFIED", "object": {"metadata": {"name": "a"}, "spec": {"minMember": 3}}})");
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->object.spec.min_member, 3);

  PodGroupStatus status;
  status.phase = PodGroupPhase::kScheduled;
  status.scheduled = 8;
  const std::string patch = EncodePodGroupStatusPatch(status);
  EXPECT_THAT(patch, HasSubstr(R"("status":{"phase":"Scheduled","occupiedBy":null,"scheduled":8)"));
}

TEST(PodGroupTest, LabelNames) {
  Pod pod;
  pod.metadata.namespace_name = "jobs";
  EXPECT_EQ(PodGroupFullNameOf(pod), "");
  pod.metadata.labels[std::string(kPodGroupLabel)] = "spark-1";
  EXPECT_EQ(PodGroupNameOf(pod), "spark-1");
  EXPECT_EQ(PodGroupFullNameOf(pod), "jobs/spark-1");
}

}  // namespace
}  // namespace trimaran::kube
