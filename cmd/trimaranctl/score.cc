#include "cmd/trimaranctl/score.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cmd/trimaranctl/dashboard_command.h"
#include "cmd/trimaranctl/explain_command.h"
#include "cmd/trimaranctl/flag_args.h"
#include "cmd/trimaranctl/nodes_command.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/version.h"
#include "scheduler/explain/report_format.h"
#include "scheduler/explain/score_input.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using sched::explain::ScoreOptions;

int UsageError(std::string& err, absl::string_view message) {
  absl::StrAppend(&err, "trimaranctl: error: ", message, "\nRun 'trimaranctl --help' for usage.\n");
  return 1;
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open file"));
  buffer << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

// The flags of `score`.
struct ScoreFlags {
  std::string output = "table";
  ScoreOptions options;
  std::string file;
  int verbosity = -1;
  bool help = false;
};

// InvalidArgument with the usage message on a bad flag.
absl::StatusOr<ScoreFlags> ParseScoreFlags(const std::vector<std::string>& args) {
  ScoreFlags f;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--output", "-o", "--profile", "--v", "-v"},
      .bool_flags = {"-h", "--help"},
      .attached_short_output = true,
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      f.help = true;
      return f;
    }
    TRIMARAN_RETURN_IF_ERROR(FlagArgError(arg));
    const std::string& value = arg.value;
    if (arg.is("--v") || arg.is("-v")) {
      if (!absl::SimpleAtoi(value, &f.verbosity) || f.verbosity < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--v: must be a non-negative integer, got \"", value, "\""));
      }
    } else if (arg.is("--profile")) {
      if (value.empty()) return absl::InvalidArgumentError("--profile: needs a profile name");
      f.options.profile = value;
    } else if (arg.is("--output") || arg.is("-o")) {
      if (value != "table" && value != "json") {
        return absl::InvalidArgumentError(
            absl::StrCat("--output: must be table or json, got \"", value, "\""));
      }
      f.output = value;
    } else if (!f.file.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("more than one FILE (\"", f.file, "\", \"", value, "\")"));
    } else {
      f.file = value;
    }
  }
  if (f.file.empty()) return absl::InvalidArgumentError("score: FILE is required");
  return f;
}

// The report is the output: the scheduler's info logs (dropped default plugins, ...)
// only with --v.
void SetScoreLogging(int verbosity) {
  if (verbosity >= 0) {
    SetVerbosity(verbosity);
    return;
  }
  for (int c = 0; c < kNumComponents; ++c) {
    SetComponentLevel(ComponentName(static_cast<Component>(c)), "warn").IgnoreError();
  }
}

// `trimaranctl score`: `args` after "score".
int RunScoreCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  absl::StatusOr<ScoreFlags> flags = ParseScoreFlags(args);
  if (!flags.ok()) return UsageError(err, flags.status().message());
  if (flags->help) {
    out += HelpText();
    return 0;
  }
  SetScoreLogging(flags->verbosity);
  absl::StatusOr<std::string> text = ReadInput(flags->file);
  if (!text.ok()) return UsageError(err, text.status().message());
  absl::StatusOr<sched::explain::ScoreInput> input = sched::explain::ParseScoreInput(*text);
  if (!input.ok()) {
    absl::StrAppend(&err, "trimaranctl: error: ", flags->file, ": ", input.status().message(),
                    "\n");
    return 1;
  }
  absl::StatusOr<sched::explain::Report> report = sched::explain::RunScore(*input, flags->options);
  if (!report.ok()) {
    absl::StrAppend(&err, "trimaranctl: error: ", flags->file, ": ", report.status().message(),
                    "\n");
    return 1;
  }
  out += flags->output == "json" ? sched::explain::FormatJson(*report)
                                 : sched::explain::FormatTable(*report);
  return 0;
}

}  // namespace

std::string HelpText() {
  return absl::StrCat(
      "trimaranctl: the Trimaran scheduler's user CLI.\n"
      "\n"
      "Usage:\n"
      "  trimaranctl score [flags] FILE     explain where a pod would be scheduled, and why\n"
      "  trimaranctl nodes [flags]          nodes: requests, live usage and price (nodes --help)\n"
      "  trimaranctl dashboard [flags]      the same as a web page (dashboard --help)\n"
      "  trimaranctl explain NAMESPACE/POD  the scheduler's real decision for a pod (explain "
      "--help)\n"
      "  trimaranctl simulate [flags]       what each profile costs on a trace (simulate --help)\n"
      "  trimaranctl --version              print \"trimaranctl <version>\"\n"
      "  trimaranctl --help                 this text\n"
      "\n"
      "As a kubectl plugin: put trimaranctl on PATH as kubectl-trimaran (the image has it),\n"
      "then `kubectl trimaran nodes` is `trimaranctl nodes`. Every command reads the\n"
      "kubeconfig as kubectl does ($KUBECONFIG, --kubeconfig, --context, exec credentials\n"
      "such as `aws eks get-token`); explain also takes POD -n NAMESPACE.\n"
      "\n"
      "score runs the real scheduling framework (the profile's PreFilter, Filter, PreScore,\n"
      "Score, NormalizeScore and weights) over EVERY node of FILE, a JSON file holding\n"
      "nodes, the pods already on them, the pending pod, load-watcher metrics and a\n"
      "KubeSchedulerConfiguration (format: docs/trimaranctl.md). FILE \"-\" is stdin.\n"
      "It prints, per node, the filter verdict and reason, each plugin's score (after\n"
      "normalization, before the weight), the weighted total, and the chosen node.\n"
      "\n"
      "Flags of score:\n"
      "  -o, --output FORMAT   table (default) or json (schema: docs/trimaranctl.md)\n"
      "      --profile NAME    the profile (schedulerName) to run; default: the pod's\n"
      "                        spec.schedulerName if a profile has it, else the first\n"
      "  -v, --v N             log verbosity (klog style) on stderr; default: warnings only\n"
      "  -h, --help            this text\n"
      "\n"
      "Exit status: 0 when the report was printed (also when no node fits), 1 on bad\n"
      "input, a plugin error or a usage error.\n");
}

int RunTrimaranctl(const std::vector<std::string>& args, std::string& out, std::string& err) {
  if (args.empty()) return UsageError(err, "no command given");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out += HelpText();
    return 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    absl::StrAppend(&out, "trimaranctl ", kVersion, "\n");
    return 0;
  }
  if (args[0] == "dashboard") return nodes::RunDashboardCommand(rest, out, err);
  if (args[0] == "nodes") return nodes::RunNodesCommand(rest, out, err);
  if (args[0] == "explain") return RunExplainCommand(rest, out, err);
  if (args[0] == "score") return RunScoreCommand(rest, out, err);
  return UsageError(err, absl::StrCat("unknown command \"", args[0], "\""));
}

}  // namespace trimaran::cmd::trimaranctl
