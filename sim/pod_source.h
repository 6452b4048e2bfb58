#pragma once
// Where the simulator's pods come from, one at a time in arrival order: Simulate
// (simulator.h) pulls the next pod only when virtual time reaches its creation_time and
// drops it when it ends, so what it holds follows the live pods, not the trace length.
//
//   VectorPodSource source(pods);          // an in-memory trace (tests, compaction, ...)
//   TRIMARAN_ASSIGN_OR_RETURN(auto file,   // or a file, streamed (pod_file_reader.h)
//                             PodFileReader::Open("pods.csv"));
//   Simulate(*file, cluster, profile, registry, options);
//
// Thread-safety: a source is used by one thread at a time (Next mutates it).

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/trace.h"

namespace trimaran::sim {

class PodSource {
 public:
  virtual ~PodSource() = default;
  // The next pod, by creation_time ascending (ties in trace order), or nullopt after the
  // last. An error (a malformed row, a pod out of order) ends the source.
  virtual absl::StatusOr<std::optional<TracePod>> Next() = 0;
};

// The pods of a vector, which must be sorted by creation_time (as ParsePods returns
// them), copied out one by one. The vector must outlive the source.
class VectorPodSource : public PodSource {
 public:
  explicit VectorPodSource(const std::vector<TracePod>& pods) : pods_(pods) {}
  absl::StatusOr<std::optional<TracePod>> Next() override;

 private:
  const std::vector<TracePod>& pods_;
  size_t next_ = 0;
};

}  // namespace trimaran::sim
