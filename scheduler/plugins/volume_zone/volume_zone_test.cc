#include "scheduler/plugins/volume_zone/volume_zone.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/storage_wrappers.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeClaim;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::MakePv;
using kube::testing::MakeStorageClass;
using kube::testing::WithClaims;
using ::trimaran::sched::testing::FakeHandle;

constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kRegion[] = "topology.kubernetes.io/region";

// Runs PreFilter, then (unless it did not succeed) Filter on one node.
Status RunZone(FakeHandle& handle, const kube::Pod& pod, const kube::StringMap& node_labels) {
  VolumeZone plugin(handle);
  NodeInfo node_info(
      std::make_shared<const kube::Node>(MakeNode().Name("n1").Labels(node_labels).Obj()));
  CycleState state;
  PreFilterResult result;
  const NodeInfo* nodes[] = {&node_info};
  Status pre = plugin.PreFilter(state, pod, nodes, result);
  if (!pre.IsSuccess()) return pre;
  return plugin.Filter(state, pod, node_info);
}

// TestSingleZone / TestMultiZone / beta-GA fallbacks (spec §6.1): one bound PV with
// `pv_labels`, a node with `node_labels`.
TEST(VolumeZoneTest, BoundVolumeZonesAgainstNodeLabels) {
  struct Case {
    std::string name;
    kube::StringMap pv_labels;
    kube::StringMap node_labels;
    Code want;
  };
  const Case cases[] = {
      {"beta zone, node without labels", {{kBetaZone, "us-west1-a"}}, {}, Code::kSuccess},
      {"beta zone matches",
       {{kBetaZone, "us-west1-a"}},
       {{kBetaZone, "us-west1-a"}},
       Code::kSuccess},
      {"beta region mismatch",
       {{kBetaRegion, "us-west1"}},
       {{kBetaRegion, "no_us-west1"}},
       Code::kUnschedulableAndUnresolvable},
      {"GA zone mismatch",
       {{kZone, "us-west1-a"}},
       {{kZone, "no_us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"GA zone + region, node has only the zone",
       {{kZone, "us-west1-a"}, {kRegion, "us-west1"}},
       {{kZone, "us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"GA zone on PV, beta on node: no GA->beta fallback",
       {{kZone, "us-west1-a"}},
       {{kBetaZone, "us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"beta zone on PV, GA on node: beta->GA fallback",
       {{kBetaZone, "us-west1-a"}},
       {{kZone, "us-west1-a"}},
       Code::kSuccess},
      {"beta zone on PV, other GA zone on node",
       {{kBetaZone, "us-west1-a"}},
       {{kZone, "us-west1-b"}},
       Code::kUnschedulableAndUnresolvable},
      {"multi-zone PV",
       {{kBetaZone, "us-west1-c__us-west1-a"}},
       {{kBetaZone, "us-west1-a"}},
       Code::kSuccess},
      {"multi-zone PV, node elsewhere",
       {{kBetaZone, "us-west1-c__us-west1-a"}},
       {{kBetaZone, "us-west1-b"}},
       Code::kUnschedulableAndUnresolvable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle handle;
    kube::testing::PvWrapper pv = MakePv("pv-1");
    for (const auto& [k, v] : c.pv_labels) pv.Label(k, v);
    handle.storage().Apply(std::move(pv).Obj());
    handle.storage().Apply(MakeClaim("ns", "claim").BoundTo("pv-1").Obj());
    const kube::Pod pod = WithClaims(MakePod().Name("p").Namespace("ns").Obj(), {"claim"});
    const Status got = RunZone(handle, pod, c.node_labels);
    EXPECT_EQ(got.code(), c.want) << got;
    if (c.want != Code::kSuccess) {
      EXPECT_THAT(got.reasons(), ::testing::ElementsAre("node(s) had no available volume zone"));
    }
  }
}

TEST(VolumeZoneTest, PreFilterClassification) {
  FakeHandle handle;
  handle.storage().Apply(MakeStorageClass("wait", "p", "WaitForFirstConsumer"));
  handle.storage().Apply(MakeStorageClass("Class_Immediate", "p", ""));  // nil mode
  handle.storage().Apply(MakeStorageClass("immediate", "p"));
  handle.storage().Apply(MakeClaim("ns", "no-class").Obj());
  handle.storage().Apply(MakeClaim("ns", "wait").Class("wait").Obj());
  handle.storage().Apply(MakeClaim("ns", "nil-mode").Class("Class_Immediate").Obj());
  handle.storage().Apply(MakeClaim("ns", "missing-class").Class("x").Obj());
  handle.storage().Apply(MakeClaim("ns", "immediate").Class("immediate").Obj());
  handle.storage().Apply(MakeClaim("ns", "no-pv").BoundTo("pv-gone").Obj());
  handle.storage().Apply(MakePv("pv-plain").Obj());
  handle.storage().Apply(MakeClaim("ns", "plain").BoundTo("pv-plain").Obj());
  struct Case {
    std::string name;
    kube::Pod pod;
    Code want;
    std::string reason;
  };
  const kube::Pod base = MakePod().Name("p").Namespace("ns").Obj();
  const Case cases[] = {
      {"no volumes", base, Code::kSkip, ""},
      {"claim name empty", WithClaims(base, {""}), Code::kUnschedulableAndUnresolvable,
       "PersistentVolumeClaim had no name"},
      {"claim missing", WithClaims(base, {"gone"}), Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"gone\" not found"},
      {"unbound without class", WithClaims(base, {"no-class"}), Code::kUnschedulableAndUnresolvable,
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound WFFC", WithClaims(base, {"wait"}), Code::kSkip, ""},
      {"unbound, class without binding mode", WithClaims(base, {"nil-mode"}),
       Code::kUnschedulableAndUnresolvable,
       "VolumeBindingMode not set for StorageClass \"Class_Immediate\""},
      {"unbound, class missing", WithClaims(base, {"missing-class"}),
       Code::kUnschedulableAndUnresolvable, "storageclasses.storage.k8s.io \"x\" not found"},
      {"unbound immediate", WithClaims(base, {"immediate"}), Code::kUnschedulableAndUnresolvable,
       "PersistentVolume had no name"},
      {"bound, PV missing", WithClaims(base, {"no-pv"}), Code::kUnschedulableAndUnresolvable,
       "persistentvolume \"pv-gone\" not found"},
      {"bound PV without topology labels", WithClaims(base, {"plain"}), Code::kSkip, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    VolumeZone plugin(handle);
    CycleState state;
    PreFilterResult result;
    const Status got = plugin.PreFilter(state, c.pod, {}, result);
    EXPECT_EQ(got.code(), c.want) << got;
    if (!c.reason.empty()) {
      EXPECT_THAT(got.reasons(), ::testing::ElementsAre(c.reason));
    }
  }
}

// Upstream's hints (spec §6.2).
TEST(VolumeZoneTest, QueueingHints) {
  FakeHandle handle;
  VolumeZone plugin(handle);
  const kube::Pod pod = WithClaims(MakePod().Name("p").Namespace("ns").Obj(), {"claim"});
  const auto hint = [&](EventResource r, ActionType a, const kube::StorageObject* old_o,
                        const kube::StorageObject* new_o) {
    absl::StatusOr<QueueingHint> h = plugin.Hint(
        pod, ClusterEvent{r, a, "test"}, EventObjects{.old_storage = old_o, .new_storage = new_o});
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : QueueingHint::kQueue;
  };
  using H = QueueingHint;
  const kube::StorageObject wffc =
      kube::StorageObject::Make(MakeStorageClass("w", "p", "WaitForFirstConsumer"));
  const kube::StorageObject immediate =
      kube::StorageObject::Make(MakeStorageClass("i", "p", "Immediate"));
  EXPECT_EQ(hint(EventResource::kStorageClass, ActionType::kAdd, nullptr, &wffc), H::kQueue);
  EXPECT_EQ(hint(EventResource::kStorageClass, ActionType::kAdd, nullptr, &immediate),
            H::kQueueSkip);

  const kube::StorageObject mine = kube::StorageObject::Make(MakeClaim("ns", "claim").Obj());
  const kube::StorageObject other = kube::StorageObject::Make(MakeClaim("ns", "other").Obj());
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, ActionType::kUpdateOther, &mine, &mine),
            H::kQueue);
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, ActionType::kAdd, nullptr, &other),
            H::kQueueSkip);

  const kube::StorageObject pv_a =
      kube::StorageObject::Make(MakePv("pv").Label(kZone, "us-west1-a").Obj());
  const kube::StorageObject pv_a_other_label = kube::StorageObject::Make(
      MakePv("pv").Label(kZone, "us-west1-a").Label("unrelated", "x").Obj());
  const kube::StorageObject pv_ab =
      kube::StorageObject::Make(MakePv("pv").Label(kZone, "us-west1-a__us-west1-b").Obj());
  EXPECT_EQ(hint(EventResource::kPersistentVolume, ActionType::kAdd, nullptr, &pv_a), H::kQueue);
  EXPECT_EQ(
      hint(EventResource::kPersistentVolume, ActionType::kUpdateOther, &pv_a, &pv_a_other_label),
      H::kQueueSkip);
  EXPECT_EQ(hint(EventResource::kPersistentVolume, ActionType::kUpdateOther, &pv_a, &pv_ab),
            H::kQueue);
  EXPECT_EQ(hint(EventResource::kNode, ActionType::kUpdateNodeLabel, nullptr, nullptr), H::kQueue);
}

}  // namespace
}  // namespace trimaran::sched::plugins
