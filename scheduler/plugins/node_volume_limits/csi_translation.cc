#include "scheduler/plugins/node_volume_limits/csi_translation.h"

#include <openssl/sha.h>

#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins {
namespace {

constexpr std::string_view kEbsDriver = "ebs.csi.aws.com";
constexpr std::string_view kGceDriver = "pd.csi.storage.gke.io";
constexpr std::string_view kAzureDriver = "disk.csi.azure.com";
constexpr std::string_view kCinderDriver = "cinder.csi.openstack.org";

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// EBS volume IDs may be written "aws://<zone>/vol-..."; the CSI handle is "vol-...".
std::string EbsHandle(const std::string& volume_id) {
  const size_t slash = volume_id.rfind('/');
  return slash == std::string::npos ? volume_id : volume_id.substr(slash + 1);
}

template <typename S>
std::optional<CsiVolumeId> InTree(const S& source) {
  if (source.aws_elastic_block_store) {
    return CsiVolumeId{std::string(kEbsDriver),
                       EbsHandle(source.aws_elastic_block_store->volume_id)};
  }
  if (source.gce_persistent_disk) {
    return CsiVolumeId{std::string(kGceDriver), source.gce_persistent_disk->pd_name};
  }
  if (source.azure_disk) {
    return CsiVolumeId{std::string(kAzureDriver), source.azure_disk->data_disk_uri.empty()
                                                      ? source.azure_disk->disk_name
                                                      : source.azure_disk->data_disk_uri};
  }
  if (source.cinder) return CsiVolumeId{std::string(kCinderDriver), source.cinder->volume_id};
  return std::nullopt;
}

}  // namespace

std::string_view CsiDriverForInTreePlugin(std::string_view plugin) {
  if (plugin == "kubernetes.io/aws-ebs") return kEbsDriver;
  if (plugin == "kubernetes.io/gce-pd") return kGceDriver;
  if (plugin == "kubernetes.io/azure-disk") return kAzureDriver;
  if (plugin == "kubernetes.io/cinder") return kCinderDriver;
  return "";
}

std::optional<CsiVolumeId> CsiVolumeOf(const kube::PersistentVolume& pv) {
  if (pv.spec.csi) return CsiVolumeId{pv.spec.csi->driver, pv.spec.csi->volume_handle};
  return InTree(pv.spec);
}

std::optional<CsiVolumeId> CsiVolumeOfInline(const kube::Volume& volume) { return InTree(volume); }

std::string VolumeLimitKey(std::string_view driver) {
  constexpr std::string_view kPrefix = "attachable-volumes-csi-";
  std::string key = absl::StrCat(Absl(kPrefix), Absl(driver));
  if (key.size() < 63) return key;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(driver.data()), driver.size(), digest);
  const std::string hex = absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
  return absl::StrCat(Absl(kPrefix), Absl(driver.substr(0, 23)), hex.substr(0, 16));
}

}  // namespace trimaran::sched::plugins
