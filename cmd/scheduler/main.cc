// trimaran-scheduler: placeholder main for the foundation stage; the daemon arrives with
// the scheduler issue. Prints --help / --version.
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "common/logging.h"
#include "common/version.h"

ABSL_FLAG(bool, version, false, "Print the version and exit.");
ABSL_FLAG(int, v, 0, "Log verbosity (klog style): 0-3 info, 4 debug, 5+ trace.");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "trimaran-scheduler: a bin-packing, load-aware Kubernetes scheduler.\n"
      "Pods opt in with spec.schedulerName: trimaran.\n\nUsage: trimaran-scheduler [flags]");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] {
    return std::string("trimaran-scheduler ") + trimaran::kVersion + "\n";
  };
  // --help lists this program's own flags (defined under cmd/), not Abseil's.
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "cmd/");
  };
  absl::SetFlagsUsageConfig(usage);
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      // kube-scheduler (cobra) exits 0 on --help; Abseil's handler would exit 1.
      std::fputs(absl::ProgramUsageMessage().data(), stdout);
      std::fputs("\n\nFlags:\n", stdout);
      for (const auto& [name, flag] : absl::GetAllFlags()) {
        if (!absl::StrContains(flag->Filename(), "cmd/")) continue;
        std::printf("  --%s (default %s)\n      %s\n", std::string(name).c_str(),
                    flag->DefaultValue().c_str(), flag->Help().c_str());
      }
      return 0;
    }
  }
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_version)) {
    std::printf("trimaran-scheduler %s\n", trimaran::kVersion);
    return 0;
  }
  trimaran::SetVerbosity(absl::GetFlag(FLAGS_v));
  trimaran::Log(trimaran::Component::kMain)
      .error("the scheduling daemon is not built yet at this stage; see --help");
  return 1;
}
