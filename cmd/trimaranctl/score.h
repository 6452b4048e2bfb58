#pragma once
// trimaranctl: the user's CLI, and its `score` command, which answers "why did my pod
// land there?" offline, from one JSON file (docs/trimaranctl.md documents the format, the
// flags and both outputs). `score` is a thin driver over the explain library
// (scheduler/explain/score_input.h: the file, the run; report_format.h: the outputs):
// it reads its flags and the file and prints the report.
//
// Thread-safety: a pure function of its arguments and the file they name.

#include <string>
#include <vector>

namespace trimaran::cmd::trimaranctl {

// The whole CLI: `args` are argv[1..]. Writes to `out`/`err`; returns the exit code
// (0 ok, 1 on any error, including usage errors). Reads the file named in the args ("-"
// is standard input).
int RunTrimaranctl(const std::vector<std::string>& args, std::string& out, std::string& err);

// The `--help` text of `trimaranctl` and of `trimaranctl score`.
std::string HelpText();

}  // namespace trimaran::cmd::trimaranctl
