#include "scheduler/plugins/volume_binding/assume_cache.h"

#include "gtest/gtest.h"
#include "kube/testing/storage_wrappers.h"
#include "scheduler/backend/cache/storage_store.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeClaim;
using kube::testing::MakePv;

TEST(AssumeCacheTest, AssumedCopyWinsUntilTheApiIsNewer) {
  StorageStore store;
  kube::PersistentVolumeClaim c = MakeClaim("ns", "c").Obj();
  c.metadata.resource_version = "5";
  store.Apply(c);
  AssumeCache cache(store);

  kube::PersistentVolumeClaim assumed = c;
  assumed.metadata.annotations["volume.kubernetes.io/selected-node"] = "n1";
  ASSERT_TRUE(cache.AssumeClaim(assumed).ok());
  EXPECT_EQ(cache.GetClaim("ns", "c")->metadata.annotations.size(), 1u);
  EXPECT_TRUE(cache.GetApiClaim("ns", "c")->metadata.annotations.empty());

  // The same version again from the informer (a resync): the assumption stays.
  store.Apply(c);
  EXPECT_EQ(cache.GetClaim("ns", "c")->metadata.annotations.size(), 1u);
  // A newer one: the API caught up, the informer's object is returned.
  kube::PersistentVolumeClaim newer = c;
  newer.metadata.resource_version = "6";
  store.Apply(newer);
  EXPECT_EQ(cache.GetClaim("ns", "c")->metadata.resource_version, "6");
  EXPECT_TRUE(cache.GetClaim("ns", "c")->metadata.annotations.empty());

  // Assuming an older version than the stored one fails.
  EXPECT_EQ(cache.AssumeClaim(assumed).code(), absl::StatusCode::kAborted);
  // Assuming an unknown claim fails.
  EXPECT_EQ(cache.AssumeClaim(MakeClaim("ns", "other").Obj()).code(), absl::StatusCode::kNotFound);
}

TEST(AssumeCacheTest, RestoreAndVolumesOfClass) {
  StorageStore store;
  store.Apply(MakePv("pv-a").Class("fast").Obj());
  store.Apply(MakePv("pv-b").Class("slow").Obj());
  store.Apply(MakePv("pv-c").Class("fast").Obj());
  AssumeCache cache(store);
  kube::PersistentVolume moved = MakePv("pv-b").Class("fast").Obj();
  ASSERT_TRUE(cache.AssumeVolume(moved).ok());
  std::vector<std::string> names;
  for (const auto& pv : cache.VolumesOfClass("fast")) names.push_back(pv->metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pv-a", "pv-b", "pv-c"}));
  cache.RestoreVolume("pv-b");
  names.clear();
  for (const auto& pv : cache.VolumesOfClass("fast")) names.push_back(pv->metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pv-a", "pv-c"}));
  EXPECT_EQ(cache.AssumeVolume(MakePv("pv-x").Obj()).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trimaran::sched::plugins
