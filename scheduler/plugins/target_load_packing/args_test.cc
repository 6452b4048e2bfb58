#include "scheduler/plugins/target_load_packing/args.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/plugins/registry.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

absl::StatusOr<TargetLoadPackingArgs> Decode(const std::string& yaml) {
  return DecodeTargetLoadPackingArgs(
      PluginArgs{YAML::Load(yaml), "profiles[0].pluginConfig[0].args"});
}

TEST(TargetLoadPackingArgsTest, Defaults) {
  for (const std::string yaml : {"", "{}"}) {
    SCOPED_TRACE(yaml);
    auto args = Decode(yaml);
    ASSERT_THAT(args, IsOk());
    EXPECT_EQ(args->target_utilization, 40);
    EXPECT_EQ(args->default_requests_milli_cpu, 1000);
    EXPECT_EQ(args->default_requests_memory, 0);
    EXPECT_EQ(args->default_requests_multiplier, "1.5");
    EXPECT_DOUBLE_EQ(args->multiplier, 1.5);
    ASSERT_EQ(args->resources.size(), 1u);
    EXPECT_EQ(args->resources[0], (TargetLoadPackingResource{"cpu", 1, 40}));
    EXPECT_EQ(args->trimaran.metric_provider.type, "KubernetesMetricsServer");
    EXPECT_FALSE(args->trimaran.metric_provider.insecure_skip_verify);
    EXPECT_FALSE(args->trimaran.watcher_address.has_value());
    EXPECT_EQ(args->trimaran.metrics_max_age, absl::Minutes(5));
    EXPECT_EQ(args->trimaran.fallback, load_aware::FallbackPolicy::kRequests);
  }
}

TEST(TargetLoadPackingArgsTest, UpstreamExample) {
  // SP apis/config/scheme/scheme_test.go's TLP args, plus Trimaran's fields.
  auto args = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: TargetLoadPackingArgs
defaultRequests: {cpu: "1"}
defaultRequestsMultiplier: "1.8"
targetUtilization: 60
watcherAddress: http://deadbeef:2020
metricProvider:
  type: Prometheus
  address: http://prometheus-k8s.monitoring.svc.cluster.local:9090
  insecureSkipVerify: false
  token: ""
metricsMaxAge: 90s
fallback: MinScore
)");
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->target_utilization, 60);
  EXPECT_EQ(args->default_requests_milli_cpu, 1000);
  EXPECT_DOUBLE_EQ(args->multiplier, 1.8);
  EXPECT_EQ(args->resources[0].target_utilization, 60);
  EXPECT_EQ(*args->trimaran.watcher_address, "http://deadbeef:2020");
  EXPECT_TRUE(args->trimaran.service_mode());
  EXPECT_EQ(args->trimaran.metric_provider.type, "Prometheus");
  EXPECT_FALSE(args->trimaran.metric_provider.insecure_skip_verify);
  EXPECT_EQ(args->trimaran.metrics_max_age, absl::Seconds(90));
  EXPECT_EQ(args->trimaran.fallback, load_aware::FallbackPolicy::kMinScore);
}

TEST(TargetLoadPackingArgsTest, UpstreamDefaulting) {
  struct Case {
    std::string yaml;
    int64_t target;
    bool insecure;
  };
  const std::vector<Case> cases = {
      {"targetUtilization: 0", 40, false},   // <= 0 -> 40
      {"targetUtilization: -3", 40, false},  // <= 0 -> 40
      // Verified by default (upstream defaults insecureSkipVerify to true for Prometheus).
      {"metricProvider: {type: Prometheus}", 40, false},
      {"metricProvider: {type: Prometheus, insecureSkipVerify: true}", 40, true},
      {"metricProvider: {type: SignalFx}", 40, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto args = Decode(c.yaml);
    ASSERT_THAT(args, IsOk());
    EXPECT_EQ(args->target_utilization, c.target);
    EXPECT_EQ(args->trimaran.metric_provider.insecure_skip_verify, c.insecure);
  }
}

TEST(TargetLoadPackingArgsTest, ProductionBackendSettings) {
  auto args = Decode(R"(metricProvider:
  type: Prometheus
  address: https://mimir.example:8080/prometheus
  tokenFile: /var/run/secrets/prom/token
  caFile: /etc/prom/ca.crt
  certFile: /etc/prom/tls.crt
  keyFile: /etc/prom/tls.key
  headers: {X-Scope-OrgID: tenant-1}
  nodeLabels: [node, instance]
  cpuMetric: node:cpu_utilisation:ratio
  memoryMetric: node:memory_utilisation:ratio
)");
  ASSERT_THAT(args, IsOk());
  const lw::ProviderSpec& p = args->trimaran.metric_provider;
  EXPECT_EQ(p.token_file, "/var/run/secrets/prom/token");
  EXPECT_EQ(p.ca_file, "/etc/prom/ca.crt");
  EXPECT_EQ(p.client_cert_file, "/etc/prom/tls.crt");
  EXPECT_EQ(p.client_key_file, "/etc/prom/tls.key");
  ASSERT_EQ(p.headers.size(), 1u);
  EXPECT_EQ(p.headers[0].first, "X-Scope-OrgID");
  EXPECT_EQ(p.headers[0].second, "tenant-1");
  EXPECT_THAT(p.node_labels, ::testing::ElementsAre("node", "instance"));
  EXPECT_EQ(p.cpu_metric, "node:cpu_utilisation:ratio");
  EXPECT_EQ(p.memory_metric, "node:memory_utilisation:ratio");
  EXPECT_FALSE(p.insecure_skip_verify);
}

TEST(TargetLoadPackingArgsTest, SecuredRemoteWatcher) {
  auto args = Decode(R"(watcherAddress: https://trimaran-load-watcher.kube-system.svc:2020
watcherCAFile: /etc/trimaran/watcher-tls/ca.crt
watcherTokenFile: /var/run/secrets/trimaran/watcher-token/token
)");
  ASSERT_THAT(args, IsOk());
  const lw::RemoteSpec remote = args->trimaran.remote();
  EXPECT_EQ(remote.address, "https://trimaran-load-watcher.kube-system.svc:2020");
  EXPECT_EQ(remote.ca_file, "/etc/trimaran/watcher-tls/ca.crt");
  EXPECT_EQ(remote.token_file, "/var/run/secrets/trimaran/watcher-token/token");
  auto grpcs = Decode("{watcherAddress: \"grpcs://lw:2021\", watcherCAFile: /ca.crt}");
  ASSERT_THAT(grpcs, IsOk());
  EXPECT_EQ(grpcs->trimaran.remote().ca_file, "/ca.crt");
}

TEST(TargetLoadPackingArgsTest, ValidationErrorsNameTheField) {
  constexpr absl::string_view kPath = "profiles[0].pluginConfig[0].args.";
  struct Case {
    std::string yaml;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"targetUtilization: 101", "targetUtilization: must be in [1, 100], got 101"},
      {"targetUtilization: x", "targetUtilization: must be an integer"},
      {"defaultRequestsMultiplier: abc",
       "defaultRequestsMultiplier: unable to parse DefaultRequestsMultiplier"},
      {"defaultRequestsMultiplier: \"-1\"", "defaultRequestsMultiplier: must not be negative"},
      {"defaultRequests: {cpu: lots}", "defaultRequests.cpu: must be a quantity"},
      {"metricProvider: {type: Datadog}",
       "metricProvider.type: invalid MetricProvider.Type, got Datadog"},
      // An explicit empty watcherAddress stops type defaulting (upstream edge case).
      {"watcherAddress: \"\"", "metricProvider.type: invalid MetricProvider.Type, got  "},
      {"watcherAddress: ftp://x",
       "watcherAddress: must start with http://, https://, grpc:// or grpcs://"},
      {"{watcherAddress: \"http://w:2020\", watcherCAFile: /ca.crt}",
       "watcherCAFile: needs a TLS watcherAddress (https:// or grpcs://)"},
      {"watcherCAFile: /ca.crt", "watcherCAFile: only with a non-empty watcherAddress"},
      {"watcherTokenFile: /t", "watcherTokenFile: only with a non-empty watcherAddress"},
      {"{watcherAddress: \"https://w:2020\", watcherTokenFile: [a]}", "watcherTokenFile: "},
      {"metricProvider: {type: Prometheus, token: t, tokenFile: /f}",
       "metricProvider.tokenFile: give token or tokenFile, not both"},
      {"metricProvider: {type: Prometheus, certFile: /c}",
       "metricProvider.certFile: certFile and keyFile go together"},
      {"metricProvider: {type: Prometheus, headers: [a]}",
       "metricProvider.headers: must be a map of header names to values"},
      {"metricsMaxAge: soon", "metricsMaxAge: must be a duration"},
      {"metricsMaxAge: 0s", "metricsMaxAge: must be a duration greater than 0"},
      {"fallback: Zero", "fallback: Unsupported value: \"Zero\""},
      {"kind: NodeResourcesFitArgs", "kind: must be \"TargetLoadPackingArgs\""},
      {"bogus: 1", "bogus: unknown field"},
      {"resources: [{name: gpu}]", "resources[0].name: Unsupported value: \"gpu\""},
      {"resources: [{name: cpu}, {name: cpu}]", "resources[1].name: Duplicate value"},
      {"resources: [{name: cpu, weight: 0}]", "resources[0].weight: must be in [1, 100], got 0"},
      {"resources: [{name: memory, targetUtilization: 200}]",
       "resources[0].targetUtilization: must be in [1, 100], got 200"},
      {"resources: []", "resources: Required value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_THAT(Decode(c.yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr(absl::StrCat(kPath, c.error))));
  }
}

TEST(TargetLoadPackingArgsTest, EveryErrorIsReported) {
  auto args = Decode("targetUtilization: 500\nfallback: X\nmetricsMaxAge: -1m");
  ASSERT_FALSE(args.ok());
  EXPECT_THAT(args.status().message(), HasSubstr("targetUtilization"));
  EXPECT_THAT(args.status().message(), HasSubstr("fallback"));
  EXPECT_THAT(args.status().message(), HasSubstr("metricsMaxAge"));
}

TEST(TargetLoadPackingArgsTest, TheRegistryValidatesTrimaranArgs) {
  const Registry registry = InTreeRegistry();
  for (const char* name :
       {"TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment"}) {
    SCOPED_TRACE(name);
    const PluginDescriptor* descriptor = registry.Find(name);
    ASSERT_NE(descriptor, nullptr);
    ASSERT_TRUE(descriptor->validate_args);
    EXPECT_THAT(descriptor->validate_args(PluginArgs{YAML::Load("{}"), "p"}), IsOk());
    EXPECT_THAT(descriptor->validate_args(PluginArgs{YAML::Load("fallback: Nope"), "p"}),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("p.fallback:")));
  }
  EXPECT_THAT(registry.Find("LowRiskOverCommitment")
                  ->validate_args(PluginArgs{YAML::Load("riskLimitWeights: {cpu: 1.5}"), "p"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("p.riskLimitWeights.cpu: must be in [0, 1], got 1.5")));
}

}  // namespace
}  // namespace trimaran::sched::plugins
