// The real RestClient + Informer over real HTTP (CurlTransport) against a misbehaving
// apiserver on 127.0.0.1: a truncated watch stream and a burst of HTTP 500s each lead to
// a counted reconnect, a malformed event is skipped and counted, and none of them to a
// crash or a lost event.
#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/http/http_server.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/informer.h"
#include "kube/rest_client.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using kube::testing::MakePod;

Pod PodAt(const std::string& name, int rv, const std::string& label = "") {
  Pod p = MakePod().Name(name).Namespace("default").Obj();
  p.metadata.resource_version = absl::StrCat(rv);
  if (!label.empty()) p.metadata.labels["v"] = label;
  return p;
}

std::string Line(WatchEventType type, const Pod& pod) {
  return EncodePodWatchEvent({.type = type, .object = pod}) + "\n";
}

TEST(RestInformerTest, MisbehavingWatchesAreCountedAndSurvived) {
  auto server = *http::HttpServer::Create({});
  std::atomic<int> watches{0};
  std::atomic<bool> done_serving{false};
  std::vector<std::string> watch_versions;
  absl::Mutex mu;
  ASSERT_TRUE(server
                  ->AddRoute(http::Route{
                      .path = "/api/v1/pods",
                      .help = "pods",
                      .handler =
                          [&](const http::ServerRequest& req, http::ServerResponse& resp) {
                            resp.content_type = "application/json";
                            if (req.Query("watch") != "true") {
                              PodList list;
                              list.metadata.resource_version = "10";
                              list.items = {PodAt("a", 5), PodAt("b", 6)};
                              resp.body = EncodePodList(list);
                              return;
                            }
                            {
                              absl::MutexLock lock(&mu);
                              watch_versions.push_back(std::string(req.Query("resourceVersion")));
                            }
                            int n = watches++;
                            switch (n) {
                              case 0:  // one event, then the stream is cut mid-event
                                resp.stream = [](http::ChunkWriter& w) {
                                  w.Write(Line(WatchEventType::kAdded, PodAt("c", 11)));
                                  w.Write("{\"type\":\"MODIFIED\",\"object\":{\"meta");
                                };
                                return;
                              case 1:  // a malformed event: skipped, the watch goes on
                                resp.stream = [](http::ChunkWriter& w) {
                                  w.Write("{\"type\":\"ADDED\",\"object\":[1,2,3]}\n");
                                };
                                return;
                              case 2:
                              case 3:  // a burst of 500s
                                resp.status = 500;
                                resp.body = R"({"kind":"Status","code":500,"message":"etcd down"})";
                                return;
                              default:  // healthy again: one change, then hold the stream
                                resp.stream = [&done_serving](http::ChunkWriter& w) {
                                  w.Write(Line(WatchEventType::kModified, PodAt("a", 12, "2")));
                                  while (!w.Stopping() && !done_serving.load()) {
                                    if (!w.Write(" ")) return;  // keep-alive whitespace
                                    absl::SleepFor(absl::Milliseconds(20));
                                  }
                                };
                            }
                          }})
                  .ok());
  TRIMARAN_ASSERT_OK(server->Start());

  RestConfig config;
  config.server = server->url();
  config.bearer_token = "t";
  config.qps = 0;
  // Reconnect backoffs pass on the fake clock, as fast as the informer sleeps.
  trimaran::testing::FakeClock clock;
  trimaran::testing::FakeClockDriver driver(clock);
  absl::Notification a_updated;  // outlives the informer, whose handler notifies it
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto client, RestClient::Create(config, clock));
  Informer<Pod> informer(
      PodListerWatcher(*client), clock,
      {.min_backoff = absl::Milliseconds(10), .max_backoff = absl::Milliseconds(20)});
  informer.AddEventHandlers(
      EventHandlers<Pod>{.on_update = [&a_updated](const std::shared_ptr<const Pod>&,
                                                   const std::shared_ptr<const Pod>& pod) {
        if (pod->metadata.name == "a" && pod->metadata.labels.count("v") &&
            !a_updated.HasBeenNotified()) {
          a_updated.Notify();
        }
      }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  a_updated.WaitForNotificationWithTimeout(absl::Seconds(20));
  auto a = informer.store().Get("default/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->metadata.labels.at("v"), "2");
  EXPECT_NE(informer.store().Get("default/c"), nullptr) << "the event before the cut is kept";
  EXPECT_EQ(informer.store().Size(), 3u);
  EXPECT_EQ(informer.counters().watch_errors.load(), 3u) << "truncated stream, two 500s";
  EXPECT_EQ(informer.counters().decode_errors.load(), 1u) << "the malformed event";
  EXPECT_EQ(informer.counters().lists.load(), 1u) << "reconnects resume, no re-list";
  EXPECT_GE(client->counters().watch_decode_errors.load(), 2u);
  {
    absl::MutexLock lock(&mu);
    // Each reconnect resumes from the last version seen: 10, then 11 after the event.
    ASSERT_GE(watch_versions.size(), 5u);
    EXPECT_EQ(watch_versions[0], "10");
    for (size_t i = 1; i < 5; ++i) EXPECT_EQ(watch_versions[i], "11") << i;
  }
  done_serving = true;
  informer.Stop();
  server->Stop();
}

}  // namespace
}  // namespace trimaran::kube
