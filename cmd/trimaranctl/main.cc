// trimaranctl: the user's CLI (score.h has the logic; docs/trimaranctl.md the manual).
#include <cstdio>
#include <string>
#include <vector>

#include "cmd/trimaranctl/score.h"
#include "cmd/trimaranctl/simulate.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string out;
  std::string err;
  const int code = !args.empty() && args[0] == "simulate"
                       ? trimaran::cmd::trimaranctl::RunSimulateCommand(
                             std::vector<std::string>(args.begin() + 1, args.end()), out, err)
                       : trimaran::cmd::trimaranctl::RunTrimaranctl(args, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fwrite(err.data(), 1, err.size(), stderr);
  return code;
}
