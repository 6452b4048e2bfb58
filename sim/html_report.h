#pragma once
// The simulator's report as one self-contained HTML page (docs/simulator.md "The HTML
// report"): the summary table with deltas against the baseline and inline SVG plots
// (nodes over time per profile, cost per hour over time with the lower bound, the node
// CPU usage distribution, hot-node minutes). No scripts, no external assets.
//
// Thread-safety: pure function.

#include <string>

#include "sim/report.h"

namespace trimaran::sim {

std::string FormatSimReportHtml(const SimReportInput& input);

}  // namespace trimaran::sim
