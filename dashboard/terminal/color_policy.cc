#include "dashboard/terminal/color_policy.h"

#include <unistd.h>

#include <cstdlib>

namespace trimaran::dashboard::terminal {

bool ShouldColor(bool no_color_flag, bool stdout_is_terminal, const char* no_color_env) {
  if (no_color_flag) return false;
  if (no_color_env != nullptr && *no_color_env != '\0') return false;
  return stdout_is_terminal;
}

bool ShouldColorStdout(bool no_color_flag) {
  return ShouldColor(no_color_flag, isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"));
}

}  // namespace trimaran::dashboard::terminal
