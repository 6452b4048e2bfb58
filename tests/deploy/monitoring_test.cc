// The monitoring component (deploy/components/monitoring): the Grafana dashboard JSON is
// exactly tools/render-grafana.sh's output of its jq source, and the PodMonitor, rendered
// on top of the two-container prometheus overlay, scrapes the pods the Deployment makes,
// on ports they have, with a token of a ServiceAccount bound to the shipped metrics
// reader role, under the job names the dashboard selects. (The metrics the dashboard
// queries are checked against live /metrics by e2e_metrics_list_test.)
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/deploy/manifests.h"

namespace trimaran::deploy_testing {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MonitoringTest, GrafanaDashboardIsTheRenderedSource) {
  absl::StatusOr<RunResult> jq = RunCommand(
      {"jq", "-n", "--indent", "2", "-f", DeployPath("components/monitoring/dashboard.jq")});
  ASSERT_TRUE(jq.ok()) << jq.status();
  ASSERT_EQ(jq->exit_code, 0) << jq->output;
  EXPECT_TRUE(jq->output == ReadFile(DeployPath("components/monitoring/trimaran-scheduler.json")))
      << "deploy/components/monitoring/trimaran-scheduler.json is stale: run "
         "tools/render-grafana.sh";
}

class PodMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<YAML::Node>> docs =
        RenderWithComponent("overlays/prometheus", "components/monitoring");
    ASSERT_TRUE(docs.ok()) << docs.status();
    docs_ = *std::move(docs);
  }

  std::vector<YAML::Node> docs_;
};

TEST_F(PodMonitorTest, ScrapesTheShippedPodsWithTheReaderRole) {
  const YAML::Node monitor = FindOne(docs_, "PodMonitor", "trimaran-scheduler");
  ASSERT_TRUE(monitor) << "no PodMonitor";
  const YAML::Node deployment = FindOne(docs_, "Deployment", "trimaran-scheduler");
  ASSERT_TRUE(deployment);
  EXPECT_EQ(monitor["metadata"]["namespace"].as<std::string>(""),
            deployment["metadata"]["namespace"].as<std::string>(""));

  // The selector picks the Deployment's pods.
  const YAML::Node pod_labels = deployment["spec"]["template"]["metadata"]["labels"];
  const YAML::Node match = monitor["spec"]["selector"]["matchLabels"];
  ASSERT_TRUE(match.IsMap() && match.size() > 0);
  for (const auto& kv : match) {
    EXPECT_EQ(pod_labels[kv.first.as<std::string>()].as<std::string>(""),
              kv.second.as<std::string>())
        << "selector label " << kv.first.as<std::string>();
  }

  // Every endpoint names a container port of those pods; the job names are the
  // dashboard's.
  std::set<std::string> ports;
  for (const YAML::Node& c : deployment["spec"]["template"]["spec"]["containers"]) {
    for (const YAML::Node& p : c["ports"]) ports.insert(p["name"].as<std::string>(""));
  }
  std::set<std::string> jobs;
  const std::string dashboard =
      ReadFile(DeployPath("components/monitoring/trimaran-scheduler.json"));
  for (const YAML::Node& ep : monitor["spec"]["podMetricsEndpoints"]) {
    EXPECT_TRUE(ports.contains(ep["port"].as<std::string>(""))) << ep["port"];
    for (const YAML::Node& r : ep["relabelings"]) {
      if (r["targetLabel"].as<std::string>("") == "job") {
        const std::string job = r["replacement"].as<std::string>("");
        jobs.insert(job);
        EXPECT_THAT(dashboard, HasSubstr(job)) << "the dashboard never selects job " << job;
      }
    }
  }
  EXPECT_EQ(jobs, (std::set<std::string>{"trimaran-scheduler", "trimaran-load-watcher"}));

  // The load watcher's endpoint sends the watcher's API token (the Secret the
  // load-watcher container requires with --token-file).
  for (const YAML::Node& ep : monitor["spec"]["podMetricsEndpoints"]) {
    if (ep["port"].as<std::string>("") != "watcher-http") continue;
    EXPECT_EQ(ep["authorization"]["type"].as<std::string>(""), "Bearer");
    EXPECT_EQ(ep["authorization"]["credentials"]["name"].as<std::string>(""),
              "trimaran-load-watcher-api-token");
    EXPECT_EQ(ep["authorization"]["credentials"]["key"].as<std::string>(""), "token");
  }

  // The scheduler's endpoint authenticates with the reader's token Secret ...
  YAML::Node secure;
  for (const YAML::Node& ep : monitor["spec"]["podMetricsEndpoints"]) {
    if (ep["scheme"].as<std::string>("") == "https") secure = ep;
  }
  ASSERT_TRUE(secure) << "no https endpoint";
  const std::string secret_name =
      secure["authorization"]["credentials"]["name"].as<std::string>("");
  const YAML::Node secret = FindOne(docs_, "Secret", secret_name);
  ASSERT_TRUE(secret) << secret_name;
  EXPECT_EQ(secret["type"].as<std::string>(""), "kubernetes.io/service-account-token");
  const std::string sa =
      secret["metadata"]["annotations"]["kubernetes.io/service-account.name"].as<std::string>("");
  ASSERT_TRUE(FindOne(docs_, "ServiceAccount", sa)) << sa;

  // ... of a ServiceAccount bound to a role that may GET /metrics and nothing else.
  bool bound = false;
  for (const YAML::Node& binding : FindAll(docs_, "ClusterRoleBinding")) {
    bool subject = false;
    for (const YAML::Node& s : binding["subjects"]) {
      subject = subject || (s["kind"].as<std::string>("") == "ServiceAccount" &&
                            s["name"].as<std::string>("") == sa);
    }
    if (!subject) continue;
    bound = true;
    const YAML::Node role =
        FindOne(docs_, "ClusterRole", binding["roleRef"]["name"].as<std::string>(""));
    ASSERT_TRUE(role) << "the binding's ClusterRole is not shipped";
    ASSERT_EQ(role["rules"].size(), 1u);
    EXPECT_EQ(role["rules"][0]["nonResourceURLs"][0].as<std::string>(""), "/metrics");
    EXPECT_EQ(role["rules"][0]["verbs"].size(), 1u);
    EXPECT_EQ(role["rules"][0]["verbs"][0].as<std::string>(""), "get");
  }
  EXPECT_TRUE(bound) << sa << " is bound to no ClusterRole";
}

TEST_F(PodMonitorTest, DashboardConfigMapForTheGrafanaSidecar) {
  const YAML::Node cm = FindOne(docs_, "ConfigMap", "trimaran-grafana-dashboard");
  ASSERT_TRUE(cm);
  EXPECT_EQ(cm["metadata"]["labels"]["grafana_dashboard"].as<std::string>(""), "1");
  EXPECT_EQ(cm["data"]["trimaran-scheduler.json"].as<std::string>(""),
            ReadFile(DeployPath("components/monitoring/trimaran-scheduler.json")));
}

}  // namespace
}  // namespace trimaran::deploy_testing
