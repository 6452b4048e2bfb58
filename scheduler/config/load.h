#pragma once
// Loading a KubeSchedulerConfiguration file (spec §1) with yaml-cpp.
//
//   TRIMARAN_ASSIGN_OR_RETURN(config::SchedulerConfig cfg, config::LoadConfigFile(path));
//   TRIMARAN_RETURN_IF_ERROR(config::Validate(cfg, plugins::InTreeRegistry()));
//
// Accepted apiVersions: kubescheduler.config.k8s.io/v1, v1beta3 and v1beta2 (each with
// its own default plugin set, §1.9); `kind` must be KubeSchedulerConfiguration.
//
// kubescheduler.config.k8s.io/v1beta1 is REFUSED (it was removed upstream in 1.25) with
// an InvalidArgument whose message contains the exact v1 equivalent of the file, ready to
// copy: plugins NodeResourcesLeastAllocated / NodeResourcesMostAllocated /
// RequestedToCapacityRatio become NodeResourcesFit (scoringStrategy in its pluginConfig,
// with the resources/shape of the old plugin's args), v1beta1's default score weights
// that changed in v1 (TaintToleration 1, NodeAffinity 1) are written out explicitly,
// healthzBindAddress/metricsBindAddress are dropped, a non-"leases" resourceLock becomes
// "leases", and args apiVersions become v1. Every change is listed as a YAML comment
// after the document. (InterPodAffinity's v1beta1 weight 1 is not written: Trimaran
// does not run InterPodAffinity, see expand.h.)
//
// Decoding is strict, like upstream's strict mode: an unknown field anywhere in the
// configuration proper (top level, leaderElection, clientConnection, profiles, plugins,
// plugin sets, plugins, pluginConfig) is an error naming its path
// ("profiles[0].plugins.score.enabeld: unknown field"); a wrongly typed value is an
// error too. Plugin `args` are kept raw (YAML::Node) for the plugin's own decoder. Every
// decoding error is reported, one per line, each followed by "(<source>:<line>:<col>)".
// Invalid YAML is one error "<source>:<line>:<col>: invalid YAML: ...".
// v1beta2's healthzBindAddress / metricsBindAddress are accepted and ignored (use
// --bind-address / --secure-port). Durations are Go duration strings ("15s", "1m30s",
// "100ms"). A non-empty `extenders` list is refused: extenders are not supported yet.
//
// On success the configuration has been through SetDefaults (defaults.h) but NOT
// through Validate.
//
// Thread-safety: pure functions (the defaulting logs dropped plugins at info).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/config/types.h"

namespace trimaran::sched::config {

// Reads `path` and parses it (source name = path). NotFound/PermissionDenied-style
// errors from reading are InvalidArgument naming the path.
absl::StatusOr<SchedulerConfig> LoadConfigFile(const std::string& path);

// Parses `yaml_text`; `source_name` prefixes locations in messages.
absl::StatusOr<SchedulerConfig> ParseConfig(absl::string_view yaml_text,
                                            absl::string_view source_name);

// Parses a Go duration string ("1m30s", "100ms", "0"); InvalidArgument otherwise.
absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view text);

}  // namespace trimaran::sched::config
