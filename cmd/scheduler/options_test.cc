#include "cmd/scheduler/options.h"

#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::cmd {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

// Runs the parser on {"trimaran-scheduler", args...}.
absl::StatusOr<SchedulerOptions> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "trimaran-scheduler");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseSchedulerFlags(static_cast<int>(argv.size()), argv.data());
}

TEST(ParseSchedulerFlagsTest, Defaults) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions o, Parse({}));
  EXPECT_EQ(o.bind_address, "0.0.0.0");
  EXPECT_EQ(o.secure_port, 10259);
  EXPECT_EQ(o.verbosity, 0);
  EXPECT_FALSE(o.leader_elect.has_value());
  EXPECT_FALSE(o.kubeconfig.has_value());
  EXPECT_TRUE(o.cert_dir.empty());
  EXPECT_EQ(o.load_watcher_max_response_bytes, int64_t{64} << 20);
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.version);
}

TEST(ParseSchedulerFlagsTest, LoadWatcherMaxResponseBytes) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions o,
                                Parse({"--load-watcher-max-response-bytes=1048576"}));
  EXPECT_EQ(o.load_watcher_max_response_bytes, 1048576);
  EXPECT_FALSE(Parse({"--load-watcher-max-response-bytes=0"}).ok());
  EXPECT_FALSE(Parse({"--load-watcher-max-response-bytes=4294967296"}).ok());
  EXPECT_FALSE(Parse({"--load-watcher-max-response-bytes=64Mi"}).ok());
}

TEST(ParseSchedulerFlagsTest, DecisionsCapacity) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions defaults, Parse({}));
  EXPECT_EQ(defaults.decisions_capacity, 1000);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions off, Parse({"--decisions-capacity=0"}));
  EXPECT_EQ(off.decisions_capacity, 0);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions some, Parse({"--decisions-capacity", "50"}));
  EXPECT_EQ(some.decisions_capacity, 50);
  EXPECT_FALSE(Parse({"--decisions-capacity=-1"}).ok());
  EXPECT_FALSE(Parse({"--decisions-capacity=1000001"}).ok());
  EXPECT_FALSE(Parse({"--decisions-capacity=many"}).ok());
}

TEST(ParseSchedulerFlagsTest, TieBreak) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions defaults, Parse({}));
  EXPECT_EQ(defaults.tie_break, "random");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions lowest, Parse({"--tie-break=lowest-name"}));
  EXPECT_EQ(lowest.tie_break, "lowest-name");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions random, Parse({"--tie-break", "random"}));
  EXPECT_EQ(random.tie_break, "random");
  absl::StatusOr<SchedulerOptions> bad = Parse({"--tie-break=first"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("random or lowest-name"));
  EXPECT_THAT(SchedulerHelpText(), ::testing::HasSubstr("--tie-break string"));
}

TEST(ParseSchedulerFlagsTest, ExtenderFlags) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions d, Parse({}));
  EXPECT_FALSE(d.extender);
  EXPECT_EQ(d.extender_port, kDefaultExtenderPort);
  EXPECT_FALSE(d.extender_bind);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerOptions o,
      Parse({"--extender", "--extender-profile=load-aware", "--extender-port", "9443",
             "--extender-bind-address=127.0.0.1", "--extender-bind",
             "--extender-tls-cert-file=/c.pem", "--extender-tls-private-key-file=/k.pem",
             "--extender-client-ca-file=/ca.pem"}));
  EXPECT_TRUE(o.extender);
  EXPECT_EQ(o.extender_profile, "load-aware");
  EXPECT_EQ(o.extender_port, 9443);
  EXPECT_EQ(o.extender_bind_address, "127.0.0.1");
  EXPECT_TRUE(o.extender_bind);
  EXPECT_EQ(o.extender_tls_cert_file, "/c.pem");
  EXPECT_EQ(o.extender_tls_private_key_file, "/k.pem");
  EXPECT_EQ(o.extender_client_ca_file, "/ca.pem");
  EXPECT_THAT(Parse({"--extender", "--extender-port=0"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--extender-port 0")));
  EXPECT_THAT(Parse({"--extender-tls-cert-file=/c.pem"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("given together")));
  EXPECT_THAT(Parse({"--extender-bind-address=nope"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("failed to parse IP")));
}

// Issue 30 point 3: the extender is authenticated unless explicitly waived; /bind never
// without mutual TLS.
TEST(ParseSchedulerFlagsTest, ExtenderRequiresMutualTlsByDefault) {
  EXPECT_THAT(
      Parse({"--extender"}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--extender requires mutual TLS")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerOptions mtls,
      Parse({"--extender", "--extender-client-ca-file=/ca.pem",
             "--extender-allowed-names=system:kube-scheduler, kube-scheduler.example"}));
  EXPECT_THAT(mtls.extender_allowed_names,
              ::testing::ElementsAre("system:kube-scheduler", "kube-scheduler.example"));
  EXPECT_FALSE(mtls.extender_allow_unauthenticated);
  EXPECT_THAT(mtls.extender_bind_scheduler_names, ::testing::ElementsAre("default-scheduler"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions open,
                                Parse({"--extender", "--extender-allow-unauthenticated"}));
  EXPECT_TRUE(open.extender_allow_unauthenticated);
  EXPECT_THAT(
      Parse({"--extender", "--extender-allow-unauthenticated", "--extender-bind"}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--extender-bind needs mutual TLS")));
  EXPECT_THAT(
      Parse({"--extender", "--extender-allow-unauthenticated", "--extender-client-ca-file=/ca.pem"})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("give one, not both")));
  EXPECT_THAT(
      Parse({"--extender", "--extender-allow-unauthenticated", "--extender-allowed-names=x"})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("--extender-allowed-names needs --extender-client-ca-file")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerOptions bind,
      Parse({"--extender", "--extender-client-ca-file=/ca.pem", "--extender-bind",
             "--extender-bind-scheduler-names=default-scheduler,batch"}));
  EXPECT_THAT(bind.extender_bind_scheduler_names,
              ::testing::ElementsAre("default-scheduler", "batch"));
  // Without --extender the flags are inert (the scheduler serves no extender port).
  TRIMARAN_EXPECT_OK(Parse({"--extender-bind"}).status());
}

TEST(ParseSchedulerFlagsTest, EqualsAndSpaceForms) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions o,
                                Parse({"--config=/etc/c.yaml",
                                       "--kubeconfig",
                                       "/k",
                                       "--master=https://1.2.3.4:6443",
                                       "--v",
                                       "4",
                                       "--log-levels=queue=debug,provider=trace",
                                       "--leader-elect=false",
                                       "--leader-elect-resource-name",
                                       "trimaran",
                                       "--leader-elect-resource-namespace=ns",
                                       "--leader-elect-lease-duration=30s",
                                       "--leader-elect-renew-deadline",
                                       "1m30s",
                                       "--leader-elect-retry-period=500ms",
                                       "--bind-address",
                                       "127.0.0.1",
                                       "--secure-port=0",
                                       "--tls-cert-file=/c.crt",
                                       "--tls-private-key-file",
                                       "/c.key",
                                       "--cert-dir=/certs",
                                       "--write-config-to",
                                       "/out.yaml"}));
  EXPECT_EQ(o.config_file, "/etc/c.yaml");
  EXPECT_EQ(o.kubeconfig, "/k");
  EXPECT_EQ(o.master, "https://1.2.3.4:6443");
  EXPECT_EQ(o.verbosity, 4);
  EXPECT_EQ(o.log_levels, "queue=debug,provider=trace");
  EXPECT_EQ(o.leader_elect, false);
  EXPECT_EQ(o.leader_elect_resource_name, "trimaran");
  EXPECT_EQ(o.leader_elect_resource_namespace, "ns");
  EXPECT_EQ(o.leader_elect_lease_duration, absl::Seconds(30));
  EXPECT_EQ(o.leader_elect_renew_deadline, absl::Seconds(90));  // 1m30s = 60 + 30
  EXPECT_EQ(o.leader_elect_retry_period, absl::Milliseconds(500));
  EXPECT_EQ(o.bind_address, "127.0.0.1");
  EXPECT_EQ(o.secure_port, 0);
  EXPECT_EQ(o.tls_cert_file, "/c.crt");
  EXPECT_EQ(o.tls_private_key_file, "/c.key");
  EXPECT_EQ(o.cert_dir, "/certs");
  EXPECT_EQ(o.write_config_to, "/out.yaml");
}

TEST(ParseSchedulerFlagsTest, BooleansAndShorthands) {
  struct Case {
    std::vector<std::string> args;
    bool leader_elect, help, version;
    int v;
  } cases[] = {
      {{"--leader-elect"}, true, false, false, 0},
      {{"--leader-elect=false"}, false, false, false, 0},
      {{"--leader-elect=F"}, false, false, false, 0},
      {{"--leader-elect=1"}, true, false, false, 0},
      {{"-h"}, true, true, false, 0},  // leader_elect unset: compared as value_or(true)
      {{"--help"}, true, true, false, 0},
      {{"--version"}, true, false, true, 0},
      {{"-v=3"}, true, false, false, 3},
      {{"-v", "5"}, true, false, false, 5},
      {{"-v2"}, true, false, false, 2},
      {{"--v=1", "--v=6"}, true, false, false, 6},  // the last one wins, as pflag
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrJoin(c.args, " "));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions o, Parse(c.args));
    EXPECT_EQ(o.leader_elect.value_or(true), c.leader_elect);
    EXPECT_EQ(o.help, c.help);
    EXPECT_EQ(o.version, c.version);
    EXPECT_EQ(o.verbosity, c.v);
  }
}

TEST(ParseSchedulerFlagsTest, AuthenticationAndAuthorization) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions defaults, Parse({}));
  EXPECT_THAT(defaults.authorization_always_allow_paths,
              ::testing::ElementsAre("/healthz", "/readyz", "/livez"));
  EXPECT_EQ(defaults.authentication_kubeconfig, "");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerOptions o,
      Parse({"--authentication-kubeconfig=/authn", "--authorization-kubeconfig", "/authz",
             "--authorization-always-allow-paths=/healthz, /metrics,/debug/*",
             "--tls-min-version=VersionTLS13"}));
  EXPECT_EQ(o.authentication_kubeconfig, "/authn");
  EXPECT_EQ(o.authorization_kubeconfig, "/authz");
  EXPECT_THAT(o.authorization_always_allow_paths,
              ::testing::ElementsAre("/healthz", "/metrics", "/debug/*"));
  EXPECT_EQ(o.tls_min_version, "VersionTLS13");
}

TEST(ParseSchedulerFlagsTest, SingleErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--nope"}, "unknown flag: --nope"},
      {{"-x"}, "unknown shorthand flag: 'x' in -x"},
      {{"--config"}, "flag needs an argument: --config"},
      {{"--secure-port=abc"},
       "invalid argument \"abc\" for \"--secure-port\" flag: not an integer"},
      {{"--secure-port=70000"}, "--secure-port 70000 must be between 0 and 65535"},
      {{"--bind-address=host"}, "failed to parse IP: \"host\""},
      {{"--leader-elect=maybe"}, "for \"--leader-elect\" flag: not a boolean"},
      {{"--leader-elect", "false"}, "unexpected argument \"false\""},
      {{"--leader-elect-lease-duration=15"}, "not a duration"},
      {{"--v=-1"}, "must be >= 0"},
      {{"--log-levels=queue"}, "bad item \"queue\" (want component=level)"},
      {{"--log-levels=nosuch=debug"}, "unknown component \"nosuch\""},
      {{"--log-levels=queue=loud"}, "unknown level \"loud\""},
      {{"--tls-cert-file=/c"}, "--tls-cert-file and --tls-private-key-file must be given together"},
      {{"--", "--config=x"}, "unexpected argument \"--config=x\""},
      {{"--tls-min-version=VersionTLS10"}, "unsupported TLS version \"VersionTLS10\""},
      {{"--authorization-always-allow-paths=/healthz,metrics"},
       "path \"metrics\" must start with '/'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrJoin(c.args, " "));
    EXPECT_THAT(Parse(c.args), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

TEST(ParseSchedulerFlagsTest, ListsEveryProblem) {
  absl::StatusOr<SchedulerOptions> o =
      Parse({"--bogus", "value", "--secure-port=x", "--bind-address=nope", "stray"});
  ASSERT_FALSE(o.ok());
  std::vector<std::string> lines = absl::StrSplit(o.status().message(), '\n');
  // --bogus (its value is taken with it), --secure-port, --bind-address, "stray": 4.
  ASSERT_EQ(lines.size(), 4u) << o.status();
  EXPECT_EQ(lines[0], "unknown flag: --bogus");
  EXPECT_THAT(lines[1], HasSubstr("--secure-port"));
  EXPECT_THAT(lines[2], HasSubstr("--bind-address"));
  EXPECT_THAT(lines[3], HasSubstr("\"stray\""));
}

TEST(ApplyFlagOverridesTest, GivenFlagsWinOverConfig) {
  sched::config::SchedulerConfig config;
  config.leader_election.resource_name = "from-file";
  config.leader_election.resource_namespace = "file-ns";
  config.leader_election.lease_duration = absl::Seconds(20);
  config.client_connection.kubeconfig = "/file/kubeconfig";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerOptions o,
                                Parse({"--leader-elect=false", "--leader-elect-resource-name=flag",
                                       "--kubeconfig=/flag/kubeconfig"}));
  ApplyFlagOverrides(o, config);
  EXPECT_FALSE(config.leader_election.leader_elect);
  EXPECT_EQ(config.leader_election.resource_name, "flag");
  // Not given on the command line: the file's values stay.
  EXPECT_EQ(config.leader_election.resource_namespace, "file-ns");
  EXPECT_EQ(config.leader_election.lease_duration, absl::Seconds(20));
  EXPECT_EQ(config.client_connection.kubeconfig, "/flag/kubeconfig");

  sched::config::SchedulerConfig untouched = config;
  ApplyFlagOverrides(SchedulerOptions{}, untouched);
  EXPECT_EQ(untouched.client_connection.kubeconfig, "/flag/kubeconfig");
  EXPECT_EQ(untouched.leader_election.resource_name, "flag");
}

TEST(SchedulerHelpTextTest, KubeSchedulerLayout) {
  const std::string help = SchedulerHelpText();
  EXPECT_THAT(help, HasSubstr("Usage:\n  trimaran-scheduler [flags]\n"));
  for (const char* section :
       {"Misc flags:", "Secure serving flags:", "Authentication flags:", "Authorization flags:",
        "Deprecated flags:", "Leader election flags:", "Logs flags:", "Global flags:"}) {
    EXPECT_THAT(help, HasSubstr(section));
  }
  EXPECT_THAT(help, HasSubstr("      --config string "));
  EXPECT_THAT(help, HasSubstr("      --bind-address ip "));
  EXPECT_THAT(help, HasSubstr("(default 0.0.0.0)"));
  EXPECT_THAT(help, HasSubstr("(default 10259)"));
  // Descriptions wrap; compare them with the continuation indentation folded.
  const std::string unwrapped = std::regex_replace(help, std::regex("\n +"), " ");
  EXPECT_THAT(unwrapped, HasSubstr("(default \"kube-scheduler\")"));
  EXPECT_THAT(unwrapped, HasSubstr("(default \"kube-system\")"));
  EXPECT_THAT(help, HasSubstr("(default 15s)"));
  EXPECT_THAT(help, HasSubstr("  -h, --help "));
  EXPECT_THAT(help, HasSubstr("  -v, --v int "));
  // Sorted within a section: bind-address < cert-dir < secure-port < tls-*.
  EXPECT_LT(help.find("\n      --bind-address"), help.find("\n      --cert-dir"));
  EXPECT_LT(help.find("\n      --cert-dir"), help.find("\n      --secure-port"));
  EXPECT_LT(help.find("\n      --secure-port"), help.find("\n      --tls-cert-file"));
  for (absl::string_view line : absl::StrSplit(help, '\n')) {
    EXPECT_LE(line.size(), 100u) << line;
  }
}

}  // namespace
}  // namespace trimaran::cmd
