#include "kube/informer_stats.h"

#include "common/stats/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(InformerStatsTest, ExportsTheCountersAtScrapeTimeUntilDestroyed) {
  stats::Registry registry;
  const stats::Scope scope(registry, "trimaran_informer_");
  InformerCounters pods;
  InformerCounters nodes;
  {
    InformerStats pod_stats(scope, "pods", pods);
    InformerStats node_stats(scope, "nodes", nodes);
    pods.events += 7;
    pods.watch_errors += 2;
    nodes.relists_gone += 1;
    pods.short_watches += 3;
    pods.list_restarts += 4;
    nodes.resource_version_regressions += 5;
    pods.decode_errors += 3;
    const std::string text = registry.PrometheusText();
    EXPECT_THAT(text, HasSubstr("trimaran_informer_events_total{resource=\"pods\"} 7\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_events_total{resource=\"nodes\"} 0\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_watch_errors_total{resource=\"pods\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_relists_total{resource=\"nodes\"} 1\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_short_watches_total{resource=\"pods\"} 3\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_list_restarts_total{resource=\"pods\"} 4\n"));
    EXPECT_THAT(text,
                HasSubstr("trimaran_informer_resource_version_regressions_total{resource=\"nodes\"}"
                          " 5\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_decode_errors_total{resource=\"pods\"} 3\n"));
    EXPECT_THAT(text, HasSubstr("trimaran_informer_decode_errors_total{resource=\"nodes\"} 0\n"));
  }
  EXPECT_THAT(registry.PrometheusText(), Not(HasSubstr("trimaran_informer_")));
}

}  // namespace
}  // namespace trimaran::kube
