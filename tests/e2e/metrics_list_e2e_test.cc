// The one list of metric families, docs/metrics.md, against the real programs: the
// trimaran-scheduler and load-watcher binaries run against a real kube-apiserver + etcd
// and a real Prometheus; the scheduler has a plain profile and a TargetLoadPacking
// profile whose metricProvider makes it run a load watcher in-process, and schedules
// pods for both; the load watcher has a Kubernetes client. Both /metrics are scraped and
// compared with the table parsed from the doc itself, in both directions:
//
//   - every exported family is listed for that program, with the same type and label
//     names;
//   - every family listed for that program as present in this scenario ("always",
//     "load-aware", "metricProvider" for the scheduler; "always", "kube-client" for the
//     load watcher) is exported. Only "after-event" families may be absent.
//
// MetricsListTest.ComparisonCatchesEveryKindOfDifference shows, on fixed texts, that
// the comparison fails for each kind of difference.
//
// The Grafana dashboard (deploy/components/monitoring/trimaran-scheduler.json) is checked in the
// same run: every metric its queries name is exported by one of the two programs (or listed as
// after-event, or is Prometheus' own `up`), and every query, with its variables filled in, is
// accepted by the real Prometheus.
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/rest_client.h"
#include "rapidjson/document.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/prometheus.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using ::testing::IsEmpty;

constexpr char kMetricsDoc[] = TRIMARAN_SOURCE_DIR "/docs/metrics.md";
constexpr char kDashboard[] =
    TRIMARAN_SOURCE_DIR "/deploy/components/monitoring/trimaran-scheduler.json";
constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kLoadWatcherBin[] = TRIMARAN_LOAD_WATCHER_BIN;

// The doc's process columns and the words they may hold.
constexpr char kSchedulerColumn[] = "trimaran-scheduler";
constexpr char kLoadWatcherColumn[] = "load-watcher";
const std::set<std::string>& PresenceWords() {
  static const auto* const kWords = new std::set<std::string>{
      "always", "load-aware", "metricProvider", "kube-client", "extender", "after-event", "—"};
  return *kWords;
}

// ---- The list, parsed from docs/metrics.md ----

struct ListedFamily {
  std::string type;
  std::set<std::string> labels;
  std::map<std::string, std::string> presence;  // process column -> word
};
using MetricsList = std::map<std::string, ListedFamily>;

std::vector<std::string> Cells(absl::string_view row) {
  row = absl::StripAsciiWhitespace(row);
  absl::ConsumePrefix(&row, "|");
  absl::ConsumeSuffix(&row, "|");
  std::vector<std::string> cells;
  for (absl::string_view cell : absl::StrSplit(row, '|')) {
    cells.emplace_back(absl::StripAsciiWhitespace(cell));
  }
  return cells;
}

// "`a`" -> "a"; empty when the cell is not one code span.
std::string CodeSpan(absl::string_view cell) {
  if (cell.size() < 3 || cell.front() != '`' || cell.back() != '`') return "";
  cell = cell.substr(1, cell.size() - 2);
  return absl::StrContains(cell, '`') ? "" : std::string(cell);
}

// The table whose header has the columns name, type, labels and the two process
// columns. Every row must be well formed: a malformed row is an error, not skipped.
absl::StatusOr<MetricsList> ParseMetricsList(absl::string_view doc) {
  const std::vector<absl::string_view> lines = absl::StrSplit(doc, '\n');
  size_t i = 0;
  std::map<std::string, size_t> column;
  for (; i < lines.size(); ++i) {
    if (!absl::StartsWith(absl::StripLeadingAsciiWhitespace(lines[i]), "|")) continue;
    const std::vector<std::string> header = Cells(lines[i]);
    column.clear();
    for (size_t c = 0; c < header.size(); ++c) column[header[c]] = c;
    if (column.contains("name") && column.contains("type") && column.contains("labels") &&
        column.contains(kSchedulerColumn) && column.contains(kLoadWatcherColumn)) {
      break;
    }
  }
  if (i == lines.size()) return absl::NotFoundError("no table with the metric columns");
  const size_t width = Cells(lines[i]).size();
  i += 2;  // the header and the |---| row
  MetricsList list;
  for (; i < lines.size() && absl::StartsWith(absl::StripLeadingAsciiWhitespace(lines[i]), "|");
       ++i) {
    const std::vector<std::string> cells = Cells(lines[i]);
    const std::string where = absl::StrCat("docs/metrics.md line ", i + 1);
    if (cells.size() != width) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", cells.size(), " cells, the header has ", width));
    }
    const std::string name = CodeSpan(cells[column["name"]]);
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": bad name"));
    ListedFamily family;
    family.type = cells[column["type"]];
    if (family.type != "counter" && family.type != "gauge" && family.type != "histogram") {
      return absl::InvalidArgumentError(absl::StrCat(where, ": bad type ", family.type));
    }
    if (const std::string& labels = cells[column["labels"]]; labels != "—") {
      for (absl::string_view label : absl::StrSplit(labels, ',')) {
        const std::string l = CodeSpan(absl::StripAsciiWhitespace(label));
        if (l.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": bad labels"));
        family.labels.insert(l);
      }
    }
    for (const char* process : {kSchedulerColumn, kLoadWatcherColumn}) {
      const std::string& word = cells[column[process]];
      if (!PresenceWords().contains(word)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": unknown word \"", word, "\" in column ", process));
      }
      family.presence[process] = word;
    }
    if (!list.emplace(name, std::move(family)).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", name, " listed twice"));
    }
  }
  if (list.empty()) return absl::NotFoundError("the metric table has no rows");
  return list;
}

// ---- An exposition, parsed ----

struct ExportedFamily {
  std::string type;
  std::set<std::string> labels;
};
using Exposition = std::map<std::string, ExportedFamily>;

// The label names of a sample line's `{a="x",b="y"}` (values may hold escaped quotes,
// commas and braces).
absl::StatusOr<std::vector<std::string>> LabelNames(absl::string_view labels) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < labels.size()) {
    const size_t eq = labels.find('=', i);
    if (eq == absl::string_view::npos || eq + 1 >= labels.size() || labels[eq + 1] != '"') {
      return absl::InvalidArgumentError(absl::StrCat("bad labels: ", labels));
    }
    names.emplace_back(labels.substr(i, eq - i));
    size_t j = eq + 2;
    while (j < labels.size() && labels[j] != '"') j += labels[j] == '\\' ? 2 : 1;
    if (j >= labels.size()) return absl::InvalidArgumentError(absl::StrCat("bad labels: ", labels));
    i = j + 1;
    if (i < labels.size()) {
      if (labels[i] != ',') return absl::InvalidArgumentError(absl::StrCat("bad labels: ", labels));
      ++i;
    }
  }
  return names;
}

// Families from the # TYPE lines; label names from the samples. A sample of no declared
// family is an error.
absl::StatusOr<Exposition> ParseExposition(absl::string_view text) {
  Exposition out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "# TYPE ")) {
      const std::vector<std::string> parts = absl::StrSplit(line, ' ');
      if (parts.size() != 2) return absl::InvalidArgumentError(absl::StrCat("bad TYPE: ", line));
      out[parts[0]].type = parts[1];
      continue;
    }
    if (absl::StartsWith(line, "#")) continue;
    const size_t end = line.find_first_of("{ ");
    if (end == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("bad sample: ", line));
    }
    std::string family(line.substr(0, end));
    bool bucket = false;
    if (!out.contains(family)) {
      for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
        absl::string_view stem = family;
        if (absl::ConsumeSuffix(&stem, suffix) && out.contains(std::string(stem)) &&
            (out[std::string(stem)].type == "histogram" ||
             (out[std::string(stem)].type == "summary" && suffix != "_bucket"))) {
          bucket = suffix == "_bucket";
          family = std::string(stem);
          break;
        }
      }
    }
    if (!out.contains(family)) {
      return absl::InvalidArgumentError(absl::StrCat("sample without a TYPE line: ", line));
    }
    if (line[end] == '{') {
      const size_t close = line.rfind('}');
      if (close == absl::string_view::npos || close < end) {
        return absl::InvalidArgumentError(absl::StrCat("bad sample: ", line));
      }
      absl::StatusOr<std::vector<std::string>> names =
          LabelNames(line.substr(end + 1, close - end - 1));
      if (!names.ok()) return names.status();
      for (const std::string& name : *names) {
        if (!(bucket && name == "le") && name != "quantile") out[family].labels.insert(name);
      }
    }
  }
  return out;
}

// ---- The comparison ----

// Every difference between `exported` (one program's /metrics) and the families `list`
// has for `process`, given the presence words this scenario triggers for it.
std::vector<std::string> Differences(const MetricsList& list, const std::string& process,
                                     const std::set<std::string>& triggered,
                                     const Exposition& exported) {
  std::vector<std::string> out;
  for (const auto& [name, family] : exported) {
    auto it = list.find(name);
    if (it == list.end() || it->second.presence.at(process) == "—") {
      out.push_back(absl::StrCat(name, ": exported by ", process, " but not listed for it"));
      continue;
    }
    if (family.type != it->second.type) {
      out.push_back(
          absl::StrCat(name, ": exported as ", family.type, ", listed as ", it->second.type));
    }
    if (family.labels != it->second.labels) {
      out.push_back(absl::StrCat(name, ": exported with labels {",
                                 absl::StrJoin(family.labels, ","), "}, listed with {",
                                 absl::StrJoin(it->second.labels, ","), "}"));
    }
  }
  for (const auto& [name, family] : list) {
    const std::string& word = family.presence.at(process);
    if (triggered.contains(word) && !exported.contains(name)) {
      out.push_back(absl::StrCat(name, ": listed for ", process, " (", word, ") but not exported"));
    }
  }
  return out;
}

// ---- The Grafana dashboard's queries ----

// Every PromQL expression of the dashboard: the panels' targets and the query variables.
absl::StatusOr<std::vector<std::string>> DashboardQueries(absl::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("panels") ||
      !doc["panels"].IsArray()) {
    return absl::InvalidArgumentError("the dashboard is not a JSON object with panels");
  }
  std::vector<std::string> out;
  for (const auto& panel : doc["panels"].GetArray()) {
    if (!panel.HasMember("targets")) continue;
    for (const auto& target : panel["targets"].GetArray()) {
      if (!target.HasMember("expr") || !target["expr"].IsString()) {
        return absl::InvalidArgumentError("a target without an expr");
      }
      out.emplace_back(target["expr"].GetString());
    }
  }
  if (doc.HasMember("templating")) {
    for (const auto& var : doc["templating"]["list"].GetArray()) {
      if (var.HasMember("definition") && var["definition"].IsString()) {
        out.emplace_back(var["definition"].GetString());
      }
    }
  }
  return out;
}

// The metric names an expression selects: identifiers directly followed by `{` (the
// dashboard selects every metric with a label matcher, at least the job).
std::set<std::string> SelectedMetrics(absl::string_view expr) {
  std::set<std::string> out;
  auto ident = [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == ':'; };
  for (size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] != '{') continue;
    size_t start = i;
    while (start > 0 && ident(expr[start - 1])) --start;
    if (start < i && !absl::ascii_isdigit(expr[start])) {
      out.emplace(expr.substr(start, i - start));
    }
  }
  return out;
}

// The family a sample name belongs to (a histogram's _bucket/_sum/_count series).
std::string FamilyOf(const std::string& name, const std::set<std::string>& families) {
  if (families.contains(name)) return name;
  for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
    absl::string_view stem = name;
    if (absl::ConsumeSuffix(&stem, suffix) && families.contains(std::string(stem))) {
      return std::string(stem);
    }
  }
  return name;
}

// Dashboard metrics that neither exposition has, unless the list says they appear only
// after an event. Prometheus' own `up` is always there.
std::vector<std::string> UnexportedDashboardMetrics(const std::vector<std::string>& queries,
                                                    const std::vector<const Exposition*>& live,
                                                    const MetricsList& list) {
  std::set<std::string> families;
  for (const Exposition* e : live) {
    for (const auto& [name, family] : *e) families.insert(name);
  }
  for (const auto& [name, family] : list) families.insert(name);
  std::vector<std::string> out;
  for (const std::string& query : queries) {
    for (const std::string& name : SelectedMetrics(query)) {
      if (name == "up") continue;
      const std::string family = FamilyOf(name, families);
      bool exported = false;
      for (const Exposition* e : live) exported = exported || e->contains(family);
      bool after_event = false;
      if (auto it = list.find(family); it != list.end()) {
        for (const auto& [process, word] : it->second.presence) {
          after_event = after_event || word == "after-event";
        }
      }
      if (!exported && !after_event) {
        out.push_back(absl::StrCat(name, " (in: ", query, ")"));
      }
    }
  }
  return out;
}

// `s` percent-encoded for a URL query value.
std::string QueryEscape(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

// The dashboard's variables as Grafana fills them with their defaults.
std::string FillVariables(std::string expr) {
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"$__rate_interval", "1m"},
                                                        {"$cluster", ""},
                                                        {"$instance", ".+"},
                                                        {"$window", "5m"},
                                                        {"$node", ".+"}}) {
    expr = absl::StrReplaceAll(expr, {{from, to}});
  }
  return expr;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MetricsListTest, ComparisonCatchesEveryKindOfDifference) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(MetricsList list, ParseMetricsList(R"(
| name | type | labels | trimaran-scheduler | load-watcher | meaning |
|---|---|---|---|---|---|
| `a_total` | counter | `x`, `y` | always | — | A. |
| `b_seconds` | histogram | — | always | always | B. |
| `c_total` | counter | `x` | after-event | — | C. |
| `d` | gauge | — | — | kube-client | D. |
)"));
  ASSERT_EQ(list.size(), 4u);
  const std::set<std::string> triggered = {"always"};
  auto diff = [&](const std::string& process, absl::string_view text) {
    absl::StatusOr<Exposition> exposition = ParseExposition(text);
    EXPECT_TRUE(exposition.ok()) << exposition.status();
    return exposition.ok() ? Differences(list, process, triggered, *exposition)
                           : std::vector<std::string>{"unparsable"};
  };
  const std::string good =
      "# TYPE a_total counter\na_total{x=\"1\",y=\"a,b=\\\"c\\\"\"} 1\n"
      "# TYPE b_seconds histogram\nb_seconds_bucket{le=\"+Inf\"} 1\nb_seconds_sum 1\n"
      "b_seconds_count 1\n";
  EXPECT_THAT(diff(kSchedulerColumn, good), IsEmpty());
  // An after-event family may be there, with its labels.
  EXPECT_THAT(diff(kSchedulerColumn, good + "# TYPE c_total counter\nc_total{x=\"1\"} 2\n"),
              IsEmpty());
  // Listed but not exported.
  EXPECT_THAT(diff(kSchedulerColumn, "# TYPE a_total counter\na_total{x=\"1\",y=\"2\"} 1\n"),
              ::testing::ElementsAre(::testing::HasSubstr("b_seconds: listed")));
  // Exported but not listed (at all, or not for this program).
  EXPECT_THAT(diff(kSchedulerColumn, good + "# TYPE e counter\ne 1\n"),
              ::testing::ElementsAre(::testing::HasSubstr("e: exported")));
  EXPECT_THAT(diff(kSchedulerColumn, good + "# TYPE d gauge\nd 1\n"),
              ::testing::ElementsAre(::testing::HasSubstr("d: exported")));
  // Another type, other labels.
  EXPECT_THAT(diff(kSchedulerColumn,
                   "# TYPE a_total gauge\na_total{x=\"1\",y=\"2\"} 1\n"
                   "# TYPE b_seconds histogram\nb_seconds_bucket{le=\"1\",z=\"q\"} 1\n"),
              ::testing::UnorderedElementsAre(::testing::HasSubstr("a_total: exported as gauge"),
                                              ::testing::HasSubstr("b_seconds: exported with")));
  // A malformed table is an error, not an empty list.
  EXPECT_FALSE(ParseMetricsList("| name | type | labels | trimaran-scheduler | load-watcher |\n"
                                "|---|---|---|---|---|\n| `a` | counter | — | sometimes | — |\n")
                   .ok());
  // And the real doc parses.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(MetricsList doc, ParseMetricsList(ReadFile(kMetricsDoc)));
  EXPECT_GE(doc.size(), 20u);
}

// ---- The real programs ----

constexpr char kCpu[] = "instance:node_cpu:ratio";
constexpr char kMem[] = "instance:node_memory_utilisation:ratio";

// Two profiles: "trimaran" (the defaults) and "tlp" (+ TargetLoadPacking reading
// Prometheus through an in-process load watcher).
TEST(MetricsListTest, DashboardCheckFindsEveryUnexportedMetric) {
  EXPECT_EQ(SelectedMetrics("histogram_quantile(0.99, sum by (le, verb) (rate(a_b_bucket{job=\"x\"}"
                            "[$__rate_interval]))) / c:d{x=\"{\"} + up{}"),
            (std::set<std::string>{"a_b_bucket", "c:d", "up"}));
  Exposition live{{"a_b", {"histogram", {"verb"}}}, {"c:d", {"gauge", {}}}};
  MetricsList list;
  list["later_total"] = {"counter", {}, {{"trimaran-scheduler", "after-event"}}};
  list["never_total"] = {"counter", {}, {{"trimaran-scheduler", "always"}}};
  EXPECT_THAT(
      UnexportedDashboardMetrics(
          {"rate(a_b_count{j=\"1\"}[1m])", "up{j=\"1\"}", "later_total{j=\"1\"}"}, {&live}, list),
      IsEmpty());
  EXPECT_THAT(UnexportedDashboardMetrics({"sum(never_total{j=\"1\"})", "typo_bucket{j=\"1\"}"},
                                         {&live}, list),
              ::testing::ElementsAre(::testing::HasSubstr("never_total"),
                                     ::testing::HasSubstr("typo_bucket")));
}

std::string SchedulerConfig(const std::string& prometheus_url) {
  return absl::StrCat(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  qps: 1000
  burst: 1000
profiles:
  - schedulerName: trimaran
  - schedulerName: tlp
    plugins:
      multiPoint:
        enabled:
          - name: TargetLoadPacking
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 50
          metricProvider:
            type: Prometheus
            address: )",
                      prometheus_url, "\n");
}

class MetricsListE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Prometheus::Available()) GTEST_SKIP() << "prometheus/promtool not on PATH";
    TRIMARAN_ASSERT_OK_AND_ASSIGN(list_, ParseMetricsList(ReadFile(kMetricsDoc)));
    ClusterOptions options;
    options.qps = 1000;
    options.burst = 1000;
    auto cluster = Cluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    cp_ = &cluster_->control_plane();
  }

  void TearDown() override {
    if (HasFailure()) {
      if (scheduler_)
        std::fprintf(stderr, "--- scheduler ---\n%s\n", scheduler_->LogTail().c_str());
      if (watcher_) std::fprintf(stderr, "--- load-watcher ---\n%s\n", watcher_->LogTail().c_str());
    }
    if (scheduler_) scheduler_->Stop();
    if (watcher_) watcher_->Stop();
  }

  // Scrapes `url` until Differences is empty or `timeout` passes; returns the last
  // differences (a scrape that does not parse is one).
  std::vector<std::string> SettledDifferences(const std::string& url, const std::string& process,
                                              const std::set<std::string>& triggered,
                                              absl::Duration timeout, Exposition* last) {
    std::vector<std::string> diff;
    Eventually(
        [&] {
          int status = 0;
          const std::string text = Curl(url, &status);
          absl::StatusOr<Exposition> exposition = ParseExposition(text);
          if (status != 200 || !exposition.ok()) {
            diff = {absl::StrCat(url, ": HTTP ", status, ", ", exposition.status().ToString())};
            return false;
          }
          diff = Differences(list_, process, triggered, *exposition);
          *last = *exposition;
          return diff.empty();
        },
        timeout);
    return diff;
  }

  MetricsList list_;
  std::unique_ptr<Cluster> cluster_;
  ControlPlane* cp_ = nullptr;  // owned by cluster_
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<Subprocess> watcher_;
  std::unique_ptr<Subprocess> scheduler_;
};

TEST_F(MetricsListE2ETest, BothProgramsExportExactlyTheListedFamilies) {
  // Four nodes with a Prometheus history (constant CPU, 30 % memory, every 15 s).
  const std::vector<std::string> nodes = NumberedNames("node", 4);
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(nodes, {.cpu = "8", .memory = "16Gi"}));
  std::vector<PromSample> history;
  const int64_t now = absl::ToUnixSeconds(absl::Now());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int64_t t = now - 20 * 60; t <= now - 5; t += 15) {
      history.push_back({kCpu, {{"instance", nodes[i]}}, t, 0.1 + 0.1 * static_cast<double>(i)});
      history.push_back({kMem, {{"instance", nodes[i]}}, t, 0.30});
    }
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(prom_, Prometheus::Start(history));

  // The load watcher: Prometheus provider, a Kubernetes client, a fetch every second.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const int lw_port, PickFreePort());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      watcher_,
      Subprocess::Start(
          {kLoadWatcherBin, "--bind-address=127.0.0.1", absl::StrCat("--port=", lw_port),
           "--grpc-port=0", "--fetch-interval=1s", "--kubeconfig=" + cluster_->kubeconfig()},
          cp_->dir() + "/load-watcher.log",
          {"METRICS_PROVIDER_NAME=Prometheus", "METRICS_PROVIDER_ADDRESS=" + prom_->url()}));
  const std::string lw_url = absl::StrCat("http://127.0.0.1:", lw_port);

  // The scheduler.
  const std::string config = cp_->dir() + "/metrics-list.yaml";
  std::ofstream(config) << SchedulerConfig(prom_->url());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const int port, PickFreePort());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      scheduler_,
      Subprocess::Start(
          {kSchedulerBin, "--config=" + config, "--kubeconfig=" + cluster_->kubeconfig(),
           "--bind-address=127.0.0.1", absl::StrCat("--secure-port=", port),
           "--cert-dir=" + cp_->dir() + "/certs", "--v=2", kAdminOpenPathsFlag},
          cp_->dir() + "/scheduler.log"));
  const std::string sched_url = absl::StrCat("https://127.0.0.1:", port);
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(sched_url + "/readyz", &status);
        return status == 200;
      },
      absl::Seconds(30)));

  // Pods for both profiles, all bound. Many cycles, so that the 10 % sampled plugin
  // durations have samples.
  constexpr int kPlain = 100;
  constexpr int kLoadAware = 20;
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(kPlain + kLoadAware, [&](int i) {
    return PodShape{.name = absl::StrCat("pod-", i),
                    .scheduler_name = i < kPlain ? "trimaran" : "tlp",
                    .cpu = "100m",
                    .memory = "128Mi"};
  }));
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::PodList> pods = cluster_->client().ListPods("default", {});
        if (!pods.ok()) return false;
        int bound = 0;
        for (const kube::Pod& p : pods->items) bound += !p.spec.node_name.empty();
        return bound == kPlain + kLoadAware;
      },
      absl::Seconds(90)))
      << "not every pod was bound";

  Exposition sched_exposition;
  Exposition lw_exposition;
  EXPECT_THAT(SettledDifferences(sched_url + "/metrics", kSchedulerColumn,
                                 {"always", "load-aware", "metricProvider"}, absl::Seconds(60),
                                 &sched_exposition),
              IsEmpty())
      << "trimaran-scheduler /metrics vs docs/metrics.md";
  EXPECT_THAT(SettledDifferences(lw_url + "/metrics", kLoadWatcherColumn, {"always", "kube-client"},
                                 absl::Seconds(60), &lw_exposition),
              IsEmpty())
      << "load-watcher /metrics vs docs/metrics.md";

  // The Grafana dashboard queries only what the programs export, in PromQL the real
  // Prometheus accepts.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(const std::vector<std::string> queries,
                                DashboardQueries(ReadFile(kDashboard)));
  ASSERT_GT(queries.size(), 20u);
  EXPECT_THAT(UnexportedDashboardMetrics(queries, {&sched_exposition, &lw_exposition}, list_),
              IsEmpty())
      << "deploy/components/monitoring/trimaran-scheduler.json queries metrics nothing exports";
  for (const std::string& query : queries) {
    if (absl::StartsWith(query, "label_values(")) continue;  // a Grafana function
    int status = 0;
    const std::string body =
        Curl(absl::StrCat(prom_->url(), "/api/v1/query?query=", QueryEscape(FillVariables(query))),
             &status);
    EXPECT_EQ(status, 200) << query << "\n" << body;
    EXPECT_THAT(body, ::testing::HasSubstr("\"status\":\"success\"")) << query;
  }
}

// Issue 32, point 9: every family the list names as kube-scheduler's (scheduler_*) against
// the real kube-scheduler 1.37, not against our own docs: both schedulers run the same
// workload (60 pods that fit, so that the plugin durations both sample in 10 % of the
// cycles have samples, and one that fits nowhere, so that preemption and the
// unschedulable gauge have them too) and both live /metrics are scraped; each listed
// family must be exported by kube-scheduler 1.37 with the same type and, where both
// have samples, the same label names, and by trimaran.
TEST_F(MetricsListE2ETest, SharedFamiliesAreKubeScheduler137s) {
  constexpr int kFit = 60;
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 3), {.cpu = "8", .memory = "32Gi"}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess trimaran,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cp_->dir(),
                             .tag = "shared-families",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = cluster_->kubeconfig()}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<KubeScheduler> kube,
      KubeScheduler::Start(*cp_, {.kubeconfig = cluster_->kubeconfig(),
                                  .profiles_yaml = "  - schedulerName: kube\n",
                                  .tag = "kube-scheduler-metrics"}));
  for (const std::string sched : {"trimaran", "kube"}) {
    TRIMARAN_ASSERT_OK(cluster_->CreatePods(kFit + 1, [&](int i) {
      return PodShape{.name = absl::StrCat(sched, "-", i),
                      .scheduler_name = sched,
                      .cpu = i == kFit ? "100" : "100m",
                      .memory = "128Mi"};
    }));
  }
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::PodList> pods = cluster_->client().ListPods("default", {});
        if (!pods.ok()) return false;
        int bound = 0;
        for (const kube::Pod& p : pods->items) bound += !p.spec.node_name.empty();
        return bound == 2 * kFit;
      },
      absl::Seconds(60)))
      << "not every pod that fits was bound";
  const std::string header = absl::StrCat("Authorization: Bearer ", cp_->token());
  std::string why;  // the last scrape's failure
  auto scrape = [&](const std::string& url) -> Exposition {
    Exposition e;
    Eventually(
        [&] {
          int status = 0;
          absl::StatusOr<Exposition> parsed = ParseExposition(Curl(url, &status, header));
          if (status != 200 || !parsed.ok()) {
            why = absl::StrCat(url, ": HTTP ", status, ", ", parsed.status().ToString());
            return false;
          }
          e = *std::move(parsed);
          // Every listed family is there (kube-scheduler writes the plugin durations
          // from an asynchronous buffer, once a second).
          for (const auto& [name, listed] : list_) {
            if (!absl::StartsWith(name, "scheduler_")) continue;
            if (e.count(name) == 0 || (!listed.labels.empty() && e[name].labels.empty())) {
              why = absl::StrCat(url, ": no ", name, " series yet");
              return false;
            }
          }
          return true;
        },
        absl::Seconds(30));
    return e;
  };
  Exposition ours = scrape(absl::StrCat("https://127.0.0.1:", trimaran.secure_port, "/metrics"));
  ASSERT_FALSE(ours.empty()) << why;
  Exposition theirs = scrape(kube->url() + "/metrics");
  ASSERT_FALSE(theirs.empty()) << why << "\n" << kube->process().LogTail();
  int shared = 0;
  for (const auto& [name, listed] : list_) {
    if (!absl::StartsWith(name, "scheduler_")) continue;
    SCOPED_TRACE(name);
    ++shared;
    auto it = theirs.find(name);
    ASSERT_NE(it, theirs.end()) << name << " is not a kube-scheduler 1.37 family";
    EXPECT_EQ(it->second.type, listed.type);
    ASSERT_EQ(ours.count(name), 1u) << "trimaran does not export " << name;
    EXPECT_EQ(ours[name].type, it->second.type);
    if (!it->second.labels.empty() && !ours[name].labels.empty()) {
      EXPECT_EQ(ours[name].labels, it->second.labels);
    }
  }
  std::printf("[metrics] %d scheduler_* families checked against kube-scheduler 1.37\n", shared);
  EXPECT_GE(shared, 12);
  // kube-scheduler 1.34 renamed the doubled scheduler_scheduler_cache_size.
  EXPECT_EQ(theirs.count("scheduler_scheduler_cache_size"), 0u);
  EXPECT_EQ(ours.count("scheduler_scheduler_cache_size"), 0u);
}

}  // namespace
}  // namespace trimaran::e2e
