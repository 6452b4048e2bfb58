#pragma once
// `trimaranctl simulate`: the what-if simulator and cost report (docs/simulator.md). A
// thin driver over the sim library (sim/): reads the trace and the node groups, loads
// each --config as the daemon does (parse, default, validate, expand), simulates every
// profile of every config and writes the JSON report.
//
// Thread-safety: a pure function of its arguments and the files they name.

#include <string>
#include <vector>

namespace trimaran::cmd::trimaranctl {

// `args` are the arguments after "simulate". Writes to `out`/`err`; returns the exit
// code (0 ok, 1 on any error).
int RunSimulateCommand(const std::vector<std::string>& args, std::string& out, std::string& err);

std::string SimulateHelpText();

}  // namespace trimaran::cmd::trimaranctl
