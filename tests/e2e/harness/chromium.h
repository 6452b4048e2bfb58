#pragma once
// Headless Chromium for the e2e tests of web pages (the node dashboard): the DOM after
// the page's scripts ran (--dump-dom) and PNG screenshots (--screenshot), one chromium
// process per call, on 127.0.0.1 only. Also AnsiToHtml, which turns a terminal capture
// (tmux capture-pane -e) into an HTML <pre> so that Chromium can screenshot a terminal
// view.
//
// Chromium is a prerequisite like Prometheus and tmux (tools/setup.sh --e2e installs the
// Debian package `chromium`). ChromiumBinary() finds it ($TRIMARAN_CHROMIUM, then
// chromium, chromium-browser, google-chrome on PATH). Tests call
// TRIMARAN_REQUIRE_CHROMIUM(): without Chromium the test is skipped on a developer
// machine but FAILS when CI=true, so CI never passes by skipping the browser checks.
//
// Thread-safety: the functions are reentrant (each runs its own process).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trimaran::e2e {

std::optional<std::string> ChromiumBinary();

// True when the CI environment variable is "true".
bool InCi();

struct ChromiumOptions {
  int width = 1400;
  int height = 900;
  // --virtual-time-budget: the page's timers and fetches run for this much virtual
  // time before the dump/screenshot. Zero: none (the dump happens after the load event;
  // performance.now() is then real time, which the render benchmark needs).
  absl::Duration virtual_time = absl::Seconds(4);
  absl::Duration timeout = absl::Seconds(60);
  // More command-line switches, e.g. "--host-resolver-rules=MAP rebind.test 127.0.0.1"
  // (a name that resolves to loopback: DNS rebinding without a DNS server).
  std::vector<std::string> extra_args{};
};

// The serialized DOM of `url` after its scripts ran.
absl::StatusOr<std::string> ChromiumDumpDom(const std::string& url,
                                            const ChromiumOptions& options = {});

// Writes a PNG screenshot of `url` to `png_path`.
absl::Status ChromiumScreenshot(const std::string& url, const std::string& png_path,
                                const ChromiumOptions& options = {});

// A terminal capture with ANSI SGR sequences (colours: 30-37, 90-97, 38;5;N, 38;2;R;G;B and
// the background forms; bold; reset) as a standalone HTML page: a dark <pre> with <span
// style> runs. Other escape sequences are dropped.
std::string AnsiToHtml(const std::string& ansi, const std::string& title);

}  // namespace trimaran::e2e

// In a TEST body: skips (developer machine) or fails (CI=true) without Chromium.
#define TRIMARAN_REQUIRE_CHROMIUM()                                                     \
  do {                                                                                  \
    if (!::trimaran::e2e::ChromiumBinary().has_value()) {                               \
      if (::trimaran::e2e::InCi()) {                                                    \
        FAIL() << "chromium not found (CI=true): install it with tools/setup.sh --e2e"; \
      }                                                                                 \
      GTEST_SKIP() << "chromium not on PATH (tools/setup.sh --e2e installs it)";        \
    }                                                                                   \
  } while (0)
