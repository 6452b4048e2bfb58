#include "scheduler/explain/fixed_metrics.h"

#include "gtest/gtest.h"

namespace trimaran::sched::explain {
namespace {

lw::WatcherMetrics Snapshot(absl::string_view window, double cpu) {
  lw::WatcherMetrics m;
  m.timestamp = 1700000000;
  m.window = {std::string(window), m.timestamp - lw::WindowSeconds(window), m.timestamp};
  lw::NodeMetrics n;
  n.metrics.push_back({"", std::string(lw::kTypeCpu), std::string(lw::kOpAvg), "", cpu});
  m.data.node_metrics_map.emplace("n1", std::move(n));
  return m;
}

double Cpu(FixedMetricsClient& client, absl::string_view window) {
  lw::MetricsRequest request;
  request.window = std::string(window);
  absl::StatusOr<lw::WatcherMetricsPtr> m = client.GetLatestMetrics(request);
  EXPECT_TRUE(m.ok()) << m.status();
  return (*m)->data.node_metrics_map.at("n1").metrics.front().value;
}

TEST(FixedMetricsClient, EachWindowGetsItsOwnSnapshotWithTheWatchersFallback) {
  FixedMetricsClient client(Snapshot(lw::kWindow15m, 1));
  EXPECT_EQ(Cpu(client, "5m"), 1);  // one snapshot for every window
  client.SetByWindow({{"15m", Snapshot(lw::kWindow15m, 15)},
                      {"10m", Snapshot(lw::kWindow10m, 10)},
                      {"5m", Snapshot(lw::kWindow5m, 5)}});
  EXPECT_EQ(Cpu(client, "15m"), 15);
  EXPECT_EQ(Cpu(client, ""), 15);
  EXPECT_EQ(Cpu(client, "10m"), 10);
  EXPECT_EQ(Cpu(client, "5m"), 5);
  // 15m falls back to 10m, never to 5m; 10m to 5m.
  client.SetByWindow({{"10m", Snapshot(lw::kWindow10m, 10)}, {"5m", Snapshot(lw::kWindow5m, 5)}});
  EXPECT_EQ(Cpu(client, "15m"), 10);
  client.SetByWindow({{"5m", Snapshot(lw::kWindow5m, 5)}});
  EXPECT_EQ(Cpu(client, "10m"), 5);
  EXPECT_EQ(Cpu(client, "15m"), 15);  // nothing in its order: the default (the last 15m)
  // Set() serves one snapshot to every window again.
  client.Set(Snapshot(lw::kWindow15m, 2));
  EXPECT_EQ(Cpu(client, "5m"), 2);
}

}  // namespace
}  // namespace trimaran::sched::explain
