#include "sim/html_report.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trimaran::sim {
namespace {

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
constexpr int kWidth = 760;
constexpr int kHeight = 240;
constexpr int kLeft = 100;
constexpr int kBottom = 30;
constexpr int kTop = 10;
constexpr int kRight = 10;

const char* Color(size_t i) { return kColors[i % (sizeof(kColors) / sizeof(kColors[0]))]; }

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Legend(const SimReportInput& in, const std::string& extra = "") {
  std::string out = "<p class=\"legend\">";
  for (size_t i = 0; i < in.profiles.size(); ++i) {
    absl::StrAppend(&out, "<span style=\"color:", Color(i), "\">&#9632; ",
                    Escape(in.profiles[i].profile), "</span> ");
  }
  return out + extra + "</p>\n";
}

// Axes with min/max labels.
std::string Axes(double xmax, double ymax, const std::string& xunit, const std::string& yunit) {
  return absl::StrFormat(
      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>"
      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>"
      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g %s</text>"
      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>"
      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g %s</text>",
      kLeft, kTop, kLeft, kHeight - kBottom, kLeft, kHeight - kBottom, kWidth - kRight,
      kHeight - kBottom, kLeft - 4, kTop + 10, ymax, yunit, kLeft - 4, kHeight - kBottom,
      kWidth - kRight, kHeight - 8, xmax, xunit);
}

// One line chart: y(point) per profile over the timeline, plus an optional dashed
// series from the baseline.
std::string LineChart(const SimReportInput& in, const std::string& title,
                      const std::function<double(const TimelinePoint&)>& y,
                      const std::string& yunit,
                      const std::function<double(const TimelinePoint&)>* dashed = nullptr) {
  double xmax = 1;
  double ymax = 1e-9;
  for (const ProfileResult& p : in.profiles) {
    for (const TimelinePoint& t : p.timeline) {
      xmax = std::max(xmax, t.t / 3600);
      ymax = std::max(ymax, y(t));
      if (dashed != nullptr) ymax = std::max(ymax, (*dashed)(t));
    }
  }
  auto X = [&](double t) { return kLeft + (kWidth - kLeft - kRight) * (t / 3600) / xmax; };
  auto Y = [&](double v) { return kHeight - kBottom - (kHeight - kBottom - kTop) * v / ymax; };
  std::string out = absl::StrCat("<h2>", Escape(title), "</h2>\n");
  absl::StrAppendFormat(&out, "<svg width=\"%d\" height=\"%d\" role=\"img\">", kWidth, kHeight);
  out += Axes(xmax, ymax, "h", yunit);
  for (size_t i = 0; i < in.profiles.size(); ++i) {
    std::string points;
    for (const TimelinePoint& t : in.profiles[i].timeline) {
      absl::StrAppendFormat(&points, "%.1f,%.1f ", X(t.t), Y(y(t)));
    }
    absl::StrAppend(&out, "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"", Color(i),
                    "\" points=\"", points, "\"/>");
  }
  if (dashed != nullptr && !in.profiles.empty()) {
    std::string points;
    for (const TimelinePoint& t : in.profiles.front().timeline) {
      absl::StrAppendFormat(&points, "%.1f,%.1f ", X(t.t), Y((*dashed)(t)));
    }
    absl::StrAppend(&out,
                    "<polyline fill=\"none\" stroke=\"#000\" stroke-dasharray=\"4 3\" points=\"",
                    points, "\"/>");
  }
  out += "</svg>\n";
  return out + Legend(in, dashed != nullptr ? "<span>- - - lower bound (baseline)</span>" : "");
}

// Grouped bars: one group per label, one bar per profile.
std::string BarChart(const SimReportInput& in, const std::string& title,
                     const std::vector<std::string>& labels,
                     const std::function<double(const ProfileResult&, size_t)>& value,
                     const std::string& yunit) {
  double ymax = 1e-9;
  for (const ProfileResult& p : in.profiles) {
    for (size_t l = 0; l < labels.size(); ++l) ymax = std::max(ymax, value(p, l));
  }
  const double group_width = static_cast<double>(kWidth - kLeft - kRight) / labels.size();
  const double bar = group_width * 0.8 / std::max<size_t>(1, in.profiles.size());
  std::string out = absl::StrCat("<h2>", Escape(title), "</h2>\n");
  absl::StrAppendFormat(&out, "<svg width=\"%d\" height=\"%d\" role=\"img\">", kWidth, kHeight);
  absl::StrAppendFormat(&out,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>"
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g %s</text>",
                        kLeft, kHeight - kBottom, kWidth - kRight, kHeight - kBottom, kLeft - 4,
                        kTop + 10, ymax, yunit);
  for (size_t l = 0; l < labels.size(); ++l) {
    const double x0 = kLeft + l * group_width + group_width * 0.1;
    for (size_t i = 0; i < in.profiles.size(); ++i) {
      const double v = value(in.profiles[i], l);
      const double h = (kHeight - kBottom - kTop) * v / ymax;
      absl::StrAppendFormat(&out,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"%s\"><title>%s: %.4g</title></rect>",
                            x0 + i * bar, kHeight - kBottom - h, bar, h, Color(i),
                            Escape(in.profiles[i].profile), v);
    }
    absl::StrAppendFormat(&out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                          x0 + group_width * 0.4, kHeight - 10, Escape(labels[l]));
  }
  out += "</svg>\n";
  return out + Legend(in);
}

// A horizontal box plot of each profile's compacted/actual ratio (spec §B6 item 7):
// whiskers min to max, box p10 to p90, a thick mark at the median.
std::string CompactionBoxPlot(const SimReportInput& in) {
  double xmax = 1;
  for (const ProfileResult& p : in.profiles) xmax = std::max(xmax, p.compaction.ratio.max);
  const int row = 28;
  const int height =
      kTop + kBottom + row * static_cast<int>(std::max<size_t>(1, in.profiles.size()));
  auto X = [&](double v) { return kLeft + (kWidth - kLeft - kRight) * v / xmax; };
  std::string out =
      "<h2>Cluster compaction: compacted / actual nodes (whiskers min-max, box p10-p90, "
      "median)</h2>\n";
  absl::StrAppendFormat(&out, "<svg width=\"%d\" height=\"%d\" role=\"img\">", kWidth, height);
  absl::StrAppendFormat(&out,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>"
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">0</text>"
                        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>",
                        kLeft, height - kBottom, kWidth - kRight, height - kBottom, kLeft,
                        height - 10, X(xmax), height - 10, xmax);
  for (size_t i = 0; i < in.profiles.size(); ++i) {
    const ProfileResult& p = in.profiles[i];
    const Distribution& d = p.compaction.ratio;
    const double y = kTop + row * static_cast<double>(i) + row / 2.0;
    absl::StrAppendFormat(&out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                          kLeft - 4, y + 4, Escape(p.profile));
    if (p.compaction.instants.empty()) {
      absl::StrAppendFormat(&out, "<text x=\"%d\" y=\"%.1f\">no compaction instants</text>",
                            kLeft + 4, y + 4);
      continue;
    }
    absl::StrAppendFormat(
        &out,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
        "fill-opacity=\"0.35\" stroke=\"%s\"><title>%s: min %.3f p10 %.3f p50 %.3f p90 %.3f "
        "max %.3f</title></rect>"
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
        "stroke-width=\"3\"/>",
        X(d.min), y, X(d.max), y, Color(i), X(d.p10), y - 8, std::max(1.0, X(d.p90) - X(d.p10)), 16,
        Color(i), Color(i), Escape(p.profile), d.min, d.p10, d.p50, d.p90, d.max, X(d.p50), y - 8,
        X(d.p50), y + 8, Color(i));
  }
  out += "</svg>\n";
  return out;
}

// " (+1.25)" against the baseline, or "" when equal.
std::string Delta(double v, double base, int precision) {
  if (v == base) return "";
  return absl::StrFormat(" <small>(%s%.*f)</small>", v > base ? "+" : "", precision, v - base);
}

}  // namespace

std::string FormatSimReportHtml(const SimReportInput& in) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>trimaranctl simulate "
      "report</title>\n<style>body{font-family:sans-serif;margin:1.5em;max-width:60em}"
      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
      "text-align:right}th:first-child,td:first-child{text-align:left}"
      "svg{font-size:11px;background:#fafafa}.legend span{margin-right:1em}"
      "small{color:#666}</style></head><body>\n";
  absl::StrAppend(&out, "<h1>What-if simulation</h1>\n<p>trace <code>", Escape(in.trace),
                  "</code>, node groups <code>",
                  Escape(in.node_groups.empty() ? "(default)" : in.node_groups), "</code>, seed ",
                  in.seed, ". Baseline: the first profile.</p>\n");
  out +=
      "<table><tr><th>profile</th><th>cost ($)</th><th>$/month</th><th>node-hours</th>"
      "<th>node-hours / lower bound</th><th>peak nodes</th><th>packing efficiency</th>"
      "<th>pending p50 / p99 (s)</th>"
      "<th>evictions</th><th>hot node-min</th><th>&gt;100 % CPU node-min</th>"
      "<th>never scheduled</th><th>compacted / actual p50</th></tr>\n";
  for (const ProfileResult& p : in.profiles) {
    const ProfileResult& b = in.profiles.front();
    absl::StrAppendFormat(
        &out,
        "<tr><td>%s</td><td>%.2f%s</td><td>%.0f</td><td>%.1f%s</td><td>%s</td><td>%d</td>"
        "<td>%.3f</td><td>%.0f / %.0f</td><td>%d</td><td>%.0f%s</td><td>%.0f</td><td>%d</td>"
        "<td>%s</td></tr>\n",
        Escape(p.profile), p.cost, Delta(p.cost, b.cost, 2), p.cost_per_month, p.node_hours,
        Delta(p.node_hours, b.node_hours, 1),
        // One node group only (the L1 node-hour bound); the LP cost bound otherwise.
        p.lower_bound_node_hours > 0 ? absl::StrFormat("%.3f", p.node_hours_over_lower_bound)
                                     : std::string("–"),
        p.peak_nodes, p.packing_efficiency, p.pending_p50, p.pending_p99, p.evicted,
        p.hot_node_minutes, Delta(p.hot_node_minutes, b.hot_node_minutes, 0),
        p.above_100_cpu_node_minutes, p.never_scheduled,
        p.compaction.instants.empty()
            ? std::string("-")
            : absl::StrFormat("%.3f%s", p.compaction.ratio.p50,
                              Delta(p.compaction.ratio.p50, b.compaction.ratio.p50, 3)));
  }
  out += "</table>\n";
  out += LineChart(
      in, "Nodes over time", [](const TimelinePoint& t) { return static_cast<double>(t.nodes); },
      "nodes");
  const std::function<double(const TimelinePoint&)> lb = [](const TimelinePoint& t) {
    return t.lower_bound_cost_per_hour;
  };
  out += LineChart(
      in, "Cost per hour", [](const TimelinePoint& t) { return t.cost_per_hour; }, "$/h", &lb);
  out += LineChart(
      in, "CPU used / allocatable (ready nodes)", [](const TimelinePoint& t) { return t.cpu_used; },
      "");
  std::vector<std::string> buckets;
  for (int b = 0; b < 10; ++b) buckets.push_back(absl::StrCat(b * 10, "-", b * 10 + 10, "%"));
  buckets.push_back("≥100%");
  out += BarChart(
      in, "Node CPU usage distribution (share of node samples)", buckets,
      [](const ProfileResult& p, size_t l) {
        int64_t total = 0;
        for (int64_t c : p.cpu_usage_histogram) total += c;
        return total == 0 ? 0.0 : static_cast<double>(p.cpu_usage_histogram[l]) / total;
      },
      "");
  out += BarChart(
      in, "Hot-node minutes", {"hot (≥5 min above threshold)", "above 100 % CPU", "above target"},
      [](const ProfileResult& p, size_t l) {
        return l == 0   ? p.hot_node_minutes
               : l == 1 ? p.above_100_cpu_node_minutes
                        : p.above_target_node_minutes;
      },
      "node-min");
  out += CompactionBoxPlot(in);
  out += "</body></html>\n";
  return out;
}

}  // namespace trimaran::sim
