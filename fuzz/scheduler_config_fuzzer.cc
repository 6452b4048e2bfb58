// Fuzzes KubeSchedulerConfiguration loading (scheduler/config): ParseConfig (yaml-cpp,
// strict decoding, v1beta1 migration advice, defaults), then what the daemon does with
// a loaded file: Validate and ExpandProfiles against the in-tree registry (so every
// plugin's args decoder and validator sees the fuzzed args), and the writers behind
// --write-config-to and /configz.
//
// Invariants, for every text ParseConfig accepts:
//   - the written YAML loads back, and writing that gives the same bytes (write.h:
//     "the output loads back to an equal configuration");
//   - validation agrees: the written config validates exactly when the original does,
//     and a valid config expands into one ProfileConfig per profile, equal (scheduler
//     name and every extension point) to the expansion of the written config;
//   - every error is InvalidArgument (load.h, validate.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/quiet_logs.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/config/write.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sched::config {
namespace {

bool SamePlugins(const ProfileConfig& a, const ProfileConfig& b) {
  return a.scheduler_name == b.scheduler_name && a.queue_sort == b.queue_sort &&
         a.pre_enqueue == b.pre_enqueue && a.pre_filter == b.pre_filter && a.filter == b.filter &&
         a.post_filter == b.post_filter && a.pre_score == b.pre_score && a.score == b.score &&
         a.reserve == b.reserve && a.permit == b.permit && a.pre_bind == b.pre_bind &&
         a.bind == b.bind && a.post_bind == b.post_bind &&
         a.percentage_of_nodes_to_score == b.percentage_of_nodes_to_score;
}

}  // namespace
}  // namespace trimaran::sched::config

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trimaran::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::sched::config;  // NOLINT(build/namespaces)
  using trimaran::sched::ProfileConfig;
  static const trimaran::sched::Registry& registry =
      *new trimaran::sched::Registry(trimaran::sched::plugins::InTreeRegistry());

  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<SchedulerConfig> config = ParseConfig(text, "fuzz");
  if (!config.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(config.status())) << config.status();
    return 0;
  }
  const std::string yaml = WriteConfigYaml(*config);
  (void)WriteConfigJson(*config);
  absl::StatusOr<SchedulerConfig> again = ParseConfig(yaml, "written");
  FUZZ_CHECK(again.ok()) << "the written config does not load: " << again.status() << "\n" << yaml;
  const std::string yaml_again = WriteConfigYaml(*again);
  FUZZ_CHECK(yaml_again == yaml) << "writing is not stable\n" << yaml << "\n---\n" << yaml_again;

  const absl::Status valid = Validate(*config, registry);
  const absl::Status valid_again = Validate(*again, registry);
  FUZZ_CHECK(valid.ok() || absl::IsInvalidArgument(valid)) << valid;
  FUZZ_CHECK(valid.ok() == valid_again.ok())
      << "validation differs after writing: " << valid << " vs " << valid_again << "\n"
      << yaml;
  if (!valid.ok()) return 0;
  absl::StatusOr<std::vector<ProfileConfig>> profiles = ExpandProfiles(*config, registry);
  FUZZ_CHECK(profiles.ok()) << "a valid config does not expand: " << profiles.status();
  FUZZ_CHECK(profiles->size() == config->profiles.size()) << profiles->size();
  absl::StatusOr<std::vector<ProfileConfig>> profiles_again = ExpandProfiles(*again, registry);
  FUZZ_CHECK(profiles_again.ok() && profiles_again->size() == profiles->size())
      << "the written config expands differently";
  for (size_t i = 0; i < profiles->size(); ++i) {
    FUZZ_CHECK(SamePlugins((*profiles)[i], (*profiles_again)[i]))
        << "profile " << i << " expands differently after writing\n"
        << yaml;
  }
  return 0;
}
