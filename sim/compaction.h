#pragma once
// Cluster compaction (spec dashboard-and-simulator.md §B4; Verma et al., "Large-scale
// cluster management at Google with Borg", EuroSys 2015, §5.1): how few of the nodes
// present at an instant the profile under test needs to place every pod present then.
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::vector<int>> sizes,
//                             CompactAt(nodes, pods, profile, registry, clock, 5, rng));
//
// One trial: the nodes are permuted at random (Fisher-Yates over `rng`), and a binary
// search finds the smallest k such that a re-pack FROM SCRATCH of every pod onto the
// first k nodes of the permutation places them all. A re-pack is a fresh
// scheduler/explain Explainer (a new cache, new plugin instances: nothing carries over)
// with the profile's real plugins, so custom filters and scores count; the pods are tried
// once each, in the order given (the simulator passes priority, then largest first by
// dominant share, then arrival: with the queue's order, priority then arrival, a re-pack
// onto all the nodes failed at 19 of the week trace's 169 instants; largest first, 2). The binary
// search assumes that a prefix that places everything stays enough when it grows, as
// Borg's does; a greedy scheduler need not be monotone, so the result is the prefix the
// search lands on, not a proven minimum.
//
// Load: the re-packed nodes start empty, so load-aware plugins are served a snapshot, at
// the clock's time, in which every node reports 0 % CPU and memory (AVG and STD, as
// load_windows.h); what they place during the re-pack is what their recent-pod tracking sees.
//
// The instants (which the simulator chooses: every SimOptions::compaction_every seconds
// and the instant of the peak ready-node count) each give `trials` sizes;
// SummarizeCompaction turns them into the report's distribution.
//
// Thread-safety: pure functions (each call builds and owns its Explainers); `clock` must
// not change during a call.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "scheduler/framework/registry.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sim {

// One compaction instant.
struct CompactionInstant {
  double t = 0;
  std::string why;             // "periodic" or "peak"
  int actual = 0;              // ready nodes present
  int pods = 0;                // pods re-packed (those running at t)
  std::vector<int> compacted;  // the compacted size of each trial
};

// min / p10 / p50 / p90 / max (nearest rank) of a sample; all 0 when empty.
struct Distribution {
  double min = 0;
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
  double max = 0;
};

struct CompactionResult {
  int trials = 0;    // permutations per instant
  double every = 0;  // seconds between periodic instants (0: off)
  std::vector<CompactionInstant> instants;
  // Instants skipped because a re-pack onto ALL the nodes present did not place every
  // pod (the from-scratch order differs from the history that placed them).
  int skipped = 0;
  int64_t repacks = 0;           // re-packs run (each a from-scratch placement)
  int64_t scheduler_errors = 0;  // plugin errors during re-packs (the pod counts as unplaced)
  double cpu_seconds = 0;        // process CPU time spent in compaction
  Distribution nodes;            // compacted node count, over every trial of every instant
  Distribution ratio;            // compacted / actual, over the same trials
};

// Whether a from-scratch re-pack of `pods` (in order) onto `nodes` places every pod.
// `errors` (if not null) is incremented per plugin error. Errors: the profile's
// factory error.
absl::StatusOr<bool> PlacesAll(const std::vector<std::shared_ptr<const kube::Node>>& nodes,
                               const std::vector<std::shared_ptr<const kube::Pod>>& pods,
                               const sched::ProfileConfig& profile, const sched::Registry& registry,
                               const Clock& clock, int64_t* errors = nullptr);

// Whether `moved` (in order) all place, one cycle each through the profile, onto `nodes`
// that already hold `bound` (pods with spec.nodeName set to one of `nodes`), on a fresh
// Explainer with the empty-load snapshot above. The consolidation fit check (the
// simulator's FitCheck for consolidation.h). Errors: the profile's factory error, or a
// bound pod the cache refuses.
absl::StatusOr<bool> PlacesOnto(const std::vector<std::shared_ptr<const kube::Node>>& nodes,
                                const std::vector<std::shared_ptr<const kube::Pod>>& bound,
                                const std::vector<std::shared_ptr<const kube::Pod>>& moved,
                                const sched::ProfileConfig& profile,
                                const sched::Registry& registry, const Clock& clock,
                                int64_t* errors = nullptr);

// The smallest k in [1, order.size()] the binary search lands on such that the first k
// nodes of `order` place every pod, assuming all of `order` does (not checked).
// `repacks` / `errors` (if not null) are incremented.
absl::StatusOr<int> SmallestPrefix(const std::vector<std::shared_ptr<const kube::Node>>& order,
                                   const std::vector<std::shared_ptr<const kube::Pod>>& pods,
                                   const sched::ProfileConfig& profile,
                                   const sched::Registry& registry, const Clock& clock,
                                   int64_t* repacks = nullptr, int64_t* errors = nullptr);

// `trials` compacted sizes (see the header comment), or nullopt when even all of
// `nodes` do not place every pod. `repacks` / `errors` (if not null) are incremented.
absl::StatusOr<std::optional<std::vector<int>>> CompactAt(
    const std::vector<std::shared_ptr<const kube::Node>>& nodes,
    const std::vector<std::shared_ptr<const kube::Pod>>& pods, const sched::ProfileConfig& profile,
    const sched::Registry& registry, const Clock& clock, int trials, std::mt19937_64& rng,
    int64_t* repacks = nullptr, int64_t* errors = nullptr);

// Fills result.nodes and result.ratio from result.instants.
void SummarizeCompaction(CompactionResult& result);

}  // namespace trimaran::sim
