#pragma once
// Test-only helpers shared by the runtime's tests and benchmark: a Handle with a real
// thread pool, node builders, and small plugins (a resource-fit filter and a
// MostAllocated-style score with exact values) that do not depend on scheduler/plugins.
//
// Thread-safety: as the interfaces require (Filter/Score are const and thread-safe).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "kube/testing/wrappers.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/runtime/parallelizer.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::runtime_testing {

// A FakeHandle whose parallelizer is a real ThreadPoolParallelizer.
class ThreadedHandle final : public Handle {
 public:
  explicit ThreadedHandle(int parallelism) : pool_(parallelism) {}
  const SharedLister& snapshot_lister() const override { return fake_.snapshot_lister(); }
  kube::Client& client() override { return fake_.client(); }
  EventRecorder& event_recorder() override { return fake_.event_recorder(); }
  const StatsScopes& stats_scopes() const override { return fake_.stats_scopes(); }
  Parallelizer& parallelizer() override { return pool_; }
  const Clock& clock() const override { return fake_.clock(); }
  const ObjectLister& object_lister() const override { return fake_.object_lister(); }
  testing::FakeHandle& fake() { return fake_; }

 private:
  testing::FakeHandle fake_;
  ThreadPoolParallelizer pool_;
};

// `count` nodes "node-0000"... of 32 CPU / 128Gi / 110 pods.
inline std::vector<kube::Node> MakeBigNodes(int count) {
  std::vector<kube::Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i) {
    nodes.push_back(kube::testing::MakeNode()
                        .Name(absl::StrFormat("node-%04d", i))
                        .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
                        .Obj());
  }
  return nodes;
}

// Fits cpu, memory and pod count (from the precomputed requests; no allocation).
class SimpleFitPlugin final : public FilterPlugin {
 public:
  static constexpr absl::string_view kName = "SimpleFit";
  absl::string_view Name() const override { return kName; }
  Status Filter(const CycleState&, const kube::Pod& pod, const NodeInfo& node) const override {
    static const Status kInsufficient = Status::Unschedulable("Insufficient resources");
    const kube::Resource req = kube::ComputePodRequests(pod);
    const kube::Resource& used = node.requested();
    const kube::Resource& alloc = node.allocatable();
    if (static_cast<int64_t>(node.pods().size()) + 1 > alloc.allowed_pod_number ||
        used.milli_cpu + req.milli_cpu > alloc.milli_cpu ||
        used.memory + req.memory > alloc.memory) {
      return kInsufficient;
    }
    return Status();
  }
};

// MostAllocated over cpu and memory (weights 1:1), with the exact unrounded score.
class SimpleMostAllocatedPlugin final : public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "SimpleMostAllocated";
  explicit SimpleMostAllocatedPlugin(bool report_exact) : report_exact_(report_exact) {}
  absl::string_view Name() const override { return kName; }
  ScoreResult Score(const CycleState&, const kube::Pod& pod, const NodeInfo& node) const override {
    const kube::Resource req = kube::ComputePodRequests(pod);
    const kube::Resource& alloc = node.allocatable();
    auto part = [](int64_t used, int64_t cap) {
      return cap <= 0 ? 0.0 : 100.0 * static_cast<double>(std::min(used, cap)) / cap;
    };
    const double exact = (part(node.requested().milli_cpu + req.milli_cpu, alloc.milli_cpu) +
                          part(node.requested().memory + req.memory, alloc.memory)) /
                         2;
    const int64_t cpu = alloc.milli_cpu <= 0
                            ? 0
                            : (node.requested().milli_cpu + req.milli_cpu) * 100 / alloc.milli_cpu;
    const int64_t mem =
        alloc.memory <= 0 ? 0 : (node.requested().memory + req.memory) * 100 / alloc.memory;
    const int64_t score = std::min<int64_t>(100, (cpu + mem) / 2);
    if (report_exact_) return ScoreResult::Of(score, std::min(exact, 100.0));
    return ScoreResult::Of(score);
  }

 private:
  bool report_exact_;
};

inline PluginFactory FactoryOf(std::function<PluginPtr()> make) {
  return [make = std::move(make)](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
    return make();
  };
}

}  // namespace trimaran::sched::runtime_testing
