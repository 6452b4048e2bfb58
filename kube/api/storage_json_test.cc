#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/storage.h"

namespace trimaran::kube {
namespace {

TEST(StorageJsonTest, PodVolumesDecodeEverySourceTheSchedulerReads) {
  absl::StatusOr<Pod> pod = DecodePod(R"({"metadata":{"name":"p","namespace":"ns"},
    "spec":{"containers":[{"name":"c"}],"volumes":[
      {"name":"data","persistentVolumeClaim":{"claimName":"claim-a","readOnly":true}},
      {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},
      {"name":"gce","gcePersistentDisk":{"pdName":"disk-1","readOnly":true}},
      {"name":"ebs","awsElasticBlockStore":{"volumeID":"vol-1"}},
      {"name":"az","azureDisk":{"diskName":"d","diskURI":"uri"}},
      {"name":"isc","iscsi":{"targetPortal":"1.2.3.4:3260","iqn":"iqn.x","lun":2}},
      {"name":"rbd","rbd":{"monitors":["a","b"],"image":"img","pool":"p"}},
      {"name":"inline","csi":{"driver":"ebs.csi.aws.com"}},
      {"name":"cfg","configMap":{"name":"x"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  const std::vector<Volume>& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 9u);
  ASSERT_TRUE(v[0].persistent_volume_claim);
  EXPECT_EQ(v[0].persistent_volume_claim->claim_name, "claim-a");
  EXPECT_TRUE(v[0].persistent_volume_claim->read_only);
  EXPECT_TRUE(v[1].ephemeral);
  ASSERT_TRUE(v[2].gce_persistent_disk);
  EXPECT_EQ(v[2].gce_persistent_disk->pd_name, "disk-1");
  EXPECT_TRUE(v[2].gce_persistent_disk->read_only);
  ASSERT_TRUE(v[3].aws_elastic_block_store);
  EXPECT_EQ(v[3].aws_elastic_block_store->volume_id, "vol-1");
  ASSERT_TRUE(v[4].azure_disk);
  EXPECT_EQ(v[4].azure_disk->disk_name, "d");
  ASSERT_TRUE(v[5].iscsi);
  EXPECT_EQ(v[5].iscsi->iqn, "iqn.x");
  EXPECT_EQ(v[5].iscsi->lun, 2);
  ASSERT_TRUE(v[6].rbd);
  EXPECT_THAT(v[6].rbd->monitors, ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(v[6].rbd->pool, "p");
  ASSERT_TRUE(v[7].csi);
  EXPECT_EQ(v[7].csi->driver, "ebs.csi.aws.com");
  EXPECT_EQ(v[8], Volume{.name = "cfg"});

  // Round trip through the encoder (what CreatePod sends).
  absl::StatusOr<Pod> again = DecodePod(EncodePod(*pod));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->spec.volumes, pod->spec.volumes);
}

TEST(StorageJsonTest, PodVolumeOfTheWrongTypeFailsThePodNamingThePath) {
  absl::StatusOr<Pod> pod = DecodePod(
      R"({"metadata":{"name":"p"},"spec":{"volumes":[{"name":"x","persistentVolumeClaim":{"claimName":7}}]}})");
  ASSERT_FALSE(pod.ok());
  EXPECT_THAT(std::string(pod.status().message()),
              ::testing::HasSubstr("spec.volumes[0].persistentVolumeClaim.claimName"));
}

TEST(StorageJsonTest, PersistentVolumeListDecodesItemsWithoutKind) {
  absl::StatusOr<StorageObjectList> list = DecodeStorageObjectList(
      R"({"kind":"PersistentVolumeList","metadata":{"resourceVersion":"12"},"items":[
        {"metadata":{"name":"pv-a","resourceVersion":"10",
           "annotations":{"volume.beta.kubernetes.io/storage-class":"beta"}},
         "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],
           "claimRef":{"namespace":"ns","name":"c","uid":"u1"},"storageClassName":"sc",
           "volumeMode":"Block",
           "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
             {"key":"kubernetes.io/hostname","operator":"In","values":["n1"]}]}]}},
           "csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-9"}},
         "status":{"phase":"Bound"}},
        {"metadata":{"name":"bad"},"spec":{"capacity":{"storage":"lots"}}},
        {"metadata":{"name":"pv-b"},"spec":{"awsElasticBlockStore":{"volumeID":"vol-2"}}}]})",
      StorageResource::kPersistentVolumes);
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->metadata.resource_version, "12");
  ASSERT_EQ(list->items.size(), 2u);
  ASSERT_EQ(list->skipped.size(), 1u);
  EXPECT_EQ(list->skipped[0].name, "bad");
  const StorageObject& a = list->items[0];
  EXPECT_EQ(a.resource(), StorageResource::kPersistentVolumes);
  EXPECT_EQ(a.metadata.name, "pv-a");
  EXPECT_EQ(a.metadata.resource_version, "10");
  const auto& pv = std::get<PersistentVolume>(a.object);
  ASSERT_TRUE(pv.spec.capacity);
  EXPECT_EQ(pv.spec.capacity->Value(), int64_t{10} << 30);
  EXPECT_THAT(pv.spec.access_modes, ::testing::ElementsAre("ReadWriteOnce"));
  ASSERT_TRUE(pv.spec.claim_ref);
  EXPECT_EQ(pv.spec.claim_ref->name, "c");
  EXPECT_EQ(pv.spec.claim_ref->uid, "u1");
  EXPECT_EQ(VolumeClass(pv), "beta");  // the annotation wins
  EXPECT_EQ(pv.spec.volume_mode, "Block");
  ASSERT_TRUE(pv.spec.node_affinity);
  EXPECT_EQ(pv.spec.node_affinity->node_selector_terms[0].match_expressions[0].values[0], "n1");
  ASSERT_TRUE(pv.spec.csi);
  EXPECT_EQ(pv.spec.csi->volume_handle, "vol-9");
  EXPECT_EQ(pv.phase, "Bound");
  const auto& b = std::get<PersistentVolume>(list->items[1].object);
  ASSERT_TRUE(b.spec.aws_elastic_block_store);
  EXPECT_EQ(b.spec.aws_elastic_block_store->volume_id, "vol-2");
  EXPECT_FALSE(b.spec.node_affinity);
}

TEST(StorageJsonTest, ClaimClassAndRequest) {
  absl::StatusOr<StorageObject> o = DecodeStorageObject(
      R"({"metadata":{"name":"c","namespace":"ns","annotations":{"volume.kubernetes.io/selected-node":"n1"}},
          "spec":{"accessModes":["ReadWriteOncePod"],"storageClassName":"wait",
                  "resources":{"requests":{"storage":"5Gi"}},"volumeName":"",
                  "selector":{"matchLabels":{"a":"b"}}},
          "status":{"phase":"Pending"}})",
      StorageResource::kPersistentVolumeClaims);
  ASSERT_TRUE(o.ok()) << o.status();
  const auto& c = std::get<PersistentVolumeClaim>(o->object);
  EXPECT_EQ(o->metadata.namespace_name, "ns");
  EXPECT_EQ(ClaimClass(c), "wait");
  EXPECT_EQ(ClaimRequestBytes(c), int64_t{5} << 30);
  ASSERT_TRUE(c.spec.selector);
  EXPECT_EQ(c.spec.selector->match_labels.at("a"), "b");
  EXPECT_EQ(c.phase, "Pending");
  PersistentVolumeClaim no_class;
  EXPECT_EQ(ClaimClass(no_class), "");
  EXPECT_EQ(ClaimRequestBytes(no_class), 0);
}

TEST(StorageJsonTest, StorageClassAndCsiNodeWatchEventsDecodeByKind) {
  absl::StatusOr<WatchEvent<StorageObject>> sc = DecodeStorageObjectWatchEvent(
      R"({"type":"ADDED","object":{"kind":"StorageClass","apiVersion":"storage.k8s.io/v1",
          "metadata":{"name":"wait","resourceVersion":"5"},"provisioner":"ebs.csi.aws.com",
          "volumeBindingMode":"WaitForFirstConsumer",
          "allowedTopologies":[{"matchLabelExpressions":[
            {"key":"topology.kubernetes.io/zone","values":["z1","z2"]}]}]}})",
      StorageResource::kStorageClasses);
  ASSERT_TRUE(sc.ok()) << sc.status();
  ASSERT_FALSE(sc->undecodable);
  const auto& cls = std::get<StorageClass>(sc->object.object);
  EXPECT_EQ(sc->object.metadata.resource_version, "5");
  EXPECT_EQ(cls.provisioner, "ebs.csi.aws.com");
  EXPECT_EQ(cls.volume_binding_mode, "WaitForFirstConsumer");
  ASSERT_EQ(cls.allowed_topologies.size(), 1u);
  EXPECT_THAT(cls.allowed_topologies[0].match_label_expressions[0].values,
              ::testing::ElementsAre("z1", "z2"));

  absl::StatusOr<WatchEvent<StorageObject>> node = DecodeStorageObjectWatchEvent(
      R"({"type":"MODIFIED","object":{"kind":"CSINode","metadata":{"name":"n1",
          "annotations":{"storage.alpha.kubernetes.io/migrated-plugins":"kubernetes.io/aws-ebs"}},
          "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":39}},
                             {"name":"other","nodeID":"x"}]}}})",
      StorageResource::kCSINodes);
  ASSERT_TRUE(node.ok()) << node.status();
  const auto& csi = std::get<CSINode>(node->object.object);
  ASSERT_EQ(csi.drivers.size(), 2u);
  EXPECT_EQ(csi.drivers[0].allocatable_count, 39);
  EXPECT_EQ(csi.drivers[1].allocatable_count, std::nullopt);

  // An object that does not decode is reported, with its name, not fatal.
  absl::StatusOr<WatchEvent<StorageObject>> bad = DecodeStorageObjectWatchEvent(
      R"({"type":"MODIFIED","object":{"kind":"CSINode","metadata":{"name":"n2"},
          "spec":{"drivers":{"name":"x"}}}})",
      StorageResource::kCSINodes);
  ASSERT_TRUE(bad.ok()) << bad.status();
  ASSERT_TRUE(bad->undecodable);
  EXPECT_EQ(bad->object.metadata.name, "n2");
}

TEST(StorageJsonTest, CsiDriverAndStorageCapacityDecode) {
  absl::StatusOr<StorageObjectList> drivers = DecodeStorageObjectList(
      R"({"kind":"CSIDriverList","items":[
        {"metadata":{"name":"ebs.csi.aws.com"},"spec":{"attachRequired":true,
          "storageCapacity":true}},
        {"metadata":{"name":"plain"},"spec":{}}]})",
      StorageResource::kCSIDrivers);
  ASSERT_TRUE(drivers.ok()) << drivers.status();
  ASSERT_EQ(drivers->items.size(), 2u);
  EXPECT_EQ(drivers->items[0].resource(), StorageResource::kCSIDrivers);
  EXPECT_EQ(std::get<CSIDriver>(drivers->items[0].object).storage_capacity, true);
  EXPECT_EQ(std::get<CSIDriver>(drivers->items[1].object).storage_capacity, std::nullopt);

  // v1beta1 objects are the same type (and resource) as v1 ones.
  absl::StatusOr<WatchEvent<StorageObject>> cap = DecodeStorageObjectWatchEvent(
      R"({"type":"ADDED","object":{"kind":"CSIStorageCapacity",
          "apiVersion":"storage.k8s.io/v1beta1",
          "metadata":{"namespace":"kube-system","name":"csisc-1","resourceVersion":"7"},
          "storageClassName":"wait","capacity":"100Gi","maximumVolumeSize":"20Gi",
          "nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"z1"}}}})",
      StorageResource::kCSIStorageCapacitiesV1beta1);
  ASSERT_TRUE(cap.ok()) << cap.status();
  ASSERT_FALSE(cap->undecodable);
  EXPECT_EQ(cap->object.resource(), StorageResource::kCSIStorageCapacities);
  const auto& c = std::get<CSIStorageCapacity>(cap->object.object);
  EXPECT_EQ(cap->object.metadata.namespace_name, "kube-system");
  EXPECT_EQ(c.storage_class_name, "wait");
  ASSERT_TRUE(c.node_topology);
  EXPECT_EQ(c.node_topology->match_labels.at("topology.kubernetes.io/zone"), "z1");
  EXPECT_EQ(CapacityLimit(c)->Value(), int64_t{20} << 30);
  CSIStorageCapacity no_max = c;
  no_max.maximum_volume_size.reset();
  EXPECT_EQ(CapacityLimit(no_max)->Value(), int64_t{100} << 30);
  no_max.capacity.reset();
  EXPECT_EQ(CapacityLimit(no_max), std::nullopt);

  // Wrong JSON type: reported, not fatal.
  absl::StatusOr<WatchEvent<StorageObject>> bad = DecodeStorageObjectWatchEvent(
      R"({"type":"ADDED","object":{"kind":"CSIStorageCapacity","metadata":{"name":"x"},
          "storageClassName":["wait"]}})",
      StorageResource::kCSIStorageCapacities);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_TRUE(bad->undecodable);

  EXPECT_EQ(CollectionPath(StorageResource::kCSIStorageCapacitiesV1beta1),
            "/apis/storage.k8s.io/v1beta1/csistoragecapacities");
  EXPECT_TRUE(IsNamespaced(StorageResource::kCSIStorageCapacities));
  EXPECT_FALSE(IsNamespaced(StorageResource::kCSIDrivers));
}

}  // namespace
}  // namespace trimaran::kube
