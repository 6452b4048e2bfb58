#include "dashboard/terminal/live_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace trimaran::dashboard::terminal {
namespace {

// The sort keys S cycles through after the flag's own.
constexpr const char* kSortCycle[] = {"creation", "cpu-requests", "cpu-usage", "price"};

constexpr char kHelpText[] =
    "Keys (read-only: nothing here changes the cluster)\n"
    "  ←  h  PgUp          previous page\n"
    "  →  l  PgDn  space   next page\n"
    "  ↑  k  /  ↓  j       scroll by one node\n"
    "  S  s                next sort: creation, cpu-requests, cpu-usage, price\n"
    "  /                   filter by node name (enter keeps, esc clears)\n"
    "  u                   usage bars on/off\n"
    "  ?                   this help on/off\n"
    "  q  esc  ctrl+c      quit\n";

}  // namespace

std::string CutLine(absl::string_view line, size_t cols) {
  std::string out;
  size_t w = 0;
  bool coloured = false;
  for (size_t i = 0; i < line.size();) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && !(line[j] >= '@' && line[j] <= '~')) ++j;
      const absl::string_view seq = line.substr(i, std::min(line.size(), j + 1) - i);
      coloured = seq != "\x1b[0m";
      absl::StrAppend(&out, seq);
      i = j + 1;
      continue;
    }
    size_t len = 1;
    if (c >= 0xF0) {
      len = 4;
    } else if (c >= 0xE0) {
      len = 3;
    } else if (c >= 0xC0) {
      len = 2;
    }
    if (w == cols) {
      if (coloured) out += "\x1b[0m";
      return out;
    }
    absl::StrAppend(&out, line.substr(i, len));
    ++w;
    i += len;
  }
  return out;
}

LiveView::LiveView(ClusterSource& source, ViewOptions options, PriceTable prices,
                   LayoutOptions layout, Terminal& terminal, const Clock& clock)
    : source_(source),
      options_(std::move(options)),
      prices_(std::move(prices)),
      layout_(std::move(layout)),
      terminal_(terminal),
      clock_(clock) {}

absl::Status LiveView::Refresh() {
  ViewOptions f = options_;
  if (sort_override_.has_value()) f.sort = *sort_override_;
  absl::StatusOr<ClusterView> v = BuildView(source_, f, prices_, clock_.Now());
  if (!v.ok()) {
    error_ = std::string(v.status().message());
    return v.status();
  }
  error_.clear();
  view_ = *std::move(v);
  have_view_ = true;
  ApplyFilter();
  first_node_ = std::min(first_node_, Shown().rows.empty() ? 0 : Shown().rows.size() - 1);
  return absl::OkStatus();
}

const ClusterView& LiveView::Shown() const { return filter_.empty() ? view_ : filtered_; }

void LiveView::ApplyFilter() {
  if (filter_.empty()) return;
  filtered_ = view_;
  std::erase_if(filtered_.rows,
                [&](const NodeRow& r) { return r.name.find(filter_) == std::string::npos; });
  // Re-groups the remaining rows (same order); totals stay the cluster's.
  SortView(filtered_, *ParseSortSpec(view_.sort));
}

size_t LiveView::NodesPerPage(TerminalSize size) const {
  LayoutOptions o = layout_;
  const std::string header = RenderHeader(view_, o);
  const size_t header_lines = static_cast<size_t>(std::count(header.begin(), header.end(), '\n'));
  const size_t per_node =
      std::max<size_t>(1, view_.resources.size()) + (view_.group_by.empty() ? 0 : 1);
  const size_t rows = static_cast<size_t>(std::max(size.rows, 1));
  const size_t used = header_lines + 1 /*blank*/ + 2 /*footer*/;
  return rows > used + per_node ? (rows - used) / per_node : 1;
}

std::string LiveView::Frame(TerminalSize size) const {
  std::vector<std::string> lines;
  if (!have_view_) {
    lines.push_back(error_.empty() ? "Waiting for update or no nodes found..."
                                   : absl::StrCat("error: ", error_));
  } else {
    LayoutOptions o = layout_;
    const ClusterView& shown = Shown();
    const size_t per_page = NodesPerPage(size);
    o.first_node = first_node_;
    o.max_nodes = per_page;
    std::string body = RenderHeader(view_, o) + "\n";
    if (help_) {
      body += kHelpText;
    } else if (shown.rows.empty()) {
      body += filter_.empty() ? "Waiting for update or no nodes found...\n"
                              : absl::StrCat("No node name contains \"", filter_, "\".\n");
    } else {
      body += RenderRows(shown, o);
    }
    lines = absl::StrSplit(body, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    // Pad to push the footer to the bottom.
    const size_t want = static_cast<size_t>(std::max(size.rows, 3)) - 2;
    while (lines.size() < want) lines.emplace_back();
    const size_t pages = shown.rows.empty() ? 1 : (shown.rows.size() + per_page - 1) / per_page;
    const size_t page = std::min(pages - 1, first_node_ / per_page);
    std::string dots;
    if (pages <= 40) {
      for (size_t p = 0; p < pages; ++p) dots += p == page ? "•" : "·";
    } else {
      dots = absl::StrCat(page + 1, "/", pages);
    }
    lines.push_back(
        absl::StrCat(dots, "  nodes ", shown.rows.empty() ? 0 : first_node_ + 1, "-",
                     std::min(shown.rows.size(), first_node_ + per_page), " of ", shown.rows.size(),
                     filter_.empty() && !typing_filter_ ? "" : absl::StrCat("  filter: ", filter_),
                     typing_filter_ ? "█" : "", error_.empty() ? "" : "  error: ", error_));
    const std::string help =
        absl::StrCat("←/→ page • ↑/↓ scroll • S: sort (", view_.sort, ") • u: usage • q: quit");
    lines.push_back(o.color ? absl::StrCat("\x1b[38;2;98;98;98m", help, "\x1b[0m") : help);
  }
  std::string frame;
  for (const std::string& l : lines) {
    absl::StrAppend(&frame, CutLine(l, static_cast<size_t>(std::max(size.cols, 1))), "\n");
  }
  return frame;
}

bool LiveView::HandleKey(KeyPress press, TerminalSize size) {
  if (typing_filter_) {
    if (press.key == Key::kQuit && press.ch == 0) {
      // esc (or ctrl+c): clear the filter and leave the prompt.
      filter_.clear();
      typing_filter_ = false;
    } else if (press.key == Key::kEnter) {
      typing_filter_ = false;
    } else if (press.key == Key::kBackspace) {
      if (!filter_.empty()) filter_.pop_back();
    } else if (press.ch != 0) {
      filter_ += press.ch;
    }
    first_node_ = 0;
    ApplyFilter();
    return true;
  }
  const Key key = press.key;
  const size_t n = Shown().rows.size();
  const size_t per_page = have_view_ ? NodesPerPage(size) : 1;
  switch (key) {
    case Key::kQuit:
      return false;
    case Key::kRight:
      if (first_node_ + per_page < n) first_node_ += per_page;
      break;
    case Key::kLeft:
      first_node_ = first_node_ >= per_page ? first_node_ - per_page : 0;
      break;
    case Key::kDown:
      if (first_node_ + 1 < n) ++first_node_;
      break;
    case Key::kUp:
      if (first_node_ > 0) --first_node_;
      break;
    case Key::kSort: {
      // The key after the current one in the cycle (the first when it is not in it).
      const std::string current =
          sort_override_.has_value() ? sort_override_->key : options_.sort.key;
      size_t next = 0;
      for (size_t i = 0; i < std::size(kSortCycle); ++i) {
        if (current == kSortCycle[i]) next = (i + 1) % std::size(kSortCycle);
      }
      sort_override_ = SortSpec{.key = kSortCycle[next], .ascending = false};
      SortView(view_, *sort_override_);
      ApplyFilter();
      first_node_ = 0;
      break;
    }
    case Key::kUsage:
      layout_.show_usage = !layout_.show_usage;
      break;
    case Key::kFilter:
      typing_filter_ = true;
      break;
    case Key::kHelp:
      help_ = !help_;
      break;
    case Key::kBackspace:
    case Key::kEnter:
    case Key::kNone:
    case Key::kOther:
      break;
  }
  return true;
}

absl::Status LiveView::Run() {
  TRIMARAN_RETURN_IF_ERROR(Refresh());
  absl::Time next = clock_.Now() + options_.refresh;
  terminal_.Draw(Frame(terminal_.Size()));
  while (true) {
    const absl::Duration wait = std::max(absl::ZeroDuration(), next - clock_.Now());
    const KeyPress key = terminal_.ReadKey(std::min(wait, absl::Milliseconds(250)));
    const TerminalSize size = terminal_.Size();
    if (key.key != Key::kNone) {
      if (!HandleKey(key, size)) return absl::OkStatus();
    }
    if (clock_.Now() >= next) {
      Refresh().IgnoreError();  // shown on the footer; the last view stays
      next = clock_.Now() + options_.refresh;
    }
    terminal_.Draw(Frame(size));
  }
}

absl::Status RunTerminalView(ClusterSource& source, const ViewOptions& options,
                             const std::function<absl::Status()>& start) {
  TRIMARAN_ASSIGN_OR_RETURN(PriceTable prices, LoadPrices(options));
  TRIMARAN_ASSIGN_OR_RETURN(LayoutOptions layout, MakeLayoutOptions(options));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<Terminal> terminal, OpenPosixTerminal());
  if (start) {
    terminal->Draw("Listing nodes and pods from the apiserver...\n");
    TRIMARAN_RETURN_IF_ERROR(start());
  }
  LiveView view(source, options, std::move(prices), std::move(layout), *terminal, RealClock::Get());
  return view.Run();
}

}  // namespace trimaran::dashboard::terminal
