#pragma once
// The two printed forms of an explain::Report (docs/trimaranctl.md documents both):
//
//   std::cout << FormatTable(report);  // header, one row per node, the choice, notes
//   std::cout << FormatJson(report);   // one compact JSON line + "\n"
//
// Thread-safety: pure functions.

#include <string>

#include "scheduler/explain/report.h"

namespace trimaran::sched::explain {

std::string FormatTable(const Report& report);
std::string FormatJson(const Report& report);

}  // namespace trimaran::sched::explain
