#pragma once
// PluginEnv<P>: the set-up the Trimaran plugin tests share: a FakeHandle over the given
// nodes and pods whose load watcher is a FakeLoadWatcherClient, and a P built through
// its real factory (P::New) from args YAML, as the registry would.
//
//   auto env = MakePluginEnv<LowRiskOverCommitment>({node}, pods, "fallback: MinScore");
//   ASSERT_NE(env, nullptr);          // the factory's error is reported by EXPECT
//   env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 10).Obj());
//   env->plugin->PreScore(...);
//
// Thread-safety: as its members (the fakes are thread-safe). Ownership: the env owns the
// handle, the client and the plugin; the plugin borrows the handle (declared first, so
// destroyed last).

#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/framework/registry.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins::trimaran::testing {

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

}  // namespace trimaran::sched::plugins::trimaran::testing
