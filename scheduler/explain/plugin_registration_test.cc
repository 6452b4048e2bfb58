// One registration is all a plugin needs: a plugin defined and registered only here (its
// descriptor in one Registry) is expanded from multiPoint to exactly the points it
// implements, is known to validation, has its args validated with their field paths,
// sets the packing flag, and runs in `trimaranctl score` — with no other list to edit.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/explain/score_input.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/plugin_descriptor.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/registry.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::explain {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;
using ScoreReport = Report;

// ---- The fake plugin: its args, decoder, class and descriptor ----

// args: {favourite: <node>, bonus: 0..100 (default 10), exclude: [<node>...],
//        strategy: Pack | Spread (default Spread)}.
struct FavouriteArgs {
  std::string favourite;
  int bonus = 10;
  std::vector<std::string> exclude;
  bool pack = false;
};

// Decodes and validates; InvalidArgument listing every field error ("; "-joined, each
// prefixed with the args' path), as the in-tree decoders do.
absl::StatusOr<FavouriteArgs> DecodeFavouriteArgs(const sched::PluginArgs& args) {
  FavouriteArgs out;
  if (!args.args || args.args.IsNull()) return out;
  std::vector<std::string> errors;
  for (const auto& field : args.args) {
    const std::string key = field.first.Scalar();
    const YAML::Node& value = field.second;
    const std::string path = absl::StrCat(args.path, ".", key);
    if (key == "favourite") {
      out.favourite = value.Scalar();
    } else if (key == "bonus") {
      out.bonus = value.as<int>();
      if (out.bonus < 0 || out.bonus > 100) {
        errors.push_back(absl::StrCat(path, ": must be in [0, 100], got ", out.bonus));
      }
    } else if (key == "exclude") {
      for (const auto& name : value) out.exclude.push_back(name.Scalar());
    } else if (key == "strategy") {
      if (value.Scalar() != "Pack" && value.Scalar() != "Spread") {
        errors.push_back(absl::StrCat(path, ": must be Pack or Spread, got ", value.Scalar()));
      }
      out.pack = value.Scalar() == "Pack";
    } else {
      errors.push_back(absl::StrCat(path, ": unknown field"));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return out;
}

// Filter: refuses the excluded nodes. Score: `bonus` on the favourite node, 0 elsewhere.
class Favourite final : public sched::FilterPlugin, public sched::ScorePlugin {
 public:
  static constexpr absl::string_view kName = "Favourite";

  static absl::StatusOr<std::unique_ptr<sched::Plugin>> New(const sched::PluginArgs& args,
                                                            sched::Handle& /*handle*/) {
    absl::StatusOr<FavouriteArgs> typed = DecodeFavouriteArgs(args);
    if (!typed.ok()) return typed.status();
    return std::make_unique<Favourite>(*std::move(typed));
  }

  // The one registration.
  static sched::PluginDescriptor Descriptor() {
    sched::PluginDescriptor descriptor = sched::DescriptorFor<Favourite>();
    descriptor.validate_args = sched::ArgsValidatorFrom(&DecodeFavouriteArgs);
    descriptor.packing = [](const sched::PluginArgs& args) {
      absl::StatusOr<FavouriteArgs> typed = DecodeFavouriteArgs(args);
      return typed.ok() && typed->pack;
    };
    return descriptor;
  }

  explicit Favourite(FavouriteArgs args) : args_(std::move(args)) {}
  absl::string_view Name() const override { return kName; }

  sched::Status Filter(const sched::CycleState& /*state*/, const kube::Pod& /*pod*/,
                       const sched::NodeInfo& node) const override {
    for (const std::string& name : args_.exclude) {
      if (node.name() == name) return sched::Status::Unschedulable("node is excluded");
    }
    return sched::Status();
  }

  sched::ScoreResult Score(const sched::CycleState& /*state*/, const kube::Pod& /*pod*/,
                           const sched::NodeInfo& node) const override {
    return sched::ScoreResult::Of(node.name() == args_.favourite ? args_.bonus : 0);
  }

 private:
  FavouriteArgs args_;
};

// The in-tree plugins plus Favourite: the only place Favourite is registered.
sched::Registry RegistryWithFavourite() {
  sched::Registry registry = sched::plugins::InTreeRegistry();
  const absl::Status registered = registry.Register(Favourite::kName, Favourite::Descriptor());
  EXPECT_THAT(registered, IsOk());
  return registry;
}

// A v1 configuration with one profile "fav" whose plugins all come from multiPoint:
// PrioritySort, DefaultBinder and Favourite (weight 3), nothing else; `plugin_config` (a
// YAML flow sequence) is its pluginConfig.
std::string ConfigYaml(absl::string_view plugin_config, absl::string_view extra_plugins = "") {
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: fav\n"
      "    plugins:\n"
      "      multiPoint:\n"
      "        disabled: [{name: \"*\"}]\n"
      "        enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: Favourite, "
      "weight: 3}]\n",
      extra_plugins, "    pluginConfig: ", plugin_config, "\n");
}

std::vector<std::string> Lines(const absl::Status& status) {
  return absl::StrSplit(status.message(), '\n');
}

TEST(PluginRegistrationTest, MultiPointExpandsToItsInterfacesAndItsArgsSetPacking) {
  const sched::Registry registry = RegistryWithFavourite();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      sched::config::SchedulerConfig cfg,
      sched::config::ParseConfig(
          ConfigYaml("[{name: Favourite, args: {favourite: node-b, strategy: Pack}}]"), "t"));
  ASSERT_THAT(sched::config::Validate(cfg, registry), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::ProfileConfig p,
                                sched::config::ExpandProfile(cfg, 0, registry));
  // Favourite at Filter and Score, its two interfaces, and at no other point.
  EXPECT_THAT(p.queue_sort, ElementsAre("PrioritySort"));
  EXPECT_THAT(p.filter, ElementsAre("Favourite"));
  EXPECT_THAT(p.score, ElementsAre(sched::WeightedPlugin{"Favourite", 3}));
  EXPECT_THAT(p.bind, ElementsAre("DefaultBinder"));
  for (const auto* list : {&p.pre_enqueue, &p.pre_filter, &p.post_filter, &p.pre_score, &p.reserve,
                           &p.permit, &p.pre_bind, &p.post_bind}) {
    EXPECT_THAT(*list, IsEmpty());
  }
  EXPECT_EQ(p.plugin_args.at("Favourite").path, "profiles[0].pluginConfig[0].args");
  // Its packing predicate over its args.
  EXPECT_TRUE(p.packing);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      sched::config::SchedulerConfig spread,
      sched::config::ParseConfig(ConfigYaml("[{name: Favourite, args: {strategy: Spread}}]"), "t"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::ProfileConfig q,
                                sched::config::ExpandProfile(spread, 0, registry));
  EXPECT_FALSE(q.packing);
}

TEST(PluginRegistrationTest, ValidationKnowsItAndRunsItsArgsValidator) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      sched::config::SchedulerConfig cfg,
      sched::config::ParseConfig(ConfigYaml("[{name: Favourite, args: {favourite: node-b}}]"),
                                 "t"));
  // Unknown to the in-tree plugins alone...
  EXPECT_THAT(Lines(sched::config::Validate(cfg, sched::plugins::InTreeRegistry())),
              Contains("profiles[0].pluginConfig[0].name: unknown plugin \"Favourite\""));
  // ...accepted once registered.
  const sched::Registry registry = RegistryWithFavourite();
  EXPECT_THAT(sched::config::Validate(cfg, registry), IsOk());

  // Its args validator runs; every error is reported with its field path.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      sched::config::SchedulerConfig bad,
      sched::config::ParseConfig(
          ConfigYaml("[{name: Favourite, args: {bonus: 500, colour: red}}]",
                     "      preScore:\n        enabled: [{name: Favourite}]\n"),
          "t"));
  const absl::Status status = sched::config::Validate(bad, registry);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Lines(status),
              ElementsAre("profiles[0].plugins.preScore.enabled[0].name: plugin \"Favourite\" "
                          "does not implement PreScore",
                          "profiles[0].pluginConfig[0].args.bonus: must be in [0, 100], got 500",
                          "profiles[0].pluginConfig[0].args.colour: unknown field"));
}

TEST(PluginRegistrationTest, TrimaranctlScoresWithIt) {
  const sched::Registry registry = RegistryWithFavourite();
  ScoreInput input;
  for (const char* name : {"node-a", "node-b", "node-c"}) {
    input.nodes.push_back(kube::testing::MakeNode()
                              .Name(name)
                              .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                              .Obj());
  }
  input.pod = kube::testing::MakePod()
                  .Name("p")
                  .Namespace("default")
                  .SchedulerName("fav")
                  .Req({{"cpu", "1"}})
                  .Obj();
  input.scheduler_config =
      ConfigYaml("[{name: Favourite, args: {favourite: node-b, bonus: 40, exclude: [node-c]}}]");
  ScoreOptions options;
  options.registry = &registry;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ScoreReport report, RunScore(input, options));
  EXPECT_EQ(report.profile, "fav");
  EXPECT_THAT(report.score_plugins, ElementsAre(std::pair<std::string, int64_t>{"Favourite", 3}));
  EXPECT_EQ(report.chosen, "node-b");
  for (const NodeReport& node : report.nodes) {
    SCOPED_TRACE(node.name);
    if (node.name == "node-c") {
      EXPECT_FALSE(node.feasible);
      EXPECT_EQ(node.plugin, "Favourite");
      EXPECT_THAT(node.reasons, ElementsAre("node is excluded"));
      continue;
    }
    EXPECT_TRUE(node.feasible);
    ASSERT_EQ(node.scores.size(), 1u);
    EXPECT_EQ(node.scores[0].plugin, "Favourite");
    EXPECT_EQ(node.scores[0].weight, 3);
    EXPECT_EQ(node.total, node.name == "node-b" ? 120 : 0);
  }

  // Without the registration, trimaranctl refuses the same file, naming the plugin.
  EXPECT_THAT(RunScore(input, ScoreOptions{}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                        HasSubstr("unknown plugin \"Favourite\"")));
}

}  // namespace
}  // namespace trimaran::sched::explain
