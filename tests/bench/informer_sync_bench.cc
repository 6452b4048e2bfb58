// Benchmark: initial sync of N pods (default 10,000) from a real kube-apiserver.
//
//   informer_sync_bench [N]
//
// Starts etcd + kube-apiserver on 127.0.0.1 (tests/e2e/harness), creates N pods, then
// runs the pod informer in a fresh child process (so its peak RSS is the informer's
// own, not the loader's) and prints one JSON line:
//   {"pods":10000,"create_seconds":...,"sync_seconds":...,"peak_rss_mb":...}
// Results are recorded in docs/benchmarks.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "kube/informer.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/control_plane.h"

namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "informer_sync_bench: %s\n", s.ToString().c_str());
  return 1;
}

// Child: sync an informer from `kubeconfig`, expecting `n` pods.
int Sync(const char* kubeconfig, int n) {
  auto config = trimaran::kube::LoadKubeconfig(kubeconfig);
  if (!config.ok()) return Fail(config.status());
  config->qps = 0;
  auto client = trimaran::kube::RestClient::Create(*config, trimaran::RealClock::Get());
  if (!client.ok()) return Fail(client.status());
  absl::Time start = absl::Now();
  trimaran::kube::Informer<trimaran::kube::Pod> informer(trimaran::kube::PodListerWatcher(**client),
                                                         trimaran::RealClock::Get());
  informer.store().AddIndex(trimaran::kube::kPodsByNodeIndex, trimaran::kube::PodNodeIndexFunc);
  informer.Start();
  if (!informer.WaitForSync(absl::Minutes(5))) return Fail(absl::DeadlineExceededError("sync"));
  double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  size_t size = informer.store().Size();
  informer.Stop();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("\"sync_seconds\":%.3f,\"synced_pods\":%zu,\"peak_rss_mb\":%.1f", seconds, size,
              ru.ru_maxrss / 1024.0);
  return size == static_cast<size_t>(n) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--sync") return Sync(argv[2], std::atoi(argv[3]));
  int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  auto cp = trimaran::e2e::ControlPlane::Start();
  if (!cp.ok()) return Fail(cp.status());
  auto kubeconfig = (*cp)->WriteKubeconfig();
  if (!kubeconfig.ok()) return Fail(kubeconfig.status());
  auto config = trimaran::kube::LoadKubeconfig(*kubeconfig);
  if (!config.ok()) return Fail(config.status());
  config->qps = 0;
  auto client = trimaran::kube::RestClient::Create(*config, trimaran::RealClock::Get());
  if (!client.ok()) return Fail(client.status());

  absl::Time start = absl::Now();
  std::atomic<int> next{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        auto pod = trimaran::kube::testing::MakePod()
                       .Name(absl::StrCat("bench-", i))
                       .Namespace("default")
                       .Label("app", absl::StrCat("app-", i % 50))
                       .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                       .Obj();
        absl::Status st;
        for (int attempt = 0; attempt < 5; ++attempt) {
          st = (*client)->CreatePod(pod).status();
          if (st.ok()) break;
          absl::SleepFor(absl::Milliseconds(200));
        }
        if (!st.ok()) {
          if (failures++ == 0) std::fprintf(stderr, "create failed: %s\n", st.ToString().c_str());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failures > 0)
    return Fail(absl::InternalError(absl::StrCat(failures.load(), " creates failed")));
  double create_seconds = absl::ToDoubleSeconds(absl::Now() - start);

  std::printf("{\"pods\":%d,\"create_seconds\":%.2f,", n, create_seconds);
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", argv[0], "--sync", kubeconfig->c_str(), std::to_string(n).c_str(),
          nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("}\n");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
