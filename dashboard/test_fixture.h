#pragma once
// A small cluster shared by the `trimaranctl nodes` unit tests: three nodes (on-demand,
// spot and cordoned, unknown type and NotReady), five pods (one Succeeded, one pending)
// and a load-watcher snapshot covering node-a fully, node-b's CPU only, node-10 not at
// all. The expected figures are worked out in nodes_model_test.cc.
//
// Thread-safety: plain values.

#include <vector>

#include "absl/time/time.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/testing/builders.h"

namespace trimaran::dashboard::testing {

inline absl::Time FixtureNow() { return absl::FromUnixSeconds(1767225600); }  // 2026-01-01

inline std::vector<kube::Node> FixtureNodes() {
  using kube::testing::MakeNode;
  const absl::Time now = FixtureNow();
  kube::Node a = MakeNode()
                     .Name("node-a")
                     .Label("node.kubernetes.io/instance-type", "m6i.xlarge")
                     .Label("karpenter.sh/capacity-type", "on-demand")
                     .Label("topology.kubernetes.io/zone", "us-east-1a")
                     .Label("team", "web")
                     .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}})
                     .Allocatable({{"cpu", "3920m"}, {"memory", "15Gi"}, {"pods", "58"}})
                     .Condition("Ready", kube::ConditionStatus::kTrue)
                     .Obj();
  a.metadata.creation_timestamp = now - absl::Hours(76);
  kube::Node b = MakeNode()
                     .Name("node-b")
                     .Label("node.kubernetes.io/instance-type", "m6i.xlarge")
                     .Label("eks.amazonaws.com/capacityType", "SPOT")
                     .Label("topology.kubernetes.io/zone", "us-east-1b")
                     .Label("team", "batch")
                     .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}})
                     .Allocatable({{"cpu", "3920m"}, {"memory", "15Gi"}, {"pods", "58"}})
                     .Condition("Ready", kube::ConditionStatus::kTrue)
                     .Unschedulable(true)
                     .Obj();
  b.metadata.creation_timestamp = now - absl::Hours(5);
  kube::Node c = MakeNode()
                     .Name("node-10")
                     .Label("node.kubernetes.io/instance-type", "x9.weird")
                     .Label("topology.kubernetes.io/zone", "us-east-1a")
                     .Capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "20"}})
                     .Condition("Ready", kube::ConditionStatus::kFalse)
                     .Obj();
  c.metadata.creation_timestamp = now - absl::Minutes(42);
  return {a, b, c};
}

inline std::vector<kube::Pod> FixturePods() {
  using kube::testing::MakePod;
  return {
      MakePod()
          .Name("p1")
          .Namespace("default")
          .NodeName("node-a")
          .Req({{"cpu", "2"}, {"memory", "4Gi"}})
          .Phase(kube::PodPhase::kRunning)
          .Obj(),
      MakePod()
          .Name("p2")
          .Namespace("default")
          .NodeName("node-a")
          .Req({{"cpu", "1500m"}, {"memory", "2Gi"}})
          .Phase(kube::PodPhase::kRunning)
          .Obj(),
      MakePod()
          .Name("p3")
          .Namespace("default")
          .NodeName("node-b")
          .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
          .Obj(),
      MakePod().Name("p4").Namespace("default").Req({{"cpu", "1"}}).Obj(),
      MakePod()
          .Name("p5")
          .Namespace("default")
          .NodeName("node-a")
          .Req({{"cpu", "3"}})
          .Phase(kube::PodPhase::kSucceeded)
          .Obj(),
  };
}

inline lw::WatcherMetrics FixtureMetrics(absl::Duration age = absl::Seconds(30)) {
  return lw::testing::MakeWatcherMetrics()
      .Timestamp(absl::ToUnixSeconds(FixtureNow() - age))
      .Window("15m")
      .Source("Prometheus")
      .Node("node-a")
      .Cpu(lw::kOpAvg, 50)
      .Memory(lw::kOpAvg, 25)
      .Node("node-b")
      .Cpu(lw::kOpAvg, 10)
      .Obj();
}

}  // namespace trimaran::dashboard::testing
