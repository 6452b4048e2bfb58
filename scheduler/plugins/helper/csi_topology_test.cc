#include "scheduler/plugins/helper/csi_topology.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/testing/storage_wrappers.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::testing::MakePv;

constexpr char kGceKey[] = "topology.gke.io/zone";
constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";

// The (key, values) of every requirement of every term, in order.
std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> Terms(
    const kube::PersistentVolume& pv) {
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> out;
  if (!pv.spec.node_affinity) return out;
  for (const kube::NodeSelectorTerm& t : pv.spec.node_affinity->node_selector_terms) {
    auto& term = out.emplace_back();
    for (const kube::NodeSelectorRequirement& r : t.match_expressions) {
      term.emplace_back(r.key, r.values);
    }
  }
  return out;
}

TEST(CsiTopologyTest, PluginsAndKeys) {
  EXPECT_EQ(InTreePluginOf(MakePv("a").Gce("disk").Obj()), "kubernetes.io/gce-pd");
  EXPECT_EQ(InTreePluginOf(MakePv("a").Ebs("vol-1").Obj()), "kubernetes.io/aws-ebs");
  EXPECT_EQ(InTreePluginOf(MakePv("a").Csi("ebs.csi.aws.com", "vol-1").Obj()), "");
  EXPECT_EQ(InTreePluginOf(MakePv("a").Obj()), "");
  EXPECT_EQ(CsiTopologyKey("kubernetes.io/gce-pd"), kGceKey);
  EXPECT_EQ(CsiTopologyKey("kubernetes.io/aws-ebs"), "topology.ebs.csi.aws.com/zone");
  EXPECT_EQ(CsiTopologyKey("kubernetes.io/azure-disk"), "topology.disk.csi.azure.com/zone");
  EXPECT_EQ(CsiTopologyKey("kubernetes.io/cinder"), "topology.cinder.csi.openstack.org/zone");
  EXPECT_EQ(CsiTopologyKey("kubernetes.io/portworx-volume"), "");
}

TEST(CsiTopologyTest, MigratedOnlyWhenTheAnnotationListsThePlugin) {
  kube::CSINode node;
  EXPECT_FALSE(PluginMigratedOnNode("kubernetes.io/gce-pd", nullptr));
  EXPECT_FALSE(PluginMigratedOnNode("kubernetes.io/gce-pd", &node));
  node.metadata.annotations[std::string(kube::kAnnMigratedPlugins)] =
      "kubernetes.io/aws-ebs,kubernetes.io/gce-pd";
  EXPECT_TRUE(PluginMigratedOnNode("kubernetes.io/gce-pd", &node));
  EXPECT_TRUE(PluginMigratedOnNode("kubernetes.io/aws-ebs", &node));
  EXPECT_FALSE(PluginMigratedOnNode("kubernetes.io/azure-disk", &node));
  EXPECT_FALSE(PluginMigratedOnNode("kubernetes.io/gce", &node));  // whole names only
}

TEST(CsiTopologyTest, ZoneLabelBecomesAnAffinityTerm) {
  const kube::PersistentVolume pv =
      MakePv("pv").Gce("disk").Label(std::string(kube::kLabelTopologyZone), "us-central1-a").Obj();
  const kube::PersistentVolume out = TranslateInTreeTopology(pv, kGceKey);
  using Term = std::vector<std::pair<std::string, std::vector<std::string>>>;
  EXPECT_EQ(Terms(out), (std::vector<Term>{{{kGceKey, {"us-central1-a"}}}}));
  EXPECT_TRUE(Terms(pv).empty());  // the input is untouched
}

TEST(CsiTopologyTest, RegionalBetaLabelIsSplitSortedAndDeduplicatedIntoEveryTerm) {
  kube::PersistentVolume pv = MakePv("pv")
                                  .Gce("disk")
                                  .Label(kBetaZone, "us-central1-c__ us-central1-a__us-central1-c")
                                  .Obj();
  pv.spec.node_affinity.emplace();
  pv.spec.node_affinity->node_selector_terms.resize(2);
  pv.spec.node_affinity->node_selector_terms[0].match_expressions.push_back(
      {.key = "disk", .op = kube::NodeSelectorOperator::kIn, .values = {"ssd"}});
  const kube::PersistentVolume out = TranslateInTreeTopology(pv, kGceKey);
  using Term = std::vector<std::pair<std::string, std::vector<std::string>>>;
  EXPECT_EQ(Terms(out),
            (std::vector<Term>{{{"disk", {"ssd"}}, {kGceKey, {"us-central1-a", "us-central1-c"}}},
                               {{kGceKey, {"us-central1-a", "us-central1-c"}}}}));
}

TEST(CsiTopologyTest, AffinityZoneKeyIsRenamedAndBetaRegionBecomesGa) {
  kube::PersistentVolume pv = MakePv("pv").Ebs("vol-1").NodeAffinityIn(kBetaZone, {"z1"}).Obj();
  pv.spec.node_affinity->node_selector_terms[0].match_expressions.push_back(
      {.key = kBetaRegion, .op = kube::NodeSelectorOperator::kIn, .values = {"r1"}});
  // A zone label that disagrees: the affinity wins, the label is not added.
  pv.metadata.labels[kBetaZone] = "z2";
  const kube::PersistentVolume out = TranslateInTreeTopology(pv, "topology.ebs.csi.aws.com/zone");
  using Term = std::vector<std::pair<std::string, std::vector<std::string>>>;
  EXPECT_EQ(Terms(out), (std::vector<Term>{{{"topology.ebs.csi.aws.com/zone", {"z1"}},
                                            {std::string(kube::kLabelTopologyRegion), {"r1"}}}}));
}

TEST(CsiTopologyTest, NoZoneAnywhereLeavesTheAffinityAlone) {
  const kube::PersistentVolume pv = MakePv("pv").Gce("disk").NodeAffinityIn("rack", {"r1"}).Obj();
  EXPECT_EQ(TranslateInTreeTopology(pv, kGceKey), pv);
  const kube::PersistentVolume blank =
      MakePv("pv").Gce("disk").Label(std::string(kube::kLabelTopologyZone), " __ ").Obj();
  EXPECT_EQ(TranslateInTreeTopology(blank, kGceKey), blank);
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
