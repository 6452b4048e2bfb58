#include "loadwatcher/watcher.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"

namespace trimaran::lw {

#define TRIMARAN_LOADWATCHER_STATS(COUNTER, GAUGE, HISTOGRAM)                                     \
  HISTOGRAM(fetch_duration_seconds, "Time of one provider fetch of one window.",                  \
            ("provider", "window"), ::trimaran::stats::ExponentialBuckets(0.01, 2, 12))           \
  COUNTER(fetches_total,                                                                          \
          "Provider fetches by window and result (ok, partial, "                                  \
          "error).",                                                                              \
          ("provider", "window", "result"))                                                       \
  COUNTER(fetch_errors_total,                                                                     \
          "Failed provider fetches plus errors reported alongside partial data.", ("provider"))   \
  COUNTER(dropped_metrics_total, "Metrics dropped for a non-finite value.", ("provider"))         \
  GAUGE(nodes, "Nodes in the last good snapshot, with and without metrics.", ("window", "state")) \
  GAUGE(node_utilisation_ratio,                                                                   \
        "A node's utilisation in the window's last good snapshot (provider percentage / 100).",   \
        ("node", "resource", "window", "operator"))

struct Watcher::Stats {
  TRIMARAN_LOADWATCHER_STATS(TRIMARAN_STATS_COUNTER_MEMBER, TRIMARAN_STATS_GAUGE_MEMBER,
                             TRIMARAN_STATS_HISTOGRAM_MEMBER)
  stats::Family<stats::CallbackGauge>& age;
};

const std::vector<std::string>& Watcher::Windows() {
  static const auto* const kWindows = new std::vector<std::string>{
      std::string(kWindow15m), std::string(kWindow10m), std::string(kWindow5m)};
  return *kWindows;
}

Watcher::Watcher(MetricsProvider& provider, const Clock& clock, const stats::Scope& scope,
                 WatcherOptions options)
    : provider_(provider),
      clock_(clock),
      options_(std::move(options)),
      provider_name_(provider.Name()),
      stats_(new Stats{TRIMARAN_LOADWATCHER_STATS(TRIMARAN_STATS_COUNTER_INIT(scope),
                                                  TRIMARAN_STATS_GAUGE_INIT(scope),
                                                  TRIMARAN_STATS_HISTOGRAM_INIT(scope))
                           scope.CallbackGaugeFamily(
                               "metrics_age_seconds",
                               "Seconds since the last good fetch of the window (-1: none).",
                               {"window"})}) {
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& w : Windows()) {
      WindowState state;
      state.name = w;
      state.seconds = WindowSeconds(w);
      state.status.window = w;
      windows_.push_back(std::move(state));
    }
  }
  // Outside mu_: the scrape path takes the callback's lock, then mu_.
  for (const std::string& w : Windows()) {
    stats_->age.WithLabels({w}).Set([this, w]() -> double {
      absl::ReaderMutexLock reader_lock(&mu_);
      const WindowState* state = FindWindow(w);
      if (state == nullptr || state->history.empty()) return -1;
      return absl::ToDoubleSeconds(clock_.Now() - state->history.back().fetch_time);
    });
  }
}

Watcher::~Watcher() {
  for (const std::string& w : Windows()) stats_->age.WithLabels({w}).Clear();
}

const Watcher::WindowState* Watcher::FindWindow(absl::string_view window) const {
  for (const WindowState& state : windows_) {
    if (state.name == window) return &state;
  }
  return nullptr;
}

absl::Status Watcher::FetchOnce() {
  absl::MutexLock fetch_lock(&fetch_mu_);
  absl::Status first_error;
  for (size_t i = 0; i < Windows().size(); ++i) {
    absl::Status s = FetchWindow(i);
    if (!s.ok() && first_error.ok()) first_error = std::move(s);
  }
  return first_error;
}

absl::Status Watcher::FetchWindow(size_t index) {
  const std::string& name = Windows()[index];
  const int64_t seconds = WindowSeconds(name);
  const absl::Time start_time = clock_.Now();
  const int64_t now_s = absl::ToUnixSeconds(start_time);
  Window window{name, now_s - seconds, now_s};

  absl::StatusOr<HostsMetrics> result = provider_.FetchAllHostsMetrics(window);
  const absl::Time end_time = clock_.Now();
  stats_->fetch_duration_seconds.WithLabels({provider_name_, name})
      .Observe(absl::ToDoubleSeconds(end_time - start_time));

  if (!result.ok()) {
    absl::Status error =
        Annotate(result.status(), absl::StrCat("fetch window ", name, " from ", provider_name_));
    stats_->fetches_total.WithLabels({provider_name_, name, "error"}).Inc();
    stats_->fetch_errors_total.WithLabels({provider_name_}).Inc();
    Log(Component::kLoadWatcher)
        .warn("fetch failed; keeping the last good snapshot provider={} window={} err=\"{}\"",
              provider_name_, name, error.message());
    absl::MutexLock lock(&mu_);
    WindowStatus& status = windows_[index].status;
    ++status.fetches;
    ++status.failed_fetches;
    ++status.consecutive_failures;
    status.last_error = error;
    return error;
  }

  auto snapshot = std::make_shared<WatcherMetrics>();
  snapshot->timestamp = absl::ToUnixSeconds(end_time);
  snapshot->window = std::move(window);
  snapshot->source = provider_name_;
  snapshot->data.node_metrics_map = std::move(result->nodes);
  int64_t dropped = 0;
  int64_t with_data = 0;
  int64_t without_data = 0;
  for (auto& [host, node] : snapshot->data.node_metrics_map) {
    const size_t before = node.metrics.size();
    std::erase_if(node.metrics, [](const Metric& m) { return !std::isfinite(m.value); });
    dropped += static_cast<int64_t>(before - node.metrics.size());
    (node.metrics.empty() ? without_data : with_data) += 1;
  }
  if (dropped > 0) {
    stats_->dropped_metrics_total.WithLabels({provider_name_}).Add(dropped);
    Log(Component::kLoadWatcher)
        .warn("dropped metrics with non-finite values provider={} window={} count={}",
              provider_name_, name, dropped);
  }
  const auto partial = static_cast<int64_t>(result->partial_errors.size());
  absl::Status partial_error;
  if (partial > 0) {
    partial_error = Annotate(result->partial_errors.front(),
                             absl::StrCat("fetch window ", name, " from ", provider_name_,
                                          " (partial, ", partial, " errors)"));
    stats_->fetch_errors_total.WithLabels({provider_name_}).Add(partial);
    for (const absl::Status& e : result->partial_errors) {
      Log(Component::kLoadWatcher)
          .warn("partial fetch; keeping the data that arrived provider={} window={} err=\"{}\"",
                provider_name_, name, e.message());
    }
  }
  stats_->fetches_total.WithLabels({provider_name_, name, partial > 0 ? "partial" : "ok"}).Inc();
  stats_->nodes.WithLabels({name, "with_data"}).Set(static_cast<double>(with_data));
  stats_->nodes.WithLabels({name, "without_data"}).Set(static_cast<double>(without_data));
  ExportNodeUtilisation(index, *snapshot);

  absl::MutexLock lock(&mu_);
  WindowState& state = windows_[index];
  state.history.push_back(Snapshot{std::move(snapshot), end_time});
  while (state.history.size() > static_cast<size_t>(std::max(1, options_.history_size))) {
    state.history.pop_front();
  }
  ++state.status.fetches;
  state.status.partial_errors += partial;
  state.status.consecutive_failures = 0;
  state.status.last_good_fetch = end_time;
  state.status.last_error = partial_error;
  ++generation_;
  return absl::OkStatus();
}

void Watcher::ExportNodeUtilisation(size_t index, const WatcherMetrics& snapshot) {
  const std::string& window = Windows()[index];
  if (exported_series_.size() < Windows().size()) exported_series_.resize(Windows().size());
  std::vector<std::array<std::string, 3>> now;  // {node, resource, operator}
  for (const auto& [host, node] : snapshot.data.node_metrics_map) {
    for (const Metric& m : node.metrics) {
      std::array<std::string, 3> key{host, absl::AsciiStrToLower(m.type), m.op};
      stats_->node_utilisation_ratio.WithLabels({key[0], key[1], window, key[2]})
          .Set(m.value / 100.0);
      now.push_back(std::move(key));
    }
  }
  std::sort(now.begin(), now.end());
  for (const std::array<std::string, 3>& old : exported_series_[index]) {
    if (!std::binary_search(now.begin(), now.end(), old)) {
      stats_->node_utilisation_ratio.Remove({old[0], old[1], window, old[2]});
    }
  }
  exported_series_[index] = std::move(now);
}

void Watcher::Run(std::stop_token stop) {
  Log(Component::kLoadWatcher)
      .info("watching provider={} interval={}", provider_name_,
            absl::FormatDuration(options_.fetch_interval));
  while (!stop.stop_requested()) {
    const absl::Time tick = clock_.Now();
    // Errors are logged and counted in FetchWindow.
    (void)FetchOnce();
    if (!clock_.SleepUntil(tick + options_.fetch_interval, stop)) break;
  }
}

absl::StatusOr<Snapshot> Watcher::Latest(absl::string_view window) const {
  // Upstream's fallback order (spec §5.4): 15m -> 10m, 10m -> 5m, 5m alone.
  std::vector<absl::string_view> order;
  if (window == kWindow15m) {
    order = {kWindow15m, kWindow10m};
  } else if (window == kWindow10m) {
    order = {kWindow10m, kWindow5m};
  } else if (window == kWindow5m) {
    order = {kWindow5m};
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown window \"", window, "\" (want 15m, 10m or 5m)"));
  }
  absl::ReaderMutexLock lock(&mu_);
  for (absl::string_view w : order) {
    const WindowState* state = FindWindow(w);
    if (state != nullptr && !state->history.empty()) return state->history.back();
  }
  return absl::UnavailableError(absl::StrCat("unable to get any latest metrics for window ", window,
                                             " (no successful fetch yet)"));
}

std::vector<Snapshot> Watcher::History(absl::string_view window) const {
  absl::ReaderMutexLock lock(&mu_);
  const WindowState* state = FindWindow(window);
  if (state == nullptr) return {};
  return {state->history.begin(), state->history.end()};
}

bool Watcher::HasData() const {
  absl::ReaderMutexLock lock(&mu_);
  for (const WindowState& state : windows_) {
    if (!state.history.empty()) return true;
  }
  return false;
}

std::vector<WindowStatus> Watcher::Status() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<WindowStatus> out;
  out.reserve(windows_.size());
  for (const WindowState& state : windows_) out.push_back(state.status);
  return out;
}

uint64_t Watcher::generation() const {
  absl::ReaderMutexLock lock(&mu_);
  return generation_;
}

uint64_t Watcher::AwaitGeneration(uint64_t seen, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto advanced = [this, seen]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return generation_ > seen; };
  mu_.AwaitWithTimeout(absl::Condition(&advanced), timeout);
  return generation_;
}

}  // namespace trimaran::lw
