#include "scheduler/testing/fake_plugins.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::testing {

PluginFactory TrueFilterPlugin::Factory(std::string name) {
  return [name = std::move(name)](const PluginArgs&,
                                  Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<TrueFilterPlugin>(name);
  };
}

FalseFilterPlugin::FalseFilterPlugin(std::string name)
    : name_(std::move(name)), rejection_(Status::Unschedulable(kErrReasonFake).WithPlugin(name_)) {}

PluginFactory FalseFilterPlugin::Factory(std::string name) {
  return [name = std::move(name)](const PluginArgs&,
                                  Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<FalseFilterPlugin>(name);
  };
}

MatchFilterPlugin::MatchFilterPlugin(std::string name)
    : name_(std::move(name)), rejection_(Status::Unschedulable(kErrReasonFake).WithPlugin(name_)) {}

PluginFactory MatchFilterPlugin::Factory(std::string name) {
  return [name = std::move(name)](const PluginArgs&,
                                  Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<MatchFilterPlugin>(name);
  };
}

Status FakeFilterPlugin::Filter(const CycleState&, const kube::Pod& pod,
                                const NodeInfo& node_info) const {
  num_filter_called_.fetch_add(1, std::memory_order_relaxed);
  const auto it = codes_.find(node_info.name());
  if (it == codes_.end() || it->second == Code::kSuccess) return Status();
  return Status(it->second, {absl::StrCat("injecting failure for pod ", pod.metadata.name)});
}

PluginFactory FakeFilterPlugin::Factory(absl::flat_hash_map<std::string, Code> codes,
                                        std::string name) {
  return [codes = std::move(codes), name = std::move(name)](
             const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<FakeFilterPlugin>(codes, name);
  };
}

ScoreResult FixedScorePlugin::Score(const CycleState&, const kube::Pod&,
                                    const NodeInfo& node_info) const {
  const auto it = scores_.find(node_info.name());
  const int64_t score = it == scores_.end() ? 0 : it->second;
  const auto exact = exact_.find(node_info.name());
  if (exact != exact_.end()) return ScoreResult::Of(score, exact->second);
  return ScoreResult::Of(score);
}

PluginFactory FixedScorePlugin::Factory(absl::flat_hash_map<std::string, int64_t> scores,
                                        std::string name,
                                        absl::flat_hash_map<std::string, double> exact) {
  return [scores = std::move(scores), name = std::move(name), exact = std::move(exact)](
             const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<FixedScorePlugin>(scores, name, exact);
  };
}

}  // namespace trimaran::sched::testing
