#pragma once
// Fake plugins for framework, runtime and queue tests (upstream's
// pkg/scheduler/testing/framework/fake_plugins.go):
//
//   TrueFilterPlugin    passes every node.
//   FalseFilterPlugin   rejects every node (kUnschedulable, kErrReasonFake).
//   MatchFilterPlugin   passes only the node whose name equals the pod's name, as
//                       upstream (so a test picks a pod's node by naming the pod).
//   FakeFilterPlugin    returns a configured code per node name and counts its calls.
//   FixedScorePlugin    returns a configured score (and optional exact score) per node.
//
// Each has a constructor taking the plugin name (so one test can register several
// instances) and a Factory() for Registry::Register.
//
// Thread-safety: Filter/Score are safe for concurrent use, as the interfaces require.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::testing {

// The reason every fake rejection carries (upstream's ErrReasonFake).
inline constexpr absl::string_view kErrReasonFake = "Nodes failed the fake plugin";

class TrueFilterPlugin final : public FilterPlugin {
 public:
  static constexpr absl::string_view kName = "TrueFilter";
  explicit TrueFilterPlugin(std::string name = std::string(kName)) : name_(std::move(name)) {}
  absl::string_view Name() const override { return name_; }
  Status Filter(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return Status();
  }
  static PluginFactory Factory(std::string name = std::string(kName));

 private:
  std::string name_;
};

class FalseFilterPlugin final : public FilterPlugin {
 public:
  static constexpr absl::string_view kName = "FalseFilter";
  explicit FalseFilterPlugin(std::string name = std::string(kName));
  absl::string_view Name() const override { return name_; }
  Status Filter(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return rejection_;  // prebuilt: a copy shares it, no allocation
  }
  static PluginFactory Factory(std::string name = std::string(kName));

 private:
  std::string name_;
  Status rejection_;
};

class MatchFilterPlugin final : public FilterPlugin {
 public:
  static constexpr absl::string_view kName = "MatchFilter";
  explicit MatchFilterPlugin(std::string name = std::string(kName));
  absl::string_view Name() const override { return name_; }
  Status Filter(const CycleState&, const kube::Pod& pod, const NodeInfo& node_info) const override {
    if (node_info.name() == pod.metadata.name) return Status();
    return rejection_;
  }
  static PluginFactory Factory(std::string name = std::string(kName));

 private:
  std::string name_;
  Status rejection_;
};

class FakeFilterPlugin final : public FilterPlugin {
 public:
  static constexpr absl::string_view kName = "FakeFilter";
  // Nodes not in `codes` pass.
  explicit FakeFilterPlugin(absl::flat_hash_map<std::string, Code> codes,
                            std::string name = std::string(kName))
      : name_(std::move(name)), codes_(std::move(codes)) {}
  absl::string_view Name() const override { return name_; }
  // The configured code with reason "injecting failure for pod <name>".
  Status Filter(const CycleState&, const kube::Pod& pod, const NodeInfo& node_info) const override;
  int num_filter_called() const { return num_filter_called_.load(); }
  static PluginFactory Factory(absl::flat_hash_map<std::string, Code> codes,
                               std::string name = std::string(kName));

 private:
  std::string name_;
  absl::flat_hash_map<std::string, Code> codes_;
  mutable std::atomic<int> num_filter_called_{0};
};

class FixedScorePlugin final : public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "FixedScore";
  // Nodes not in `scores` score 0; nodes in `exact` also report that exact score.
  explicit FixedScorePlugin(absl::flat_hash_map<std::string, int64_t> scores,
                            std::string name = std::string(kName),
                            absl::flat_hash_map<std::string, double> exact = {})
      : name_(std::move(name)), scores_(std::move(scores)), exact_(std::move(exact)) {}
  absl::string_view Name() const override { return name_; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo& node_info) const override;
  static PluginFactory Factory(absl::flat_hash_map<std::string, int64_t> scores,
                               std::string name = std::string(kName),
                               absl::flat_hash_map<std::string, double> exact = {});

 private:
  std::string name_;
  absl::flat_hash_map<std::string, int64_t> scores_;
  absl::flat_hash_map<std::string, double> exact_;
};

}  // namespace trimaran::sched::testing
