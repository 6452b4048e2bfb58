#include "kube/informer.h"

#include <functional>
#include <set>

#include "absl/synchronization/notification.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using kube::testing::FakeClient;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using trimaran::testing::FakeClock;
using trimaran::testing::FakeClockDriver;

// Records handler calls as strings, thread-safely.
struct Recorder {
  EventHandlers<Pod> Handlers() {
    EventHandlers<Pod> h;
    h.on_add = [this](const std::shared_ptr<const Pod>& p) { Add("add " + p->metadata.name); };
    h.on_update = [this](const std::shared_ptr<const Pod>&, const std::shared_ptr<const Pod>& p) {
      Add("update " + p->metadata.name);
    };
    h.on_delete = [this](const std::shared_ptr<const Pod>& p, bool unknown) {
      Add((unknown ? "tombstone " : "delete ") + p->metadata.name);
    };
    return h;
  }
  void Add(std::string s) {
    absl::MutexLock lock(&mu);
    calls.push_back(std::move(s));
  }
  std::vector<std::string> Calls() {
    absl::MutexLock lock(&mu);
    return calls;
  }
  // Waits (real time, at most 10 s) until exactly `n` calls were recorded.
  bool AwaitCalls(size_t n) {
    absl::MutexLock lock(&mu);
    auto reached = [this, n] {
      mu.AssertReaderHeld();
      return calls.size() == n;
    };
    return mu.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }
  absl::Mutex mu;
  std::vector<std::string> calls;
};

InformerOptions FastOptions() {
  InformerOptions o;
  o.page_size = 2;  // exercise paging
  o.min_backoff = absl::Milliseconds(50);
  o.max_backoff = absl::Milliseconds(100);
  return o;
}

TEST(InformerTest, ListsInPagesSyncsAndFollowsEventsInOrder) {
  FakeClient client;
  for (int i = 0; i < 5; ++i) {
    TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name(absl::StrCat("p", i)).Obj()).status());
  }
  // A terminal pod is not listed (the non-terminal field selector).
  Pod done = MakePod().Name("done").Obj();
  done.status.phase = PodPhase::kSucceeded;
  TRIMARAN_ASSERT_OK(client.CreatePod(done).status());

  FakeClock clock;  // nothing here waits on it
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  informer.store().AddIndex(kPodsByNodeIndex, PodNodeIndexFunc);
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  EXPECT_EQ(informer.store().Size(), 5u);
  EXPECT_EQ(rec.Calls().size(), 5u);
  EXPECT_GE(client.Calls("ListPods"), 3) << "5 pods in pages of 2";

  ASSERT_TRUE(client.AwaitOpenWatches(1));
  Pod p0 = *client.GetPod("default", "p0");
  p0.spec.node_name = "n1";
  TRIMARAN_ASSERT_OK(client.UpdatePod(p0).status());
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "p1"));
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("p9").Obj()).status());
  ASSERT_TRUE(rec.AwaitCalls(8));
  std::vector<std::string> calls = rec.Calls();
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 5, calls.end()),
              ::testing::ElementsAre("update p0", "delete p1", "add p9"));
  auto on_n1 = informer.store().ByIndex(kPodsByNodeIndex, "n1");
  ASSERT_EQ(on_n1.size(), 1u);
  EXPECT_EQ(on_n1[0]->metadata.name, "p0");
  // Stopping joins the reflector thread, which sets the resume point right after the
  // handlers of the last event ran.
  informer.Stop();
  EXPECT_EQ(informer.LastSyncResourceVersion(), absl::StrCat(client.CurrentResourceVersion()));
  EXPECT_EQ(client.OpenWatches(), 0);
}

TEST(InformerTest, ReconnectsAfterACutWatchWithoutLosingOrDuplicating) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("a").Obj()).status());
  FakeClock clock;
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  client.BreakWatches();
  client.FailNext("WatchPods", absl::UnavailableError("connection refused"), 2);
  // Changes while disconnected are replayed from the last resourceVersion.
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("b").Obj()).status());
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "a"));
  // Three backoffs (the cut, two refused reconnects), each ended on the fake clock.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(rec.AwaitCalls(3));
  EXPECT_THAT(rec.Calls(), ::testing::ElementsAre("add a", "add b", "delete a"));
  EXPECT_GE(informer.counters().watch_errors.load(), 3u);
  EXPECT_EQ(informer.counters().lists.load(), 1u) << "no re-list needed";
  EXPECT_EQ(informer.store().Keys(), std::vector<std::string>{"default/b"});
}

TEST(InformerTest, GoneTriggersRelistAndReportsMissedDeletesAsTombstones) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("a").Obj()).status());
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("b").Obj()).status());
  FakeClock clock;
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  client.BreakWatches();
  client.FailNext("WatchPods", absl::UnavailableError("connection refused"), 1);
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "a"));
  Pod b = *client.GetPod("default", "b");
  b.metadata.labels["v"] = "2";
  TRIMARAN_ASSERT_OK(client.UpdatePod(b).status());
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("c").Obj()).status());
  client.Compact();  // the missed events are gone: the watch gets 410
  // Two backoffs (the cut, one refused reconnect), each ended on the fake clock.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(rec.AwaitCalls(5));
  std::vector<std::string> calls = rec.Calls();
  std::set<std::string> after(calls.begin() + 2, calls.end());
  EXPECT_EQ(after, (std::set<std::string>{"tombstone a", "update b", "add c"}));
  EXPECT_EQ(informer.counters().relists_gone.load(), 1u);
  EXPECT_EQ(informer.counters().lists.load(), 2u);
  // The store equals a fresh list.
  auto fresh = *client.ListPods("", {});
  std::vector<std::string> fresh_keys;
  for (auto& p : fresh.items) fresh_keys.push_back(ObjectKey(p));
  auto keys = informer.store().Keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, fresh_keys);
  EXPECT_EQ(informer.store().Get("default/b")->metadata.labels.at("v"), "2");
}

TEST(InformerTest, ListErrorsAreRetried) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreateNode(MakeNode().Name("n1").Obj()).status());
  client.FailNext("ListNodes", absl::UnavailableError("apiserver starting"), 2);
  FakeClock clock;
  FakeClockDriver driver(clock);  // ends each list backoff at once
  Informer<Node> informer(NodeListerWatcher(client), clock, FastOptions());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  EXPECT_EQ(informer.counters().list_errors.load(), 2u);
  EXPECT_NE(informer.store().Get("n1"), nullptr);
}

TEST(StoreTest, IndexFollowsUpdatesAndRemovals) {
  Store<Pod> store;
  store.AddIndex(kPodsByNodeIndex, PodNodeIndexFunc);
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("a").Namespace("default").NodeName("n1").Obj()));
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("b").Namespace("default").NodeName("n1").Obj()));
  store.Upsert(std::make_shared<const Pod>(MakePod().Name("c").Namespace("default").Obj()));
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n1").size(), 2u);
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("a").Namespace("default").NodeName("n2").Obj()));
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n1").size(), 1u);
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n2").size(), 1u);
  EXPECT_NE(store.Remove("default/b"), nullptr);
  EXPECT_TRUE(store.ByIndex(kPodsByNodeIndex, "n1").empty());
  EXPECT_EQ(store.Remove("default/b"), nullptr);
  EXPECT_EQ(store.Size(), 2u);
}

}  // namespace
}  // namespace trimaran::kube
