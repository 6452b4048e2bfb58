#include "scheduler/framework/types.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched {

PreFilterResult PreFilterResult::Merge(const PreFilterResult& other) const {
  if (AllNodes()) return other;
  if (other.AllNodes()) return *this;
  PreFilterResult out;
  out.node_names.emplace();
  const auto& small =
      node_names->size() <= other.node_names->size() ? *node_names : *other.node_names;
  const auto& large = &small == &*node_names ? *other.node_names : *node_names;
  for (const std::string& name : small) {
    if (large.contains(name)) out.node_names->insert(name);
  }
  return out;
}

void NodeToStatus::Set(absl::string_view node_name, Status status) {
  map_.insert_or_assign(node_name, std::move(status));
}

const Status& NodeToStatus::Get(absl::string_view node_name) const {
  const auto it = map_.find(node_name);
  return it == map_.end() ? absent_nodes_status_ : it->second;
}

void NodeToStatus::ForEachExplicitNode(
    absl::FunctionRef<void(absl::string_view node_name, const Status& status)> fn) const {
  for (const auto& [name, status] : map_) fn(name, status);
}

std::vector<const NodeInfo*> NodeToStatus::NodesForStatusCode(
    std::span<const NodeInfo* const> all_nodes, Code code) const {
  std::vector<const NodeInfo*> out;
  for (const NodeInfo* node : all_nodes) {
    if (Get(node->name()).code() == code) out.push_back(node);
  }
  return out;
}

std::string FitErrorMessage(int num_all_nodes, const Diagnosis& diagnosis) {
  std::string msg = absl::StrCat("0/", num_all_nodes, " nodes are available:");
  if (!diagnosis.pre_filter_msg.empty()) {
    // PreFilter rejected the pod: every node carries the same status, so the histogram
    // would only repeat it.
    absl::StrAppend(&msg, " ", diagnosis.pre_filter_msg, ".");
  } else {
    absl::flat_hash_map<std::string, int64_t> histogram;
    const NodeToStatus& statuses = diagnosis.node_to_status;
    statuses.ForEachExplicitNode([&](absl::string_view, const Status& status) {
      for (const std::string& reason : status.reasons()) ++histogram[reason];
    });
    const int64_t absent =
        static_cast<int64_t>(num_all_nodes) - static_cast<int64_t>(statuses.size());
    if (absent > 0) {
      for (const std::string& reason : statuses.absent_nodes_status().reasons()) {
        histogram[reason] += absent;
      }
    }
    std::vector<std::string> entries;
    entries.reserve(histogram.size());
    for (const auto& [reason, count] : histogram) {
      entries.push_back(absl::StrCat(count, " ", reason));
    }
    // Sorted as strings, as upstream does ("10 x" before "2 y").
    std::sort(entries.begin(), entries.end());
    if (!entries.empty()) absl::StrAppend(&msg, " ", absl::StrJoin(entries, ", "), ".");
  }
  if (!diagnosis.post_filter_msg.empty()) absl::StrAppend(&msg, " ", diagnosis.post_filter_msg);
  return msg;
}

}  // namespace trimaran::sched
