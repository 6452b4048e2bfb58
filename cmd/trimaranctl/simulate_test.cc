#include "cmd/trimaranctl/simulate.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using ::testing::HasSubstr;

class SimulateCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  int Run(const std::vector<std::string>& args) {
    out_.clear();
    err_.clear();
    return RunSimulateCommand(args, out_, err_);
  }
  std::filesystem::path dir_;
  std::string out_;
  std::string err_;
};

constexpr char kConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: first
  - schedulerName: second
)";

TEST_F(SimulateCommandTest, GenThenSimulateWritesAReportPerProfile) {
  const std::string trace = (dir_ / "trace").string();
  ASSERT_EQ(Run({"gen", "-o", trace, "--hours", "2", "--max-executors", "8"}), 0) << err_;
  EXPECT_THAT(out_, HasSubstr("pods.csv"));
  const std::string config = Write("sched.yaml", kConfig);
  const std::string report = (dir_ / "report.json").string();
  ASSERT_EQ(Run({"--trace", trace, "--config", config, "-o", report}), 0) << err_;
  EXPECT_THAT(out_, HasSubstr("first"));
  std::ifstream in(report);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  const rapidjson::Value& root = doc;
  ASSERT_EQ(root["profiles"].Size(), 2u);
  EXPECT_STREQ(root["baseline"].GetString(), "first");
  // The node groups came from the trace directory.
  EXPECT_EQ(root["nodeGroups"].Size(), 3u);
  EXPECT_GT(root["profiles"][0]["pods"]["scheduled"].GetInt(), 0);
  // Compaction at its defaults (5 trials, hourly): a distribution and its instants.
  const rapidjson::Value& compaction = root["profiles"][0]["compaction"];
  EXPECT_EQ(compaction["trials"].GetInt(), 5);
  EXPECT_DOUBLE_EQ(compaction["everySeconds"].GetDouble(), 3600);
  EXPECT_GT(compaction["instants"].Size(), 0u);
  EXPECT_GT(compaction["ratio"]["p50"].GetDouble(), 0);
  EXPECT_LE(compaction["ratio"]["max"].GetDouble(), 1);
  // --compaction-trials 0 turns it off; --compaction-every takes a duration.
  ASSERT_EQ(Run({"--trace", trace, "--config", config, "-o", report, "--compaction-trials", "0"}),
            0)
      << err_;
  std::ifstream off(report);
  const std::string off_json((std::istreambuf_iterator<char>(off)),
                             std::istreambuf_iterator<char>());
  rapidjson::Document off_doc;
  off_doc.Parse(off_json.c_str());
  ASSERT_FALSE(off_doc.HasParseError());
  const rapidjson::Value& off_root = off_doc;
  EXPECT_EQ(off_root["profiles"][0]["compaction"]["instants"].Size(), 0u);
  EXPECT_EQ(Run({"--trace", trace, "--config", config, "--compaction-every", "1 hour"}), 1);
  EXPECT_THAT(err_, HasSubstr("--compaction-every"));
}

TEST_F(SimulateCommandTest, ErrorsNameTheFileAndLine) {
  const std::string config = Write("sched.yaml", kConfig);
  EXPECT_EQ(Run({"--config", config}), 1);
  EXPECT_THAT(err_, HasSubstr("--trace is required"));
  const std::string pods = Write("pods.csv", "name,creation_time,cpu_milli,memory_mib\na,0,1,x\n");
  EXPECT_EQ(Run({"--trace", pods, "--config", config}), 1);
  EXPECT_THAT(err_, HasSubstr("pods.csv:2: memory_mib"));
  const std::string good = Write("ok.csv", "name,creation_time,cpu_milli,memory_mib\na,0,1,1\n");
  const std::string groups = Write("g.yaml", "nodeGroups:\n- name: a\n  bogus: 1\n");
  EXPECT_EQ(Run({"--trace", good, "--config", config, "--node-groups", groups}), 1);
  EXPECT_THAT(err_, HasSubstr("g.yaml:3: nodeGroups[]: unknown key \"bogus\""));
  EXPECT_EQ(Run({"--trace", good, "--config", config, "--seed", "-1"}), 1);
  EXPECT_EQ(Run({"--trace", good, "--config", config, "--frobnicate", "1"}), 1);
  EXPECT_THAT(err_, HasSubstr("unknown flag"));
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_THAT(out_, HasSubstr("simulate gen"));
}

// A sorted file is streamed; an unsorted one is loaded whole (a note on stderr), with the
// same report as the same pods sorted.
TEST_F(SimulateCommandTest, AnUnsortedTraceIsLoadedWholeWithANote) {
  const std::string config = Write("sched.yaml", kConfig);
  const std::string header = "name,creation_time,duration,cpu_milli,memory_mib\n";
  const std::string sorted =
      Write("sorted.csv", header + "b,5,600,1500,2048\na,10,300,3000,4096\n");
  const std::string unsorted =
      Write("unsorted.csv", header + "a,10,300,3000,4096\nb,5,600,1500,2048\n");
  const std::string sorted_report = (dir_ / "sorted.json").string();
  const std::string unsorted_report = (dir_ / "unsorted.json").string();
  ASSERT_EQ(Run({"--trace", sorted, "--config", config, "-o", sorted_report}), 0) << err_;
  EXPECT_EQ(err_, "");
  ASSERT_EQ(Run({"--trace", unsorted, "--config", config, "-o", unsorted_report}), 0) << err_;
  EXPECT_THAT(err_, HasSubstr("unsorted.csv:3: the pods are not sorted by creation_time"));
  EXPECT_THAT(err_, HasSubstr("loaded whole"));
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string a = read(sorted_report);
  std::string b = read(unsorted_report);
  // The reports differ only in the trace's path.
  a.replace(a.find(sorted), sorted.size(), "TRACE");
  b.replace(b.find(unsorted), unsorted.size(), "TRACE");
  EXPECT_EQ(a, b);
  EXPECT_THAT(a, HasSubstr("\"scheduled\": 2"));
}

TEST_F(SimulateCommandTest, ImportFindsTheTablesInADirectoryAndWritesTheTrace) {
  const std::string trace = (dir_ / "imported").string();
  ASSERT_EQ(Run({"import", "--format", "alibaba-v2018", "--input",
                 std::string(SIM_TESTDATA) + "/alibaba-v2018", "-o", trace, "--ref-mem-mib",
                 "262144", "--fixed-nodes", "--price-per-cpu-hour", "0.1"}),
            0)
      << err_;
  EXPECT_THAT(out_, HasSubstr("pods: 14"));
  EXPECT_THAT(out_, HasSubstr("skipped (batch_instance: status not Terminated): 3"));
  std::ifstream in(dir_ / "imported" / "node-groups.yaml");
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(yaml, HasSubstr("name: \"ali-96c-256g\""));
  EXPECT_THAT(yaml, HasSubstr("min: 3"));  // --fixed-nodes
  EXPECT_THAT(yaml, HasSubstr("pricePerHour: 9.6"));
  const std::string config = Write("sched.yaml", kConfig);
  ASSERT_EQ(Run({"--trace", trace, "--config", config, "-o", (dir_ / "r.json").string()}), 0)
      << err_;
}

TEST_F(SimulateCommandTest, ImportFlagErrors) {
  EXPECT_EQ(Run({"import", "--input", "x", "-o", "y"}), 1);
  EXPECT_THAT(err_, HasSubstr("--format alibaba-v2018 or --format openb is required"));
  EXPECT_EQ(
      Run({"import", "--format", "openb", "--input", "x", "-o", "y", "--util-base", "machine"}), 1);
  EXPECT_THAT(err_, HasSubstr("--util-base: does not apply to --format openb"));
  EXPECT_EQ(Run({"import", "--format", "alibaba-v2018", "--input", "x", "-o", "y", "--util-base",
                 "both"}),
            1);
  EXPECT_THAT(err_, HasSubstr("--util-base: invalid value \"both\""));
  const std::string stray = Write("notes.csv", "a,b\n");
  EXPECT_EQ(Run({"import", "--format", "alibaba-v2018", "--input", stray, "-o", "y"}), 1);
  EXPECT_THAT(err_, HasSubstr("notes.csv: not a table the importer reads"));
  EXPECT_EQ(Run({"import", "--help"}), 0);
  EXPECT_THAT(out_, HasSubstr("--ref-mem-mib"));
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl
