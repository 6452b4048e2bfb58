// sidebyside_driver: one run of the side-by-side scheduler benchmark (issue 5), driven by
// tests/bench/sidebyside.sh.
//
//   sidebyside_driver --label NAME --nodes 500 --pods 3000 --scheduler-name S \
//       -- COMMAND ARGS...     (with {kubeconfig}, {port}, {dir} substituted)
//
// 1. Starts a fresh etcd + kube-apiserver on 127.0.0.1 (tests/e2e/harness).
// 2. Creates N nodes (32 CPU, 128Gi, 110 pods; Ready, untainted; labelled with their
//    hostname and one of 3 zones) and P pending pods (100m / 500Mi, schedulerName S)
//    with a 5000-QPS client; the creation time of each pod is taken when its POST
//    returns. --workload anti-affinity: each pod has scheduler_perf's required
//    anti-affinity (color=green, hostname: at most one per node); spread: a DoNotSchedule
//    maxSkew 5 zone constraint (color=blue).
// 3. Starts the scheduler COMMAND, watches the pods and records when each gets a
//    nodeName (the watch event's arrival, millisecond clock).
// 4. When all are bound (or --timeout passes) kills the scheduler and prints one JSON line:
//    label, pods, bound, seconds from scheduler start to the last bind, pods/s over that
//    interval, seconds from the first bind to the last (pure scheduling throughput),
//    p50/p99 creation-to-bound and start-to-bound latency, nodes used.
//
// --bind-ceiling THREADS instead of a COMMAND: no scheduler; the driver itself POSTs one
// Binding per pod (nodes round-robin) from THREADS threads with the same 5000-QPS
// client, which measures what the apiserver itself accepts (the ceiling any scheduler's
// end-to-end rate is compared with), timed and printed exactly like a scheduler run.
//
// Everything runs on 127.0.0.1.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kube/api/binding.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

struct Args {
  std::string label = "run";
  int nodes = 500;
  int pods = 3000;
  std::string scheduler_name = "bench";
  int timeout_s = 600;
  // plain | anti-affinity | spread (see the file comment).
  std::string workload = "plain";
  std::vector<std::string> command;
  int bind_ceiling_threads = 0;  // > 0: the binding-ceiling run (see the file comment)
};

// The binding-ceiling run's "scheduler": binds pod-i to names[i % nodes] from `threads`
// threads until every pod is bound or `stop` is requested.
void BindAll(kube::RestClient& client, const std::vector<std::string>& nodes, int pods, int threads,
             std::stop_token stop) {
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = next++; i < pods && !stop.stop_requested(); i = next++) {
        kube::ObjectMeta meta;
        meta.name = absl::StrCat("pod-", i);
        meta.namespace_name = "default";
        absl::Status s = client.Bind(kube::MakeBinding(meta, nodes[i % nodes.size()]));
        if (!s.ok()) std::fprintf(stderr, "bind pod-%d: %s\n", i, std::string(s.message()).c_str());
      }
    });
  }
  for (std::thread& w : workers) w.join();
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int Main(const Args& args) {
  auto cluster_or = Cluster::Start();
  if (!cluster_or.ok()) {
    std::fprintf(stderr, "cluster: %s\n", std::string(cluster_or.status().message()).c_str());
    return 1;
  }
  Cluster& cluster = **cluster_or;
  kube::RestClient& client = cluster.client();
  const std::string& kubeconfig = cluster.kubeconfig();
  const std::string& dir = cluster.control_plane().dir();

  // Nodes and pods, 8 threads each. Nodes carry their hostname and one of 3 zones.
  const std::vector<std::string> names = NumberedNames("node", args.nodes);
  for (int zone = 0; zone < 3; ++zone) {
    std::vector<std::string> in_zone;
    for (size_t n = zone; n < names.size(); n += 3) in_zone.push_back(names[n]);
    if (absl::Status s = cluster.AddNodes(
            in_zone,
            {.cpu = "32",
             .memory = "128Gi",
             .labels = {{"topology.kubernetes.io/zone", absl::StrCat("zone-", zone)}},
             .hostname_label = true},
            /*parallelism=*/8);
        !s.ok()) {
      std::fprintf(stderr, "nodes: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  absl::Mutex mu;
  std::map<std::string, absl::Time> created;
  CreatePodsOptions create;
  create.on_created = [&](const kube::Pod& pod) {
    absl::MutexLock lock(&mu);
    created[pod.metadata.name] = absl::Now();
  };
  if (absl::Status s = cluster.CreatePods(
          args.pods,
          [&](int i) {
            PodShape shape{.name = absl::StrCat("pod-", i),
                           .scheduler_name = args.scheduler_name,
                           .cpu = "100m",
                           .memory = "500Mi"};
            if (args.workload == "anti-affinity") {
              // scheduler_perf's pod-with-pod-anti-affinity: one per hostname.
              shape.labels = {{"color", "green"}};
              kube::PodAffinityTerm t;
              t.label_selector = kube::LabelSelector{.match_labels = {{"color", "green"}}};
              t.topology_key = "kubernetes.io/hostname";
              shape.affinity.emplace().pod_anti_affinity.emplace().required.push_back(t);
            } else if (args.workload == "spread") {
              // scheduler_perf's pod-with-topology-spreading: maxSkew 5 over zones.
              shape.labels = {{"color", "blue"}};
              kube::TopologySpreadConstraint c;
              c.max_skew = 5;
              c.topology_key = "topology.kubernetes.io/zone";
              c.when_unsatisfiable = kube::UnsatisfiableConstraintAction::kDoNotSchedule;
              c.label_selector = kube::LabelSelector{.match_labels = {{"color", "blue"}}};
              shape.topology_spread_constraints.push_back(c);
            }
            return shape;
          },
          create);
      !s.ok()) {
    std::fprintf(stderr, "pods: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "[%s] %d nodes and %d pending pods created; starting the scheduler\n",
               args.label.c_str(), args.nodes, args.pods);

  // Watch from the current version.
  auto list = client.ListPods("default", {});
  if (!list.ok()) return 1;
  std::map<std::string, absl::Time> bound_at;
  std::map<std::string, std::string> node_of;
  std::stop_source stop;
  std::thread watcher([&] {
    std::string rv = list->metadata.resource_version;
    while (!stop.stop_requested()) {
      kube::WatchOptions wo;
      wo.resource_version = rv;
      (void)client.WatchPods(
          "default", wo,
          [&](kube::WatchEvent<kube::Pod>&& ev) {
            if (ev.type == kube::WatchEventType::kError) return false;
            rv = ev.object.metadata.resource_version;
            if (ev.object.spec.node_name.empty()) return true;
            absl::MutexLock lock(&mu);
            if (!bound_at.contains(ev.object.metadata.name)) {
              bound_at[ev.object.metadata.name] = absl::Now();
              node_of[ev.object.metadata.name] = ev.object.spec.node_name;
            }
            return true;
          },
          stop.get_token());
    }
  });
  absl::SleepFor(absl::Milliseconds(300));

  auto port = PickFreePort();
  std::vector<std::string> argv;
  for (const std::string& a : args.command) {
    argv.push_back(absl::StrReplaceAll(
        a, {{"{kubeconfig}", kubeconfig}, {"{port}", absl::StrCat(*port)}, {"{dir}", dir}}));
  }
  const absl::Time start = absl::Now();
  std::unique_ptr<Subprocess> sched;
  std::stop_source bind_stop;
  std::thread binder;
  if (args.bind_ceiling_threads > 0) {
    binder = std::thread(BindAll, std::ref(client), std::cref(names), args.pods,
                         args.bind_ceiling_threads, bind_stop.get_token());
  } else {
    auto started = Subprocess::Start(argv, dir + "/scheduler.log");
    if (!started.ok()) {
      std::fprintf(stderr, "start: %s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    sched = *std::move(started);
  }
  const absl::Time deadline = start + absl::Seconds(args.timeout_s);
  size_t bound = 0;
  while (absl::Now() < deadline) {
    {
      absl::MutexLock lock(&mu);
      bound = bound_at.size();
    }
    if (bound >= static_cast<size_t>(args.pods)) break;
    if (sched && !sched->Running()) {
      std::fprintf(stderr, "scheduler exited:\n%s\n", sched->LogTail().c_str());
      break;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  if (sched) sched->Stop(absl::Seconds(5));
  bind_stop.request_stop();
  if (binder.joinable()) binder.join();
  stop.request_stop();
  watcher.join();

  absl::MutexLock lock(&mu);
  std::vector<double> create_to_bound, start_to_bound;
  absl::Time first = absl::InfiniteFuture(), last = absl::InfinitePast();
  std::set<std::string> nodes_used;
  for (const auto& [name, t] : bound_at) {
    create_to_bound.push_back(absl::ToDoubleSeconds(t - created[name]));
    start_to_bound.push_back(absl::ToDoubleSeconds(t - start));
    first = std::min(first, t);
    last = std::max(last, t);
    nodes_used.insert(node_of[name]);
  }
  const double total_s = bound_at.empty() ? 0 : absl::ToDoubleSeconds(last - start);
  const double binding_s = bound_at.empty() ? 0 : absl::ToDoubleSeconds(last - first);
  std::printf(
      "{\"label\":\"%s\",\"nodes\":%d,\"pods\":%d,\"bound\":%zu,\"start_to_all_bound_s\":%.2f,"
      "\"pods_per_s\":%.1f,\"first_to_last_bind_s\":%.2f,\"pods_per_s_while_binding\":%.1f,"
      "\"p50_create_to_bound_s\":%.2f,\"p99_create_to_bound_s\":%.2f,"
      "\"p50_start_to_bound_s\":%.2f,\"p99_start_to_bound_s\":%.2f,\"nodes_used\":%zu}\n",
      args.label.c_str(), args.nodes, args.pods, bound_at.size(), total_s,
      total_s > 0 ? bound_at.size() / total_s : 0.0, binding_s,
      binding_s > 0 ? bound_at.size() / binding_s : 0.0, Percentile(create_to_bound, 0.5),
      Percentile(create_to_bound, 0.99), Percentile(start_to_bound, 0.5),
      Percentile(start_to_bound, 0.99), nodes_used.size());
  std::fflush(stdout);
  return bound_at.size() == static_cast<size_t>(args.pods) ? 0 : 2;
}

}  // namespace
}  // namespace trimaran::e2e

int main(int argc, char** argv) {
  trimaran::e2e::Args args;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bind-ceiling" && i + 1 < argc) {
      if (!absl::SimpleAtoi(argv[++i], &args.bind_ceiling_threads) ||
          args.bind_ceiling_threads <= 0) {
        std::fprintf(stderr, "bad value for --bind-ceiling: %s\n", argv[i]);
        return 1;
      }
      continue;
    }
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value for %s\n", a.c_str());
      return 1;
    }
    std::string v = argv[++i];
    bool ok = true;
    if (a == "--label") {
      args.label = v;
    } else if (a == "--nodes") {
      ok = absl::SimpleAtoi(v, &args.nodes);
    } else if (a == "--pods") {
      ok = absl::SimpleAtoi(v, &args.pods);
    } else if (a == "--scheduler-name") {
      args.scheduler_name = v;
    } else if (a == "--timeout") {
      ok = absl::SimpleAtoi(v, &args.timeout_s);
    } else if (a == "--workload") {
      args.workload = v;
      ok = v == "plain" || v == "anti-affinity" || v == "spread";
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 1;
    }
    if (!ok) {
      std::fprintf(stderr, "bad value for %s: %s\n", a.c_str(), v.c_str());
      return 1;
    }
  }
  for (; i < argc; ++i) args.command.push_back(argv[i]);
  if (args.command.empty() == (args.bind_ceiling_threads == 0)) {
    std::fprintf(stderr,
                 "usage: sidebyside_driver [--label L] [--nodes N] [--pods P] "
                 "[--scheduler-name S] [--timeout SECONDS] "
                 "[--workload plain|anti-affinity|spread] (-- COMMAND ARGS... | --bind-ceiling "
                 "THREADS)\n");
    return 1;
  }
  return trimaran::e2e::Main(args);
}
