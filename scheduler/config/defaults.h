#pragma once
// Defaulting of a KubeSchedulerConfiguration (spec §1.1–§1.6, §1.9).
//
// SetDefaults, in upstream's order: parallelism (kept from decoding, 16 when unset); no
// profiles -> one empty profile; exactly one profile without a name -> named
// default-scheduler; each profile's plugins merged with the version's default plugins
// (MergePluginSet, §1.6); percentageOfNodesToScore unset -> 0 (adaptive); leader
// election / client connection (contentType protobuf, qps 0 -> 50, burst 0 -> 100);
// backoff 1s / 10s (kept from decoding); enableContentionProfiling unset ->
// enableProfiling.
//
// Default plugins (DefaultPlugins): v1 and v1beta3 declare everything under multiPoint
// (§1.5: TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1, PodTopologySpread 2,
// InterPodAffinity 2, NodeResourcesBalancedAllocation 1, ImageLocality 1); v1beta2 per
// extension point with its own weights (§1.9; the Kubernetes 1.27 v1beta2 lists, in
// which NodeResourcesFit and NodeResourcesBalancedAllocation are also PreScore plugins).
// DynamicResources (gate-dependent upstream) is not in the list.
//
// Upstream plugins that Trimaran does not implement (IsUnsupportedUpstreamPlugin:
// DynamicResources, SelectorSpread, NodePreferAvoidPods; none is a default any more) are
// DROPPED here, with an info log, when only the defaults bring them in. A user who names one
// explicitly keeps it, and Validate rejects it ("plugin DynamicResources is not supported by
// trimaran-scheduler yet"). The deprecated in-tree volume limits (EBSLimits, GCEPDLimits,
// AzureDiskLimits, CinderLimits; IsDeprecatedInTreeVolumeLimit) are dropped from every
// enabled list, with a warning when the user named them.
//
// Plugin args are not defaulted here: each plugin's own decoder (its args.h) applies the
// §1.8 defaults to a Null or partial `args`.
//
// SetDefaults is idempotent. Thread-safety: pure functions (logging aside).

#include "absl/strings/string_view.h"
#include "scheduler/config/types.h"

namespace trimaran::sched::config {

// The default plugins of `version` (see above), including the unsupported upstream ones.
Plugins DefaultPlugins(ApiVersion version);

// Merges the user's set with a default set per spec §1.6: defaults in order minus the
// disabled ones, a user entry of the same name replacing the default in place (with the
// user's weight), then the remaining user entries; "*" in disabled -> the user's enabled
// list only. `from_default`, when given, receives one flag per result entry: true when
// the entry is a default the user did not name.
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& user,
                         std::vector<bool>* from_default = nullptr);

// True for upstream in-tree plugins Trimaran does not implement yet.
bool IsUnsupportedUpstreamPlugin(absl::string_view name);
// True for EBSLimits, GCEPDLimits, AzureDiskLimits and CinderLimits: deprecated upstream
// (1.31, deleted in 1.32). SetDefaults drops them from every enabled list, with a warning
// when the user named them; Validate accepts them in disabled lists and old configs.
bool IsDeprecatedInTreeVolumeLimit(absl::string_view name);

void SetDefaults(SchedulerConfig& config);

}  // namespace trimaran::sched::config
