#include "scheduler/framework/registry.h"

#include <memory>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/testing/fake_handle.h"
#include "scheduler/testing/fake_plugins.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::sched::testing::FalseFilterPlugin;
using ::trimaran::sched::testing::NewHandleForTest;
using ::trimaran::sched::testing::TrueFilterPlugin;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(RegistryTest, RegisterFindAndBuild) {
  Registry registry;
  ASSERT_THAT(registry.Register("TrueFilter", TrueFilterPlugin::Factory()), IsOk());
  ASSERT_THAT(registry.Register("FalseFilter", FalseFilterPlugin::Factory()), IsOk());
  EXPECT_EQ(registry.size(), 2u);
  EXPECT_TRUE(registry.Contains("TrueFilter"));
  EXPECT_FALSE(registry.Contains("Nope"));
  EXPECT_EQ(registry.Find("Nope"), nullptr);
  EXPECT_THAT(registry.Names(), ElementsAre("FalseFilter", "TrueFilter"));

  const PluginDescriptor* descriptor = registry.Find("TrueFilter");
  ASSERT_NE(descriptor, nullptr);
  auto handle = NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = descriptor->factory(PluginArgs{}, *handle);
  ASSERT_THAT(plugin, IsOk());
  EXPECT_EQ((*plugin)->Name(), "TrueFilter");
  EXPECT_NE(dynamic_cast<FilterPlugin*>(plugin->get()), nullptr);
  EXPECT_EQ(dynamic_cast<ScorePlugin*>(plugin->get()), nullptr);
}

TEST(RegistryTest, DuplicateIsAlreadyExists) {
  Registry registry;
  ASSERT_THAT(registry.Register("P", TrueFilterPlugin::Factory()), IsOk());
  const absl::Status s = registry.Register("P", FalseFilterPlugin::Factory());
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"P\""));
}

TEST(RegistryTest, InvalidRegistrations) {
  Registry registry;
  EXPECT_THAT(registry.Register("", TrueFilterPlugin::Factory()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(registry.Register("P", PluginFactory()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      registry.Register("P", PluginDescriptor{.extension_points = {ExtensionPoint::kScore}}),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RegistryTest, Unregister) {
  Registry registry;
  ASSERT_THAT(registry.Register("P", TrueFilterPlugin::Factory()), IsOk());
  EXPECT_THAT(registry.Unregister("P"), IsOk());
  EXPECT_THAT(registry.Unregister("P"), StatusIs(absl::StatusCode::kNotFound));
}

TEST(RegistryTest, Merge) {
  Registry in_tree;
  ASSERT_THAT(in_tree.Register("A", TrueFilterPlugin::Factory("A")), IsOk());
  Registry out_of_tree;
  ASSERT_THAT(out_of_tree.Register("B", TrueFilterPlugin::Factory("B")), IsOk());
  ASSERT_THAT(in_tree.Merge(out_of_tree), IsOk());
  EXPECT_THAT(in_tree.Names(), ElementsAre("A", "B"));
  // Merging again collides on B.
  EXPECT_THAT(in_tree.Merge(out_of_tree), StatusIs(absl::StatusCode::kAlreadyExists));
}

TEST(RegistryTest, FactoriesSeeTheirArgs) {
  Registry registry;
  ASSERT_THAT(registry.Register(
                  "Args",
                  [](const PluginArgs& args, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                    if (!args.args["targetUtilization"]) {
                      return absl::InvalidArgumentError(
                          absl::StrCat(args.path, ".targetUtilization: required"));
                    }
                    return std::make_unique<TrueFilterPlugin>("Args");
                  }),
              IsOk());
  auto handle = NewHandleForTest();
  const PluginFactory& factory = registry.Find("Args")->factory;
  EXPECT_THAT(factory(PluginArgs{YAML::Load("targetUtilization: 40"), "p.args"}, *handle), IsOk());
  const auto bad =
      factory(PluginArgs{YAML::Load("{}"), "profiles[0].pluginConfig[0].args"}, *handle);
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("profiles[0].pluginConfig[0].args.targetUtilization"));
}

// A plugin with several interfaces, as the descriptor tests need.
class PreScoreScoreReserve final : public PreScorePlugin, public ScorePlugin, public ReservePlugin {
 public:
  static constexpr absl::string_view kName = "PreScoreScoreReserve";
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
    return std::make_unique<PreScoreScoreReserve>();
  }
  absl::string_view Name() const override { return kName; }
  Status PreScore(CycleState&, const kube::Pod&, std::span<const NodeInfo* const>) override {
    return Status();
  }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return ScoreResult{};
  }
  Status Reserve(CycleState&, const kube::Pod&, absl::string_view) override { return Status(); }
  void Unreserve(CycleState&, const kube::Pod&, absl::string_view) override {}
};

TEST(PluginDescriptorTest, ExtensionPointsComeFromTheInterfaces) {
  EXPECT_THAT(
      ExtensionPointsOf<PreScoreScoreReserve>(),
      ElementsAre(ExtensionPoint::kPreScore, ExtensionPoint::kScore, ExtensionPoint::kReserve));
  EXPECT_THAT(ExtensionPointsOf<TrueFilterPlugin>(), ElementsAre(ExtensionPoint::kFilter));

  Registry registry;
  ASSERT_THAT(registry.Register(PreScoreScoreReserve::kName, DescriptorFor<PreScoreScoreReserve>()),
              IsOk());
  EXPECT_TRUE(registry.Implements(PreScoreScoreReserve::kName, ExtensionPoint::kScore));
  EXPECT_TRUE(registry.Implements(PreScoreScoreReserve::kName, ExtensionPoint::kReserve));
  EXPECT_FALSE(registry.Implements(PreScoreScoreReserve::kName, ExtensionPoint::kFilter));
  EXPECT_FALSE(registry.Implements("Nope", ExtensionPoint::kScore));
  const PluginDescriptor& descriptor = *registry.Find(PreScoreScoreReserve::kName);
  EXPECT_FALSE(descriptor.validate_args);
  EXPECT_FALSE(descriptor.packing);
  auto handle = NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = descriptor.factory(PluginArgs{}, *handle);
  ASSERT_THAT(plugin, IsOk());
  EXPECT_EQ((*plugin)->Name(), PreScoreScoreReserve::kName);
}

TEST(PluginDescriptorTest, AFactoryOnlyRegistrationDeclaresNothing) {
  Registry registry;
  ASSERT_THAT(registry.Register("P", TrueFilterPlugin::Factory("P")), IsOk());
  const PluginDescriptor& descriptor = *registry.Find("P");
  EXPECT_TRUE(descriptor.extension_points.empty());
  EXPECT_FALSE(registry.Implements("P", ExtensionPoint::kFilter));
  EXPECT_FALSE(descriptor.validate_args);
  EXPECT_FALSE(descriptor.packing);
}

TEST(PluginDescriptorTest, ArgsValidatorFromListsTheDecodersErrorsOnePerLine) {
  const ArgsValidator validate =
      ArgsValidatorFrom([](const PluginArgs& args) -> absl::StatusOr<int> {
        if (!args.args["bad"]) return 1;
        return absl::InvalidArgumentError(
            absl::StrCat(args.path, ".a: must be set; ", args.path, ".b: unknown field"));
      });
  EXPECT_THAT(validate(PluginArgs{YAML::Load("{ok: 1}"), "p.args"}), IsOk());
  const absl::Status bad = validate(PluginArgs{YAML::Load("{bad: 1}"), "p.args"});
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(bad.message(), "p.args.a: must be set\np.args.b: unknown field");
}

}  // namespace
}  // namespace trimaran::sched
