#include "kube/api/node.h"

namespace trimaran::kube {

const NodeCondition* FindCondition(const NodeStatus& status, std::string_view type) {
  for (const NodeCondition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace trimaran::kube
