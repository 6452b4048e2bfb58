// Renders the simulator's HTML report in headless Chromium (issue 20: "the tests render
// it in headless Chromium"): the page parses, its five SVG plots survive into the DOM,
// and a screenshot is produced. Skipped when no Chromium is installed ($CHROMIUM, else
// /usr/bin/chromium or /usr/bin/chromium-browser).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/html_report.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;

std::string FindChromium() {
  if (const char* env = std::getenv("CHROMIUM"); env != nullptr && *env != '\0') return env;
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

TEST(HtmlReportRender, ChromiumRendersThePlots) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium";
  ClusterSpec cluster = DefaultClusterSpec();
  ProfileResult base;
  base.profile = "default";
  base.cost = 12.5;
  for (int i = 0; i < 50; ++i) {
    base.timeline.push_back({i * 300.0, 2 + i % 7, 0, 10, 0.192 * (2 + i % 7), 0.3, 0.5, 0.4});
  }
  base.cpu_usage_histogram = {1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1};
  ProfileResult pack = base;
  pack.profile = "most-allocated";
  pack.hot_node_minutes = 12;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "sim_html_render";
  std::filesystem::create_directories(dir);
  const std::string page = (dir / "report.html").string();
  std::ofstream(page) << FormatSimReportHtml({"trace.csv", "", 1, &cluster, {base, pack}});

  SubprocessSpec dump;
  dump.command = chromium;
  dump.args = {"--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page};
  dump.timeout = absl::Seconds(90);
  dump.max_stdout_bytes = size_t{8} << 20;
  absl::StatusOr<SubprocessResult> dom = RunSubprocess(dump);
  ASSERT_TRUE(dom.ok()) << dom.status();
  ASSERT_EQ(dom->exit_code, 0) << dom->stderr_text;
  EXPECT_THAT(dom->stdout_text, HasSubstr("Nodes over time"));
  EXPECT_THAT(dom->stdout_text, HasSubstr("most-allocated"));
  size_t svgs = 0;
  for (size_t at = dom->stdout_text.find("<svg"); at != std::string::npos;
       at = dom->stdout_text.find("<svg", at + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, 6u);  // five plots and the compaction box plot

  const std::string png = (dir / "report.png").string();
  SubprocessSpec shot = dump;
  shot.args = {"--headless",          "--no-sandbox",           "--disable-gpu",
               "--screenshot=" + png, "--window-size=900,1900", "file://" + page};
  absl::StatusOr<SubprocessResult> screenshot = RunSubprocess(shot);
  ASSERT_TRUE(screenshot.ok()) << screenshot.status();
  ASSERT_EQ(screenshot->exit_code, 0) << screenshot->stderr_text;
  ASSERT_TRUE(std::filesystem::exists(png));
  EXPECT_GT(std::filesystem::file_size(png), 10000u);  // a rendered page, not a blank stub
}

}  // namespace
}  // namespace trimaran::sim
