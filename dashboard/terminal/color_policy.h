#pragma once
// When the node view colours its text, as command-line programs agree
// (https://no-color.org; `ls --color=auto`, git's default): never with --no-color, never
// when the environment variable NO_COLOR is set to a non-empty value, and otherwise only
// when standard output is a terminal, so `trimaranctl nodes -o table > file` (or `| less`)
// holds plain text.
//
// Thread-safety: ShouldColor is a pure function; ShouldColorStdout reads the process's
// environment and standard output, as getenv and isatty do.

namespace trimaran::dashboard::terminal {

// `no_color_env` is NO_COLOR's value, nullptr when unset.
bool ShouldColor(bool no_color_flag, bool stdout_is_terminal, const char* no_color_env);

// ShouldColor for this process: isatty(STDOUT_FILENO) and getenv("NO_COLOR").
bool ShouldColorStdout(bool no_color_flag);

}  // namespace trimaran::dashboard::terminal
