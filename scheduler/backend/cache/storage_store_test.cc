#include "scheduler/backend/cache/storage_store.h"

#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

kube::PersistentVolumeClaim Claim(std::string ns, std::string name, std::string rv) {
  kube::PersistentVolumeClaim c;
  c.metadata.namespace_name = std::move(ns);
  c.metadata.name = std::move(name);
  c.metadata.resource_version = std::move(rv);
  return c;
}

TEST(StorageStoreTest, KeepsEachKindApartAndClaimsPerNamespace) {
  StorageStore store;
  kube::PersistentVolume pv;
  pv.metadata.name = "same";
  store.Apply(pv);
  kube::StorageClass sc;
  sc.metadata.name = "same";
  sc.provisioner = "p";
  store.Apply(sc);
  store.Apply(Claim("a", "same", "1"));
  store.Apply(Claim("b", "same", "2"));

  ASSERT_NE(store.GetPersistentVolume("same"), nullptr);
  ASSERT_NE(store.GetStorageClass("same"), nullptr);
  EXPECT_EQ(store.GetStorageClass("same")->provisioner, "p");
  EXPECT_EQ(store.GetCSINode("same"), nullptr);
  EXPECT_EQ(store.GetPersistentVolumeClaim("a", "same")->metadata.resource_version, "1");
  EXPECT_EQ(store.GetPersistentVolumeClaim("b", "same")->metadata.resource_version, "2");
  EXPECT_EQ(store.GetPersistentVolumeClaim("c", "same"), nullptr);
  EXPECT_EQ(store.Size(kube::StorageResource::kPersistentVolumeClaims), 2u);

  // Update replaces; a reader keeps its old copy alive.
  auto old = store.GetPersistentVolumeClaim("a", "same");
  store.Apply(Claim("a", "same", "3"));
  EXPECT_EQ(old->metadata.resource_version, "1");
  EXPECT_EQ(store.GetPersistentVolumeClaim("a", "same")->metadata.resource_version, "3");

  store.Remove(kube::StorageObject::Make(Claim("a", "same", "4")));
  EXPECT_EQ(store.GetPersistentVolumeClaim("a", "same"), nullptr);
  store.Remove(kube::StorageObject::Make(Claim("a", "absent", "4")));  // no-op
  EXPECT_EQ(store.Size(kube::StorageResource::kPersistentVolumeClaims), 1u);
}

TEST(StorageStoreTest, ListsVolumesInNameOrder) {
  StorageStore store;
  for (const char* name : {"pv-c", "pv-a", "pv-b"}) {
    kube::PersistentVolume pv;
    pv.metadata.name = name;
    store.Apply(pv);
  }
  std::vector<std::string> names;
  for (const auto& pv : store.ListPersistentVolumes()) names.push_back(pv->metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pv-a", "pv-b", "pv-c"}));
}

TEST(StorageStoreTest, CsiDriversCapacitiesAndCapacityTracking) {
  StorageStore store;
  kube::CSIDriver driver;
  driver.metadata.name = "ebs.csi.aws.com";
  driver.storage_capacity = true;
  store.Apply(driver);
  for (const char* ns : {"kube-system", "csi"}) {
    kube::CSIStorageCapacity c;
    c.metadata.namespace_name = ns;
    c.metadata.name = "cap";
    c.storage_class_name = "gp3";
    store.Apply(c);
  }
  ASSERT_NE(store.GetCSIDriver("ebs.csi.aws.com"), nullptr);
  EXPECT_EQ(store.GetCSIDriver("ebs.csi.aws.com")->storage_capacity, true);
  EXPECT_EQ(store.GetCSIDriver("other"), nullptr);
  std::vector<std::string> keys;
  for (const auto& c : store.ListCSIStorageCapacities()) {
    keys.push_back(c->metadata.namespace_name + "/" + c->metadata.name);
  }
  // Namespaced: two objects of the same name, in namespace/name order.
  EXPECT_EQ(keys, (std::vector<std::string>{"csi/cap", "kube-system/cap"}));
  EXPECT_EQ(store.Size(kube::StorageResource::kCSIStorageCapacities), 2u);
  EXPECT_TRUE(store.CapacityTracking());
  store.SetCapacityTracking(false);
  EXPECT_FALSE(store.CapacityTracking());
}

}  // namespace
}  // namespace trimaran::sched
