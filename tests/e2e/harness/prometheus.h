#pragma once
// A real Prometheus for e2e tests and benchmarks, loaded with a known history
// (recipe: ../shared/testenv.md, "A real Prometheus"):
//
//   1. the samples are written as OpenMetrics (one family per metric name, series in
//      timestamp order, "# EOF"),
//   2. `promtool tsdb create-blocks-from openmetrics FILE DATA` turns them into blocks,
//   3. `prometheus --storage.tsdb.path=DATA --web.listen-address=127.0.0.1:PORT` starts
//      on a free port with no scrape targets, and Start returns once GET /-/ready is 200.
//
// Binaries come from PATH (Debian's `prometheus` package, tools/setup.sh --e2e);
// Available() tells tests to GTEST_SKIP when they are absent. Everything lives in a
// fresh temporary directory removed by the destructor; the process dies with the test
// (Subprocess).
//
// Thread-safety: externally synchronized (one owner).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {

// One sample of one series.
struct PromSample {
  std::string metric;                         // "instance:node_cpu:ratio"
  std::map<std::string, std::string> labels;  // {"instance": "node-a"}
  int64_t unix_seconds = 0;
  double value = 0;
};

class Prometheus {
 public:
  // True when both `prometheus` and `promtool` are on PATH.
  static bool Available();

  // Imports `history` and starts Prometheus. FailedPrecondition when a step fails (the
  // message carries the tool's output).
  static absl::StatusOr<std::unique_ptr<Prometheus>> Start(const std::vector<PromSample>& history);
  ~Prometheus();
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;

  // "http://127.0.0.1:PORT".
  const std::string& url() const { return url_; }
  int port() const { return port_; }
  // Kills the server (the backend "disappears"). Idempotent.
  void Stop();
  // Starts it again on the same port and data, waiting for readiness.
  absl::Status Restart();
  std::string LogTail() const;
  // How long the promtool import took (for benchmark reports).
  absl::Duration import_time() const { return import_time_; }

 private:
  Prometheus() = default;
  absl::Status Launch();

  std::string dir_;
  std::string url_;
  int port_ = 0;
  absl::Duration import_time_;
  std::unique_ptr<Subprocess> process_;
};

// Writes `history` as an OpenMetrics text (exposed for the harness' own test).
std::string ToOpenMetrics(const std::vector<PromSample>& history);

}  // namespace trimaran::e2e
