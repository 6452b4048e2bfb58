// Soak benchmark (issue 14): pod churn against the real kube-apiserver for a long time,
// the scheduler's RSS sampled as it goes, every pod accounted for.
//
//   [TRIMARAN_SCHEDULER_BIN=...] soak_bench [--minutes=30] [--rate=35] [--live=2000] [--nodes=50]
//   [--sample_seconds=60] [--warmup_minutes=10] [--max_slope_mb_per_hour=5]
//   [--min_slope_window_minutes=10]
//
// Starts etcd + kube-apiserver 1.37 on 127.0.0.1 (tests/e2e/harness), `nodes` nodes of
// 8 CPU / 32Gi, and the real trimaran-scheduler (default profile, leader election off).
// For `minutes`, creators POST `rate` pods per second (100m / 128Mi, schedulerName
// trimaran); once a second the driver lists the namespace, notes every pod it sees bound
// and deletes (grace 0: no kubelet runs here) the oldest bound pods beyond `live`, so
// the scheduler's cache keeps `live` pods while tens of thousands pass through it. The
// scheduler's VmRSS is sampled every `sample_seconds`. At the end creation stops, the
// driver waits for the rest to bind and checks the accounting:
//
//   created == deleted + remaining, every remaining pod bound, every pod seen bound, and
//   the scheduler's scheduler_schedule_attempts_total{result="scheduled"} == created
//   (no pod scheduled twice, none missed).
//
// It prints one line per sample ("minute 3 rss_mb 61.2 created ...") and a JSON summary
// with the least-squares RSS slope (MB per hour) over the samples after the warm-up
// (`warmup_minutes`) and over all of them. Exit 0 only when the accounting holds and the
// slope after the warm-up is at most `max_slope_mb_per_hour` (a leak fails the soak);
// the slope is asserted when the samples after the warm-up span at least
// `min_slope_window_minutes` (a shorter window measures noise, not an hourly trend: the
// JSON then says "rss_slope_checked":false). The figures are recorded in
// docs/benchmarks.md; ctest runs it for 40 s (bench-smoke: the accounting only).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/proc_metrics.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

struct Flags {
  double minutes = 30;
  double rate = 35;  // pods created per second
  int live = 2000;   // bound pods kept before the oldest are deleted
  int nodes = 50;
  int sample_seconds = 60;
  // The event recorder's dedup memory fills its 10-minute window first (one key per
  // pod): growth that stops, not a leak.
  double warmup_minutes = 10;
  double max_slope_mb_per_hour = 5;
  double min_slope_window_minutes = 10;
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> kv = absl::StrSplit(argv[i], absl::MaxSplits('=', 1));
    bool ok = kv.size() == 2;
    if (ok && kv[0] == "--minutes") {
      ok = absl::SimpleAtod(kv[1], &f->minutes) && f->minutes > 0;
    } else if (ok && kv[0] == "--rate") {
      ok = absl::SimpleAtod(kv[1], &f->rate) && f->rate > 0;
    } else if (ok && kv[0] == "--live") {
      ok = absl::SimpleAtoi(kv[1], &f->live) && f->live >= 0;
    } else if (ok && kv[0] == "--nodes") {
      ok = absl::SimpleAtoi(kv[1], &f->nodes) && f->nodes > 0;
    } else if (ok && kv[0] == "--sample_seconds") {
      ok = absl::SimpleAtoi(kv[1], &f->sample_seconds) && f->sample_seconds > 0;
    } else if (ok && kv[0] == "--warmup_minutes") {
      ok = absl::SimpleAtod(kv[1], &f->warmup_minutes) && f->warmup_minutes >= 0;
    } else if (ok && kv[0] == "--max_slope_mb_per_hour") {
      ok = absl::SimpleAtod(kv[1], &f->max_slope_mb_per_hour);
    } else if (ok && kv[0] == "--min_slope_window_minutes") {
      ok =
          absl::SimpleAtod(kv[1], &f->min_slope_window_minutes) && f->min_slope_window_minutes >= 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "soak_bench: bad flag %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

// Index of "soak-<i>".
int PodIndex(const std::string& name) {
  int i = -1;
  return absl::SimpleAtoi(absl::string_view(name).substr(5), &i) ? i : -1;
}

// Least-squares slope of y over x.
double Slope(const std::vector<std::pair<double, double>>& xy) {
  if (xy.size() < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : xy) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double n = static_cast<double>(xy.size());
  const double den = n * sxx - sx * sx;
  return den == 0 ? 0 : (n * sxy - sx * sy) / den;
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "soak_bench: %s\n", s.ToString().c_str());
  return 1;
}

int Run(const Flags& flags) {
  auto cluster = Cluster::Start();
  if (!cluster.ok()) return Fail(cluster.status());
  Cluster& c = **cluster;
  if (absl::Status s =
          c.AddNodes(NumberedNames("node", flags.nodes), {.cpu = "8", .memory = "32Gi"}, 8);
      !s.ok()) {
    return Fail(s);
  }
  // $TRIMARAN_SCHEDULER_BIN runs another build of the scheduler (e.g. a copy, so that
  // rebuilding the tree during a 30-minute soak does not touch the binary under test).
  const char* bin_env = std::getenv("TRIMARAN_SCHEDULER_BIN");
  auto sched =
      StartSchedulerProcess({.binary = bin_env != nullptr ? bin_env : TRIMARAN_SCHEDULER_BIN,
                             .dir = c.control_plane().dir(),
                             .tag = "soak",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = c.kubeconfig()});
  if (!sched.ok()) return Fail(sched.status());
  const pid_t pid = sched->process->pid();
  const std::string metrics_url =
      absl::StrCat("https://127.0.0.1:", sched->secure_port, "/metrics");

  // The clock starts once the scheduler is ready (informers synced).
  const absl::Time ready_deadline = absl::Now() + absl::Seconds(60);
  for (int status = 0; status != 200;) {
    Curl(absl::StrCat("https://127.0.0.1:", sched->secure_port, "/readyz"), &status);
    if (status != 200 && absl::Now() > ready_deadline) {
      return Fail(absl::DeadlineExceededError("the scheduler was not ready within 60 s"));
    }
    if (status != 200) absl::SleepFor(absl::Milliseconds(200));
  }

  std::atomic<int> next{0};
  std::atomic<int> create_failures{0};
  std::atomic<bool> creating{true};
  const absl::Time start = absl::Now();
  const absl::Time end = start + absl::Seconds(flags.minutes * 60);
  // Four creators, each pacing its share of `rate` against the clock.
  std::vector<std::thread> creators;
  constexpr int kCreators = 4;
  for (int t = 0; t < kCreators; ++t) {
    creators.emplace_back([&, t] {
      const double per_second = flags.rate / kCreators;
      int64_t mine = 0;
      while (creating.load() && absl::Now() < end) {
        const double due = absl::ToDoubleSeconds(absl::Now() - start) * per_second;
        if (static_cast<double>(mine) >= due) {
          absl::SleepFor(absl::Milliseconds(10));
          continue;
        }
        const int i = next.fetch_add(1);
        const kube::Pod pod = kube::testing::MakePod()
                                  .Name(absl::StrCat("soak-", i))
                                  .Namespace("default")
                                  .SchedulerName("trimaran")
                                  .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                                  .Obj();
        absl::Status s;
        for (int attempt = 0; attempt < 5; ++attempt) {
          s = c.client().CreatePod(pod).status();
          if (s.ok() || absl::IsAlreadyExists(s)) break;
          absl::SleepFor(absl::Milliseconds(100));
        }
        if (!s.ok() && !absl::IsAlreadyExists(s)) {
          create_failures.fetch_add(1);
          std::fprintf(stderr, "create %s: %s\n", pod.metadata.name.c_str(), s.ToString().c_str());
        }
        ++mine;
      }
    });
  }
  auto stop_creators = [&] {
    creating.store(false);
    for (std::thread& t : creators) t.join();
    creators.clear();
  };

  std::set<int> seen_bound;  // every pod index ever seen bound
  std::set<int> deleted;
  int delete_failures = 0;
  std::vector<std::pair<double, double>> samples;  // (minutes, RSS MB)
  absl::Time next_sample = start;
  int pending = 0, remaining = 0;
  auto tick = [&]() -> absl::Status {
    auto list = c.client().ListPods("default", {});
    if (!list.ok()) return list.status();
    std::vector<int> bound;
    pending = 0;
    remaining = static_cast<int>(list->items.size());
    for (const kube::Pod& p : list->items) {
      const int i = PodIndex(p.metadata.name);
      if (p.spec.node_name.empty()) {
        ++pending;
      } else {
        bound.push_back(i);
        seen_bound.insert(i);
      }
    }
    std::sort(bound.begin(), bound.end());
    const int excess = static_cast<int>(bound.size()) - flags.live;
    for (int k = 0; k < excess && creating.load(); ++k) {
      absl::StatusOr<std::string> r =
          c.client().Raw("DELETE", absl::StrCat("/api/v1/namespaces/default/pods/soak-", bound[k]),
                         R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})",
                         "application/json");
      if (r.ok() || absl::IsNotFound(r.status())) {
        deleted.insert(bound[k]);
      } else {
        ++delete_failures;
      }
    }
    return absl::OkStatus();
  };

  while (absl::Now() < end) {
    const absl::Time t0 = absl::Now();
    if (absl::Status s = tick(); !s.ok()) std::fprintf(stderr, "list: %s\n", s.ToString().c_str());
    if (t0 >= next_sample) {
      const double minutes = absl::ToDoubleMinutes(t0 - start);
      const double rss_mb = ProcStatusKb(pid, "VmRSS") / 1024.0;
      samples.emplace_back(minutes, rss_mb);
      std::printf("minute %.1f rss_mb %.1f created %d seen_bound %zu deleted %zu pending %d\n",
                  minutes, rss_mb, next.load(), seen_bound.size(), deleted.size(), pending);
      std::fflush(stdout);
      next_sample += absl::Seconds(flags.sample_seconds);
    }
    absl::SleepFor(std::max(absl::ZeroDuration(), absl::Seconds(1) - (absl::Now() - t0)));
  }
  stop_creators();
  const int created = next.load() - create_failures.load();
  const double churn_seconds = absl::ToDoubleSeconds(absl::Now() - start);

  // Drain: every remaining pod bound within 2 minutes.
  const absl::Time drain_deadline = absl::Now() + absl::Minutes(2);
  do {
    absl::SleepFor(absl::Seconds(1));
    if (absl::Status s = tick(); !s.ok()) return Fail(s);
  } while (pending > 0 && absl::Now() < drain_deadline);
  samples.emplace_back(absl::ToDoubleMinutes(absl::Now() - start),
                       ProcStatusKb(pid, "VmRSS") / 1024.0);

  const double scheduled =
      SumSamples(Curl(metrics_url), "scheduler_schedule_attempts_total", {R"(result="scheduled")"});
  const double failed_attempts =
      SumSamples(Curl(metrics_url), "scheduler_schedule_attempts_total", {R"(result="error")"}) +
      SumSamples(Curl(metrics_url), "scheduler_schedule_attempts_total",
                 {R"(result="unschedulable")"});
  std::vector<std::pair<double, double>> steady;
  for (auto s : samples) {
    if (s.first >= flags.warmup_minutes) steady.push_back(s);
  }
  const double slope_steady = Slope(steady) * 60;  // MB per hour
  const double slope_all = Slope(samples) * 60;
  double rss_min = 1e18, rss_max = 0;
  for (auto [m, r] : (steady.empty() ? samples : steady)) {
    rss_min = std::min(rss_min, r), rss_max = std::max(rss_max, r);
  }
  const bool accounted = created == static_cast<int>(deleted.size()) + remaining && pending == 0 &&
                         static_cast<int>(seen_bound.size()) == created && scheduled == created &&
                         create_failures.load() == 0 && delete_failures == 0;
  const double window =
      steady.size() >= 2 ? steady.back().first - steady.front().first : 0;  // minutes
  const bool slope_checked = steady.size() >= 3 && window >= flags.min_slope_window_minutes;
  const bool slope_ok = !slope_checked || slope_steady <= flags.max_slope_mb_per_hour;
  std::printf(
      "{\"minutes\":%.2f,\"created\":%d,\"deleted\":%zu,\"remaining\":%d,\"pending\":%d,"
      "\"seen_bound\":%zu,\"scheduled_attempts\":%.0f,\"failed_attempts\":%.0f,"
      "\"create_failures\":%d,\"delete_failures\":%d,\"pods_per_second\":%.1f,"
      "\"rss_samples\":%zu,\"rss_mb_min\":%.1f,\"rss_mb_max\":%.1f,"
      "\"rss_slope_mb_per_hour_after_warmup\":%.2f,\"rss_slope_mb_per_hour_all\":%.2f,"
      "\"rss_slope_window_minutes\":%.1f,\"rss_slope_checked\":%s,"
      "\"max_slope_mb_per_hour\":%.2f,\"peak_rss_mb\":%.1f,\"accounted\":%s}\n",
      churn_seconds / 60, created, deleted.size(), remaining, pending, seen_bound.size(), scheduled,
      failed_attempts, create_failures.load(), delete_failures, created / churn_seconds,
      samples.size(), rss_min, rss_max, slope_steady, slope_all, window,
      slope_checked ? "true" : "false", flags.max_slope_mb_per_hour,
      ProcStatusKb(pid, "VmHWM") / 1024.0, accounted ? "true" : "false");
  if (!accounted) {
    std::fprintf(stderr, "soak_bench: accounting failed; scheduler log %s\n",
                 sched->process->log_path().c_str());
  }
  if (!slope_ok) {
    std::fprintf(stderr,
                 "soak_bench: RSS grows %.2f MB/h after the warm-up (over %.1f minutes), more "
                 "than %.2f MB/h; scheduler log %s\n",
                 slope_steady, window, flags.max_slope_mb_per_hour,
                 sched->process->log_path().c_str());
  } else if (!slope_checked) {
    std::fprintf(stderr,
                 "soak_bench: RSS slope not asserted: %zu samples over %.1f minutes after the "
                 "warm-up (needs >= 3 over %.1f)\n",
                 steady.size(), window, flags.min_slope_window_minutes);
  }
  return accounted && slope_ok ? 0 : 1;
}

}  // namespace
}  // namespace trimaran::e2e

int main(int argc, char** argv) {
  trimaran::e2e::Flags flags;
  if (!trimaran::e2e::ParseFlags(argc, argv, &flags)) return 2;
  return trimaran::e2e::Run(flags);
}
