#pragma once
// Rendering of a ClusterView (dashboard/model.h) as text: the fixed-width screen of
// `trimaranctl nodes -o table` and of the live view's body (live_view.h). The JSON and
// CSV documents are dashboard/documents.h.
// Layout (docs/trimaranctl.md has an example; spec dashboard-and-simulator.md §A3):
//
//   <N> nodes (<req>/<alloc>) <pct>% <res> <requests bar> used <pct>% <usage bar> $<h>/hour |
//   $<m>/month
//             (<req>/<alloc>) <pct>% <res> ...                       (one line per further
//             resource)
//   <P> pods (<pending> pending <running> running <bound> bound)
//   usage: <source> <window> window, <age> old                       (or why there is none)
//
//   <name> <res> <requests bar> NN% ▕<usage bar>▏ NN% (<pods>/<alloc> pods) <type>/$<price>
//   <capacity> <zone> <cordon> <Ready|NotReady>/<age> <extra labels>
//          <res> ...                                                 (one row per further resource)
//
// - Requests bar: █ filled, ░ empty; coloured by packing (high is good): good above
//   90 %, ok above 60 %, bad otherwise.
// - Usage bar: neutral fill; its number takes the bad colour at hot_threshold. A node
//   without fresh usage shows "no metrics", "stale" or "no watcher" in the bar and
//   " n/a" as the number: never an empty (idle) bar. With a target (TargetLoadPacking's
//   targetUtilization) a ┃ marks it on the usage bar.
// - Unknown price: `<type>/-`, never $0; the summary says how many nodes are unpriced.
// - Money: 3 decimals with thousands separators in the summary, 4 in rows.
// - Colours: 24-bit ANSI SGR from the --style palette; none when color is false.
// - With grouping, each group starts with a subtotal line `[<label>=<value>] ...`.
//
// Thread-safety: pure functions.

#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dashboard/model.h"
#include "dashboard/targets.h"
#include "dashboard/view_options.h"

namespace trimaran::dashboard::terminal {

// --style: exactly three colours, good, ok, bad ("#04B575,#FFFF00,#FF0000").
struct Palette {
  std::array<std::array<int, 3>, 3> rgb = {{{0x04, 0xB5, 0x75}, {0xFF, 0xFF, 0x00}, {0xFF, 0, 0}}};
};
absl::StatusOr<Palette> ParseStyle(absl::string_view text);

struct LayoutOptions {
  bool color = false;
  Palette palette;
  int bar_width = 20;
  double hot_threshold = 80;  // percent of allocatable
  // Per resource ("cpu", "memory"): TargetLoadPacking's target, drawn on the usage bar.
  TargetPercent target_percent;
  bool show_usage = true;
  bool show_price = true;
  // Which node rows to render (the live view's page); the header is always rendered.
  size_t first_node = 0;
  size_t max_nodes = std::numeric_limits<size_t>::max();
};

// The layout of `options`: its style, colour, bar width, hot threshold, pricing and
// targets (ResolveTargets: the scheduler config is read here). InvalidArgument naming
// the flag.
absl::StatusOr<LayoutOptions> MakeLayoutOptions(const ViewOptions& options);

// The header: summary lines, pods line, usage-source line.
std::string RenderHeader(const ClusterView& view, const LayoutOptions& options);
// The node rows (and group subtotal lines) of nodes [first_node, first_node+max_nodes).
std::string RenderRows(const ClusterView& view, const LayoutOptions& options);
// Header, a blank line, the rows; "Waiting for update or no nodes found..." with no nodes.
std::string RenderTable(const ClusterView& view, const LayoutOptions& options);

// "1,234.568": `decimals` decimals, English thousands separators.
std::string FormatMoney(double value, int decimals);
// A resource amount as a Kubernetes-style quantity: cpu "3500m", memory "1.5Gi"/"512Mi",
// anything else an integer.
std::string FormatAmount(absl::string_view resource, double amount);
// The display width of UTF-8 `text` without ANSI escape sequences (one cell per code
// point; the glyphs used here are all single-width).
size_t DisplayWidth(absl::string_view text);

}  // namespace trimaran::dashboard::terminal
