#include "cmd/load-watcher/options.h"

#include <map>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::cmd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

absl::StatusOr<LoadWatcherOptions> Parse(std::vector<std::string> args,
                                         std::map<std::string, std::string> env = {}) {
  std::vector<const char*> argv = {"load-watcher"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseLoadWatcherOptions(static_cast<int>(argv.size()), argv.data(),
                                 [&env](const std::string& name) -> std::optional<std::string> {
                                   auto it = env.find(name);
                                   if (it == env.end()) return std::nullopt;
                                   return it->second;
                                 });
}

TEST(LoadWatcherOptionsTest, Defaults) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions o, Parse({}));
  EXPECT_EQ(o.provider.type, "KubernetesMetricsServer");  // upstream's default
  EXPECT_EQ(o.provider.address, "");
  EXPECT_FALSE(o.provider.insecure_skip_verify);
  EXPECT_EQ(o.bind_address, "127.0.0.1");  // local use only without a token
  EXPECT_EQ(o.port, 2020);
  EXPECT_EQ(o.grpc_port, 2021);
  EXPECT_EQ(o.fetch_interval, absl::Seconds(60));
  EXPECT_EQ(o.history_size, 1);  // only the newest is ever served
  EXPECT_EQ(o.verbosity, 0);
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.version);
}

TEST(LoadWatcherOptionsTest, UpstreamEnvironment) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions o,
                                Parse({}, {{"METRICS_PROVIDER_NAME", "SignalFx"},
                                           {"METRICS_PROVIDER_ADDRESS", "https://sfx.example"},
                                           {"METRICS_PROVIDER_TOKEN", "tok"},
                                           {"INSECURE_SKIP_VERIFY", "TRUE"},
                                           {"SIGNALFX_HOST_NAME_SUFFIX", ".dev.example"},
                                           {"SIGNALFX_CLUSTER_NAME", "blue"},
                                           {"KUBE_CONFIG", "/etc/kube/config"}}));
  EXPECT_EQ(o.provider, (lw::ProviderSpec{.type = "SignalFx",
                                          .address = "https://sfx.example",
                                          .token = "tok",
                                          .insecure_skip_verify = true}));
  EXPECT_EQ(o.provider_extras.signalfx_host_name_suffix, ".dev.example");
  EXPECT_EQ(o.provider_extras.signalfx_cluster_name, "blue");
  EXPECT_EQ(o.kubeconfig, "/etc/kube/config");
}

TEST(LoadWatcherOptionsTest, FlagsWinOverEnvironment) {
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string want_type;
    std::string want_address;
    bool want_insecure;
  };
  const std::vector<Case> cases = {
      {{"--metrics-provider-name=Prometheus"},
       {{"METRICS_PROVIDER_NAME", "SignalFx"}},
       "Prometheus",
       "",
       false},
      {{"--metrics-provider-address", "http://p:9090"},
       {{"METRICS_PROVIDER_NAME", "Prometheus"}, {"METRICS_PROVIDER_ADDRESS", "http://q:9090"}},
       "Prometheus",
       "http://p:9090",
       false},
      // A bare boolean flag is true; =false overrides the variable.
      {{"--insecure-skip-verify"}, {}, "KubernetesMetricsServer", "", true},
      {{"--insecure-skip-verify=false"},
       {{"INSECURE_SKIP_VERIFY", "true"}},
       "KubernetesMetricsServer",
       "",
       false},
      // An empty variable is unset.
      {{}, {{"METRICS_PROVIDER_NAME", ""}}, "KubernetesMetricsServer", "", false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions o, Parse(cases[i].args, cases[i].env));
    EXPECT_EQ(o.provider.type, cases[i].want_type);
    EXPECT_EQ(o.provider.address, cases[i].want_address);
    EXPECT_EQ(o.provider.insecure_skip_verify, cases[i].want_insecure);
  }
}

TEST(LoadWatcherOptionsTest, ServingAndMiscFlags) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      LoadWatcherOptions o,
      Parse({"--bind-address=127.0.0.1", "--port", "9000", "--grpc-port=0",
             "--fetch-interval=1m30s", "--history-size=2", "--v=4", "--kubeconfig=/k"},
            {{"KUBE_CONFIG", "/env"}}));
  EXPECT_EQ(o.bind_address, "127.0.0.1");
  EXPECT_EQ(o.port, 9000);
  EXPECT_EQ(o.grpc_port, 0);
  EXPECT_EQ(o.fetch_interval, absl::Seconds(90));  // 1m30s = 60 + 30
  EXPECT_EQ(o.history_size, 2);
  EXPECT_EQ(o.verbosity, 4);
  EXPECT_EQ(o.kubeconfig, "/k");

  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions h, Parse({"-h"}));
  EXPECT_TRUE(h.help);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions v, Parse({"--version"}));
  EXPECT_TRUE(v.version);
}

TEST(LoadWatcherOptionsTest, DashboardFlag) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions off, Parse({}));
  EXPECT_FALSE(off.dashboard);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions on, Parse({"--dashboard"}));
  EXPECT_TRUE(on.dashboard);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions explicit_off, Parse({"--dashboard=false"}));
  EXPECT_FALSE(explicit_off.dashboard);
  EXPECT_THAT(Parse({"--dashboard=maybe"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--dashboard")));
  EXPECT_TRUE(off.dashboard_allowed_hosts.empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      LoadWatcherOptions hosts,
      Parse({"--dashboard", "--dashboard-allowed-hosts=dash.example, lw.kube-system.svc"}));
  EXPECT_THAT(hosts.dashboard_allowed_hosts,
              ::testing::ElementsAre("dash.example", "lw.kube-system.svc"));
}

TEST(LoadWatcherOptionsTest, ProductionBackendSettings) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      LoadWatcherOptions o,
      Parse({"--metrics-provider-ca-file=/ca.crt", "--prometheus-node-labels=node, instance"},
            {{"METRICS_PROVIDER_NAME", "Prometheus"},
             {"METRICS_PROVIDER_TOKEN_FILE", "/var/run/secrets/token"},
             {"METRICS_PROVIDER_CERT_FILE", "/tls.crt"},
             {"METRICS_PROVIDER_KEY_FILE", "/tls.key"},
             {"METRICS_PROVIDER_HEADERS", "X-Scope-OrgID=tenant-1, X-Extra=a=b"},
             {"PROMETHEUS_CPU_METRIC", "node:cpu:ratio"},
             {"PROMETHEUS_MEMORY_METRIC", "node:mem:ratio"}}));
  EXPECT_EQ(o.provider.token_file, "/var/run/secrets/token");
  EXPECT_EQ(o.provider.ca_file, "/ca.crt");
  EXPECT_EQ(o.provider.client_cert_file, "/tls.crt");
  EXPECT_EQ(o.provider.client_key_file, "/tls.key");
  ASSERT_EQ(o.provider.headers.size(), 2u);
  EXPECT_EQ(o.provider.headers[0],
            (std::pair<std::string, std::string>{"X-Scope-OrgID", "tenant-1"}));
  EXPECT_EQ(o.provider.headers[1], (std::pair<std::string, std::string>{"X-Extra", "a=b"}));
  EXPECT_THAT(o.provider.node_labels, ::testing::ElementsAre("node", "instance"));
  EXPECT_EQ(o.provider.cpu_metric, "node:cpu:ratio");
  EXPECT_EQ(o.provider.memory_metric, "node:mem:ratio");
  EXPECT_FALSE(o.provider.insecure_skip_verify);

  absl::StatusOr<LoadWatcherOptions> bad =
      Parse({"--metrics-provider-token=t", "--metrics-provider-token-file=/f",
             "--metrics-provider-cert-file=/c", "--metrics-provider-headers=novalue"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("give one, not both"));
  EXPECT_THAT(bad.status().message(), HasSubstr("must be given together"));
  EXPECT_THAT(bad.status().message(), HasSubstr("header 1 is not Name=Value"));
}

TEST(LoadWatcherOptionsTest, EveryProblemIsNamed) {
  absl::StatusOr<LoadWatcherOptions> got =
      Parse({"--port=http", "--grpc-port=70000", "--fetch-interval=-5s", "--bogus", "stray",
             "--bind-address=localhost", "--v"},
            {{"METRICS_PROVIDER_NAME", "Datadog"}, {"INSECURE_SKIP_VERIFY", "yes"}});
  EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument,
                            AllOf(HasSubstr("METRICS_PROVIDER_NAME=\"Datadog\": unknown provider"),
                                  HasSubstr("INSECURE_SKIP_VERIFY=\"yes\": not a boolean"),
                                  HasSubstr("--port=\"http\": not an integer"),
                                  HasSubstr("--grpc-port=\"70000\": must be between 0 and 65535"),
                                  HasSubstr("--fetch-interval=\"-5s\": not a positive duration"),
                                  HasSubstr("unknown flag: --bogus"),
                                  HasSubstr("unexpected argument \"stray\""),
                                  HasSubstr("--bind-address=\"localhost\": not an IP address"),
                                  HasSubstr("flag needs an argument: --v"))));
}

TEST(LoadWatcherOptionsTest, GrpcPortMustDifferFromPort) {
  EXPECT_THAT(Parse({"--port=3000", "--grpc-port=3000"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must differ from --port")));
  TRIMARAN_EXPECT_OK(Parse({"--port=3000", "--grpc-port=0"}).status());
}

TEST(LoadWatcherOptionsTest, TlsAndTokenFlags) {
  trimaran::testing::TempDirForTest dir;
  const std::string cert = dir.Write("tls.crt", "cert");
  const std::string key = dir.Write("tls.key", "key");
  const std::string token = dir.Write("token", "t");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions o, Parse({}));
  EXPECT_EQ(o.tls_cert_file, "");
  EXPECT_EQ(o.token_file, "");
  EXPECT_EQ(o.tls_reload_interval, absl::Seconds(10));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(o, Parse({"--tls-cert-file", cert, "--tls-private-key-file=" + key,
                                          "--token-file=" + token, "--tls-reload-interval=2s"}));
  EXPECT_EQ(o.tls_cert_file, cert);
  EXPECT_EQ(o.tls_private_key_file, key);
  EXPECT_EQ(o.token_file, token);
  EXPECT_EQ(o.tls_reload_interval, absl::Seconds(2));
}

// Issue 30 point 4: open (no token) only on loopback.
TEST(LoadWatcherOptionsTest, AnyAddressButLoopbackNeedsTheToken) {
  trimaran::testing::TempDirForTest dir;
  const std::string token = dir.Write("token", "t");
  for (const char* loopback : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"}) {
    SCOPED_TRACE(loopback);
    TRIMARAN_EXPECT_OK(Parse({absl::StrCat("--bind-address=", loopback)}).status());
  }
  for (const char* open : {"0.0.0.0", "::", "10.0.0.5", "::ffff:10.0.0.5"}) {
    SCOPED_TRACE(open);
    EXPECT_THAT(
        Parse({absl::StrCat("--bind-address=", open)}).status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr(absl::StrCat("--bind-address=", open, " without --token-file"))));
    TRIMARAN_EXPECT_OK(
        Parse({absl::StrCat("--bind-address=", open), "--token-file=" + token}).status());
  }
}

// Issue 30 point 9: a secret never appears in an error; the token flag is deprecated
// (a command line is world-readable), the variable is not.
TEST(LoadWatcherOptionsTest, SecretsAreNotEchoedAndTheTokenFlagIsDeprecated) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions flag,
                                Parse({"--metrics-provider-token=s3cret-flag"}));
  EXPECT_EQ(flag.provider.token, "s3cret-flag");
  ASSERT_EQ(flag.warnings.size(), 1u);
  EXPECT_THAT(flag.warnings[0], HasSubstr("--metrics-provider-token-file"));
  EXPECT_THAT(flag.warnings[0], ::testing::Not(HasSubstr("s3cret")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(LoadWatcherOptions env,
                                Parse({}, {{"METRICS_PROVIDER_TOKEN", "s3cret-env"}}));
  EXPECT_EQ(env.provider.token, "s3cret-env");
  EXPECT_THAT(env.warnings, ::testing::IsEmpty());

  absl::StatusOr<LoadWatcherOptions> bad =
      Parse({"--metrics-provider-headers=Authorization: Bearer s3cret-header"},
            {{"METRICS_PROVIDER_HEADERS", "X-Token s3cret-env-header"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("<redacted>"));
  EXPECT_THAT(bad.status().message(), ::testing::Not(HasSubstr("s3cret")));
}

TEST(LoadWatcherOptionsTest, TlsAndTokenProblemsAreEachNamed) {
  trimaran::testing::TempDirForTest dir;
  const std::string cert = dir.Write("tls.crt", "cert");
  EXPECT_THAT(Parse({"--tls-cert-file=" + cert}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-cert-file needs --tls-private-key-file")));
  EXPECT_THAT(Parse({"--tls-private-key-file=" + cert}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-private-key-file needs --tls-cert-file")));
  const std::string missing = dir.Path("missing");
  EXPECT_THAT(Parse({"--tls-cert-file=" + cert, "--tls-private-key-file=" + missing,
                     "--token-file=" + missing + "-token", "--tls-reload-interval=1500ms"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("--tls-private-key-file=\"" + missing + "\": cannot read"),
                             HasSubstr("--token-file=\"" + missing + "-token\": cannot read"),
                             HasSubstr("--tls-reload-interval=\"1500ms\": not a whole number"))));
  EXPECT_THAT(Parse({"--tls-reload-interval=0s"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-reload-interval")));
}

TEST(LoadWatcherOptionsTest, HelpListsEveryFlagWithItsVariableAndDefault) {
  const std::string help = LoadWatcherHelpText();
  for (const char* want : {"--metrics-provider-name string",
                           "[METRICS_PROVIDER_NAME]",
                           "(default \"KubernetesMetricsServer\")",
                           "[METRICS_PROVIDER_ADDRESS]",
                           "[METRICS_PROVIDER_TOKEN]",
                           "[INSECURE_SKIP_VERIFY]",
                           "[SIGNALFX_HOST_NAME_SUFFIX]",
                           "[SIGNALFX_CLUSTER_NAME]",
                           "[KUBE_CONFIG]",
                           "--port int",
                           "(default 2020)",
                           "--grpc-port int",
                           "(default 2021)",
                           "--fetch-interval duration",
                           "(default 1m0s)",
                           "-h, --help",
                           "--version",
                           "--v int",
                           "--tls-cert-file string",
                           "--tls-private-key-file string",
                           "--token-file string"}) {
    EXPECT_THAT(help, HasSubstr(want));
  }
}

}  // namespace
}  // namespace trimaran::cmd
