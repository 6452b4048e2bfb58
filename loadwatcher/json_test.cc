#include "loadwatcher/json.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loadwatcher/testing/builders.h"

namespace trimaran::lw {
namespace {

using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::testing::StatusIs;

// The spec §5.2 example (Prometheus provider, one node), as gojay writes it.
constexpr char kPrometheusGolden[] =
    R"({"timestamp":1700000062,"window":{"duration":"15m","start":1699999160,"end":1700000060},)"
    R"("source":"Prometheus","data":{"NodeMetricsMap":{"node-1":{"metrics":[)"
    R"({"name":"instance:node_cpu:ratio","type":"CPU","operator":"AVG","rollup":"15m","value":23.5},)"
    R"({"name":"instance:node_memory_utilisation:ratio","type":"Memory","operator":"AVG","rollup":"15m","value":41.2},)"
    R"({"name":"instance:node_cpu:ratio","type":"CPU","operator":"STD","rollup":"15m","value":4.1},)"
    R"({"name":"instance:node_memory_utilisation:ratio","type":"Memory","operator":"STD","rollup":"15m","value":0.8}],)"
    R"("tags":{},"metadata":{"dataCenter":""}}}}})";

WatcherMetrics PrometheusExample() {
  WatcherMetrics m =
      MakeWatcherMetrics()
          .Source("Prometheus")
          .Node("node-1")
          .Metric("instance:node_cpu:ratio", kTypeCpu, kOpAvg, "15m", 23.5)
          .Metric("instance:node_memory_utilisation:ratio", kTypeMemory, kOpAvg, "15m", 41.2)
          .Metric("instance:node_cpu:ratio", kTypeCpu, kOpStd, "15m", 4.1)
          .Metric("instance:node_memory_utilisation:ratio", kTypeMemory, kOpStd, "15m", 0.8)
          .Obj();
  m.timestamp = 1700000062;
  m.window = {"15m", 1699999160, 1700000060};
  return m;
}

TEST(JsonTest, EncodesSpecExampleByteForByte) {
  EXPECT_EQ(EncodeWatcherMetricsJson(PrometheusExample()), kPrometheusGolden);
}

TEST(JsonTest, DecodesSpecExample) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics m, DecodeWatcherMetricsJson(kPrometheusGolden));
  EXPECT_EQ(m, PrometheusExample());
}

TEST(JsonTest, MetricsServerShapeAndEmptyValues) {
  // Every key present even when empty; empty metrics list is [], empty map is {}.
  WatcherMetrics m = MakeWatcherMetrics()
                         .Source("KubernetesMetricsServer")
                         .Node("a")
                         .Cpu(kOpLatest, 12.5)
                         .Memory(kOpLatest, 26)
                         .Node("b")
                         .Obj();
  const std::string want =
      R"({"timestamp":1700000000,"window":{"duration":"15m","start":1699999100,"end":1700000000},)"
      R"("source":"KubernetesMetricsServer","data":{"NodeMetricsMap":{)"
      R"("a":{"metrics":[{"name":"","type":"CPU","operator":"Latest","rollup":"","value":12.5},)"
      R"({"name":"","type":"Memory","operator":"Latest","rollup":"","value":26}],)"
      R"("tags":{},"metadata":{"dataCenter":""}},)"
      R"("b":{"metrics":[],"tags":{},"metadata":{"dataCenter":""}}}}})";
  EXPECT_EQ(EncodeWatcherMetricsJson(m), want);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics back, DecodeWatcherMetricsJson(want));
  EXPECT_EQ(back, m);

  WatcherMetrics empty = MakeWatcherMetrics().Obj();
  empty.data.node_metrics_map.clear();
  EXPECT_THAT(EncodeWatcherMetricsJson(empty),
              ::testing::HasSubstr(R"("data":{"NodeMetricsMap":{}}})"));
}

TEST(JsonTest, FloatsAreShortestRoundTripWithoutExponent) {
  struct Case {
    double value;
    const char* want;
  };
  const std::vector<Case> cases = {
      {26, "26"},
      {100.0 / 3, "33.333333333333336"},  // Go: strconv.FormatFloat(100.0/3, 'f', -1, 64)
      {1e-7, "0.0000001"},
      {0, "0"},
      {-2.5, "-2.5"},
      {1e21, "1000000000000000000000"},
      {0.1 + 0.2, "0.30000000000000004"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    std::string out;
    AppendJsonDouble(c.value, &out);
    EXPECT_EQ(out, c.want);
  }
}

TEST(JsonTest, DecodesGoEncodingJsonForm) {
  // Go encoding/json: rollup and metrics omitted when empty, "metadata":{}, no tags.
  const std::string go_form =
      R"({"timestamp":1700000000,"window":{"duration":"15m","start":1699999100,"end":1700000000},)"
      R"("source":"KubernetesMetricsServer","data":{"NodeMetricsMap":{)"
      R"("a":{"metrics":[{"name":"","type":"CPU","operator":"Latest","value":12.5}],"tags":{},"metadata":{}},)"
      R"("b":{"tags":{},"metadata":{}}}}})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics m, DecodeWatcherMetricsJson(go_form));
  WatcherMetrics want = MakeWatcherMetrics()
                            .Source("KubernetesMetricsServer")
                            .Node("a")
                            .Cpu(kOpLatest, 12.5)
                            .Node("b")
                            .Obj();
  EXPECT_EQ(m, want);

  // Empty snapshot: "NodeMetricsMap":null.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics empty,
      DecodeWatcherMetricsJson(
          R"({"timestamp":1,"window":{"duration":"5m","start":0,"end":0},"source":"",)"
          R"("data":{"NodeMetricsMap":null}})"));
  EXPECT_TRUE(empty.data.node_metrics_map.empty());
  EXPECT_EQ(empty.window.duration, "5m");
}

TEST(JsonTest, IgnoresUnknownKeysAndIsCaseSensitive) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics m,
      DecodeWatcherMetricsJson(
          R"({"timestamp":5,"extra":[1,2,{"x":null}],"Source":"ignored","data":)"
          R"({"nodeMetricsMap":{"x":{}},"NodeMetricsMap":{"n":{"metrics":[{"value":1,"unit":"%"}],)"
          R"("metadata":{"dataCenter":"dc1","pool":"p"}}}}})"));
  EXPECT_EQ(m.timestamp, 5);
  EXPECT_EQ(m.source, "");  // "Source" is not "source"
  ASSERT_EQ(m.data.node_metrics_map.size(), 1u);
  EXPECT_EQ(m.data.node_metrics_map.at("n").data_center, "dc1");
  EXPECT_EQ(m.data.node_metrics_map.at("n").metrics.at(0).value, 1);
}

TEST(JsonTest, GarbageIsAClearErrorNeverACrash) {
  struct Case {
    const char* name;
    std::string json;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"empty", "", "decode watcher metrics"},
      {"not json", "<html>500</html>", "decode watcher metrics"},
      {"truncated", std::string(kPrometheusGolden).substr(0, 120), "decode watcher metrics"},
      {"trailing garbage", std::string(kPrometheusGolden) + "x", "decode watcher metrics"},
      {"array root", "[1,2]", "$: not an object"},
      {"string timestamp", R"({"timestamp":"now"})", "$.timestamp: not an int64"},
      {"fractional timestamp", R"({"timestamp":1.5})", "$.timestamp: not an int64"},
      {"map not object", R"({"data":{"NodeMetricsMap":[1]}})", "$.data.NodeMetricsMap"},
      {"metrics not array", R"({"data":{"NodeMetricsMap":{"n":{"metrics":{}}}}})",
       "[\"n\"].metrics: not an array"},
      {"value string", R"({"data":{"NodeMetricsMap":{"n":{"metrics":[{"value":"1"}]}}}})",
       "metrics[0].value: not a number"},
      {"type number", R"({"data":{"NodeMetricsMap":{"n":{"metrics":[{"type":1}]}}}})",
       "metrics[0].type: not a string"},
      {"embedded nul", std::string("{\"timestamp\":1}\0", 16), "decode watcher metrics"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(DecodeWatcherMetricsJson(c.json),
                StatusIs(absl::StatusCode::kInternal, ::testing::HasSubstr(c.message)));
  }
}

TEST(JsonTest, EscapesStringsAndRoundTrips) {
  WatcherMetrics m = MakeWatcherMetrics()
                         .Node("we\"ird\\node\n\x01")
                         .DataCenter("dc-é")
                         .Metric("n", kTypeCpu, kOpAvg, "", 1e-7)
                         .Obj();
  const std::string json = EncodeWatcherMetricsJson(m);
  EXPECT_THAT(json, ::testing::HasSubstr(R"("we\"ird\\node\n\u0001")"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics back, DecodeWatcherMetricsJson(json));
  EXPECT_EQ(back, m);
}

TEST(JsonTest, NullValueIsDroppedAndNonFiniteEncodesAsNull) {
  WatcherMetrics m = MakeWatcherMetrics().Node("n").Cpu(kOpAvg, std::nan("")).Obj();
  const std::string json = EncodeWatcherMetricsJson(m);
  EXPECT_THAT(json, ::testing::HasSubstr(R"("value":null)"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics back, DecodeWatcherMetricsJson(json));
  EXPECT_TRUE(back.data.node_metrics_map.at("n").metrics.empty());
}

TEST(JsonTest, NanAndInfinityTokensDecodeForThePluginsToReject) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics m,
      DecodeWatcherMetricsJson(
          R"({"data":{"NodeMetricsMap":{"a":{"metrics":[{"type":"CPU","value":NaN}]},)"
          R"("b":{"metrics":[{"type":"CPU","value":-Infinity}]},)"
          R"("c":{"metrics":[{"type":"CPU","value":1e308}]}}}})"));
  ASSERT_EQ(m.data.node_metrics_map.size(), 3u);
  EXPECT_TRUE(std::isnan(m.data.node_metrics_map.at("a").metrics[0].value));
  EXPECT_EQ(m.data.node_metrics_map.at("b").metrics[0].value,
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(m.data.node_metrics_map.at("c").metrics[0].value, 1e308);
}

// Found by fuzz/watcher_json_fuzzer.cc: RapidJSON 1.1.0 turned "0e308" into garbage
// (undefined behaviour in its full-precision strtod), read before its buffer on "NaNe5"
// and past its power table on a long mantissa with a big exponent (see ExactNumbers in
// json.cc).
TEST(JsonTest, NumbersRapidJsonMisconvertsAreExactOrErrors) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics m,
      DecodeWatcherMetricsJson(
          R"({"data":{"NodeMetricsMap":{"a":{"metrics":[{"value":0e308},{"value":-0.00E300},)"
          R"({"value":0.1e-400},{"value":-Inf},{"value":33.333333333333336},)"
          R"({"value":0.00000000000000000000000000000000000000000000000000000},)"
          R"({"value":0.1844674407370955161551615}]}}}})"));
  const std::vector<Metric>& metrics = m.data.node_metrics_map.at("a").metrics;
  ASSERT_EQ(metrics.size(), 7u);
  EXPECT_EQ(metrics[6].value, 0.1844674407370955161551615);
  EXPECT_EQ(metrics[5].value, 0.0);
  EXPECT_EQ(metrics[0].value, 0.0);
  EXPECT_FALSE(std::signbit(metrics[0].value));
  EXPECT_EQ(metrics[1].value, 0.0);
  EXPECT_TRUE(std::signbit(metrics[1].value));
  EXPECT_EQ(metrics[2].value, 0.0);
  EXPECT_EQ(metrics[3].value, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(metrics[4].value, 33.333333333333336);
  const std::string long_tiny = absl::StrCat("0.", std::string(330, '0'), "1");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics tiny, DecodeWatcherMetricsJson(absl::StrCat(
                               R"({"data":{"NodeMetricsMap":{"a":{"metrics":[)", R"({"value":)",
                               long_tiny, R"(},{"value":4.9e-324}]}}}})")));
  EXPECT_EQ(tiny.data.node_metrics_map.at("a").metrics[0].value, 0.0);
  EXPECT_EQ(tiny.data.node_metrics_map.at("a").metrics[1].value,
            std::numeric_limits<double>::denorm_min());
  const std::string long_mantissa = absl::StrCat("2188", std::string(190, '0'), "79518e308");
  for (const std::string& bad :
       {std::string(R"({"timestamp":NaNe5})"), std::string(R"({"timestamp":Infinity.5})"),
        std::string(R"({"timestamp":-NaN0})"),
        absl::StrCat(R"({"data":{"NodeMetricsMap":{"a":{"metrics":[{"value":)", long_mantissa,
                     "}]}}}}")}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(DecodeWatcherMetricsJson(bad), StatusIs(absl::StatusCode::kInternal));
  }
}

TEST(JsonTest, AHostListedTwiceIsDroppedAndRemembered) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatcherMetrics m,
      DecodeWatcherMetricsJson(R"({"data":{"NodeMetricsMap":{)"
                               R"("a":{"metrics":[{"type":"CPU","value":1}]},)"
                               R"("b":{"metrics":[{"type":"CPU","value":2}]},)"
                               R"("a":{"metrics":[{"type":"CPU","value":3}]},)"
                               R"("a":{"metrics":[{"type":"CPU","value":4}]}}}})"));
  EXPECT_EQ(m.data.node_metrics_map.size(), 1u);
  EXPECT_TRUE(m.data.node_metrics_map.contains("b"));
  EXPECT_EQ(m.data.duplicate_hosts, std::vector<std::string>{"a"});
}

// `nodes` nodes "node-000".. with CPU and memory AVG metrics.
WatcherMetrics ManyNodes(int nodes) {
  testing::WatcherMetricsWrapper b = MakeWatcherMetrics();
  for (int i = 0; i < nodes; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "node-%03d", i);
    b.Node(name).Cpu(kOpAvg, 10 + i % 7).Memory(kOpAvg, 33.333333333333336);
  }
  return b.Obj();
}

TEST(JsonTest, ChunkedEncodingIsTheWholeBodyInPieces) {
  const WatcherMetrics m = ManyNodes(50);
  const std::string whole = EncodeWatcherMetricsJson(m);
  struct Case {
    size_t chunk_bytes;
    size_t want_pieces;
  };
  const Case cases[] = {
      // Every host ends a piece (each is over 1 byte), and the tail "}}}" is the last:
      // 50 + 1.
      {1, 51},
      // All of it fits in one piece: only the final hand-over.
      {1 << 20, 1},
      // 0 is treated as 1.
      {0, 51},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.chunk_bytes);
    std::vector<std::string> pieces;
    EXPECT_TRUE(EncodeWatcherMetricsJsonChunked(m, c.chunk_bytes, [&](absl::string_view piece) {
      pieces.emplace_back(piece);
      return true;
    }));
    EXPECT_EQ(pieces.size(), c.want_pieces);
    EXPECT_EQ(absl::StrJoin(pieces, ""), whole);
  }
}

TEST(JsonTest, ChunkedPiecesStayNearTheChunkSize) {
  const WatcherMetrics m = ManyNodes(200);
  const std::string whole = EncodeWatcherMetricsJson(m);
  const size_t chunk = 1000;
  std::vector<std::string> pieces;
  ASSERT_TRUE(EncodeWatcherMetricsJsonChunked(m, chunk, [&](absl::string_view piece) {
    pieces.emplace_back(piece);
    return true;
  }));
  ASSERT_GT(pieces.size(), 2u);
  EXPECT_EQ(absl::StrJoin(pieces, ""), whole);
  // A piece ends after the host that reached the chunk size, so every piece but the last
  // is at least `chunk` bytes and less than `chunk` + one host (under 300 bytes here).
  for (size_t i = 0; i + 1 < pieces.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_GE(pieces[i].size(), chunk);
    EXPECT_LT(pieces[i].size(), chunk + 300);
  }
}

TEST(JsonTest, ChunkedEncodingStopsWhenTheSinkRefuses) {
  const WatcherMetrics m = ManyNodes(50);
  int calls = 0;
  EXPECT_FALSE(EncodeWatcherMetricsJsonChunked(m, 1, [&](absl::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

TEST(JsonTest, WholeBodyIsAllocatedOnce) {
  // The buffer is sized from the snapshot up front: no doubling near the end, which held
  // twice the body (5 MB for 5,000 nodes).
  const std::string json = EncodeWatcherMetricsJson(ManyNodes(1000));
  EXPECT_LT(json.capacity(), json.size() * 3 / 2);
}

}  // namespace
}  // namespace trimaran::lw
