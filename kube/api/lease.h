#pragma once
// Lease (coordination.k8s.io/v1): the leader-election lock. acquire/renew times are
// MicroTime. Missing fields read as empty/zero, and are always written, since
// client-go's lease lock always sets them.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "kube/api/object_meta.h"

namespace trimaran::kube {

struct LeaseSpec {
  std::string holder_identity;  // "" = released
  int32_t lease_duration_seconds = 0;
  std::optional<absl::Time> acquire_time;
  std::optional<absl::Time> renew_time;
  int32_t lease_transitions = 0;

  bool operator==(const LeaseSpec&) const = default;
};

struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;

  bool operator==(const Lease&) const = default;
};

}  // namespace trimaran::kube
