#include "scheduler/plugins/helper/pod_claims.h"

#include "gtest/gtest.h"

namespace trimaran::sched::plugins::helper {
namespace {

kube::Pod PodWithVolumes() {
  kube::Pod pod;
  pod.metadata.namespace_name = "ns";
  pod.metadata.name = "p";
  kube::Volume claim;
  claim.name = "data";
  claim.persistent_volume_claim = kube::PersistentVolumeClaimVolumeSource{.claim_name = "c1"};
  kube::Volume scratch;
  scratch.name = "scratch";
  scratch.ephemeral = true;
  pod.spec.volumes = {claim, scratch};
  return pod;
}

kube::PersistentVolumeClaim Claim(std::string ns, std::string name) {
  kube::PersistentVolumeClaim c;
  c.metadata.namespace_name = std::move(ns);
  c.metadata.name = std::move(name);
  return c;
}

TEST(PodClaimsTest, ClaimVolumesAndEphemeralNamesInTheSameNamespace) {
  const kube::Pod pod = PodWithVolumes();
  EXPECT_EQ(ClaimNameOf(pod, pod.spec.volumes[0]), "c1");
  EXPECT_EQ(ClaimNameOf(pod, pod.spec.volumes[1]), "p-scratch");
  EXPECT_EQ(ClaimNameOf(pod, kube::Volume{}), "");
  EXPECT_TRUE(PodUsesClaim(pod, Claim("ns", "c1")));
  EXPECT_TRUE(PodUsesClaim(pod, Claim("ns", "p-scratch")));
  EXPECT_FALSE(PodUsesClaim(pod, Claim("ns", "p-scratch"), /*include_ephemeral=*/false));
  EXPECT_FALSE(PodUsesClaim(pod, Claim("other", "c1")));
  EXPECT_FALSE(PodUsesClaim(pod, Claim("ns", "c2")));
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
