#include "scheduler/framework/image_states.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

kube::Node ImageNode(std::string name, std::vector<kube::ContainerImage> images) {
  kube::Node node;
  node.metadata.name = std::move(name);
  node.status.images = std::move(images);
  return node;
}

// upstream snapshot_test.go TestCreateImageExistenceMap / TestGetNodeImageStates: the
// nodes reporting each name, and each node's size and count.
TEST(ImageIndexTest, CountsTheNodesReportingEachName) {
  const kube::Node node0 = ImageNode("node-0", {{{"gcr.io/10:v1"}, 10 * kMiB}});
  const kube::Node node1 =
      ImageNode("node-1", {{{"gcr.io/10:v1"}, 10 * kMiB}, {{"gcr.io/200:v1"}, 200 * kMiB}});
  NodeInfo info0, info1;
  ImageIndex index;
  index.AddNode(&info0, node0);
  index.AddNode(&info1, node1);
  EXPECT_EQ(index.size(), 2u);
  const ImageIndex::Entry* ten = index.Find("gcr.io/10:v1");
  ASSERT_NE(ten, nullptr);
  EXPECT_EQ(ten->num_nodes(), 2);
  EXPECT_EQ(ten->SizeOn(&info0), 10 * kMiB);
  EXPECT_EQ(ten->SizeOn(&info1), 10 * kMiB);
  const ImageIndex::Entry* two_hundred = index.Find("gcr.io/200:v1");
  ASSERT_NE(two_hundred, nullptr);
  EXPECT_EQ(two_hundred->num_nodes(), 1);
  EXPECT_EQ(two_hundred->SizeOn(&info0), std::nullopt);
  EXPECT_EQ(two_hundred->SizeOn(&info1), 200 * kMiB);
  EXPECT_EQ(index.Find("gcr.io/10"), nullptr);  // names are exact

  index.RemoveNode(&info1, node1);
  EXPECT_EQ(index.Find("gcr.io/200:v1"), nullptr);
  ASSERT_NE(index.Find("gcr.io/10:v1"), nullptr);
  EXPECT_EQ(index.Find("gcr.io/10:v1")->num_nodes(), 1);
  index.RemoveNode(&info0, node0);
  EXPECT_EQ(index.size(), 0u);
}

TEST(ImageIndexTest, NodeWithoutImagesAddsNothing) {
  NodeInfo info;
  ImageIndex index;
  index.AddNode(&info, ImageNode("node-0", {}));
  EXPECT_EQ(index.size(), 0u);
}

TEST(ImageIndexTest, NameListedTwiceCountsOnceWithItsFirstSize) {
  const kube::Node node =
      ImageNode("n", {{{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40 * kMiB},
                      {{"gcr.io/40:v1"}, 99 * kMiB}});
  NodeInfo info;
  ImageIndex index;
  index.AddNode(&info, node);
  ASSERT_NE(index.Find("gcr.io/40:v1"), nullptr);
  EXPECT_EQ(index.Find("gcr.io/40:v1")->num_nodes(), 1);
  EXPECT_EQ(index.Find("gcr.io/40:v1")->SizeOn(&info), 40 * kMiB);
  index.RemoveNode(&info, node);
  EXPECT_EQ(index.size(), 0u);
}

}  // namespace
}  // namespace trimaran::sched
