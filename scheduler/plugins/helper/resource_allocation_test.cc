#include "scheduler/plugins/helper/resource_allocation.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kube/api/pod_resources.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::ResourceMap;

constexpr int64_t kMi = 1024 * 1024;

TEST(ClassifyResourceTest, Table) {
  struct Case {
    std::string name;
    ResourceKind want_kind;
    bool want_scalar;
  };
  const Case cases[] = {
      {"cpu", ResourceKind::kCpu, false},
      {"memory", ResourceKind::kMemory, false},
      {"ephemeral-storage", ResourceKind::kEphemeralStorage, false},
      {"example.com/gpu", ResourceKind::kOther, true},
      {"hugepages-2Mi", ResourceKind::kOther, true},
      {"pods", ResourceKind::kOther, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const AllocationResource r = ClassifyResource(c.name);
    EXPECT_EQ(r.name, c.name);
    EXPECT_EQ(r.kind, c.want_kind);
    EXPECT_EQ(r.scalar, c.want_scalar);
  }
}

TEST(NodeAllocationTest, Table) {
  // Node: cpu 4 (4000m), memory 8000Mi, ephemeral-storage 100, gpu 4; no hugepages entry;
  // "example.com/fpga" allocatable 0.
  NodeInfo node(std::make_shared<const kube::Node>(MakeNode()
                                                       .Name("n1")
                                                       .Capacity({{"cpu", "4"},
                                                                  {"memory", "8000Mi"},
                                                                  {"ephemeral-storage", "100"},
                                                                  {"example.com/gpu", "4"},
                                                                  {"example.com/fpga", "0"},
                                                                  {"pods", "110"}})
                                                       .Obj()));
  // Pods: one requesting cpu 1500m, memory 1000Mi, ephemeral-storage 30, gpu 1; one
  // requesting nothing (non-zero defaults: cpu 100m, memory 200Mi).
  kube::Pod busy = MakePod()
                       .Name("busy")
                       .UID("busy")
                       .Req({{"cpu", "1500m"},
                             {"memory", "1000Mi"},
                             {"ephemeral-storage", "30"},
                             {"example.com/gpu", "1"}})
                       .Obj();
  kube::Pod empty = MakePod().Name("empty").UID("empty").Container("busybox").Obj();
  node.AddPod(std::make_shared<const kube::Pod>(std::move(busy)));
  node.AddPod(std::make_shared<const kube::Pod>(std::move(empty)));

  // A node without a kube::Node: every allocatable figure is 0.
  const NodeInfo no_node;

  struct Case {
    std::string name;
    std::string resource;
    CpuMemoryUsage usage;
    const NodeInfo* node_info;
    std::optional<int64_t> want_capacity;  // nullopt: the resource does not count
    int64_t want_used;
  };
  const Case cases[] = {
      // 1500m requested.
      {"cpu requested", "cpu", CpuMemoryUsage::kRequested, &node, 4000, 1500},
      // 1500m + the empty pod's 100m default = 1600m.
      {"cpu non-zero", "cpu", CpuMemoryUsage::kNonZeroRequested, &node, 4000, 1600},
      // 1000Mi requested.
      {"memory requested", "memory", CpuMemoryUsage::kRequested, &node, 8000 * kMi, 1000 * kMi},
      // 1000Mi + the 200Mi default = 1200Mi.
      {"memory non-zero", "memory", CpuMemoryUsage::kNonZeroRequested, &node, 8000 * kMi,
       1200 * kMi},
      // ephemeral-storage always uses requested: 30 either way.
      {"ephemeral requested", "ephemeral-storage", CpuMemoryUsage::kRequested, &node, 100, 30},
      {"ephemeral non-zero", "ephemeral-storage", CpuMemoryUsage::kNonZeroRequested, &node, 100,
       30},
      // Scalar: requested 1 of 4, either usage.
      {"scalar", "example.com/gpu", CpuMemoryUsage::kNonZeroRequested, &node, 4, 1},
      {"scalar requested", "example.com/gpu", CpuMemoryUsage::kRequested, &node, 4, 1},
      // No allocatable entry: does not count.
      {"scalar absent", "hugepages-2Mi", CpuMemoryUsage::kRequested, &node, std::nullopt, 0},
      // Allocatable 0: does not count.
      {"scalar zero capacity", "example.com/fpga", CpuMemoryUsage::kRequested, &node, std::nullopt,
       0},
      // "pods" is not a scalar resource: no scalar entry, does not count.
      {"pods", "pods", CpuMemoryUsage::kRequested, &node, std::nullopt, 0},
      // No node: capacity 0 for cpu, memory and ephemeral-storage.
      {"no node cpu", "cpu", CpuMemoryUsage::kNonZeroRequested, &no_node, std::nullopt, 0},
      {"no node memory", "memory", CpuMemoryUsage::kRequested, &no_node, std::nullopt, 0},
      {"no node ephemeral", "ephemeral-storage", CpuMemoryUsage::kRequested, &no_node, std::nullopt,
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<NodeResourceAllocation> got =
        NodeAllocation(*c.node_info, ClassifyResource(c.resource), c.usage);
    ASSERT_EQ(got.has_value(), c.want_capacity.has_value());
    if (!got.has_value()) continue;
    EXPECT_EQ(got->capacity, *c.want_capacity);
    EXPECT_EQ(got->used, c.want_used);
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
