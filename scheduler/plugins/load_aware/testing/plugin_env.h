#pragma once
// PluginEnv<P>: the set-up the Trimaran plugin tests share: a FakeHandle over the given
// nodes and pods whose load watcher is a FakeLoadWatcherClient, and a P built through
// its real factory (P::New) from args YAML, as the registry would. Also the checks
// their batch-scoring tests share: ScoreNodes in runs against Score node by node.
//
//   auto env = MakePluginEnv<LowRiskOverCommitment>({node}, pods, "fallback: MinScore");
//   ASSERT_NE(env, nullptr);          // the factory's error is reported by EXPECT
//   env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 10).Obj());
//   env->plugin->PreScore(...);
//
// Thread-safety: as its members (the fakes are thread-safe). Ownership: the env owns the
// handle, the client and the plugin; the plugin borrows the handle (declared first, so
// destroyed last).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/types.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins::load_aware::testing {

template <typename P>
struct PluginEnv {
  std::unique_ptr<sched::testing::FakeHandle> handle;
  lw::testing::FakeLoadWatcherClient client;
  std::unique_ptr<P> plugin;
};

// nullptr (with a test failure) when P::New rejects `args_yaml`.
template <typename P>
std::unique_ptr<PluginEnv<P>> MakePluginEnv(const std::vector<kube::Node>& nodes,
                                            const std::vector<kube::Pod>& pods,
                                            const std::string& args_yaml) {
  auto env = std::make_unique<PluginEnv<P>>();
  env->handle = sched::testing::NewHandleForTest(nodes, pods);
  env->handle->SetLoadWatcher(&env->client);
  auto plugin = P::New(PluginArgs{YAML::Load(args_yaml), "args"}, *env->handle);
  EXPECT_THAT(plugin, ::trimaran::testing::IsOk());
  if (!plugin.ok()) return nullptr;
  env->plugin.reset(dynamic_cast<P*>(plugin->release()));
  EXPECT_NE(env->plugin, nullptr);
  if (env->plugin == nullptr) return nullptr;
  return env;
}

// ScoreNodes over `nodes` in runs of `run` consecutive nodes (as the runtime calls it).
inline std::vector<NodeScore> ScoreInRuns(const ScorePlugin& plugin, const CycleState& state,
                                          const kube::Pod& pod,
                                          std::span<const NodeInfo* const> nodes, size_t run) {
  std::vector<NodeScore> scores(nodes.size());
  for (size_t begin = 0; begin < nodes.size(); begin += run) {
    const size_t count = std::min(run, nodes.size() - begin);
    EXPECT_TRUE(plugin
                    .ScoreNodes(state, pod, nodes.subspan(begin, count),
                                std::span<NodeScore>(scores).subspan(begin, count))
                    .IsSuccess());
  }
  return scores;
}

// The same integer score and the same exact value, bit for bit (both absent, or both
// present with identical bits).
inline void ExpectSameScore(int64_t got_score, const std::optional<double>& got_exact,
                            int64_t want_score, const std::optional<double>& want_exact,
                            const std::string& node) {
  SCOPED_TRACE(node);
  EXPECT_EQ(got_score, want_score);
  ASSERT_EQ(got_exact.has_value(), want_exact.has_value());
  if (want_exact.has_value()) {
    EXPECT_EQ(std::bit_cast<uint64_t>(*got_exact), std::bit_cast<uint64_t>(*want_exact))
        << *got_exact << " vs " << *want_exact;
  }
}

// ScoreNodes in runs of 1 .. nodes.size() gives `want` (Score node by node) bit for bit.
inline void ExpectBatchMatches(const ScorePlugin& plugin, const CycleState& state,
                               const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                               std::span<const ScoreResult> want) {
  for (size_t run = 1; run <= nodes.size(); ++run) {
    SCOPED_TRACE(::testing::Message() << "runs of " << run);
    const std::vector<NodeScore> got = ScoreInRuns(plugin, state, pod, nodes, run);
    for (size_t i = 0; i < nodes.size(); ++i) {
      ExpectSameScore(got[i].score, got[i].exact, want[i].score, want[i].exact, nodes[i]->name());
    }
  }
}

}  // namespace trimaran::sched::plugins::load_aware::testing
