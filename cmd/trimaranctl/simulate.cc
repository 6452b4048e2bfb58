#include "cmd/trimaranctl/simulate.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cmd/trimaranctl/flag_args.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/generator.h"
#include "sim/html_report.h"
#include "sim/import_alibaba_v2018.h"
#include "sim/import_openb.h"
#include "sim/imported_trace.h"
#include "sim/pod_file_reader.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "sim/trace_writer.h"

namespace trimaran::cmd::trimaranctl {
namespace {

// Why a SplitFlags token is not a declared flag, with a pointer to --help.
std::string SimulateArgError(const FlagArg& arg) {
  if (arg.kind == FlagArg::Kind::kPositional) {
    return absl::StrCat("unexpected argument \"", arg.value, "\" (see --help)");
  }
  const std::string message(FlagArgError(arg).message());
  return arg.kind == FlagArg::Kind::kUnknownFlag ? absl::StrCat(message, " (see --help)") : message;
}

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
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"-o", "--output", "--seed", "--hours", "--apps-per-hour", "--diurnal",
                      "--min-executors", "--max-executors", "--executor-minutes", "--services",
                      "--replicas"},
      .bool_flags = {"-h", "--help"},
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      out += SimulateHelpText();
      return 0;
    }
    if (arg.kind != FlagArg::Kind::kFlag) return fail(SimulateArgError(arg));
    const std::string& flag = arg.name;
    const std::string& value = arg.value;
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

// `import`: the files of one public trace, found from --input (directories or files).
absl::StatusOr<sim::TraceFile> LoadTraceFile(const std::string& path) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return sim::TraceFile{path, std::move(text)};
}

// The regular files of `inputs` (a directory stands for the files in it, sorted).
std::vector<std::string> ExpandInputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const fs::directory_entry& e : fs::directory_iterator(input, ec)) {
      if (e.is_regular_file(ec)) in_dir.push_back(e.path().string());
    }
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

absl::StatusOr<sim::AlibabaV2018Input> FindAlibabaV2018(const std::vector<std::string>& inputs,
                                                        bool& any) {
  namespace fs = std::filesystem;
  sim::AlibabaV2018Input in;
  const std::vector<std::pair<const char*, sim::TraceFile*>> tables = {
      {"batch_task", &in.batch_task},
      {"batch_instance", &in.batch_instance},
      {"container_meta", &in.container_meta},
      {"container_usage", &in.container_usage},
      {"machine_meta", &in.machine_meta}};
  for (const std::string& file : ExpandInputs(inputs)) {
    const std::string base = fs::path(file).filename().string();
    const bool given = std::find(inputs.begin(), inputs.end(), file) != inputs.end();
    // In a directory, only the .csv files (not the downloaded .tar.gz beside them).
    if (!given && !absl::EndsWith(base, ".csv")) continue;
    bool matched = false;
    for (const auto& [table, slot] : tables) {
      if (!absl::StartsWith(base, table)) continue;
      matched = true;
      if (slot->present()) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ": a second ", table, " file (first: ", slot->name, ")"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(*slot, LoadTraceFile(file));
      any = true;
    }
    // Other files (machine_usage, READMEs) are not read; a file given by name must match.
    if (!matched && given) {
      return absl::InvalidArgumentError(absl::StrCat(
          file,
          ": not a table the importer reads (batch_task, batch_instance, container_meta, "
          "container_usage, machine_meta)"));
    }
  }
  return in;
}

absl::StatusOr<sim::OpenbInput> FindOpenb(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  sim::OpenbInput in;
  for (const std::string& file : ExpandInputs(inputs)) {
    const std::string base = fs::path(file).filename().string();
    const bool given = std::find(inputs.begin(), inputs.end(), file) != inputs.end();
    if (!given && !absl::EndsWith(base, ".csv")) continue;
    if (absl::StrContains(base, "pod_list")) {
      if (!given && !in.pod_lists.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("several pod lists in the input directory (",
                                                       in.pod_lists[0].name, ", ", file,
                                                       "): give the one to import as a file"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(sim::TraceFile f, LoadTraceFile(file));
      in.pod_lists.push_back(std::move(f));
    } else if (absl::StrContains(base, "node_list")) {
      if (in.node_list.present()) {
        return absl::InvalidArgumentError(absl::StrCat("several node lists (", in.node_list.name,
                                                       ", ", file,
                                                       "): give the one to import as a file"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(in.node_list, LoadTraceFile(file));
    } else if (given) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ": neither a pod list (*pod_list*) nor a node list (*node_list*)"));
    }
  }
  return in;
}

int RunImport(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl simulate import: error: ", message, "\n");
    return 1;
  };
  std::string format;
  std::vector<std::string> inputs;
  std::string dir;
  sim::AlibabaV2018Options ali;
  sim::OpenbOptions openb;
  sim::NodeGroupOptions nodes;
  std::set<std::string> ali_only;
  std::set<std::string> openb_only;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--format", "--input", "-o", "--output", "--ref-mem-mib", "--util-base",
                      "--end", "--price-per-cpu-hour"},
      .bool_flags = {"-h", "--help", "--fixed-nodes", "--skip-unscheduled"},
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      out += SimulateHelpText();
      return 0;
    }
    if (arg.kind != FlagArg::Kind::kFlag) return fail(SimulateArgError(arg));
    const std::string& flag = arg.name;
    const std::string& value = arg.value;
    if (flag == "--fixed-nodes") {
      nodes.fixed_nodes = true;
      continue;
    }
    if (flag == "--skip-unscheduled") {
      openb.skip_unscheduled = true;
      openb_only.insert(flag);
      continue;
    }
    bool ok = true;
    if (flag == "--format") {
      format = value;
    } else if (flag == "--input") {
      inputs.push_back(value);
    } else if (flag == "-o" || flag == "--output") {
      dir = value;
    } else if (flag == "--ref-mem-mib") {
      ok = absl::SimpleAtoi(value, &ali.ref_mem_mib) && ali.ref_mem_mib > 0;
      ali_only.insert(flag);
    } else if (flag == "--util-base") {
      ok = value == "request" || value == "machine";
      ali.util_base = value == "machine" ? sim::AlibabaV2018Options::UtilBase::kMachine
                                         : sim::AlibabaV2018Options::UtilBase::kRequest;
      ali_only.insert(flag);
    } else if (flag == "--end") {
      ok = value == "absolute" || value == "from-bind";
      openb.end = value == "from-bind" ? sim::OpenbOptions::EndMode::kFromBind
                                       : sim::OpenbOptions::EndMode::kAbsolute;
      openb_only.insert(flag);
    } else if (flag == "--price-per-cpu-hour") {
      ok = absl::SimpleAtod(value, &nodes.price_per_cpu_hour) && nodes.price_per_cpu_hour >= 0;
    } else {
      return fail(absl::StrCat("unknown flag \"", flag, "\" (see --help)"));
    }
    if (!ok) return fail(absl::StrCat(flag, ": invalid value \"", value, "\""));
  }
  if (format != "alibaba-v2018" && format != "openb") {
    return fail("--format alibaba-v2018 or --format openb is required");
  }
  if (inputs.empty()) return fail("--input DIR_OR_FILE is required");
  if (dir.empty()) return fail("-o DIR is required");
  const std::set<std::string>& wrong = format == "openb" ? ali_only : openb_only;
  if (!wrong.empty()) {
    return fail(absl::StrCat(*wrong.begin(), ": does not apply to --format ", format));
  }

  absl::StatusOr<sim::ImportedTrace> trace;
  if (format == "alibaba-v2018") {
    bool any = false;
    absl::StatusOr<sim::AlibabaV2018Input> in = FindAlibabaV2018(inputs, any);
    if (!in.ok()) return fail(in.status().message());
    if (!any) return fail("no Alibaba v2018 table (batch_task*, batch_instance*, ...) in --input");
    ali.nodes.price_per_cpu_hour = nodes.price_per_cpu_hour;
    ali.nodes.fixed_nodes = nodes.fixed_nodes;
    trace = sim::ImportAlibabaV2018(*in, ali);
  } else {
    absl::StatusOr<sim::OpenbInput> in = FindOpenb(inputs);
    if (!in.ok()) return fail(in.status().message());
    openb.nodes.price_per_cpu_hour = nodes.price_per_cpu_hour;
    openb.nodes.fixed_nodes = nodes.fixed_nodes;
    trace = sim::ImportOpenb(*in, openb);
  }
  if (!trace.ok()) return fail(trace.status().message());

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(absl::StrCat(dir, ": ", ec.message()));
  const std::string pods_path = (std::filesystem::path(dir) / "pods.csv").string();
  std::ofstream pods_file(pods_path, std::ios::binary);
  pods_file << sim::FormatPodsCsv(trace->pods);
  if (!pods_file) return fail(absl::StrCat(pods_path, ": cannot write"));
  absl::StrAppend(&out, "wrote ", pods_path);
  if (!trace->cluster.groups.empty()) {
    const std::string groups_path = (std::filesystem::path(dir) / "node-groups.yaml").string();
    std::ofstream groups_file(groups_path, std::ios::binary);
    groups_file << "# Written by trimaranctl simulate import --format " << format
                << ": the recorded machines by shape.\n"
                << sim::FormatClusterYaml(trace->cluster);
    if (!groups_file) return fail(absl::StrCat(groups_path, ": cannot write"));
    absl::StrAppend(&out, " and ", groups_path);
  }
  absl::StrAppend(&out, "\n", sim::FormatImportSummary(*trace));
  return 0;
}

}  // namespace

std::string SimulateHelpText() {
  return "Usage:\n"
         "  trimaranctl simulate --trace DIR_OR_FILE --config sched.yaml [--config b.yaml ...]\n"
         "                       [--node-groups groups.yaml] [--seed N] [--max-hours H]\n"
         "                       [--compaction-trials N] [--compaction-every D]\n"
         "                       [-o report.json] [--html report.html]\n"
         "  trimaranctl simulate gen -o DIR [--seed N] [--hours H] [--apps-per-hour X]\n"
         "                       [--diurnal A] [--min-executors N] [--max-executors N]\n"
         "                       [--executor-minutes M] [--services N] [--replicas N]\n"
         "  trimaranctl simulate import --format alibaba-v2018|openb --input DIR_OR_FILE\n"
         "                       [--input ...] -o DIR [--ref-mem-mib N]\n"
         "                       [--util-base request|machine] [--end absolute|from-bind]\n"
         "                       [--skip-unscheduled] [--price-per-cpu-hour X] [--fixed-nodes]\n"
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
         "  --compaction-trials N  cluster compaction: random node orders per instant\n"
         "                      (default 5; 0: no compaction)\n"
         "  --compaction-every D  compaction instants every D of simulated time, plus the\n"
         "                      peak ready-node instant (default 1h; 0: the peak only)\n"
         "  -o, --output FILE   write the JSON report there (default: stdout)\n"
         "  --html FILE         also write the report as one self-contained HTML page\n"
         "                      with SVG plots\n"
         "\n"
         "gen writes a seeded Spark-like trace (drivers, executors in dynamic-allocation\n"
         "waves, steady services, a diurnal arrival rate) as DIR/pods.csv, and\n"
         "DIR/node-groups.yaml (m5.2xlarge, m5.4xlarge, r5.2xlarge). Defaults: seed 1,\n"
         "24 hours, 6 apps/hour, diurnal 0.5, 2..200 executors of median 20 minutes,\n"
         "4 services of 3 replicas.\n"
         "\n"
         "import converts a public trace into this format: DIR/pods.csv, and\n"
         "DIR/node-groups.yaml from the recorded machines (one group per shape, every\n"
         "machine ready at the start, min 0 or, with --fixed-nodes, all of them), priced at\n"
         "--price-per-cpu-hour (default 0.048, m5.xlarge per vCPU). It prints the pods and\n"
         "nodes written and the rows skipped or adjusted, by reason.\n"
         "  alibaba-v2018  batch_task + batch_instance (Terminated instances), container_meta\n"
         "                 (+ container_usage), machine_meta; files by table name, headerless\n"
         "                 or with a header row. --ref-mem-mib: the memory of a machine of\n"
         "                 normalised size 100 (default 393216, 96 cores x 4 GiB);\n"
         "                 --util-base: container_usage percentages of the container's\n"
         "                 request (default) or of its machine.\n"
         "  openb          openb_pod_list_*.csv (one) and openb_node_list_*.csv. --end\n"
         "                 absolute (default) keeps deletion_time; from-bind makes it a run\n"
         "                 time from scheduled_time. --skip-unscheduled drops pods the\n"
         "                 recording never scheduled (default: kept as demand).\n";
}

int RunSimulateCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl simulate: error: ", message, "\n");
    return 1;
  };
  if (!args.empty() && args[0] == "gen") {
    return RunGen(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (!args.empty() && args[0] == "import") {
    return RunImport(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  std::string trace;
  std::vector<std::string> configs;
  std::string groups_file;
  std::string output;
  std::string html;
  sim::SimOptions options;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--trace", "--config", "--node-groups", "-o", "--output", "--html", "--seed",
                      "--target-utilization", "--hot-threshold", "--compaction-trials",
                      "--compaction-every", "--max-hours"},
      .bool_flags = {"-h", "--help"},
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      out += SimulateHelpText();
      return 0;
    }
    if (arg.kind != FlagArg::Kind::kFlag) return fail(SimulateArgError(arg));
    const std::string& flag = arg.name;
    const std::string& value = arg.value;
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
    } else if (flag == "--compaction-trials") {
      if (!absl::SimpleAtoi(value, &options.compaction_trials) || options.compaction_trials < 0) {
        return fail(
            absl::StrCat("--compaction-trials: not a non-negative integer: \"", value, "\""));
      }
    } else if (flag == "--compaction-every") {
      absl::Duration every;
      if (!absl::ParseDuration(value, &every) || every < absl::ZeroDuration()) {
        return fail(
            absl::StrCat("--compaction-every: not a duration (1h, 30m, 0): \"", value, "\""));
      }
      options.compaction_every = absl::ToDoubleSeconds(every);
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
  // The pods file is checked whole once (every row, unique names), then streamed for
  // each profile, so memory follows the live pods. A file not sorted by creation_time
  // cannot be streamed: it is loaded whole (and sorted) instead.
  absl::StatusOr<sim::PodFileSummary> summary = sim::ScanPodFile(*pods_file);
  if (!summary.ok()) return fail(summary.status().message());
  std::optional<std::vector<sim::TracePod>> loaded;
  if (!summary->sorted) {
    absl::StrAppend(&err, "note: ", *pods_file, ":", summary->first_unsorted_line,
                    ": the pods are not sorted by creation_time, so the trace is loaded whole "
                    "(memory grows with its length) instead of streamed\n");
    absl::StatusOr<std::string> pods_text = ReadFile(*pods_file);
    if (!pods_text.ok()) return fail(pods_text.status().message());
    absl::StatusOr<std::vector<sim::TracePod>> pods = sim::ParsePods(*pods_text, *pods_file);
    if (!pods.ok()) return fail(pods.status().message());
    loaded = *std::move(pods);
  }

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
      absl::StatusOr<sim::ProfileResult> result;
      if (loaded.has_value()) {
        result = sim::Simulate(*loaded, cluster, profile, registry, options);
      } else if (absl::StatusOr<std::unique_ptr<sim::PodFileReader>> reader =
                     sim::PodFileReader::Open(*pods_file);
                 !reader.ok()) {
        result = reader.status();
      } else {
        result = sim::Simulate(**reader, cluster, profile, registry, options);
      }
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
                          "pending p99 %6.0fs  never scheduled %d  >100%% CPU %.0f node-min  "
                          "compacted/actual p50 %.3f (%d instants, %.1f s CPU)\n",
                          r.pending_p99, r.never_scheduled, r.above_100_cpu_node_minutes,
                          r.compaction.ratio.p50, static_cast<int>(r.compaction.instants.size()),
                          r.compaction.cpu_seconds);
  }
  absl::StrAppend(&out, "report: ", output, "\n");
  return 0;
}

}  // namespace trimaran::cmd::trimaranctl
