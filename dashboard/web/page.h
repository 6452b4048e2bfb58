#pragma once
// The web dashboard's page: cmd/trimaranctl/dashboard/index.html (HTML, CSS and JS in
// one file, no external assets), embedded into the binary at build time: CMake writes
// it into a generated dashboard_page.cc (from dashboard_page.cc.in) whenever the HTML
// file changes. No npm or network is needed to build it.
//
// Thread-safety: returns a view of a constant.

#include "absl/strings/string_view.h"

namespace trimaran::cmd::trimaranctl::nodes {

absl::string_view DashboardPage();

}  // namespace trimaran::cmd::trimaranctl::nodes
