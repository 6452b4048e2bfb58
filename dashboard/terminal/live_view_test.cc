#include "dashboard/terminal/live_view.h"

#include <string>

#include "absl/strings/str_split.h"
#include "common/manual_clock.h"
#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"

namespace trimaran::dashboard::terminal {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixtureNow;
using testing::FixturePods;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(DecodeKeyTest, Keys) {
  const std::vector<std::pair<std::string, Key>> cases = {
      {"q", Key::kQuit},       {"\x03", Key::kQuit},       {"\x1b", Key::kQuit},
      {"\x1b[C", Key::kRight}, {"\x1b[D", Key::kLeft},     {"\x1b[A", Key::kUp},
      {"\x1b[B", Key::kDown},  {"\x1b[5~", Key::kLeft},    {"\x1b[6~", Key::kRight},
      {"l", Key::kRight},      {"h", Key::kLeft},          {"j", Key::kDown},
      {"k", Key::kUp},         {"S", Key::kSort},          {"u", Key::kUsage},
      {"x", Key::kOther},      {"\x1b[1;5C", Key::kOther},
  };
  for (const auto& [bytes, want] : cases) {
    size_t used = 0;
    EXPECT_EQ(DecodeKey(bytes, used).key, want) << bytes;
    EXPECT_EQ(used, bytes.size()) << bytes;
  }
  size_t used = 0;
  EXPECT_EQ(DecodeKey("jq", used).key, Key::kDown);
  EXPECT_EQ(used, 1u);
  EXPECT_EQ(DecodeKey("q", used).ch, 'q');  // the filter prompt types it
  EXPECT_EQ(DecodeKey("\x1b", used).ch, 0);
  EXPECT_EQ(DecodeKey("\x1b[C", used).ch, 0);
}

TEST(CutLineTest, CutsCellsKeepingEscapes) {
  EXPECT_EQ(CutLine("abcdef", 3), "abc");
  EXPECT_EQ(CutLine("██░░", 3), "██░");
  EXPECT_EQ(CutLine("\x1b[31mabcdef\x1b[0m", 2), "\x1b[31mab\x1b[0m");
  EXPECT_EQ(CutLine("ab", 5), "ab");
}

class LiveViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube_.CreateNode(n).ok());
    for (const kube::Pod& p : FixturePods()) ASSERT_TRUE(kube_.CreatePod(p).ok());
    watcher_.Set(FixtureMetrics());
    options_.no_color = true;
    layout_ = *MakeLayoutOptions(options_);
  }
  kube::testing::FakeClient kube_;
  lw::testing::FakeLoadWatcherClient watcher_;
  ViewOptions options_;
  LayoutOptions layout_;
  ManualClock clock_{FixtureNow()};
};

TEST_F(LiveViewTest, PagesSortsAndQuits) {
  ApiClusterSource source(kube_, &watcher_, "", "15m");
  // 8 rows: header (3 lines) + blank + footer (2) leave 2 rows: 2 nodes per page.
  const TerminalSize size{8, 200};
  FakeTerminal term(size);
  term.QueueKey(Key::kRight);  // page 2
  term.QueueKey(Key::kSort);   // cpu-requests=dsc, back to page 1
  term.QueueKey(Key::kUsage);  // usage bars off
  term.QueueKey(Key::kQuit);
  LiveView view(source, options_, PriceTable::Builtin(), layout_, term, clock_);
  ASSERT_TRUE(view.Run().ok());
  ASSERT_EQ(term.frames().size(), 4u);  // the first frame and one per non-quit key
  const std::string& first = term.frames()[0];
  EXPECT_THAT(first, HasSubstr("node-10 "));
  EXPECT_THAT(first, HasSubstr("node-b "));
  EXPECT_THAT(first, Not(HasSubstr("node-a ")));
  EXPECT_THAT(first, HasSubstr("•·  nodes 1-2 of 3"));
  EXPECT_THAT(first, HasSubstr("S: sort (creation=dsc)"));
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 8);  // fills the screen

  const std::string& second = term.frames()[1];
  EXPECT_THAT(second, HasSubstr("node-a "));
  EXPECT_THAT(second, HasSubstr("·•  nodes 3-3 of 3"));

  const std::string& sorted = term.frames()[2];
  EXPECT_THAT(sorted, HasSubstr("S: sort (cpu-requests=dsc)"));
  EXPECT_LT(sorted.find("node-a "), sorted.find("node-b "));
  EXPECT_THAT(sorted, HasSubstr("▕"));

  EXPECT_THAT(term.frames()[3], Not(HasSubstr("▕")));
}

TEST_F(LiveViewTest, FilterAndHelp) {
  ApiClusterSource source(kube_, &watcher_, "", "15m");
  FakeTerminal term({24, 200});
  term.QueueKey(Key::kFilter);
  term.QueueText("-1q");  // 'q' is typed into the filter, not a quit
  term.QueueKey(Key::kBackspace);
  term.QueueKey(Key::kEnter);
  term.QueueKey(Key::kHelp);
  term.QueueKey(Key::kHelp);
  term.QueueKey(Key::kFilter);
  term.QueueKey(Key::kQuit);  // esc: clears the filter
  term.QueueKey(Key::kQuit);  // now quits
  LiveView view(source, options_, PriceTable::Builtin(), layout_, term, clock_);
  ASSERT_TRUE(view.Run().ok());
  const auto& f = term.frames();
  ASSERT_EQ(f.size(), 11u);  // the first frame and one per key but the last
  EXPECT_THAT(f[1], HasSubstr("filter: █"));
  EXPECT_THAT(f[4], HasSubstr("filter: -1q█"));
  EXPECT_THAT(f[4], HasSubstr("No node name contains \"-1q\"."));
  EXPECT_THAT(f[5], HasSubstr("filter: -1█"));
  // Enter keeps "-1": node-10 only; the summary stays cluster-wide.
  EXPECT_THAT(f[6], HasSubstr("nodes 1-1 of 1  filter: -1\n"));
  EXPECT_THAT(f[6], HasSubstr("node-10 "));
  EXPECT_THAT(f[6], Not(HasSubstr("node-a ")));
  EXPECT_THAT(f[6], HasSubstr("3 nodes"));
  EXPECT_THAT(f[7], HasSubstr("Keys (read-only"));
  EXPECT_THAT(f[8], Not(HasSubstr("Keys (read-only")));
  EXPECT_THAT(f[10], HasSubstr("nodes 1-3 of 3\n"));
  EXPECT_EQ(view.filter(), "");
}

TEST_F(LiveViewTest, FailedRefreshKeepsTheLastView) {
  ApiClusterSource source(kube_, &watcher_, "", "15m");
  FakeTerminal term({24, 200});
  LiveView view(source, options_, PriceTable::Builtin(), layout_, term, clock_);
  ASSERT_TRUE(view.Refresh().ok());
  kube_.FailNext("ListNodes", absl::UnavailableError("apiserver down"));
  EXPECT_FALSE(view.Refresh().ok());
  const std::string frame = view.Frame({24, 200});
  EXPECT_THAT(frame, HasSubstr("node-a "));
  EXPECT_THAT(frame, HasSubstr("error: "));
  EXPECT_THAT(frame, HasSubstr("apiserver down"));
}

TEST_F(LiveViewTest, LinesAreCutToTheTerminalWidth) {
  ApiClusterSource source(kube_, &watcher_, "", "15m");
  FakeTerminal term({24, 30});
  LiveView view(source, options_, PriceTable::Builtin(), layout_, term, clock_);
  ASSERT_TRUE(view.Refresh().ok());
  for (absl::string_view line : absl::StrSplit(view.Frame({24, 30}), '\n')) {
    EXPECT_LE(DisplayWidth(line), 30u) << line;
  }
}

}  // namespace
}  // namespace trimaran::dashboard::terminal
