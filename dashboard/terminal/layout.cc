#include "dashboard/terminal/layout.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace trimaran::dashboard::terminal {
namespace {

constexpr absl::string_view kFull = "█";
constexpr absl::string_view kEmpty = "░";
constexpr absl::string_view kTarget = "┃";
constexpr absl::string_view kLeftEdge = "▕";
constexpr absl::string_view kRightEdge = "▏";
constexpr std::array<int, 3> kGrey = {0x62, 0x62, 0x62};

enum class Tone { kGood, kOk, kBad };

std::string Paint(const LayoutOptions& o, const std::array<int, 3>& rgb, absl::string_view text) {
  if (!o.color || text.empty()) return std::string(text);
  return absl::StrFormat("\x1b[38;2;%d;%d;%dm%s\x1b[0m", rgb[0], rgb[1], rgb[2], text);
}
std::string Paint(const LayoutOptions& o, Tone tone, absl::string_view text) {
  return Paint(o, o.palette.rgb[static_cast<int>(tone)], text);
}

// Packing is good: >90 good, >60 ok, else bad.
Tone PackingTone(double pct) {
  if (pct > 90) return Tone::kGood;
  if (pct > 60) return Tone::kOk;
  return Tone::kBad;
}

std::string Pad(absl::string_view text, size_t width) {
  std::string s(text);
  const size_t w = DisplayWidth(text);
  if (w < width) s.append(width - w, ' ');
  return s;
}

int Cells(double pct, int width) {
  if (!(pct > 0)) return 0;
  const int n = static_cast<int>(std::lround(pct / 100.0 * width));
  return std::clamp(n, 0, width);
}

std::string RequestsBar(const LayoutOptions& o, double pct) {
  const int n = Cells(pct, o.bar_width);
  std::string bar;
  for (int i = 0; i < n; ++i) absl::StrAppend(&bar, kFull);
  std::string rest;
  for (int i = n; i < o.bar_width; ++i) absl::StrAppend(&rest, kEmpty);
  return Paint(o, PackingTone(pct), bar) + rest;
}

std::string Percent(double pct) { return absl::StrFormat("%3.0f%%", pct); }

absl::string_view MissingText(UsageState state) {
  switch (state) {
    case UsageState::kStale:
      return "stale";
    case UsageState::kNoWatcher:
      return "no watcher";
    default:
      return "no metrics";
  }
}

// ▕bar▏ NN%  (or the reason there is no value, and " n/a").
std::string UsageCell(const LayoutOptions& o, const ResourceFigures& r) {
  const int w = o.bar_width;
  std::optional<double> pct = r.UsedPercent();
  if (r.usage_state == UsageState::kNotMeasured) {
    return std::string(DisplayWidth(kLeftEdge) + static_cast<size_t>(w) + 1 + 5, ' ');
  }
  if (!pct.has_value()) {
    std::string text(MissingText(r.usage_state));
    text.resize(std::max<size_t>(text.size(), static_cast<size_t>(w)), ' ');
    text.resize(static_cast<size_t>(w));
    return absl::StrCat(kLeftEdge, Paint(o, kGrey, text), kRightEdge, " ", Paint(o, kGrey, " n/a"));
  }
  const int n = Cells(*pct, w);
  auto t = o.target_percent.find(r.name);
  const int target = t != o.target_percent.end()
                         ? std::clamp(static_cast<int>(t->second / 100.0 * w), 0, w - 1)
                         : -1;
  std::string bar;
  for (int i = 0; i < w; ++i) {
    if (i == target) {
      bar += Paint(o, Tone::kOk, kTarget);
    } else {
      absl::StrAppend(&bar, i < n ? kFull : kEmpty);
    }
  }
  const std::string number = Percent(*pct);
  return absl::StrCat(kLeftEdge, bar, kRightEdge, " ",
                      *pct >= o.hot_threshold ? Paint(o, Tone::kBad, number) : number);
}

std::string PriceText(const std::optional<double>& price) {
  return price.has_value() ? absl::StrCat("$", FormatMoney(*price, 4)) : "-";
}

std::string Status(const NodeRow& row) {
  if (row.cordoned && row.deleting) return "Cordoned/Deleting";
  if (row.deleting) return "Deleting";
  if (row.cordoned) return "Cordoned";
  return "-";
}

std::string Plural(int64_t n, absl::string_view word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

// "used 21.4% (1 node n/a)" for a total.
std::string UsedSummary(const Totals& t, size_t i) {
  const ResourceFigures& r = t.resources[i];
  if (r.usage_state == UsageState::kNotMeasured) return "";
  std::string s;
  if (r.used.has_value() && t.measured_allocatable[i] > 0) {
    s = absl::StrFormat("used %.1f%%", *r.used * 100.0 / t.measured_allocatable[i]);
  } else {
    s = "used n/a";
  }
  if (t.nodes_without_usage > 0 && r.used.has_value()) {
    absl::StrAppend(&s, " (", Plural(t.nodes_without_usage, "node"), " n/a)");
  }
  return s;
}

std::string MoneySummary(const Totals& t) {
  if (t.nodes > 0 && t.nodes_without_price == t.nodes) return "-/hour | -/month (no prices)";
  std::string s = absl::StrCat("$", FormatMoney(t.price_per_hour, 3), "/hour | $",
                               FormatMoney(t.price_per_hour * kHoursPerMonth, 3), "/month");
  if (t.nodes_without_price > 0) {
    absl::StrAppend(&s, " (", Plural(t.nodes_without_price, "node"), " unpriced)");
  }
  return s;
}

std::string GroupLine(const ClusterView& view, const Group& g, const LayoutOptions& o) {
  std::vector<std::string> parts;
  parts.push_back(absl::StrCat("[", view.group_by, "=", g.value, "] ",
                               Plural(g.totals.nodes, "node"), ", ", Plural(g.totals.pods, "pod")));
  for (size_t i = 0; i < g.totals.resources.size(); ++i) {
    const ResourceFigures& r = g.totals.resources[i];
    std::string p = absl::StrFormat("%s %.1f%% requested", r.name, r.RequestedPercent());
    if (o.show_usage && r.usage_state != UsageState::kNotMeasured) {
      absl::StrAppend(&p, " ", UsedSummary(g.totals, i));
    }
    parts.push_back(std::move(p));
  }
  if (o.show_price) parts.push_back(MoneySummary(g.totals));
  return absl::StrJoin(parts, "  ");
}

}  // namespace

absl::StatusOr<Palette> ParseStyle(absl::string_view text) {
  std::vector<absl::string_view> colours = absl::StrSplit(text, ',');
  if (colours.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("--style: expected exactly 3 colours (good,ok,bad), got ", colours.size()));
  }
  Palette p;
  for (size_t i = 0; i < 3; ++i) {
    absl::string_view c = absl::StripAsciiWhitespace(colours[i]);
    uint32_t v = 0;
    if (!absl::ConsumePrefix(&c, "#") || c.size() != 6 || !absl::SimpleHexAtoi(c, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--style: \"", colours[i], "\" is not a #RRGGBB colour"));
    }
    p.rgb[i] = {static_cast<int>((v >> 16) & 0xFF), static_cast<int>((v >> 8) & 0xFF),
                static_cast<int>(v & 0xFF)};
  }
  return p;
}

absl::StatusOr<LayoutOptions> MakeLayoutOptions(const ViewOptions& options) {
  LayoutOptions o;
  TRIMARAN_ASSIGN_OR_RETURN(o.palette, ParseStyle(options.style));
  o.color = !options.no_color;
  o.bar_width = options.bar_width;
  o.hot_threshold = options.hot_threshold;
  o.show_price = !options.disable_pricing;
  TRIMARAN_ASSIGN_OR_RETURN(o.target_percent, ResolveTargets(options));
  return o;
}

size_t DisplayWidth(absl::string_view text) {
  size_t w = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {  // CSI ... final byte in @..~
      ++i;
      if (i < text.size() && text[i] == '[') {
        ++i;
        while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      }
      continue;
    }
    if ((c & 0xC0) != 0x80) ++w;  // not a continuation byte
  }
  return w;
}

std::string FormatMoney(double value, int decimals) {
  std::string digits = absl::StrFormat("%.*f", decimals, std::fabs(value));
  const size_t dot = digits.find('.');
  std::string whole = digits.substr(0, dot);
  std::string out;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  if (dot != std::string::npos) out += digits.substr(dot);
  return value < 0 ? "-" + out : out;
}

std::string FormatAmount(absl::string_view resource, double amount) {
  if (resource == "cpu") return absl::StrFormat("%.0fm", amount);
  if (resource == "memory" || resource == "ephemeral-storage") {
    constexpr double kGi = 1024.0 * 1024 * 1024;
    constexpr double kMi = 1024.0 * 1024;
    if (amount >= kGi) return absl::StrFormat("%.1fGi", amount / kGi);
    return absl::StrFormat("%.0fMi", amount / kMi);
  }
  return absl::StrFormat("%.0f", amount);
}

std::string RenderHeader(const ClusterView& view, const LayoutOptions& o) {
  const Totals& t = view.totals;
  std::vector<std::string> fractions;
  size_t frac_w = 0;
  size_t res_w = 0;
  for (const ResourceFigures& r : t.resources) {
    fractions.push_back(absl::StrCat("(", FormatAmount(r.name, r.requested), "/",
                                     FormatAmount(r.name, r.allocatable), ")"));
    frac_w = std::max(frac_w, fractions.back().size());
    res_w = std::max(res_w, r.name.size());
  }
  const std::string nodes = Plural(t.nodes, "node");
  std::string out;
  for (size_t i = 0; i < t.resources.size(); ++i) {
    const ResourceFigures& r = t.resources[i];
    const double pct = r.RequestedPercent();
    std::string line = absl::StrCat(i == 0 ? nodes : std::string(nodes.size(), ' '), " ",
                                    Pad(fractions[i], frac_w), " ",
                                    Paint(o, PackingTone(pct), absl::StrFormat("%5.1f%%", pct)),
                                    " ", Pad(r.name, res_w), " ", RequestsBar(o, pct));
    if (o.show_usage && r.usage_state != UsageState::kNotMeasured) {
      absl::StrAppend(&line, " ", UsedSummary(t, i));
    }
    if (i == 0 && o.show_price) absl::StrAppend(&line, "  ", MoneySummary(t));
    absl::StrAppend(&out, line, "\n");
  }
  absl::StrAppend(&out, Plural(view.pods.pending + view.pods.running + view.pods.bound, "pod"),
                  " (", view.pods.pending, " pending ", view.pods.running, " running ",
                  view.pods.bound, " bound)\n");
  if (o.show_usage) {
    if (!view.has_metrics) {
      absl::StrAppend(&out, "usage: ",
                      Paint(o, kGrey,
                            view.metrics_error.empty()
                                ? std::string("no load watcher")
                                : absl::StrCat("load watcher unavailable: ", view.metrics_error)),
                      "\n");
    } else {
      const absl::Duration age = view.now - view.metrics_time.value_or(view.now);
      absl::StrAppend(&out, "usage: ", view.metrics_source.empty() ? "-" : view.metrics_source, " ",
                      view.metrics_window, " window, ", FormatAge(age), " old",
                      view.metrics_stale ? Paint(o, Tone::kBad, " (stale)") : "", "\n");
    }
  }
  return out;
}

std::string RenderRows(const ClusterView& view, const LayoutOptions& o) {
  size_t name_w = 0;
  size_t res_w = 0;
  for (const NodeRow& r : view.rows) name_w = std::max(name_w, DisplayWidth(r.name));
  for (const std::string& r : view.resources) res_w = std::max(res_w, r.size());

  // Text columns after the bars, padded across all rows so pages line up.
  std::vector<std::vector<std::string>> cols;
  cols.reserve(view.rows.size());
  for (const NodeRow& r : view.rows) {
    std::vector<std::string> c;
    c.push_back(absl::StrCat("(", r.pods, "/", r.allocatable_pods, " pods)"));
    std::string type = r.instance_type.empty() ? "-" : r.instance_type;
    if (o.show_price) absl::StrAppend(&type, "/", PriceText(r.price_per_hour));
    c.push_back(std::move(type));
    c.push_back(absl::StrCat(CapacityTypeName(r.capacity_type), r.auto_mode ? "/Auto" : ""));
    c.push_back(r.zone.empty() ? "-" : r.zone);
    c.push_back(Status(r));
    c.push_back(absl::StrCat(r.ready ? "Ready" : "NotReady", "/",
                             r.created.has_value() ? FormatAge(view.now - *r.created) : "-"));
    for (const std::string& l : view.extra_labels) {
      std::optional<std::string> v = LabelValue(view, r, l);
      c.push_back(!v.has_value() || v->empty() ? "-" : *v);
    }
    cols.push_back(std::move(c));
  }
  std::vector<size_t> col_w;
  for (const auto& c : cols) {
    col_w.resize(std::max(col_w.size(), c.size()), 0);
    for (size_t i = 0; i < c.size(); ++i) col_w[i] = std::max(col_w[i], DisplayWidth(c[i]));
  }

  // Group index of each row, to print a subtotal line when a group starts.
  std::vector<int> group_of(view.rows.size(), -1);
  for (size_t g = 0; g < view.groups.size(); ++g) {
    for (size_t idx : view.groups[g].rows) group_of[idx] = static_cast<int>(g);
  }

  std::string out;
  const size_t end =
      std::min(view.rows.size(), o.first_node + std::min(o.max_nodes, view.rows.size()));
  int last_group = -2;
  for (size_t n = o.first_node; n < end; ++n) {
    const NodeRow& r = view.rows[n];
    if (!view.groups.empty() && group_of[n] != last_group) {
      last_group = group_of[n];
      absl::StrAppend(&out, GroupLine(view, view.groups[static_cast<size_t>(last_group)], o), "\n");
    }
    for (size_t i = 0; i < r.resources.size(); ++i) {
      const ResourceFigures& f = r.resources[i];
      std::string line = absl::StrCat(i == 0 ? Pad(r.name, name_w) : std::string(name_w, ' '), " ",
                                      Pad(f.name, res_w), " ", RequestsBar(o, f.RequestedPercent()),
                                      " ", Percent(f.RequestedPercent()));
      if (o.show_usage) absl::StrAppend(&line, " ", UsageCell(o, f));
      if (i == 0) {
        for (size_t c = 0; c < cols[n].size(); ++c) {
          absl::StrAppend(&line, " ",
                          c + 1 == cols[n].size() ? cols[n][c] : Pad(cols[n][c], col_w[c]));
        }
      }
      // No trailing blanks (the not-measured usage cell is blank).
      while (!line.empty() && line.back() == ' ') line.pop_back();
      absl::StrAppend(&out, line, "\n");
    }
  }
  return out;
}

std::string RenderTable(const ClusterView& view, const LayoutOptions& o) {
  std::string out = RenderHeader(view, o);
  out += "\n";
  if (view.rows.empty()) {
    out += "Waiting for update or no nodes found...\n";
  } else {
    out += RenderRows(view, o);
  }
  return out;
}

}  // namespace trimaran::dashboard::terminal
