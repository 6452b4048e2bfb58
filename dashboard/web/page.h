#pragma once
// The web dashboard's page: dashboard/web/index.html (HTML, CSS and JS in
// one file, no external assets), embedded into the binary at build time: CMake writes
// it into a generated page.cc (from page.cc.in) whenever the HTML
// file changes. No npm or network is needed to build it.
//
// Thread-safety: returns a view of a constant.

#include "absl/strings/string_view.h"

namespace trimaran::dashboard::web {

absl::string_view DashboardPage();

}  // namespace trimaran::dashboard::web
