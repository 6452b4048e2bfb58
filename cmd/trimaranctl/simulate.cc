#include "cmd/trimaranctl/simulate.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/generator.h"
#include "sim/html_report.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace trimaran::cmd::trimaranctl {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open file"));
  std::stringstream buffer;
  buffer << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

absl::StatusOr<std::vector<sched::ProfileConfig>> LoadProfiles(const std::string& path,
                                                               const sched::Registry& registry) {
  namespace config = sched::config;
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  absl::StatusOr<config::SchedulerConfig> cfg = config::ParseConfig(text, path);
  if (!cfg.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", cfg.status().message()));
  if (absl::Status s = config::Validate(*cfg, registry); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  }
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      config::ExpandProfiles(*cfg, registry);
  if (!profiles.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", profiles.status().message()));
  }
  return profiles;
}

// --trace: a pods file, or a directory holding pods.csv or pods.jsonl (and maybe
// node-groups.yaml).
absl::StatusOr<std::string> PodsFile(const std::string& trace) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(trace, ec)) return trace;
  for (const char* name : {"pods.csv", "pods.jsonl"}) {
    const fs::path p = fs::path(trace) / name;
    if (fs::exists(p, ec)) return p.string();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(trace, ": directory holds neither pods.csv nor pods.jsonl"));
}

// The node groups `gen` writes beside the pods: m5 general purpose and r5 memory
// optimised, us-east-1 on-demand prices (spec §A4), CA defaults.
constexpr char kGenNodeGroups[] =
    R"(# Written by trimaranctl simulate gen. Prices: us-east-1 on demand, Linux (USD/h).
nodeGroups:
  - {name: m5-2xlarge, instanceType: m5.2xlarge, cpuMilli: 8000, memoryMiB: 32768,
     pricePerHour: 0.384, min: 0, max: 500, startupDelay: 180}
  - {name: m5-4xlarge, instanceType: m5.4xlarge, cpuMilli: 16000, memoryMiB: 65536,
     pricePerHour: 0.768, min: 0, max: 500, startupDelay: 180}
  - {name: r5-2xlarge, instanceType: r5.2xlarge, cpuMilli: 8000, memoryMiB: 65536,
     pricePerHour: 0.504, min: 0, max: 500, startupDelay: 180}
autoscaler:
  expander: least-waste
)";

int RunGen(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl simulate gen: error: ", message, "\n");
    return 1;
  };
  sim::GenOptions o;
  std::string dir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "-h" || flag == "--help") {
      out += SimulateHelpText();
      return 0;
    }
    if (i + 1 >= args.size()) return fail(absl::StrCat(flag, ": needs a value"));
    const std::string& value = args[++i];
    bool ok = true;
    if (flag == "-o" || flag == "--output") {
      dir = value;
    } else if (flag == "--seed") {
      ok = absl::SimpleAtoi(value, &o.seed);
    } else if (flag == "--hours") {
      ok = absl::SimpleAtod(value, &o.hours);
    } else if (flag == "--apps-per-hour") {
      ok = absl::SimpleAtod(value, &o.apps_per_hour);
    } else if (flag == "--diurnal") {
      ok = absl::SimpleAtod(value, &o.diurnal_amplitude);
    } else if (flag == "--min-executors") {
      ok = absl::SimpleAtoi(value, &o.min_executors);
    } else if (flag == "--max-executors") {
      ok = absl::SimpleAtoi(value, &o.max_executors);
    } else if (flag == "--executor-minutes") {
      ok = absl::SimpleAtod(value, &o.executor_median_minutes);
    } else if (flag == "--services") {
      ok = absl::SimpleAtoi(value, &o.services);
    } else if (flag == "--replicas") {
      ok = absl::SimpleAtoi(value, &o.service_replicas);
    } else {
      return fail(absl::StrCat("unknown flag \"", flag, "\" (see --help)"));
    }
    if (!ok) return fail(absl::StrCat(flag, ": invalid value \"", value, "\""));
  }
  if (dir.empty()) return fail("-o DIR is required");
  absl::StatusOr<std::vector<sim::TracePod>> pods = sim::GenerateSparkTrace(o);
  if (!pods.ok()) return fail(pods.status().message());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(absl::StrCat(dir, ": ", ec.message()));
  const std::string pods_path = (std::filesystem::path(dir) / "pods.csv").string();
  const std::string groups_path = (std::filesystem::path(dir) / "node-groups.yaml").string();
  std::ofstream pods_file(pods_path, std::ios::binary);
  pods_file << sim::FormatPodsCsv(*pods);
  std::ofstream groups_file(groups_path, std::ios::binary);
  groups_file << kGenNodeGroups;
  if (!pods_file || !groups_file) return fail(absl::StrCat(dir, ": cannot write"));
  absl::StrAppend(&out, "wrote ", pods->size(), " pods to ", pods_path, " and ", groups_path, "\n");
  return 0;
}

}  // namespace

std::string SimulateHelpText() {
  return "Usage:\n"
         "  trimaranctl simulate --trace DIR_OR_FILE --config sched.yaml [--config b.yaml ...]\n"
         "                       [--node-groups groups.yaml] [--seed N] [--max-hours H]\n"
         "                       [-o report.json] [--html report.html]\n"
         "  trimaranctl simulate gen -o DIR [--seed N] [--hours H] [--apps-per-hour X]\n"
         "                       [--diurnal A] [--min-executors N] [--max-executors N]\n"
         "                       [--executor-minutes M] [--services N] [--replicas N]\n"
         "\n"
         "Replays a trace of pods (arrivals, ends, usage) on a simulated, autoscaled cluster\n"
         "through the real scheduling framework, once per profile of every --config, and\n"
         "reports node-hours, cost, peak nodes, pending time, packing efficiency against the\n"
         "lower bound and hot-node minutes (docs/simulator.md). The first profile is the\n"
         "baseline of the deltas.\n"
         "\n"
         "  --trace PATH        pods.csv / pods.jsonl, or a directory holding one (and\n"
         "                      node-groups.yaml, used when --node-groups is not given)\n"
         "  --config FILE       a KubeSchedulerConfiguration; repeatable\n"
         "  --node-groups FILE  node groups and autoscaler settings (YAML); default: one\n"
         "                      group of m5.xlarge (4 CPU, 16 GiB, $0.192/h), 0..1000 nodes\n"
         "  --seed N            seed of the autoscaler's random tie-breaks (default 1)\n"
         "  --max-hours H       stop after H simulated hours\n"
         "  --target-utilization P  report node-minutes above P % real CPU (default 40,\n"
         "                      TargetLoadPacking's default target)\n"
         "  --hot-threshold P   a node is hot above P % real CPU for 5+ minutes (default 80)\n"
         "  -o, --output FILE   write the JSON report there (default: stdout)\n"
         "  --html FILE         also write the report as one self-contained HTML page\n"
         "                      with SVG plots\n"
         "\n"
         "gen writes a seeded Spark-like trace (drivers, executors in dynamic-allocation\n"
         "waves, steady services, a diurnal arrival rate) as DIR/pods.csv, and\n"
         "DIR/node-groups.yaml (m5.2xlarge, m5.4xlarge, r5.2xlarge). Defaults: seed 1,\n"
         "24 hours, 6 apps/hour, diurnal 0.5, 2..200 executors of median 20 minutes,\n"
         "4 services of 3 replicas.\n";
}

int RunSimulateCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl simulate: error: ", message, "\n");
    return 1;
  };
  if (!args.empty() && args[0] == "gen") {
    return RunGen(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  std::string trace;
  std::vector<std::string> configs;
  std::string groups_file;
  std::string output;
  std::string html;
  sim::SimOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out += SimulateHelpText();
      return 0;
    }
    std::string flag = arg;
    std::string value;
    if (const size_t eq = arg.find('='); absl::StartsWith(arg, "--") && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (absl::StartsWith(arg, "-")) {
      if (i + 1 >= args.size()) return fail(absl::StrCat(arg, ": needs a value"));
      value = args[++i];
    } else {
      return fail(absl::StrCat("unexpected argument \"", arg, "\" (see --help)"));
    }
    if (flag == "--trace") {
      trace = value;
    } else if (flag == "--config") {
      configs.push_back(value);
    } else if (flag == "--node-groups") {
      groups_file = value;
    } else if (flag == "-o" || flag == "--output") {
      output = value;
    } else if (flag == "--html") {
      html = value;
    } else if (flag == "--seed") {
      if (!absl::SimpleAtoi(value, &options.seed)) {
        return fail(absl::StrCat("--seed: not a non-negative integer: \"", value, "\""));
      }
    } else if (flag == "--target-utilization" || flag == "--hot-threshold") {
      double pct = 0;
      if (!absl::SimpleAtod(value, &pct) || pct <= 0 || pct > 1000) {
        return fail(absl::StrCat(flag, ": not a percentage: \"", value, "\""));
      }
      (flag == "--hot-threshold" ? options.hot_threshold : options.target_utilization) = pct / 100;
    } else if (flag == "--max-hours") {
      double h = 0;
      if (!absl::SimpleAtod(value, &h) || h <= 0) {
        return fail(absl::StrCat("--max-hours: not a positive number: \"", value, "\""));
      }
      options.max_time = h * 3600;
    } else {
      return fail(absl::StrCat("unknown flag \"", flag, "\" (see --help)"));
    }
  }
  if (trace.empty()) return fail("--trace is required");
  if (configs.empty()) return fail("--config is required (at least one)");
  for (int c = 0; c < kNumComponents; ++c) {
    SetComponentLevel(ComponentName(static_cast<Component>(c)), "error").IgnoreError();
  }

  absl::StatusOr<std::string> pods_file = PodsFile(trace);
  if (!pods_file.ok()) return fail(pods_file.status().message());
  absl::StatusOr<std::string> pods_text = ReadFile(*pods_file);
  if (!pods_text.ok()) return fail(pods_text.status().message());
  absl::StatusOr<std::vector<sim::TracePod>> pods = sim::ParsePods(*pods_text, *pods_file);
  if (!pods.ok()) return fail(pods.status().message());

  if (groups_file.empty() && std::filesystem::is_directory(trace)) {
    const std::string candidate = (std::filesystem::path(trace) / "node-groups.yaml").string();
    if (std::filesystem::exists(candidate)) groups_file = candidate;
  }
  sim::ClusterSpec cluster = sim::DefaultClusterSpec();
  if (!groups_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(groups_file);
    if (!text.ok()) return fail(text.status().message());
    absl::StatusOr<sim::ClusterSpec> parsed = sim::ParseClusterYaml(*text, groups_file);
    if (!parsed.ok()) return fail(parsed.status().message());
    cluster = *std::move(parsed);
  }

  sched::Registry registry;
  if (absl::Status s = sched::plugins::RegisterInTreePlugins(registry); !s.ok()) {
    return fail(s.message());
  }
  sim::SimReportInput report;
  report.trace = trace;
  report.node_groups = groups_file;
  report.seed = options.seed;
  report.cluster = &cluster;
  std::set<std::string> names;
  for (const std::string& config : configs) {
    absl::StatusOr<std::vector<sched::ProfileConfig>> profiles = LoadProfiles(config, registry);
    if (!profiles.ok()) return fail(profiles.status().message());
    for (const sched::ProfileConfig& profile : *profiles) {
      absl::StatusOr<sim::ProfileResult> result =
          sim::Simulate(*pods, cluster, profile, registry, options);
      if (!result.ok()) {
        return fail(absl::StrCat(config, ": profile ", profile.scheduler_name, ": ",
                                 result.status().message()));
      }
      if (!names.insert(result->profile).second) {
        result->profile = absl::StrCat(config, ":", result->profile);
      }
      report.profiles.push_back(*std::move(result));
    }
  }
  if (!html.empty()) {
    std::ofstream file(html, std::ios::binary);
    file << sim::FormatSimReportHtml(report);
    if (!file) return fail(absl::StrCat(html, ": cannot write"));
  }
  const std::string json = sim::FormatSimReportJson(report);
  if (output.empty() || output == "-") {
    out += json;
    return 0;
  }
  std::ofstream file(output, std::ios::binary);
  file << json;
  if (!file) return fail(absl::StrCat(output, ": cannot write"));
  for (const sim::ProfileResult& r : report.profiles) {
    absl::StrAppendFormat(&out,
                          "%-24s node-hours %9.1f  cost $%9.2f  peak %4d nodes  efficiency %.3f  ",
                          r.profile, r.node_hours, r.cost, r.peak_nodes, r.packing_efficiency);
    // One node group: node-hours over the L1 node-hour lower bound.
    if (r.lower_bound_node_hours > 0) {
      absl::StrAppendFormat(&out, "node-hours/LB %.3f  ", r.node_hours_over_lower_bound);
    }
    absl::StrAppendFormat(&out,
                          "pending p99 %6.0fs  never scheduled %d  >100%% CPU %.0f node-min\n",
                          r.pending_p99, r.never_scheduled, r.above_100_cpu_node_minutes);
  }
  absl::StrAppend(&out, "report: ", output, "\n");
  return 0;
}

}  // namespace trimaran::cmd::trimaranctl
