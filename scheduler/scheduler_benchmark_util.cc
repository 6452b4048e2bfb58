#include "scheduler/scheduler_benchmark_util.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/check.h"
#include "common/clock.h"
#include "kube/testing/wrappers.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched::scheduler_testing {
namespace {

// Binds nothing: the benchmark measures the scheduler, not the apiserver.
class NoopBinder final : public BindPlugin {
 public:
  static constexpr absl::string_view kName = "BenchNoopBinder";
  explicit NoopBinder(std::function<void(const kube::Pod&)> on_bind)
      : on_bind_(std::move(on_bind)) {}
  absl::string_view Name() const override { return kName; }
  Status Bind(CycleState&, const kube::Pod& pod, absl::string_view) override {
    if (on_bind_) on_bind_(pod);
    return Status();
  }

 private:
  std::function<void(const kube::Pod&)> on_bind_;
};

void CheckOk(const absl::Status& status) { TRIMARAN_CHECK(status.ok()) << status; }

}  // namespace

std::unique_ptr<BenchScheduler> MakeBenchScheduler(const BenchSchedulerOptions& options) {
  auto env = std::make_unique<BenchScheduler>();
  CheckOk(plugins::RegisterInTreePlugins(env->registry));
  CheckOk(env->registry.Register(
      NoopBinder::kName,
      [on_bind = options.on_bind](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
        return std::make_unique<NoopBinder>(on_bind);
      }));
  if (options.register_plugins) CheckOk(options.register_plugins(env->registry));
  auto profiles = ProfilesFromYaml(options.yaml);
  CheckOk(profiles.status());
  for (ProfileConfig& p : *profiles) {
    p.bind = {std::string(NoopBinder::kName)};
    if (options.percentage_of_nodes_to_score > 0) {
      p.percentage_of_nodes_to_score = options.percentage_of_nodes_to_score;
    }
  }
  SchedulerOptions sched_options;
  sched_options.run_queue_flushers = false;
  sched_options.queueing_hints = options.queueing_hints;
  sched_options.load_watcher = options.load_watcher;
  sched_options.decisions = options.decisions;
  if (options.backoff.has_value()) sched_options.backoff = *options.backoff;
  if (const char* p = std::getenv("TRIMARAN_BENCH_PARALLELISM"); p != nullptr) {
    sched_options.parallelism = std::max(1, std::atoi(p));
  }
  auto sched = Scheduler::Create(*std::move(profiles), env->registry, env->client, RealClock::Get(),
                                 StatsScopes{.upstream = stats::Scope(env->stats, "scheduler_"),
                                             .own = stats::Scope(env->stats, "trimaran_")},
                                 sched_options, &env->recorder);
  CheckOk(sched.status());
  env->sched = *std::move(sched);
  for (int i = 0; i < options.num_nodes; ++i) {
    kube::testing::NodeWrapper node = kube::testing::MakeNode();
    node.Name(BenchNodeName(i)).Capacity(options.node_capacity);
    if (options.node_labels) node.Labels(options.node_labels(i));
    env->sched->OnNodeAdd(std::make_shared<const kube::Node>(node.Obj()));
  }
  return env;
}

void RunScheduleOne(benchmark::State& state, BenchScheduler& env) {
  RunScheduleOne(state, env, [](int64_t i) {
    return kube::testing::MakePod()
        .Name(absl::StrFormat("p-%06d", i))
        .Namespace("default")
        .UID(absl::StrFormat("uid-%06d", i))
        .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
        .Obj();
  });
}

void RunScheduleOne(benchmark::State& state, BenchScheduler& env,
                    const std::function<kube::Pod(int64_t i)>& make_pod) {
  const int64_t pods = state.max_iterations;
  for (int64_t i = 0; i < pods; ++i) {
    env.sched->OnPodAdd(std::make_shared<const kube::Pod>(make_pod(i)));
  }
  std::vector<double> latencies_us;
  latencies_us.reserve(pods);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    env.sched->ScheduleOne();
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  env.sched->WaitForBindings();
  state.SetItemsProcessed(state.iterations());
  std::sort(latencies_us.begin(), latencies_us.end());
  auto quantile = [&](double q) {
    if (latencies_us.empty()) return 0.0;
    return latencies_us[std::min(
        latencies_us.size() - 1,
        static_cast<size_t>(q * static_cast<double>(latencies_us.size())))];
  };
  state.counters["p50_us"] = quantile(0.50);
  state.counters["p99_us"] = quantile(0.99);
  state.counters["scheduled"] = env.sched->cache().PodCount();
}

std::string BenchNodeName(int i) { return absl::StrFormat("node-%05d", i); }

std::unique_ptr<BenchScheduler> MakePerfScheduler(int nodes, std::vector<std::string> zones) {
  return MakeBenchScheduler(BenchSchedulerOptions{
      .yaml = DefaultProfileYaml(),
      .num_nodes = nodes,
      .node_labels =
          [zones = std::move(zones)](int i) {
            kube::Labels labels{{"kubernetes.io/hostname", BenchNodeName(i)}};
            if (!zones.empty()) {
              labels["topology.kubernetes.io/zone"] = zones[static_cast<size_t>(i) % zones.size()];
            }
            return labels;
          },
      .node_capacity = {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}});
}

kube::testing::PodWrapper PerfPod(const std::string& prefix, int64_t i, const std::string& ns) {
  kube::testing::PodWrapper p = kube::testing::MakePod();
  p.Name(absl::StrFormat("%s-%06d", prefix, i))
      .Namespace(ns)
      .UID(absl::StrFormat("%s-%s-%06d", ns, prefix, i))
      .Req({{"cpu", "100m"}, {"memory", "500Mi"}});
  return p;
}

void PlaceInitPods(BenchScheduler& env, int64_t count,
                   const std::function<kube::Pod(int64_t i)>& make,
                   const std::function<int(int64_t i)>& node_of) {
  for (int64_t i = 0; i < count; ++i) {
    kube::Pod p = make(i);
    p.spec.node_name = BenchNodeName(node_of(i));
    env.sched->OnPodAdd(std::make_shared<const kube::Pod>(std::move(p)));
  }
}

void ReportPerfCounters(benchmark::State& state, double threshold) {
  state.counters["threshold"] = threshold;
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace trimaran::sched::scheduler_testing
