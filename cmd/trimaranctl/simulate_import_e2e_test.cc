// The real `trimaranctl` binary: `simulate import` on the public-trace test files
// (sim/testdata/), then `simulate` on what it wrote; the report accounts for every pod.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;

class SimulateImportE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / "simulate_import_e2e" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "sched.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                          "kind: KubeSchedulerConfiguration\n"
                                          "profiles:\n"
                                          "  - schedulerName: default-scheduler\n";
  }

  SubprocessResult Run(std::vector<std::string> args) {
    SubprocessSpec spec;
    spec.command = TRIMARANCTL_BIN;
    spec.args = std::move(args);
    spec.timeout = absl::Seconds(120);
    absl::StatusOr<SubprocessResult> r = RunSubprocess(spec);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : SubprocessResult{.exit_code = -1};
  }

  // Imports, simulates the output, and checks the report: every pod accounted for.
  void ImportAndSimulate(const std::vector<std::string>& import_args, int want_pods) {
    const std::string out = (dir_ / "trace").string();
    std::vector<std::string> args = {"simulate", "import"};
    args.insert(args.end(), import_args.begin(), import_args.end());
    args.insert(args.end(), {"-o", out});
    SubprocessResult imported = Run(args);
    ASSERT_EQ(imported.exit_code, 0) << imported.stderr_text;
    EXPECT_THAT(imported.stdout_text, HasSubstr("pods: " + std::to_string(want_pods)));
    ASSERT_TRUE(std::filesystem::exists(dir_ / "trace" / "pods.csv"));
    ASSERT_TRUE(std::filesystem::exists(dir_ / "trace" / "node-groups.yaml"));

    const std::string report = (dir_ / "report.json").string();
    SubprocessResult simulated =
        Run({"simulate", "--trace", out, "--config", (dir_ / "sched.yaml").string(), "-o", report});
    ASSERT_EQ(simulated.exit_code, 0) << simulated.stderr_text;
    std::ifstream in(report);
    std::stringstream json;
    json << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(json.str().c_str());
    ASSERT_FALSE(doc.HasParseError()) << json.str();
    const rapidjson::Value& root = doc;
    EXPECT_THAT(root["nodeGroupsFile"].GetString(), HasSubstr("node-groups.yaml"));
    ASSERT_EQ(root["profiles"].Size(), 1u);
    const rapidjson::Value& pods = root["profiles"][0]["pods"];
    EXPECT_EQ(pods["total"].GetInt(), want_pods);
    EXPECT_EQ(pods["scheduled"].GetInt() + pods["neverScheduled"].GetInt(), want_pods);
  }

  std::filesystem::path dir_;
};

TEST_F(SimulateImportE2eTest, AlibabaV2018Directory) {
  ImportAndSimulate({"--format", "alibaba-v2018", "--input", SIM_TESTDATA "/alibaba-v2018"}, 14);
}

TEST_F(SimulateImportE2eTest, OpenbFiles) {
  ImportAndSimulate(
      {"--format", "openb", "--input", SIM_TESTDATA "/openb/openb_pod_list_default.csv", "--input",
       SIM_TESTDATA "/openb/openb_node_list_gpu_node.csv"},
      12);
}

TEST_F(SimulateImportE2eTest, AMalformedRowFailsWithItsLine) {
  std::ofstream(dir_ / "openb_pod_list_bad.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
         "deletion_time,scheduled_time\n"
         "p,1000,x,0,0,,BE,Running,0,10,0\n";
  SubprocessResult r =
      Run({"simulate", "import", "--format", "openb", "--input",
           (dir_ / "openb_pod_list_bad.csv").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.stderr_text, HasSubstr("openb_pod_list_bad.csv:2: memory_mib: not a number"));
}

}  // namespace
}  // namespace trimaran
