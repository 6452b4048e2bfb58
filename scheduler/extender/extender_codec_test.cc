#include "scheduler/extender/extender_codec.h"

#include <string>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;
using ::trimaran::testing::StatusIs;

constexpr char kPod[] =
    R"({"metadata":{"name":"p","namespace":"ns","uid":"8a0c"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}})";

// Spec §7.3, nodeCacheCapable true: {"Pod": {...}, "Nodes": null, "NodeNames": [...]}.
TEST(ExtenderCodecTest, DecodesArgsWithNodeNames) {
  const std::string json =
      std::string(R"({"Pod": )") + kPod + R"(, "Nodes": null, "NodeNames": ["node-a", "node-b"]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderArgs args, DecodeExtenderArgs(json));
  EXPECT_EQ(args.pod.metadata.name, "p");
  EXPECT_EQ(args.pod.metadata.namespace_name, "ns");
  EXPECT_EQ(args.pod.metadata.uid, "8a0c");
  EXPECT_FALSE(args.nodes.has_value());
  ASSERT_TRUE(args.node_names.has_value());
  EXPECT_THAT(*args.node_names, ElementsAre("node-a", "node-b"));
}

// Spec §7.3, nodeCacheCapable false: "Nodes": {"metadata": {}, "items": [...]}.
TEST(ExtenderCodecTest, DecodesArgsWithNodeObjectsAndKeepsTheirJson) {
  const std::string node_a =
      R"({"metadata":{"name":"node-a","labels":{"zone":"a"}},"status":{"allocatable":{"cpu":"4"}}})";
  const std::string json = std::string(R"({"Pod": )") + kPod +
                           R"(, "Nodes": {"metadata": {}, "items": [)" + node_a +
                           R"(]}, "NodeNames": null})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderArgs args, DecodeExtenderArgs(json));
  ASSERT_TRUE(args.nodes.has_value());
  ASSERT_EQ(args.nodes->size(), 1u);
  EXPECT_EQ((*args.nodes)[0].node->metadata.name, "node-a");
  EXPECT_EQ((*args.nodes)[0].node->metadata.labels.at("zone"), "a");
  EXPECT_EQ((*args.nodes)[0].json, node_a);
  EXPECT_FALSE(args.node_names.has_value());
}

TEST(ExtenderCodecTest, KeysMatchCaseInsensitivelyAsGoDoes) {
  const std::string json = std::string(R"({"pod": )") + kPod + R"(, "nodenames": ["x"]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderArgs args, DecodeExtenderArgs(json));
  EXPECT_EQ(args.pod.metadata.name, "p");
  EXPECT_THAT(*args.node_names, ElementsAre("x"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<HostPriority> list,
                                DecodeHostPriorityList(R"([{"host":"a","score":7}])"));
  EXPECT_THAT(list, ElementsAre(HostPriority{"a", 7}));
}

TEST(ExtenderCodecTest, ArgsRoundTrip) {
  ExtenderArgs args;
  args.pod = kube::testing::MakePod().Namespace("ns").Name("p").Obj();
  args.node_names = std::vector<std::string>{"n1", "n2"};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderArgs back, DecodeExtenderArgs(EncodeExtenderArgs(args)));
  EXPECT_EQ(back.pod.metadata.name, "p");
  EXPECT_THAT(*back.node_names, ElementsAre("n1", "n2"));
  EXPECT_FALSE(back.nodes.has_value());

  ExtenderArgs with_nodes;
  with_nodes.pod = args.pod;
  with_nodes.nodes.emplace();
  with_nodes.nodes->push_back(
      {std::make_shared<kube::Node>(kube::testing::MakeNode().Name("n3").Obj()), ""});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(back, DecodeExtenderArgs(EncodeExtenderArgs(with_nodes)));
  ASSERT_TRUE(back.nodes.has_value());
  ASSERT_EQ(back.nodes->size(), 1u);
  EXPECT_EQ((*back.nodes)[0].node->metadata.name, "n3");
}

// Spec §7.3's ExtenderFilterResult example, byte for byte (Go's field order).
TEST(ExtenderCodecTest, EncodesFilterResultAsTheSpecExample) {
  ExtenderFilterResult r;
  r.node_names = std::vector<std::string>{"node-a"};
  r.failed_nodes["node-b"] = "not enough gpu memory";
  r.failed_and_unresolvable_nodes["node-c"] = "wrong gpu model";
  EXPECT_EQ(
      EncodeExtenderFilterResult(r),
      R"({"Nodes":null,"NodeNames":["node-a"],"FailedNodes":{"node-b":"not enough gpu memory"},)"
      R"("FailedAndUnresolvableNodes":{"node-c":"wrong gpu model"},"Error":""})");
}

TEST(ExtenderCodecTest, DecodesFilterResultOfTheSpecExample) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult r,
                                DecodeExtenderFilterResult(R"({"Nodes": null,
 "NodeNames": ["node-a"],
 "FailedNodes": {"node-b": "not enough gpu memory"},
 "FailedAndUnresolvableNodes": {"node-c": "wrong gpu model"},
 "Error": ""})"));
  EXPECT_FALSE(r.nodes.has_value());
  EXPECT_THAT(*r.node_names, ElementsAre("node-a"));
  EXPECT_THAT(r.failed_nodes, UnorderedElementsAre(Pair("node-b", "not enough gpu memory")));
  EXPECT_THAT(r.failed_and_unresolvable_nodes,
              UnorderedElementsAre(Pair("node-c", "wrong gpu model")));
  EXPECT_EQ(r.error, "");
}

TEST(ExtenderCodecTest, FilterResultEchoesNodeObjectsVerbatim) {
  ExtenderFilterResult r;
  r.nodes.emplace();
  r.nodes->push_back({nullptr, R"({"metadata":{"name":"node-a"}})"});
  EXPECT_EQ(EncodeExtenderFilterResult(r),
            R"({"Nodes":{"metadata":{},"items":[{"metadata":{"name":"node-a"}}]},"NodeNames":null,)"
            R"("FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult back,
                                DecodeExtenderFilterResult(EncodeExtenderFilterResult(r)));
  ASSERT_TRUE(back.nodes.has_value());
  EXPECT_EQ((*back.nodes)[0].node->metadata.name, "node-a");
}

// Spec §7.3: [{"Host": "node-a", "Score": 7}, {"Host": "node-b", "Score": 3}].
TEST(ExtenderCodecTest, HostPriorityListBothWays) {
  const std::vector<HostPriority> list = {{"node-a", 7}, {"node-b", 3}};
  EXPECT_EQ(EncodeHostPriorityList(list),
            R"([{"Host":"node-a","Score":7},{"Host":"node-b","Score":3}])");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::vector<HostPriority> back,
      DecodeHostPriorityList(
          R"([{"Host": "node-a", "Score": 7}, {"Host": "node-b", "Score": 3}])"));
  EXPECT_EQ(back, list);
}

// Spec §7.3: {"PodName": "p", "PodNamespace": "ns", "PodUID": "8a0c…", "Node": "node-a"}.
TEST(ExtenderCodecTest, BindingBothWays) {
  const ExtenderBindingArgs args{"p", "ns", "8a0c", "node-a"};
  EXPECT_EQ(EncodeExtenderBindingArgs(args),
            R"({"PodName":"p","PodNamespace":"ns","PodUID":"8a0c","Node":"node-a"})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      ExtenderBindingArgs back,
      DecodeExtenderBindingArgs(
          R"({"PodName": "p", "PodNamespace": "ns", "PodUID": "8a0c", "Node": "node-a"})"));
  EXPECT_EQ(back, args);
  EXPECT_EQ(EncodeExtenderBindingResult({}), R"({"Error":""})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderBindingResult result,
                                DecodeExtenderBindingResult(R"({"Error": "boom"})"));
  EXPECT_EQ(result.error, "boom");
}

TEST(ExtenderCodecTest, BadInputIsAClearError) {
  EXPECT_THAT(DecodeExtenderArgs("not json").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not JSON")));
  EXPECT_THAT(DecodeExtenderArgs(R"({"NodeNames": ["a"]})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ExtenderArgs.Pod: missing")));
  EXPECT_THAT(
      DecodeExtenderArgs(std::string(R"({"Pod": )") + kPod + R"(, "NodeNames": [1]})").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NodeNames[0]")));
  EXPECT_THAT(DecodeExtenderArgs(R"({"Pod": {"spec": {"containers": 3}}})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ExtenderArgs.Pod")));
  EXPECT_THAT(DecodeExtenderBindingArgs(R"({"PodName": "p"})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("required")));
  EXPECT_THAT(DecodeHostPriorityList(R"([{"Host": "a", "Score": "x"}])").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Score")));
}

// Issue 30 point 2: 1,000,000 '[' killed the extender with SIGSEGV (recursive parse).
TEST(ExtenderCodecTest, DeepNestingIsRefusedNotACrash) {
  EXPECT_THAT(DecodeExtenderArgs(std::string(1'000'000, '[')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deeper than 512")));
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += R"({"Pod":)";
  EXPECT_THAT(DecodeExtenderArgs(deep),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deeper than 512")));
  std::string deep_binding;
  for (int i = 0; i < 100'000; ++i) deep_binding += R"({"PodName":)";
  EXPECT_THAT(DecodeExtenderBindingArgs(deep_binding),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deeper than 512")));
}

}  // namespace
}  // namespace trimaran::sched::extender
