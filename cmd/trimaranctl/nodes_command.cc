#include "cmd/trimaranctl/nodes_command.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/logging.h"
#include "common/read_file.h"
#include "common/status_macros.h"
#include "dashboard/documents.h"
#include "dashboard/informer_source.h"
#include "dashboard/terminal/color_policy.h"
#include "dashboard/terminal/layout.h"
#include "dashboard/terminal/live_view.h"
#include "kube/plain_http.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", what));
}

std::vector<std::string> SplitList(absl::string_view v) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(p));
  }
  return out;
}

absl::Status ParsePercent(absl::string_view flag, absl::string_view v, double lo, double hi,
                          double& out) {
  if (!absl::SimpleAtod(v, &out) || !(out >= lo && out <= hi)) {
    return FlagError(flag,
                     absl::StrCat("must be a number in [", lo, ", ", hi, "], got \"", v, "\""));
  }
  return absl::OkStatus();
}

absl::Status ParseDuration(absl::string_view flag, absl::string_view v, absl::Duration& out) {
  if (!absl::ParseDuration(v, &out) || out <= absl::ZeroDuration()) {
    return FlagError(flag, absl::StrCat("must be a positive duration (\"2s\"), got \"", v, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

const FlagSyntax& NodesFlagSyntax() {
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--output",
                      "-o",
                      "--kubeconfig",
                      "--context",
                      "--master",
                      "--watcher",
                      "--watcher-ca-file",
                      "--watcher-token-file",
                      "--window",
                      "--node-selector",
                      "--resources",
                      "--extra-labels",
                      "--node-sort",
                      "--group-by",
                      "--price-file",
                      "--spot-discount",
                      "--style",
                      "--hot-threshold",
                      "--target-utilization",
                      "--scheduler-config",
                      "--refresh",
                      "--stale-after",
                      "--bar-width",
                      "--v"},
      .bool_flags = {"--disable-pricing", "--no-color", "--help", "-h"},
      .attached_short_output = true,
  };
  return *syntax;
}

absl::Status ApplyNodesFlag(NodesFlags& f, const std::string& flag, const std::string& v) {
  if (flag == "--output" || flag == "-o") {
    if (v != "table" && v != "json" && v != "csv") {
      return FlagError("--output", absl::StrCat("must be table, json or csv, got \"", v, "\""));
    }
    f.output = v;
  } else if (flag == "--kubeconfig") {
    f.kubeconfig = v;
  } else if (flag == "--context") {
    f.context = v;
  } else if (flag == "--master") {
    f.master = v;
  } else if (flag == "--watcher") {
    f.watcher = v;
  } else if (flag == "--watcher-ca-file") {
    f.watcher_ca_file = v;
  } else if (flag == "--watcher-token-file") {
    f.watcher_token_file = v;
  } else if (flag == "--window") {
    if (lw::WindowSeconds(v) == 0) {
      return FlagError("--window", absl::StrCat("must be 15m, 10m or 5m, got \"", v, "\""));
    }
    f.view.window = v;
  } else if (flag == "--node-selector") {
    f.view.node_selector = v;
  } else if (flag == "--resources") {
    f.view.resources = SplitList(v);
    if (f.view.resources.empty()) return FlagError("--resources", "needs at least one resource");
  } else if (flag == "--extra-labels") {
    f.view.extra_labels = SplitList(v);
  } else if (flag == "--node-sort") {
    TRIMARAN_ASSIGN_OR_RETURN(f.view.sort, dashboard::ParseSortSpec(v));
  } else if (flag == "--group-by") {
    f.view.group_by = v;
  } else if (flag == "--price-file") {
    f.view.price_file = v;
  } else if (flag == "--spot-discount") {
    double d = 0;
    TRIMARAN_RETURN_IF_ERROR(ParsePercent(flag, v, 0, 100, d));
    f.view.spot_discount_percent = d;
  } else if (flag == "--style") {
    TRIMARAN_RETURN_IF_ERROR(dashboard::terminal::ParseStyle(v).status());
    f.view.style = v;
  } else if (flag == "--hot-threshold") {
    TRIMARAN_RETURN_IF_ERROR(ParsePercent(flag, v, 0, 1000, f.view.hot_threshold));
  } else if (flag == "--target-utilization") {
    // "40" (cpu) or "cpu=40,memory=60".
    for (const std::string& part : SplitList(v)) {
      std::vector<std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
      const std::string res = kv.size() == 2 ? kv[0] : "cpu";
      if (res != "cpu" && res != "memory") {
        return FlagError(flag, absl::StrCat("resource must be cpu or memory, got \"", res, "\""));
      }
      double pct = 0;
      TRIMARAN_RETURN_IF_ERROR(ParsePercent(flag, kv.back(), 1, 100, pct));
      f.view.target_percent[res] = pct;
    }
  } else if (flag == "--scheduler-config") {
    f.view.scheduler_config = v;
  } else if (flag == "--refresh") {
    TRIMARAN_RETURN_IF_ERROR(ParseDuration(flag, v, f.view.refresh));
  } else if (flag == "--stale-after") {
    TRIMARAN_RETURN_IF_ERROR(ParseDuration(flag, v, f.view.stale_after));
  } else if (flag == "--bar-width") {
    if (!absl::SimpleAtoi(v, &f.view.bar_width) || f.view.bar_width < 5 || f.view.bar_width > 200) {
      return FlagError(flag, absl::StrCat("must be an integer in [5, 200], got \"", v, "\""));
    }
  } else if (flag == "--v") {
    if (!absl::SimpleAtoi(v, &f.verbosity) || f.verbosity < 0) {
      return FlagError(flag, absl::StrCat("must be a non-negative integer, got \"", v, "\""));
    }
  } else if (flag == "--disable-pricing") {
    f.view.disable_pricing = v.empty() || v == "true";
  } else if (flag == "--no-color") {
    f.view.no_color = v.empty() || v == "true";
  } else if (flag == "--help" || flag == "-h") {
    f.help = true;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", flag, "\""));
  }
  return absl::OkStatus();
}

absl::Status ApplyNodesDefaults(NodesFlags& f, const std::string& defaults_file) {
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(defaults_file, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    std::vector<absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
    const std::string name = absl::StrCat("--", absl::StripAsciiWhitespace(kv[0]));
    absl::Status s = ApplyNodesFlag(
        f, name, kv.size() == 2 ? std::string(absl::StripAsciiWhitespace(kv[1])) : "");
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("defaults file line ", line_no, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

std::string ReadViewerDefaults() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return trimaran::ReadFileOrEmpty(absl::StrCat(home, "/.trimaran-viewer"));
}

absl::StatusOr<NodesFlags> ParseNodesFlags(const std::vector<std::string>& args,
                                           const std::string& defaults_file) {
  NodesFlags f;
  TRIMARAN_RETURN_IF_ERROR(ApplyNodesDefaults(f, defaults_file));
  for (const FlagArg& arg : SplitFlags(args, NodesFlagSyntax())) {
    TRIMARAN_RETURN_IF_ERROR(FlagArgError(arg));
    if (arg.kind == FlagArg::Kind::kPositional) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument \"", arg.value, "\""));
    }
    TRIMARAN_RETURN_IF_ERROR(ApplyNodesFlag(f, arg.name, arg.value));
  }
  return f;
}

int RunNodesOnce(dashboard::ClusterSource& source, const NodesFlags& flags, absl::Time now,
                 std::string& out, std::string& err) {
  auto fail = [&](const absl::Status& s) {
    absl::StrAppend(&err, "trimaranctl nodes: error: ", s.message(), "\n");
    return 1;
  };
  absl::StatusOr<dashboard::PriceTable> prices = dashboard::LoadPrices(flags.view);
  if (!prices.ok()) return fail(prices.status());
  absl::StatusOr<dashboard::terminal::LayoutOptions> layout =
      dashboard::terminal::MakeLayoutOptions(flags.view);
  if (!layout.ok()) return fail(layout.status());
  absl::StatusOr<dashboard::ClusterView> view =
      dashboard::BuildView(source, flags.view, *prices, now);
  if (!view.ok()) return fail(view.status());
  if (flags.output == "json") {
    out += dashboard::RenderJson(*view, layout->target_percent);
  } else if (flags.output == "csv") {
    out += dashboard::RenderCsv(*view);
  } else {
    out += dashboard::terminal::RenderTable(*view, *layout);
  }
  return 0;
}

int RunNodesCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto usage_error = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl nodes: error: ", message,
                    "\nRun 'trimaranctl nodes --help' for usage.\n");
    return 1;
  };
  absl::StatusOr<NodesFlags> flags = ParseNodesFlags(args, ReadViewerDefaults());
  if (!flags.ok()) return usage_error(flags.status().message());
  if (flags->help) {
    out += NodesHelpText();
    return 0;
  }
  // Colour only on a terminal, never with NO_COLOR (-o table > file is plain text).
  flags->view.no_color = !dashboard::terminal::ShouldColorStdout(flags->view.no_color);
  auto fail = [&](const absl::Status& s) {
    absl::StrAppend(&err, "trimaranctl nodes: error: ", s.message(), "\n");
    return 1;
  };
  if (flags->verbosity >= 0) {
    SetVerbosity(flags->verbosity);
  } else {
    const absl::string_view level = flags->output.empty() ? "off" : "warn";
    for (int c = 0; c < kNumComponents; ++c) {
      SetComponentLevel(ComponentName(static_cast<Component>(c)), level).IgnoreError();
    }
  }
  absl::StatusOr<kube::KubeConnection> api = kube::ConnectKube(
      {.kubeconfig_path = flags->kubeconfig,
       .context = flags->context,
       .master_override = flags->master},
      "trimaranctl", RealClock::Get(),
      [](const std::string& w) { std::fprintf(stderr, "trimaranctl nodes: %s\n", w.c_str()); });
  if (!api.ok()) return fail(api.status());

  absl::StatusOr<WatcherClient> watcher_client =
      MakeWatcherClient(flags->watcher, flags->watcher_ca_file, flags->watcher_token_file);
  if (!watcher_client.ok()) return fail(watcher_client.status());
  lw::Client* watcher = watcher_client->client.get();
  if (!flags->output.empty()) {
    // One list, never more than a page of full pods in memory.
    dashboard::ApiClusterSource source(*api->client, watcher, flags->view.node_selector,
                                       flags->view.window);
    return RunNodesOnce(source, *flags, RealClock::Get().Now(), out, err);
  }
  // The live view: informers (one list, then watches), so a refresh reads memory.
  dashboard::InformerClusterSource source(*api->client, watcher, flags->view.node_selector,
                                          flags->view.window, RealClock::Get(),
                                          flags->view.refresh);
  absl::Status s = dashboard::terminal::RunTerminalView(
      source, flags->view, [&source] { return source.Start(absl::Seconds(60)); });
  if (!s.ok()) return fail(s);
  return 0;
}

std::string NodesHelpText() {
  return absl::StrCat(R"(Usage: trimaranctl nodes [flags]

Shows every node's requests, live usage (from the load watcher) and price, with a cluster
summary. Without -o: a live terminal view (keys: ←/→ h/l PgUp/PgDn page, ↑/↓ j/k scroll,
S cycle sort, / filter by name, u usage bars on/off, ? help, q/esc/ctrl+c quit;
all read-only).

Bars: the first bar is requests ÷ allocatable; the bracketed bar is live usage ÷
allocatable (the load watcher reports % of capacity; it is converted to an amount first,
so both bars share one denominator). A node without fresh usage shows "no metrics",
"stale" or "no watcher", never an idle bar.

Flags:
  -o, --output table|json|csv  print once and exit (no live view)
  --kubeconfig PATH         as kubectl: else $KUBECONFIG, in-cluster, ~/.kube/config
  --context NAME            kubeconfig context
  --master URL              override the apiserver address
  --watcher ADDR            load watcher: http://host:2020 (REST /watcher; a bare
                            host:port is http), https://host:2020, grpc://host:2021 or
                            grpcs://host:2021 (TLS gRPC)
  --watcher-ca-file PATH    PEM CA verifying an https:// or grpcs:// watcher
  --watcher-token-file PATH bearer token for a watcher run with --token-file
  --window 15m|10m|5m       load-watcher window (default 15m)
  --stale-after DUR         usage older than this is stale (default 2m)
  --resources LIST          bars per node, e.g. cpu,memory (default cpu)
  --node-selector SEL       label selector on nodes
  --node-sort KEY[=asc|dsc] creation (default, creation=dsc: newest first), name, price,
                            pods, <resource>-requests, <resource>-usage, or a node label
  --extra-labels LIST       node labels shown as extra columns
  --group-by LABEL          group nodes by a label, with subtotals
  --price-file PATH         CSV (instance_type,zone,capacity_type,usd_per_hour) or YAML
                            (prices: [{instanceType, zone, capacityType, usdPerHour}])
  --spot-discount PCT       price spot nodes without a spot price at on-demand − PCT%
  --disable-pricing         hide prices
  --style GOOD,OK,BAD       three #RRGGBB colours (default #04B575,#FFFF00,#FF0000)
  --no-color                no colours (also when NO_COLOR is set, and whenever standard
                            output is not a terminal)
  --hot-threshold PCT       usage % shown in the bad colour (default 80)
  --target-utilization T    draw TargetLoadPacking's target: 40, or cpu=40,memory=60
  --scheduler-config PATH   read the targets from a KubeSchedulerConfiguration
  --refresh DUR             live view refresh period (default 2s)
  --bar-width N             bar cells (default 20)
  --v N                     log verbosity on stderr (default: warnings with -o, none in
                            the live view)
Defaults file: ~/.trimaran-viewer, one flag-name=value per line, # comments.
)",
                      "Built-in prices: ", dashboard::kBuiltinPriceSource, ", generated ",
                      dashboard::kBuiltinPriceDate, ".\n");
}

}  // namespace trimaran::cmd::trimaranctl::nodes
