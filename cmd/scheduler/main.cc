// trimaran-scheduler: placeholder main until the daemon is wired up (issue 5). Parses
// the kube-scheduler-style flags (options.h); serves --help / --version.
#include <cstdio>
#include <string>

#include "cmd/scheduler/options.h"
#include "common/logging.h"
#include "common/version.h"

int main(int argc, char** argv) {
  absl::StatusOr<trimaran::cmd::SchedulerOptions> options =
      trimaran::cmd::ParseSchedulerFlags(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "Error: %s\n\nRun 'trimaran-scheduler --help' for usage.\n",
                 std::string(options.status().message()).c_str());
    return 1;
  }
  if (options->help) {
    // kube-scheduler (cobra) exits 0 on --help.
    std::fputs(trimaran::cmd::SchedulerHelpText().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("trimaran-scheduler %s\n", trimaran::kVersion);
    return 0;
  }
  if (absl::Status s = trimaran::cmd::ApplyLogging(*options); !s.ok()) {
    std::fprintf(stderr, "Error: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  trimaran::Log(trimaran::Component::kMain)
      .error("the scheduling daemon is not built yet at this stage; see --help");
  return 1;
}
