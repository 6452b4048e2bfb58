#pragma once
// Selector: a metav1.LabelSelector compiled for matching, with upstream's rules
// (apimachinery LabelSelectorAsSelector): a missing selector (std::nullopt) matches
// nothing, an empty one ({}) matches everything; matchLabels are equality
// requirements; matchExpressions In / NotIn need at least one value, Exists /
// DoesNotExist none; any other operator is an error. All requirements must hold.
//
//   TRIMARAN_ASSIGN_OR_RETURN(Selector s, Selector::FromOptional(term.label_selector));
//   if (s.Matches(pod.metadata.labels)) ...
//
// Used by InterPodAffinity (and by PodTopologySpread and the default spreading
// selectors next).
//
// Thread-safety: an immutable value after construction; Matches is safe to call
// concurrently.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/api/label_selector.h"
#include "kube/api/object_meta.h"

namespace trimaran::sched::plugins::helper {

class Selector {
 public:
  // Matches nothing (a missing selector).
  Selector() = default;
  static Selector Nothing() { return Selector(); }
  static Selector Everything();
  // InvalidArgument naming the requirement for a bad operator or value count.
  static absl::StatusOr<Selector> Compile(const kube::LabelSelector& selector);
  // std::nullopt -> Nothing().
  static absl::StatusOr<Selector> FromOptional(const std::optional<kube::LabelSelector>& selector);

  bool Matches(const kube::Labels& labels) const;
  // This selector AND `key` = `value` (Nothing() stays Nothing(), as upstream's Add).
  Selector WithEquals(const std::string& key, const std::string& value) const;
  // This selector AND `key` NotIn (`value`) (Nothing() stays Nothing()).
  Selector WithNotEquals(const std::string& key, const std::string& value) const;
  // Matches every label set (compiled from {}).
  bool MatchesEverything() const { return everything_; }
  bool MatchesNothing() const { return nothing_; }

  friend bool operator==(const Selector&, const Selector&) = default;

 private:
  enum class Op { kEquals, kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op = Op::kEquals;
    std::vector<std::string> values;  // sorted
    friend bool operator==(const Requirement&, const Requirement&) = default;
  };

  bool nothing_ = true;
  bool everything_ = false;
  std::vector<Requirement> requirements_;
};

}  // namespace trimaran::sched::plugins::helper
