#include "cmd/trimaranctl/simulate.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cmd/trimaranctl/flag_args.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "scheduler/plugins/registry.h"
#include "sim/generator.h"
#include "sim/html_report.h"
#include "sim/import_alibaba_v2018.h"
#include "sim/import_openb.h"
#include "sim/imported_trace.h"
#include "sim/pod_file_reader.h"
#include "sim/report.h"
#include "sim/simulate_configs.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "sim/trace_files.h"
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

// "PREFIX: error: MESSAGE" on `err`; the exit code 1.
int Fail(std::string& err, absl::string_view prefix, absl::string_view message) {
  absl::StrAppend(&err, prefix, ": error: ", message, "\n");
  return 1;
}

// ---------------------------------------------------------------------------------
// gen

int RunGen(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    return Fail(err, "trimaranctl simulate gen", message);
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
  absl::StatusOr<sim::WrittenTrace> written = sim::WriteGeneratedTrace(dir, *pods);
  if (!written.ok()) return fail(written.status().message());
  absl::StrAppend(&out, "wrote ", pods->size(), " pods to ", written->pods, " and ",
                  written->node_groups, "\n");
  return 0;
}

// ---------------------------------------------------------------------------------
// import

struct ImportFlags {
  std::string format;
  std::vector<std::string> inputs;
  std::string dir;
  sim::AlibabaV2018Options ali;
  sim::OpenbOptions openb;
  sim::NodeGroupOptions nodes;
  bool help = false;
};

// One value flag of `import`; `ali_only`/`openb_only` collect the flags of one format.
absl::Status ApplyImportFlag(ImportFlags& f, const std::string& flag, const std::string& value,
                             std::set<std::string>& ali_only, std::set<std::string>& openb_only) {
  bool ok = true;
  if (flag == "--format") {
    f.format = value;
  } else if (flag == "--input") {
    f.inputs.push_back(value);
  } else if (flag == "-o" || flag == "--output") {
    f.dir = value;
  } else if (flag == "--ref-mem-mib") {
    ok = absl::SimpleAtoi(value, &f.ali.ref_mem_mib) && f.ali.ref_mem_mib > 0;
    ali_only.insert(flag);
  } else if (flag == "--util-base") {
    ok = value == "request" || value == "machine";
    f.ali.util_base = value == "machine" ? sim::AlibabaV2018Options::UtilBase::kMachine
                                         : sim::AlibabaV2018Options::UtilBase::kRequest;
    ali_only.insert(flag);
  } else if (flag == "--end") {
    ok = value == "absolute" || value == "from-bind";
    f.openb.end = value == "from-bind" ? sim::OpenbOptions::EndMode::kFromBind
                                       : sim::OpenbOptions::EndMode::kAbsolute;
    openb_only.insert(flag);
  } else if (flag == "--price-per-cpu-hour") {
    ok = absl::SimpleAtod(value, &f.nodes.price_per_cpu_hour) && f.nodes.price_per_cpu_hour >= 0;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", flag, "\" (see --help)"));
  }
  if (!ok) return absl::InvalidArgumentError(absl::StrCat(flag, ": invalid value \"", value, "\""));
  return absl::OkStatus();
}

// The flags of `import`, checked together (the format, inputs, output and the flags that
// apply to the format).
absl::StatusOr<ImportFlags> ParseImportFlags(const std::vector<std::string>& args) {
  ImportFlags f;
  std::set<std::string> ali_only;
  std::set<std::string> openb_only;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--format", "--input", "-o", "--output", "--ref-mem-mib", "--util-base",
                      "--end", "--price-per-cpu-hour"},
      .bool_flags = {"-h", "--help", "--fixed-nodes", "--skip-unscheduled"},
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      f.help = true;
      return f;
    }
    if (arg.kind != FlagArg::Kind::kFlag) return absl::InvalidArgumentError(SimulateArgError(arg));
    if (arg.name == "--fixed-nodes") {
      f.nodes.fixed_nodes = true;
    } else if (arg.name == "--skip-unscheduled") {
      f.openb.skip_unscheduled = true;
      openb_only.insert(arg.name);
    } else {
      TRIMARAN_RETURN_IF_ERROR(ApplyImportFlag(f, arg.name, arg.value, ali_only, openb_only));
    }
  }
  if (f.format != "alibaba-v2018" && f.format != "openb") {
    return absl::InvalidArgumentError("--format alibaba-v2018 or --format openb is required");
  }
  if (f.inputs.empty()) return absl::InvalidArgumentError("--input DIR_OR_FILE is required");
  if (f.dir.empty()) return absl::InvalidArgumentError("-o DIR is required");
  const std::set<std::string>& wrong = f.format == "openb" ? ali_only : openb_only;
  if (!wrong.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(*wrong.begin(), ": does not apply to --format ", f.format));
  }
  return f;
}

// The public trace's files found and converted.
absl::StatusOr<sim::ImportedTrace> ImportTrace(ImportFlags& f) {
  if (f.format == "alibaba-v2018") {
    bool any = false;
    TRIMARAN_ASSIGN_OR_RETURN(sim::AlibabaV2018Input in, sim::FindAlibabaV2018Files(f.inputs, any));
    if (!any) {
      return absl::InvalidArgumentError(
          "no Alibaba v2018 table (batch_task*, batch_instance*, ...) in --input");
    }
    f.ali.nodes.price_per_cpu_hour = f.nodes.price_per_cpu_hour;
    f.ali.nodes.fixed_nodes = f.nodes.fixed_nodes;
    return sim::ImportAlibabaV2018(in, f.ali);
  }
  TRIMARAN_ASSIGN_OR_RETURN(sim::OpenbInput in, sim::FindOpenbFiles(f.inputs));
  f.openb.nodes.price_per_cpu_hour = f.nodes.price_per_cpu_hour;
  f.openb.nodes.fixed_nodes = f.nodes.fixed_nodes;
  return sim::ImportOpenb(in, f.openb);
}

// DIR/pods.csv and, when the trace recorded machines, DIR/node-groups.yaml; the paths
// written go to `out` as they are written.
absl::Status WriteImportedTrace(const ImportFlags& f, const sim::ImportedTrace& trace,
                                std::string& out) {
  TRIMARAN_RETURN_IF_ERROR(sim::CreateTraceDir(f.dir));
  TRIMARAN_ASSIGN_OR_RETURN(const std::string pods_path,
                            sim::WriteTraceFile(f.dir, "pods.csv", sim::FormatPodsCsv(trace.pods)));
  absl::StrAppend(&out, "wrote ", pods_path);
  if (!trace.cluster.groups.empty()) {
    TRIMARAN_ASSIGN_OR_RETURN(
        const std::string groups_path,
        sim::WriteTraceFile(f.dir, "node-groups.yaml",
                            absl::StrCat("# Written by trimaranctl simulate import --format ",
                                         f.format, ": the recorded machines by shape.\n",
                                         sim::FormatClusterYaml(trace.cluster))));
    absl::StrAppend(&out, " and ", groups_path);
  }
  absl::StrAppend(&out, "\n", sim::FormatImportSummary(trace));
  return absl::OkStatus();
}

int RunImport(const std::vector<std::string>& args, std::string& out, std::string& err) {
  constexpr absl::string_view kPrefix = "trimaranctl simulate import";
  absl::StatusOr<ImportFlags> flags = ParseImportFlags(args);
  if (!flags.ok()) return Fail(err, kPrefix, flags.status().message());
  if (flags->help) {
    out += SimulateHelpText();
    return 0;
  }
  absl::StatusOr<sim::ImportedTrace> trace = ImportTrace(*flags);
  if (!trace.ok()) return Fail(err, kPrefix, trace.status().message());
  if (absl::Status s = WriteImportedTrace(*flags, *trace, out); !s.ok()) {
    return Fail(err, kPrefix, s.message());
  }
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

namespace {

// ---------------------------------------------------------------------------------
// simulate

struct SimulateFlags {
  std::string trace;
  std::vector<std::string> configs;
  std::string groups_file;
  std::string output;
  std::string html;
  sim::SimOptions options;
  bool help = false;
};

// One flag of `simulate`.
absl::Status ApplySimulateFlag(SimulateFlags& f, const std::string& flag,
                               const std::string& value) {
  sim::SimOptions& options = f.options;
  if (flag == "--trace") {
    f.trace = value;
  } else if (flag == "--config") {
    f.configs.push_back(value);
  } else if (flag == "--node-groups") {
    f.groups_file = value;
  } else if (flag == "-o" || flag == "--output") {
    f.output = value;
  } else if (flag == "--html") {
    f.html = value;
  } else if (flag == "--seed") {
    if (!absl::SimpleAtoi(value, &options.seed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--seed: not a non-negative integer: \"", value, "\""));
    }
  } else if (flag == "--target-utilization" || flag == "--hot-threshold") {
    double pct = 0;
    if (!absl::SimpleAtod(value, &pct) || pct <= 0 || pct > 1000) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": not a percentage: \"", value, "\""));
    }
    (flag == "--hot-threshold" ? options.hot_threshold : options.target_utilization) = pct / 100;
  } else if (flag == "--compaction-trials") {
    if (!absl::SimpleAtoi(value, &options.compaction_trials) || options.compaction_trials < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--compaction-trials: not a non-negative integer: \"", value, "\""));
    }
  } else if (flag == "--compaction-every") {
    absl::Duration every;
    if (!absl::ParseDuration(value, &every) || every < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--compaction-every: not a duration (1h, 30m, 0): \"", value, "\""));
    }
    options.compaction_every = absl::ToDoubleSeconds(every);
  } else if (flag == "--max-hours") {
    double h = 0;
    if (!absl::SimpleAtod(value, &h) || h <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--max-hours: not a positive number: \"", value, "\""));
    }
    options.max_time = h * 3600;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", flag, "\" (see --help)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<SimulateFlags> ParseSimulateFlags(const std::vector<std::string>& args) {
  SimulateFlags f;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--trace", "--config", "--node-groups", "-o", "--output", "--html", "--seed",
                      "--target-utilization", "--hot-threshold", "--compaction-trials",
                      "--compaction-every", "--max-hours"},
      .bool_flags = {"-h", "--help"},
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      f.help = true;
      return f;
    }
    if (arg.kind != FlagArg::Kind::kFlag) return absl::InvalidArgumentError(SimulateArgError(arg));
    TRIMARAN_RETURN_IF_ERROR(ApplySimulateFlag(f, arg.name, arg.value));
  }
  if (f.trace.empty()) return absl::InvalidArgumentError("--trace is required");
  if (f.configs.empty()) return absl::InvalidArgumentError("--config is required (at least one)");
  return f;
}

// The pods of --trace: the pods file is checked whole once (every row, unique names),
// then streamed for each profile, so memory follows the live pods. A file not sorted by
// creation_time cannot be streamed: it is loaded whole (and sorted) instead, with a
// note on `err`.
absl::StatusOr<sim::TracePods> OpenTracePods(const std::string& trace, std::string& err) {
  sim::TracePods pods;
  TRIMARAN_ASSIGN_OR_RETURN(pods.file, sim::FindPodsFile(trace));
  TRIMARAN_ASSIGN_OR_RETURN(sim::PodFileSummary summary, sim::ScanPodFile(pods.file));
  if (!summary.sorted) {
    absl::StrAppend(&err, "note: ", pods.file, ":", summary.first_unsorted_line,
                    ": the pods are not sorted by creation_time, so the trace is loaded whole "
                    "(memory grows with its length) instead of streamed\n");
    TRIMARAN_ASSIGN_OR_RETURN(pods.loaded, sim::LoadPodsFile(pods.file));
  }
  return pods;
}

// The JSON report on -o (stdout by default) and, with --html, the page; beside a report
// file, one summary line per profile on stdout.
absl::Status WriteReports(const SimulateFlags& flags, const sim::SimReportInput& report,
                          std::string& out) {
  if (!flags.html.empty()) {
    TRIMARAN_RETURN_IF_ERROR(sim::WriteTextFile(flags.html, sim::FormatSimReportHtml(report)));
  }
  const std::string json = sim::FormatSimReportJson(report);
  if (flags.output.empty() || flags.output == "-") {
    out += json;
    return absl::OkStatus();
  }
  TRIMARAN_RETURN_IF_ERROR(sim::WriteTextFile(flags.output, json));
  out += sim::FormatSimSummary(report, flags.output);
  return absl::OkStatus();
}

// The simulation of every profile of every --config over --trace; the reports written.
absl::Status SimulateAndReport(const SimulateFlags& flags, std::string& out, std::string& err) {
  TRIMARAN_ASSIGN_OR_RETURN(const sim::TracePods pods, OpenTracePods(flags.trace, err));
  const std::string groups_file = sim::FindNodeGroupsFile(flags.trace, flags.groups_file);
  TRIMARAN_ASSIGN_OR_RETURN(const sim::ClusterSpec cluster, sim::LoadClusterSpec(groups_file));
  sched::Registry registry;
  TRIMARAN_RETURN_IF_ERROR(sched::plugins::RegisterInTreePlugins(registry));
  sim::SimReportInput report;
  report.trace = flags.trace;
  report.node_groups = groups_file;
  report.seed = flags.options.seed;
  report.cluster = &cluster;
  TRIMARAN_RETURN_IF_ERROR(
      sim::SimulateConfigs(flags.configs, pods, registry, flags.options, report));
  return WriteReports(flags, report, out);
}

}  // namespace

int RunSimulateCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  if (!args.empty() && args[0] == "gen") {
    return RunGen(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (!args.empty() && args[0] == "import") {
    return RunImport(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  constexpr absl::string_view kPrefix = "trimaranctl simulate";
  absl::StatusOr<SimulateFlags> flags = ParseSimulateFlags(args);
  if (!flags.ok()) return Fail(err, kPrefix, flags.status().message());
  if (flags->help) {
    out += SimulateHelpText();
    return 0;
  }
  for (int c = 0; c < kNumComponents; ++c) {
    SetComponentLevel(ComponentName(static_cast<Component>(c)), "error").IgnoreError();
  }
  if (absl::Status s = SimulateAndReport(*flags, out, err); !s.ok()) {
    return Fail(err, kPrefix, s.message());
  }
  return 0;
}

}  // namespace trimaran::cmd::trimaranctl
