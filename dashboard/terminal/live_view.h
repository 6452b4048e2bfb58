#pragma once
// The live view of `trimaranctl nodes`: every `refresh` it fetches the cluster
// (ClusterSource), rebuilds the ClusterView and redraws; between fetches it reads keys
// (terminal.h) and redraws at once on a key:
//
//   ←/h/PgUp, →/l/PgDn/space  previous / next page      ↑/k, ↓/j  scroll by one node
//   S/s  next sort key: creation → cpu-requests → cpu-usage → price (→ creation), all
//        descending; from a --node-sort outside the cycle, S starts at creation
//   u    usage bars on/off                              q/esc/ctrl+c  quit
//   /    filter nodes by name (a substring, k9s style): type, Enter keeps it, Esc clears
//        it; the summary stays cluster-wide          ?  key help on/off
//
// The frame is the header (layout.h), a blank line, as many nodes as fit, and a
// footer with a dot pager and the key help. Lines longer than the terminal are cut. A
// failed fetch keeps the last view and shows the error on the footer line.
//
// Thread-safety: Run() uses the calling thread only; not reentrant.

#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/clock.h"
#include "dashboard/cluster_source.h"
#include "dashboard/price_table.h"
#include "dashboard/terminal/layout.h"
#include "dashboard/terminal/terminal.h"
#include "dashboard/view_options.h"

namespace trimaran::dashboard::terminal {

class LiveView {
 public:
  // Borrowed: source, terminal and clock outlive the view.
  LiveView(ClusterSource& source, ViewOptions options, PriceTable prices, LayoutOptions layout,
           Terminal& terminal, const Clock& clock);
  // Until a quit key. Errors only for a first fetch that fails.
  absl::Status Run();

  // The frame for the current state and `size` (tests).
  std::string Frame(TerminalSize size) const;
  // Applies a key; false when it quits.
  bool HandleKey(KeyPress key, TerminalSize size);
  // Fetches and rebuilds the view.
  absl::Status Refresh();

  size_t first_node() const { return first_node_; }
  const std::string& filter() const { return filter_; }
  const ClusterView& view() const { return view_; }

 private:
  size_t NodesPerPage(TerminalSize size) const;

  ClusterSource& source_;
  ViewOptions options_;
  PriceTable prices_;
  LayoutOptions layout_;
  Terminal& terminal_;
  const Clock& clock_;
  ClusterView view_;
  bool have_view_ = false;
  std::string error_;
  size_t first_node_ = 0;
  // The view's rows narrowed by the filter (the view itself when there is none).
  const ClusterView& Shown() const;
  void ApplyFilter();

  std::optional<SortSpec> sort_override_;
  std::string filter_;
  bool typing_filter_ = false;
  bool help_ = false;
  ClusterView filtered_;  // set by the S key; else --node-sort
};

// Cuts `line` to `cols` display cells, keeping ANSI sequences (and resetting the colour
// when cut inside one).
std::string CutLine(absl::string_view line, size_t cols);

// Validates `options` (prices, style, scheduler config), opens the process's terminal
// (FailedPrecondition at once when there is none), shows "Listing nodes and pods..."
// while `start` runs (the informers' first sync; may be null), then runs a LiveView.
absl::Status RunTerminalView(ClusterSource& source, const ViewOptions& options,
                             const std::function<absl::Status()>& start = nullptr);

}  // namespace trimaran::dashboard::terminal
