#include "scheduler/plugins/helper/taints.h"

namespace trimaran::sched::plugins::helper {

bool ToleratesTaint(const kube::Toleration& toleration, const kube::Taint& taint) {
  if (toleration.effect != kube::TaintEffect::kAll && toleration.effect != taint.effect) {
    return false;
  }
  // As upstream: an operator other than Equal and Exists tolerates nothing.
  if (toleration.op == kube::TolerationOperator::kUnrecognized) return false;
  const bool exists = toleration.op == kube::TolerationOperator::kExists;
  if (toleration.key.empty()) {
    if (!exists && !taint.key.empty()) return false;
  } else if (toleration.key != taint.key) {
    return false;
  }
  return exists || toleration.value == taint.value;
}

bool TolerationsTolerateTaint(std::span<const kube::Toleration> tolerations,
                              const kube::Taint& taint) {
  for (const kube::Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

const kube::Taint* FindMatchingUntoleratedTaint(
    std::span<const kube::Taint> taints, std::span<const kube::Toleration> tolerations,
    absl::FunctionRef<bool(const kube::Taint&)> filter) {
  for (const kube::Taint& taint : taints) {
    if (!filter(taint)) continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

}  // namespace trimaran::sched::plugins::helper
