// Tests for the KubeSchedulerConfiguration loader (spec §1): fixtures, defaults, merge
// (§1.6), multiPoint expansion (§1.7), v1beta2 (§1.9), validation, writing.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/config/write.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sched::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr absl::string_view kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// The in-tree plugins: what the daemon validates and expands with.
const Registry& InTree() {
  static const Registry* registry = new Registry(plugins::InTreeRegistry());
  return *registry;
}

absl::StatusOr<SchedulerConfig> Parse(absl::string_view body) {
  return ParseConfig(absl::StrCat(kHeader, body), "test.yaml");
}

using EP = ExtensionPoint;

// A factory for descriptors that configuration tests register (they never build).
PluginFactory UnbuildableFactory() {
  return [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<sched::Plugin>> {
    return absl::UnimplementedError("not built in configuration tests");
  };
}

// Replaces the args validator of the registered plugin `name`.
void ReplaceArgsValidator(Registry& registry, absl::string_view name, ArgsValidator validator) {
  PluginDescriptor descriptor = *registry.Find(name);
  descriptor.validate_args = std::move(validator);
  ASSERT_THAT(registry.Unregister(name), IsOk());
  ASSERT_THAT(registry.Register(name, std::move(descriptor)), IsOk());
}

std::vector<WeightedPlugin> Score(std::vector<std::pair<std::string, int32_t>> v) {
  std::vector<WeightedPlugin> out;
  for (auto& [n, w] : v) out.push_back({n, w});
  return out;
}

// ---- fixtures -------------------------------------------------------------------------

TEST(ConfigFixtureTest, EksBinpackLoadsUnchanged) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      LoadConfigFile(TRIMARAN_CONFIG_TESTDATA "/eks-binpack-scheduler-config.yaml"));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
  EXPECT_TRUE(cfg.leader_election.leader_elect);
  EXPECT_EQ(cfg.leader_election.resource_name, "my-scheduler");
  EXPECT_EQ(cfg.leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(cfg.client_connection.qps, 100);
  EXPECT_EQ(cfg.client_connection.burst, 200);
  ASSERT_EQ(cfg.profiles.size(), 1u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  EXPECT_EQ(p.scheduler_name, "my-scheduler");
  // score.disabled "*": only the explicit score list, weight 1.
  EXPECT_EQ(p.score, Score({{"NodeResourcesFit", 1}}));
  EXPECT_TRUE(p.packing);  // MostAllocated.
  EXPECT_EQ(p.plugin_args.at("NodeResourcesFit").args["scoringStrategy"]["type"].Scalar(),
            "MostAllocated");
  EXPECT_EQ(p.plugin_args.at("NodeResourcesFit").path, "profiles[0].pluginConfig[0].args");
  // Filters still come from the defaults (multiPoint).
  EXPECT_THAT(p.filter,
              ElementsAre("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                          "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
                          "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity"));
  EXPECT_THAT(p.queue_sort, ElementsAre("PrioritySort"));
  EXPECT_THAT(p.bind, ElementsAre("DefaultBinder"));
}

constexpr absl::string_view kV1beta1Equivalent =
    R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: trimaran
    plugins:
      score:
        disabled:
          - name: NodeResourcesBalancedAllocation
          - name: NodeResourcesFit
        enabled:
          - name: TargetLoadPacking
          - name: TaintToleration
            weight: 1
          - name: NodeAffinity
            weight: 1
          - name: InterPodAffinity
            weight: 1
    pluginConfig:
      - name: TargetLoadPacking
        args:
          watcherAddress: http://127.0.0.1:2020
# profiles[0].plugins.score.disabled: NodeResourcesLeastAllocated -> NodeResourcesFit
# profiles[0].plugins.score.enabled: TaintToleration weight 1 (its v1beta1 default; the v1 default differs)
# profiles[0].plugins.score.enabled: NodeAffinity weight 1 (its v1beta1 default; the v1 default differs)
# profiles[0].plugins.score.enabled: InterPodAffinity weight 1 (its v1beta1 default; the v1 default differs)
)";

TEST(ConfigFixtureTest, V1beta1IsRefusedWithItsExactV1Equivalent) {
  const std::string path = TRIMARAN_CONFIG_TESTDATA "/trimaran-v1beta1-scheduler-config.yaml";
  absl::StatusOr<SchedulerConfig> cfg = LoadConfigFile(path);
  ASSERT_THAT(cfg.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(cfg.status().message(),
            absl::StrCat(path,
                         ": apiVersion kubescheduler.config.k8s.io/v1beta1 is not supported "
                         "(removed in Kubernetes 1.25; trimaran-scheduler reads v1, v1beta3 and "
                         "v1beta2). The same configuration as kubescheduler.config.k8s.io/v1 "
                         "is:\n",
                         kV1beta1Equivalent));
  // The equivalent loads, and means what v1beta1 meant: no resource or balance scoring,
  // TargetLoadPacking plus the v1beta1-weighted defaults we run.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig v1, ParseConfig(kV1beta1Equivalent, "eq"));
  EXPECT_THAT(Validate(v1, InTree()), IsOk());
  EXPECT_FALSE(v1.leader_election.leader_elect);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(v1, 0, InTree()));
  EXPECT_EQ(p.scheduler_name, "trimaran");
  // Overrides in score.enabled order (TaintToleration, NodeAffinity, InterPodAffinity),
  // the multiPoint-only scorers left (PodTopologySpread, ImageLocality; NodeResourcesFit
  // and BalancedAllocation are disabled), then TargetLoadPacking.
  EXPECT_EQ(p.score, Score({{"TaintToleration", 1},
                            {"NodeAffinity", 1},
                            {"InterPodAffinity", 1},
                            {"PodTopologySpread", 2},
                            {"ImageLocality", 1},
                            {"TargetLoadPacking", 1}}));
  // TargetLoadPacking only enabled at score, as in v1beta1; VolumeBinding from the
  // defaults.
  EXPECT_THAT(p.reserve, ElementsAre("VolumeBinding"));
  EXPECT_TRUE(p.packing);
  EXPECT_EQ(p.plugin_args.at("TargetLoadPacking").args["watcherAddress"].Scalar(),
            "http://127.0.0.1:2020");
}

TEST(ConfigV1beta1Test, StrategyPluginsBecomeNodeResourcesFitArgs) {
  absl::StatusOr<SchedulerConfig> cfg =
      ParseConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
healthzBindAddress: 0.0.0.0:10251
profiles:
- schedulerName: packer
  plugins:
    score:
      disabled:
      - name: NodeResourcesLeastAllocated
      enabled:
      - name: NodeResourcesMostAllocated
        weight: 5
  pluginConfig:
  - name: NodeResourcesMostAllocated
    args:
      resources:
      - name: cpu
        weight: 2
)",
                  "old.yaml");
  ASSERT_THAT(cfg.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  const std::string msg(cfg.status().message());
  const std::string yaml = msg.substr(msg.find('\n') + 1);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig v1, ParseConfig(yaml, "eq"));
  EXPECT_THAT(Validate(v1, InTree()), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(v1, 0, InTree()));
  const YAML::Node& strategy = p.plugin_args.at("NodeResourcesFit").args["scoringStrategy"];
  EXPECT_EQ(strategy["type"].Scalar(), "MostAllocated");
  EXPECT_EQ(strategy["resources"][0]["weight"].as<int>(), 2);
  // NodeResourcesFit (weight 5, explicit) stays enabled although "LeastAllocated" was
  // disabled; TaintToleration/NodeAffinity/InterPodAffinity carry the v1beta1 weight 1.
  EXPECT_EQ(p.score, Score({{"NodeResourcesFit", 5},
                            {"TaintToleration", 1},
                            {"NodeAffinity", 1},
                            {"InterPodAffinity", 1},
                            {"PodTopologySpread", 2},
                            {"NodeResourcesBalancedAllocation", 1},
                            {"ImageLocality", 1}}));
  EXPECT_THAT(msg, HasSubstr("# healthzBindAddress removed"));
}

// Found by fuzz/scheduler_config_fuzzer.cc: yaml-cpp threw out of the translation (and
// ended the process) on shapes it did not expect.
TEST(ConfigV1beta1Test, UntranslatableShapesAreRefusedWithoutTheTranslation) {
  for (const char* profile : {"  plugins: \"score: x\"\n", "  plugins: [1]\n",
                              "  plugins:\n    score: [1]\n", "  pluginConfig: 3\n"}) {
    SCOPED_TRACE(profile);
    absl::StatusOr<SchedulerConfig> cfg =
        ParseConfig(absl::StrCat("apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
                                 "kind: KubeSchedulerConfiguration\n"
                                 "profiles:\n- schedulerName: a\n",
                                 profile),
                    "old.yaml");
    EXPECT_THAT(cfg.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("old.yaml: apiVersion "
                                                 "kubescheduler.config.k8s.io/v1beta1 is not "
                                                 "supported")));
  }
}

// Found by fuzz/scheduler_config_fuzzer.cc: invalid UTF-8 loaded, but was written back
// as U+FFFD.
TEST(ConfigLoadTest, InvalidUtf8IsRefused) {
  EXPECT_THAT(ParseConfig("profiles:\n- schedulerName: \"a\xff\"\n", "bad.yaml").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bad.yaml: invalid YAML: not UTF-8 at byte 29")));
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    EXPECT_THAT(ParseConfig(absl::StrCat("# ", bad, "\n"), "c").status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not UTF-8 at byte 2")));
  }
  EXPECT_THAT(
      Parse("profiles:\n- schedulerName: caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80\n").status(),
      IsOk());
}

// ---- defaults and expansion ---------------------------------------------------------

TEST(ConfigDefaultsTest, EmptyConfigGetsUpstreamDefaults) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse(""));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
  EXPECT_EQ(cfg.parallelism, 16);
  EXPECT_TRUE(cfg.leader_election.leader_elect);
  EXPECT_EQ(cfg.leader_election.lease_duration, absl::Seconds(15));
  EXPECT_EQ(cfg.leader_election.renew_deadline, absl::Seconds(10));
  EXPECT_EQ(cfg.leader_election.retry_period, absl::Seconds(2));
  EXPECT_EQ(cfg.leader_election.resource_lock, "leases");
  EXPECT_EQ(cfg.leader_election.resource_name, "kube-scheduler");
  EXPECT_EQ(cfg.leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(cfg.client_connection.qps, 50);
  EXPECT_EQ(cfg.client_connection.burst, 100);
  EXPECT_EQ(cfg.client_connection.content_type, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(cfg.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(cfg.pod_max_backoff_seconds, 10);
  EXPECT_EQ(cfg.percentage_of_nodes_to_score, 0);
  EXPECT_EQ(cfg.enable_contention_profiling, true);
  ASSERT_EQ(cfg.profiles.size(), 1u);
  EXPECT_EQ(cfg.profiles[0].scheduler_name, "default-scheduler");
}

TEST(ConfigDefaultsTest, ContentionProfilingFollowsProfiling) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse("enableProfiling: false\n"));
  EXPECT_EQ(cfg.enable_contention_profiling, false);
}

TEST(ConfigDefaultsTest, TwoUnnamedProfilesAreNotNamed) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse("profiles: [{}, {}]\n"));
  EXPECT_EQ(cfg.profiles[0].scheduler_name, "");
  EXPECT_THAT(Validate(cfg, InTree()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("profiles[1].schedulerName: must not be empty")));
}

TEST(ConfigDefaultsTest, V1DefaultScoreWeights) {
  // Spec §1.5: 3,2,1,2,2,1,1 (max total 100 x 12 = 1200).
  std::vector<std::pair<std::string, int32_t>> scorers;
  for (const Plugin& p : DefaultPlugins(ApiVersion::kV1).multi_point.enabled) {
    if (p.weight != 0) scorers.emplace_back(p.name, p.weight);
  }
  EXPECT_THAT(scorers,
              ElementsAre(std::pair<std::string, int32_t>{"TaintToleration", 3},
                          std::pair<std::string, int32_t>{"NodeAffinity", 2},
                          std::pair<std::string, int32_t>{"NodeResourcesFit", 1},
                          std::pair<std::string, int32_t>{"PodTopologySpread", 2},
                          std::pair<std::string, int32_t>{"InterPodAffinity", 2},
                          std::pair<std::string, int32_t>{"NodeResourcesBalancedAllocation", 1},
                          std::pair<std::string, int32_t>{"ImageLocality", 1}));
}

TEST(ConfigExpandTest, DefaultProfile) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse(""));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  // Every v1 default scorer, in v1 order with v1 weights (ImageLocality included).
  EXPECT_EQ(p.score, Score({{"TaintToleration", 3},
                            {"NodeAffinity", 2},
                            {"NodeResourcesFit", 1},
                            {"PodTopologySpread", 2},
                            {"InterPodAffinity", 2},
                            {"NodeResourcesBalancedAllocation", 1},
                            {"ImageLocality", 1}}));
  EXPECT_THAT(p.pre_enqueue, ElementsAre("SchedulingGates"));
  EXPECT_THAT(p.queue_sort, ElementsAre("PrioritySort"));
  EXPECT_THAT(p.pre_filter, ElementsAre("NodeAffinity", "NodePorts", "NodeResourcesFit",
                                        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                                        "VolumeZone", "PodTopologySpread", "InterPodAffinity"));
  EXPECT_THAT(p.reserve, ElementsAre("VolumeBinding"));
  EXPECT_THAT(p.pre_bind, ElementsAre("VolumeBinding"));
  EXPECT_THAT(p.filter,
              ElementsAre("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                          "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
                          "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity"));
  EXPECT_THAT(p.post_filter, ElementsAre("DefaultPreemption"));
  EXPECT_THAT(p.pre_score, ElementsAre("TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                       "PodTopologySpread", "InterPodAffinity",
                                       "NodeResourcesBalancedAllocation"));
  EXPECT_THAT(p.bind, ElementsAre("DefaultBinder"));
  EXPECT_EQ(p.percentage_of_nodes_to_score, 0);
  EXPECT_FALSE(p.packing);
}

struct ExpandCase {
  std::string name;
  std::string yaml;  // after apiVersion/kind
  std::vector<WeightedPlugin> score;
  std::vector<std::string> filter;  // empty: not checked
};

TEST(ConfigExpandTest, Table) {
  const std::vector<ExpandCase> cases = {
      {"star disables all default scorers",
       "profiles:\n- plugins:\n    score:\n      disabled: [{name: '*'}]\n"
       "      enabled: [{name: NodeResourcesBalancedAllocation, weight: 5}]\n",
       Score({{"NodeResourcesBalancedAllocation", 5}}),
       {}},
      {"in-place replacement keeps position and takes the user's weight",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeAffinity, weight: 7}]\n",
       Score({{"TaintToleration", 3},
              {"NodeAffinity", 7},
              {"NodeResourcesFit", 1},
              {"PodTopologySpread", 2},
              {"InterPodAffinity", 2},
              {"NodeResourcesBalancedAllocation", 1},
              {"ImageLocality", 1}}),
       {}},
      {"multiPoint disabled drops the plugin everywhere",
       "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: TaintToleration}]\n",
       Score({{"NodeAffinity", 2},
              {"NodeResourcesFit", 1},
              {"PodTopologySpread", 2},
              {"InterPodAffinity", 2},
              {"NodeResourcesBalancedAllocation", 1},
              {"ImageLocality", 1}}),
       {"NodeUnschedulable", "NodeName", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
        "PodTopologySpread", "InterPodAffinity"}},
      {"score disabled only at score keeps the filter",
       "profiles:\n- plugins:\n    score:\n      disabled: [{name: TaintToleration}]\n",
       Score({{"NodeAffinity", 2},
              {"NodeResourcesFit", 1},
              {"PodTopologySpread", 2},
              {"InterPodAffinity", 2},
              {"NodeResourcesBalancedAllocation", 1},
              {"ImageLocality", 1}}),
       {"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
        "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
        "PodTopologySpread", "InterPodAffinity"}},
      {"explicit score entry overrides: first, with its weight (0 -> 1)",
       "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesFit, weight: 0}, "
       "{name: TargetLoadPacking, weight: 4}]\n",
       // (a) override NodeResourcesFit, (b) multiPoint-only TT/NA/PTS/IPA/NRBA, (c) TLP.
       Score({{"NodeResourcesFit", 1},
              {"TaintToleration", 3},
              {"NodeAffinity", 2},
              {"PodTopologySpread", 2},
              {"InterPodAffinity", 2},
              {"NodeResourcesBalancedAllocation", 1},
              {"ImageLocality", 1},
              {"TargetLoadPacking", 4}}),
       {}},
      {"filter star: only explicit filters",
       "profiles:\n- plugins:\n    filter:\n      disabled: [{name: '*'}]\n"
       "      enabled: [{name: NodeResourcesFit}]\n",
       Score({{"TaintToleration", 3},
              {"NodeAffinity", 2},
              {"NodeResourcesFit", 1},
              {"PodTopologySpread", 2},
              {"InterPodAffinity", 2},
              {"NodeResourcesBalancedAllocation", 1},
              {"ImageLocality", 1}}),
       {"NodeResourcesFit"}},
  };
  for (const ExpandCase& c : cases) {
    SCOPED_TRACE(c.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse(c.yaml));
    EXPECT_THAT(Validate(cfg, InTree()), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
    EXPECT_EQ(p.score, c.score);
    if (!c.filter.empty()) {
      EXPECT_EQ(p.filter, c.filter);
    }
  }
}

TEST(ConfigExpandTest, DeprecatedInTreeVolumeLimitsAreAcceptedAndIgnored) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- schedulerName: t\n  plugins:\n    filter:\n      enabled: [{name: "
            "EBSLimits}, {name: GCEPDLimits}, {name: AzureDiskLimits}, {name: CinderLimits}]\n"
            "      disabled: [{name: NodePorts}]\n"));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  for (const char* name : {"EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits"}) {
    EXPECT_THAT(p.filter, ::testing::Not(::testing::Contains(name)));
  }
  EXPECT_THAT(p.filter, ::testing::Contains("NodeVolumeLimits"));
  EXPECT_THAT(p.filter, ::testing::Not(::testing::Contains("NodePorts")));
}

TEST(ConfigExpandTest, ImageLocalityNamedExplicitlyKeepsItsPlace) {
  // Implemented since issue 32: naming it is valid, and it replaces the default in place.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: ImageLocality, "
            "weight: 5}]\n"));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  EXPECT_EQ(p.score, Score({{"TaintToleration", 3},
                            {"NodeAffinity", 2},
                            {"NodeResourcesFit", 1},
                            {"PodTopologySpread", 2},
                            {"InterPodAffinity", 2},
                            {"NodeResourcesBalancedAllocation", 1},
                            {"ImageLocality", 5}}));
  EXPECT_THAT(p.pre_score, ::testing::Not(::testing::Contains("ImageLocality")));
}

TEST(ConfigExpandTest, TargetLoadPackingViaMultiPointGetsAllItsPoints) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- schedulerName: t\n  percentageOfNodesToScore: 30\n  plugins:\n"
            "    multiPoint:\n      enabled: [{name: TargetLoadPacking, weight: 2}]\n"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  EXPECT_THAT(p.reserve, ElementsAre("VolumeBinding", "TargetLoadPacking"));
  EXPECT_EQ(p.score.back(), (WeightedPlugin{"TargetLoadPacking", 2}));
  EXPECT_EQ(p.pre_score.back(), "TargetLoadPacking");
  EXPECT_EQ(p.percentage_of_nodes_to_score, 30);
  EXPECT_TRUE(p.packing);
}

// DefaultPreemption is the default PostFilter; a profile may disable it.
TEST(ConfigExpandTest, PreemptionCanBeDisabledPerProfile) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg, Parse("profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n"
                                 "    postFilter:\n      disabled: [{name: DefaultPreemption}]\n"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig a, ExpandProfile(cfg, 0, InTree()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig b, ExpandProfile(cfg, 1, InTree()));
  EXPECT_THAT(a.post_filter, ElementsAre("DefaultPreemption"));
  EXPECT_THAT(b.post_filter, ElementsAre());
}

TEST(ConfigExpandTest, DuplicatesAreErrors) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeName}, "
            "{name: NodeName}]\n    filter:\n      enabled: [{name: NodePorts}, {name: "
            "NodePorts}]\n"));
  // multiPoint [defaults..., NodeName replaced in place] + the second NodeName appended.
  EXPECT_THAT(ExpandProfile(cfg, 0, InTree()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("plugin \"NodeName\" already registered as multiPoint")));
  EXPECT_THAT(ExpandProfile(cfg, 0, InTree()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("profiles[0].plugins.filter: plugin \"NodePorts\" already "
                                 "registered as Filter")));
}

TEST(ConfigMergeTest, Table) {
  const PluginSet defaults{{{"A", 1}, {"B", 2}, {"C", 3}}, {}};
  struct Case {
    std::string name;
    PluginSet user;
    std::vector<Plugin> want;
  };
  const std::vector<Case> cases = {
      {"empty user keeps defaults", {}, {{"A", 1}, {"B", 2}, {"C", 3}}},
      {"replace in place", {{{"B", 9}}, {}}, {{"A", 1}, {"B", 9}, {"C", 3}}},
      {"disable one and append", {{{"D", 4}}, {"A"}}, {{"B", 2}, {"C", 3}, {"D", 4}}},
      {"star", {{{"C", 0}}, {"*"}}, {{"C", 0}}},
      {"disabled and enabled: moved to the end",
       {{{"A", 5}}, {"A"}},
       {{"B", 2}, {"C", 3}, {"A", 5}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(MergePluginSet(defaults, c.user).enabled, c.want);
  }
}

TEST(ConfigV1beta2Test, PerExtensionPointDefaultsAndWeights) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      ParseConfig("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                  "kind: KubeSchedulerConfiguration\nhealthzBindAddress: 0.0.0.0:10251\n",
                  "b2"));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  // v1beta2 weights: all 1 but PodTopologySpread (TaintToleration 1, NodeAffinity 1).
  EXPECT_EQ(p.score, Score({{"NodeResourcesBalancedAllocation", 1},
                            {"ImageLocality", 1},
                            {"InterPodAffinity", 1},
                            {"NodeResourcesFit", 1},
                            {"NodeAffinity", 1},
                            {"PodTopologySpread", 2},
                            {"TaintToleration", 1}}));
  EXPECT_THAT(p.pre_filter, ElementsAre("NodeResourcesFit", "NodePorts", "VolumeRestrictions",
                                        "PodTopologySpread", "InterPodAffinity", "VolumeBinding",
                                        "NodeAffinity"));
  EXPECT_THAT(p.pre_score,
              ElementsAre("InterPodAffinity", "PodTopologySpread", "TaintToleration",
                          "NodeAffinity", "NodeResourcesFit", "NodeResourcesBalancedAllocation"));
  EXPECT_THAT(p.bind, ElementsAre("DefaultBinder"));
  // v1beta2 had no multiPoint.
  EXPECT_THAT(ParseConfig("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                          "kind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n"
                          "    multiPoint: {}\n",
                          "b2")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("profiles[0].plugins.multiPoint: unknown field")));
}

TEST(ConfigV1beta3Test, SameDefaultsAsV1) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg,
                                ParseConfig("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                                            "kind: KubeSchedulerConfiguration\n",
                                            "b3"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig p, ExpandProfile(cfg, 0, InTree()));
  EXPECT_EQ(p.score[0], (WeightedPlugin{"TaintToleration", 3}));
}

// ---- decoding errors ------------------------------------------------------------------

struct ParseErrorCase {
  std::string name;
  std::string text;  // full document
  std::string want;  // substring of the message
};

TEST(ConfigParseTest, Errors) {
  const std::string h(kHeader);
  const std::vector<ParseErrorCase> cases = {
      {"bad YAML has line:column", h + "profiles:\n  - schedulerName: [a\n", "test.yaml:5:"},
      {"bad YAML says so", h + "parallelism: [1\n", "invalid YAML"},
      {"unknown plugin set field",
       h + "profiles:\n- plugins:\n    score:\n      enabeld: [{name: NodeResourcesFit}]\n",
       "profiles[0].plugins.score.enabeld: unknown field (test.yaml:6:7)"},
      {"unknown top-level field", h + "paralelism: 4\n",
       "paralelism: unknown field (test.yaml:3:1)"},
      {"unknown profile field", h + "profiles:\n- schedulerNam: x\n",
       "profiles[0].schedulerNam: unknown field"},
      {"unknown plugin field", h + "profiles:\n- plugins:\n    score:\n      enabled: [{nam: X}]\n",
       "profiles[0].plugins.score.enabled[0].nam: unknown field"},
      {"unknown pluginConfig field", h + "profiles:\n- pluginConfig: [{name: X, arg: {}}]\n",
       "profiles[0].pluginConfig[0].arg: unknown field"},
      {"unknown leaderElection field", h + "leaderElection: {leaseDurations: 1s}\n",
       "leaderElection.leaseDurations: unknown field"},
      {"wrong type", h + "parallelism: lots\n", "parallelism: expected an integer, got \"lots\""},
      {"bad duration", h + "leaderElection: {leaseDuration: 15}\n",
       "leaderElection.leaseDuration: invalid duration \"15\""},
      {"bad bool", h + "leaderElection: {leaderElect: maybe}\n",
       "leaderElection.leaderElect: expected a boolean"},
      {"extenders refused", h + "extenders:\n- urlPrefix: http://x\n",
       "extenders: not supported by trimaran-scheduler yet"},
      {"wrong kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
       "kind: must be KubeSchedulerConfiguration"},
      {"missing apiVersion", "kind: KubeSchedulerConfiguration\n", "apiVersion: required"},
      {"unknown apiVersion",
       "apiVersion: kubescheduler.config.k8s.io/v2\nkind: KubeSchedulerConfiguration\n",
       "apiVersion: unsupported"},
      {"v1 has no healthzBindAddress", h + "healthzBindAddress: 0.0.0.0:10251\n",
       "healthzBindAddress: unknown field"},
  };
  for (const ParseErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(ParseConfig(c.text, "test.yaml").status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.want)));
  }
}

TEST(ConfigParseTest, EveryUnknownFieldIsReported) {
  absl::Status st = Parse("foo: 1\nprofiles:\n- bar: 2\n").status();
  EXPECT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("foo: unknown field")));
  EXPECT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("profiles[0].bar: unknown field")));
}

TEST(ConfigParseTest, Durations) {
  const std::vector<std::pair<std::string, absl::Duration>> ok = {
      {"15s", absl::Seconds(15)}, {"1m30s", absl::Seconds(90)}, {"100ms", absl::Milliseconds(100)},
      {"1h", absl::Hours(1)},     {"0", absl::ZeroDuration()},
  };
  for (const auto& [text, want] : ok) {
    SCOPED_TRACE(text);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(absl::Duration d, ParseGoDuration(text));
    EXPECT_EQ(d, want);
    EXPECT_EQ(ParseGoDuration(FormatGoDuration(d)).value(), want);
  }
  for (const char* bad : {"15", "abc", "inf", "1x", ""}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(ParseGoDuration(bad), StatusIs(absl::StatusCode::kInvalidArgument));
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse(
          "leaderElection:\n  leaseDuration: 1m30s\n  renewDeadline: 1m\n  retryPeriod: 500ms\n"));
  EXPECT_EQ(cfg.leader_election.lease_duration, absl::Seconds(90));
  EXPECT_EQ(cfg.leader_election.renew_deadline, absl::Seconds(60));
  EXPECT_EQ(cfg.leader_election.retry_period, absl::Milliseconds(500));
  EXPECT_THAT(Validate(cfg, InTree()), IsOk());
}

// ---- validation -----------------------------------------------------------------------

struct ValidateCase {
  std::string name;
  std::string yaml;  // after apiVersion/kind
  std::string want;  // one line of the message
};

TEST(ConfigValidateTest, EachError) {
  const std::vector<ValidateCase> cases = {
      {"parallelism", "parallelism: 0\n", "parallelism: must be greater than 0, got 0"},
      {"percentage", "percentageOfNodesToScore: 101\n",
       "percentageOfNodesToScore: must be in [0, 100], got 101"},
      {"profile percentage", "profiles: [{percentageOfNodesToScore: -1}]\n",
       "profiles[0].percentageOfNodesToScore: must be in [0, 100], got -1"},
      {"initial backoff", "podInitialBackoffSeconds: 0\n",
       "podInitialBackoffSeconds: must be greater than 0, got 0"},
      {"max backoff", "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n",
       "podMaxBackoffSeconds: must be greater than or equal to podInitialBackoffSeconds (5), got "
       "4"},
      {"lease <= renew", "leaderElection: {leaseDuration: 10s}\n",
       "leaderElection.leaseDuration: must be greater than renewDeadline (10s), got 10s"},
      // 2s x 1.2 = 2.4s >= 2s.
      {"renew <= retry*1.2", "leaderElection: {renewDeadline: 2s}\n",
       "leaderElection.renewDeadline: must be greater than retryPeriod*1.2 (2.4s), got 2s"},
      {"resource lock", "leaderElection: {resourceLock: endpoints}\n",
       "leaderElection.resourceLock: must be \"leases\", got \"endpoints\""},
      {"duplicate names", "profiles: [{schedulerName: a}, {schedulerName: a}]\n",
       "profiles[1].schedulerName: duplicate value \"a\" (also profiles[0])"},
      {"unknown plugin",
       "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesFit}, {name: "
       "Foo}]\n",
       "profiles[0].plugins.score.enabled[1].name: unknown plugin \"Foo\""},
      {"unsupported plugin",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: DynamicResources}]\n",
       "profiles[0].plugins.multiPoint.enabled[18].name: plugin DynamicResources is not "
       "supported by trimaran-scheduler yet"},
      {"preemption args",
       "profiles:\n- pluginConfig: [{name: DefaultPreemption, args: "
       "{minCandidateNodesPercentage: 101}}]\n",
       "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in "
       "valid range [0, 100]"},
      {"removed stop-gap",
       "profiles:\n- plugins:\n    preFilter:\n      enabled: [{name: "
       "UnsupportedPodConstraints}]\n",
       "profiles[0].plugins.preFilter.enabled[0].name: plugin UnsupportedPodConstraints was "
       "removed: InterPodAffinity and PodTopologySpread (in the default profile) now evaluate "
       "those constraints; remove it from the configuration"},
      {"not implementing the point",
       "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeName}]\n",
       "profiles[0].plugins.score.enabled[0].name: plugin \"NodeName\" does not implement Score"},
      {"negative weight",
       "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesFit, weight: -1}]\n",
       "profiles[0].plugins.score.enabled[0].weight: must be in [0, 100], got -1 (plugin "
       "NodeResourcesFit)"},
      {"weight above 100",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeAffinity, weight: "
       "101}]\n",
       // Index 5 of the merged multiPoint list (SchedulingGates, PrioritySort, ...).
       "profiles[0].plugins.multiPoint.enabled[5].weight: must be in [0, 100], got 101 (plugin "
       "NodeAffinity)"},
      {"pluginConfig unknown", "profiles: [{pluginConfig: [{name: Bar}]}]\n",
       "profiles[0].pluginConfig[0].name: unknown plugin \"Bar\""},
      {"pluginConfig duplicate",
       "profiles: [{pluginConfig: [{name: NodeResourcesFit}, {name: NodeResourcesFit}]}]\n",
       "profiles[0].pluginConfig[1].name: duplicate plugin config \"NodeResourcesFit\" (also "
       "pluginConfig[0])"},
      {"no bind plugin",
       "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: DefaultBinder}]\n",
       "profiles[0].plugins.bind: at least one bind plugin is required"},
      {"no queue sort",
       "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: PrioritySort}]\n",
       "profiles[0].plugins.queueSort: exactly one queue sort plugin is required, got 0 []"},
      {"different queue sort",
       "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n"
       "      disabled: [{name: '*'}]\n      enabled: [{name: PrioritySort}]\n    multiPoint:\n"
       "      disabled: [{name: PrioritySort}]\n- schedulerName: c\n  plugins:\n"
       "    multiPoint:\n      disabled: [{name: PrioritySort}]\n    queueSort:\n"
       "      enabled: [{name: QS2}]\n",
       "profiles[2].plugins.queueSort: must be the same for all profiles (profiles[0] uses "
       "PrioritySort), got QS2"},
      {"different queue sort args",
       "profiles:\n- schedulerName: a\n- schedulerName: b\n  pluginConfig: [{name: PrioritySort, "
       "args: {x: 1}}]\n",
       "profiles[1].pluginConfig: args of queue sort plugin PrioritySort must be the same for all "
       "profiles (see profiles[0])"},
  };
  Registry registry = InTree();
  ASSERT_THAT(registry.Register("QS2", PluginDescriptor{.factory = UnbuildableFactory(),
                                                        .extension_points = {EP::kQueueSort}}),
              IsOk());
  for (const ValidateCase& c : cases) {
    SCOPED_TRACE(c.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg, Parse(c.yaml));
    absl::Status st = Validate(cfg, registry);
    ASSERT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument));
    const std::string msg(st.message());
    std::vector<std::string> lines = absl::StrSplit(msg, '\n');
    EXPECT_THAT(lines, ::testing::Contains(c.want)) << msg;
  }
}

TEST(ConfigValidateTest, AllErrorsInOneMessage) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("parallelism: -1\npercentageOfNodesToScore: 150\nprofiles:\n- schedulerName: x\n"
            "  plugins:\n    score:\n      enabled: [{name: Foo}, {name: NodeResourcesFit, "
            "weight: -3}]\n- schedulerName: x\n"));
  absl::Status st = Validate(cfg, InTree());
  EXPECT_EQ(st.message(),
            "parallelism: must be greater than 0, got -1\n"
            "percentageOfNodesToScore: must be in [0, 100], got 150\n"
            "profiles[0].plugins.score.enabled[0].name: unknown plugin \"Foo\"\n"
            "profiles[0].plugins.score.enabled[1].weight: must be in [0, 100], got -3 (plugin "
            "NodeResourcesFit)\n"
            "profiles[1].schedulerName: duplicate value \"x\" (also profiles[0])");
}

TEST(ConfigValidateTest, ArgsValidatorHookErrorsAreMerged) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- pluginConfig:\n  - name: TargetLoadPacking\n    args: "
            "{targetUtilization: 150}\n  - name: NodeResourcesFit\n"));
  Registry registry = InTree();
  int calls = 0;
  ReplaceArgsValidator(registry, "TargetLoadPacking", [&](const PluginArgs& args) {
    ++calls;
    const absl::string_view path = args.path;
    if (args.args["targetUtilization"].as<int>() > 100) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".targetUtilization: must be in [0, 100], got 150\n", path, ".other: bad"));
    }
    return absl::OkStatus();
  });
  ReplaceArgsValidator(registry, "NodeResourcesFit", [&](const PluginArgs& args) {
    ++calls;
    EXPECT_TRUE(!args.args || args.args.IsNull());
    return absl::OkStatus();
  });
  absl::Status st = Validate(cfg, registry);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(st.message(),
            "profiles[0].pluginConfig[0].args.targetUtilization: must be in [0, 100], got 150\n"
            "profiles[0].pluginConfig[0].args.other: bad");
}

// ---- writing --------------------------------------------------------------------------

TEST(ConfigWriteTest, RoundTrips) {
  for (const char* file : {"/eks-binpack-scheduler-config.yaml"}) {
    SCOPED_TRACE(file);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig cfg,
                                  LoadConfigFile(absl::StrCat(TRIMARAN_CONFIG_TESTDATA, file)));
    const std::string yaml = WriteConfigYaml(cfg);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig again, ParseConfig(yaml, "written"));
    EXPECT_EQ(WriteConfigYaml(again), yaml);
    EXPECT_EQ(again.profiles[0].plugins, cfg.profiles[0].plugins);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig a, ExpandProfile(cfg, 0, InTree()));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig b, ExpandProfile(again, 0, InTree()));
    EXPECT_EQ(a.score, b.score);
    EXPECT_EQ(a.filter, b.filter);
  }
  // A v1beta2 config is written as v1 with the same meaning.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig b2,
                                ParseConfig("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                                            "kind: KubeSchedulerConfiguration\n",
                                            "b2"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig v1, ParseConfig(WriteConfigYaml(b2), "w"));
  EXPECT_EQ(ExpandProfile(v1, 0, InTree())->score, ExpandProfile(b2, 0, InTree())->score);

  // Fuzz finding 5: a v1beta2 profile that disables a default plugin. Written as v1
  // without a multiPoint, v1's default multiPoint set came back in on reload.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig trimmed,
      ParseConfig("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                  "kind: KubeSchedulerConfiguration\n"
                  "profiles:\n- plugins:\n    score:\n      disabled:\n"
                  "      - name: NodeResourcesBalancedAllocation\n"
                  "    filter:\n      disabled:\n      - name: TaintToleration\n",
                  "b2-trimmed"));
  const std::string written = WriteConfigYaml(trimmed);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerConfig reloaded, ParseConfig(written, "w"));
  EXPECT_EQ(WriteConfigYaml(reloaded), written);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig before, ExpandProfile(trimmed, 0, InTree()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ProfileConfig after, ExpandProfile(reloaded, 0, InTree()));
  EXPECT_EQ(after.score, before.score);
  EXPECT_EQ(after.filter, before.filter);
  for (const auto& p : after.score) EXPECT_NE(p.name, "NodeResourcesBalancedAllocation");
  for (const auto& p : after.filter) EXPECT_NE(p, "TaintToleration");
}

TEST(ConfigWriteTest, Json) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- schedulerName: '123'\n  pluginConfig:\n  - name: NodeResourcesFit\n"
            "    args: {a: \"x\\\"y\", b: 2, c: true, d: '3'}\n"));
  const std::string json = WriteConfigJson(cfg);
  EXPECT_THAT(json, HasSubstr("\"parallelism\":16,"));
  EXPECT_THAT(json, HasSubstr("\"leaseDuration\":\"15s\""));
  EXPECT_THAT(json, HasSubstr("\"schedulerName\":\"123\""));
  EXPECT_THAT(json, HasSubstr("\"args\":{\"a\":\"x\\\"y\",\"b\":2,\"c\":true,\"d\":\"3\"}"));
  EXPECT_THAT(json, HasSubstr("{\"name\":\"TaintToleration\",\"weight\":3}"));
}

TEST(ConfigWriteTest, JsonRedactsEverySecret) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerConfig cfg,
      Parse("profiles:\n- schedulerName: trimaran\n  pluginConfig:\n"
            "  - name: TargetLoadPacking\n"
            "    args:\n"
            "      metricProvider: {type: Prometheus, address: 'https://p:9090',\n"
            "                       token: s3cr3t-token}\n"
            "      headers: {Authorization: 'Bearer h3ader', X-Scope-OrgID: tenant}\n"
            "      nested: [{clientSecret: p4ss, apiKey: k3y, emptyToken: ''}]\n"));
  const std::string json = WriteConfigJson(cfg);
  for (const char* secret : {"s3cr3t-token", "h3ader", "tenant", "p4ss", "k3y"}) {
    EXPECT_THAT(json, ::testing::Not(HasSubstr(secret))) << secret;
  }
  EXPECT_THAT(json, HasSubstr("\"token\":\"<redacted>\""));
  EXPECT_THAT(json, HasSubstr("\"address\":\"https://p:9090\""));  // not a secret
  EXPECT_THAT(json, HasSubstr("\"emptyToken\":\"\""));
  // The YAML written for --write-config-to keeps them (it must load back the same).
  EXPECT_THAT(WriteConfigYaml(cfg), HasSubstr("s3cr3t-token"));
}

}  // namespace
}  // namespace trimaran::sched::config
