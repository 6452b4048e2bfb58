#include "scheduler/plugins/node_volume_limits/csi_translation.h"

#include "gtest/gtest.h"
#include "kube/testing/storage_wrappers.h"

namespace trimaran::sched::plugins {
namespace {

TEST(CsiTranslationTest, LimitKeys) {
  EXPECT_EQ(VolumeLimitKey("ebs.csi.aws.com"), "attachable-volumes-csi-ebs.csi.aws.com");
  // 23 + 39 = 62 characters: kept whole.
  const std::string d39(39, 'd');
  EXPECT_EQ(VolumeLimitKey(d39), "attachable-volumes-csi-" + d39);
  // 63 or more: prefix + 23 characters + 16 hex digits of SHA-1 (sha1("d"*40) starts
  // with 4e99f0e6374ba7bf...; computed independently with sha1sum).
  const std::string d40(40, 'd');
  const std::string key = VolumeLimitKey(d40);
  EXPECT_EQ(key.size(), 23u + 23u + 16u);
  EXPECT_EQ(key, "attachable-volumes-csi-" + std::string(23, 'd') + "4e99f0e6374ba7bf");
  EXPECT_NE(VolumeLimitKey(d40 + "x"), key);
}

TEST(CsiTranslationTest, InTreeSourcesMigrate) {
  EXPECT_EQ(CsiDriverForInTreePlugin("kubernetes.io/aws-ebs"), "ebs.csi.aws.com");
  EXPECT_EQ(CsiDriverForInTreePlugin("kubernetes.io/gce-pd"), "pd.csi.storage.gke.io");
  EXPECT_EQ(CsiDriverForInTreePlugin("kubernetes.io/azure-disk"), "disk.csi.azure.com");
  EXPECT_EQ(CsiDriverForInTreePlugin("kubernetes.io/cinder"), "cinder.csi.openstack.org");
  EXPECT_EQ(CsiDriverForInTreePlugin("ebs.csi.aws.com"), "");

  EXPECT_EQ(CsiVolumeOf(kube::testing::MakePv("a").Ebs("aws://us-east-1a/vol-1").Obj()),
            (CsiVolumeId{"ebs.csi.aws.com", "vol-1"}));
  EXPECT_EQ(CsiVolumeOf(kube::testing::MakePv("b").Csi("x.csi", "h1").Obj()),
            (CsiVolumeId{"x.csi", "h1"}));
  EXPECT_EQ(CsiVolumeOf(kube::testing::MakePv("c").Obj()), std::nullopt);
  kube::Volume gce;
  gce.gce_persistent_disk = kube::GCEPersistentDiskVolumeSource{.pd_name = "disk"};
  EXPECT_EQ(CsiVolumeOfInline(gce), (CsiVolumeId{"pd.csi.storage.gke.io", "disk"}));
  kube::Volume claim;
  claim.persistent_volume_claim = kube::PersistentVolumeClaimVolumeSource{.claim_name = "c"};
  EXPECT_EQ(CsiVolumeOfInline(claim), std::nullopt);
}

}  // namespace
}  // namespace trimaran::sched::plugins
