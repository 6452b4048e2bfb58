#include "kube/rest_client.h"

#include "common/http/testing/fake_transport.h"
#include "common/stats/registry.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "common/url_escape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using http::testing::FakeTransport;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr char kServer[] = "https://apiserver.test:6443";

// Hands out "token-N", N counting refreshes.
class CountingCredentials : public CredentialSource {
 public:
  absl::StatusOr<Credentials> Get() override {
    Credentials c;
    c.bearer_token = absl::StrCat("token-", generation_);
    return c;
  }
  void Invalidate() override { ++generation_; }
  int generation_ = 0;
};

struct Fixture {
  explicit Fixture(RestClientOptions options = {}) {
    RestConfig config;
    config.server = kServer;
    config.qps = 0;  // unlimited in unit tests
    options.initial_backoff = absl::Milliseconds(1);
    options.max_backoff = absl::Milliseconds(2);
    auto creds = std::make_unique<CountingCredentials>();
    credentials = creds.get();
    client = *RestClient::Create(config, clock, options, transport, std::move(creds));
  }
  // Retry backoffs pass on the fake clock, as fast as the client sleeps.
  trimaran::testing::FakeClock clock;
  trimaran::testing::FakeClockDriver driver{clock};
  std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
  CountingCredentials* credentials;
  std::unique_ptr<RestClient> client;
};

TEST(RestClientTest, ListPodsSendsSelectorsAndPagingAndDecodes) {
  Fixture f;
  PodList page;
  page.metadata.resource_version = "42";
  page.metadata.continue_token = "next-page";
  page.items.push_back(MakePod().Name("p1").Namespace("default").Obj());
  f.transport->AddResponse("GET", std::string(kServer) + "/api/v1/pods?", 200, EncodePodList(page));
  ListOptions options;
  options.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  options.limit = 500;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList got, f.client->ListPods("", options));
  ASSERT_EQ(got.items.size(), 1u);
  EXPECT_EQ(got.items[0].metadata.name, "p1");
  EXPECT_EQ(got.metadata.resource_version, "42");
  EXPECT_EQ(got.metadata.continue_token, "next-page");
  auto req = f.transport->LastRequest();
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->url, std::string(kServer) +
                          "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase"
                          "%21%3DFailed&limit=500");
  EXPECT_EQ(req->headers.GetOr("Authorization"), "Bearer token-0");
  EXPECT_EQ(req->headers.GetOr("Accept"), "application/json");
}

TEST(RestClientTest, BindPostsBindingAndMapsConflict) {
  Fixture f;
  std::string url = std::string(kServer) + "/api/v1/namespaces/ns1/pods/web-1/binding";
  f.transport->AddResponse("POST", url, 201, R"({"kind":"Status","status":"Success"})", {}, 1);
  f.transport->AddResponse(
      "POST", url, 409,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pod web-1 is already assigned to node \"n1\"","reason":"Conflict","code":409})");
  Binding b;
  b.metadata.namespace_name = "ns1";
  b.metadata.name = "web-1";
  b.target.name = "n3";
  TRIMARAN_EXPECT_OK(f.client->Bind(b));
  auto req = f.transport->LastRequest();
  EXPECT_THAT(req->body, HasSubstr("\"name\":\"n3\""));
  EXPECT_EQ(req->headers.GetOr("Content-Type"), "application/json");
  absl::Status again = f.client->Bind(b);
  EXPECT_THAT(again, StatusIs(absl::StatusCode::kAlreadyExists,
                              HasSubstr("already assigned to node \"n1\"")));
  EXPECT_THAT(again.message(), HasSubstr("bind pod ns1/web-1 to node n3"));
}

// Names go into the path as one escaped segment each: a name from outside (an extender's
// binding request) cannot reach another resource, add a query or climb with "..".
TEST(RestClientTest, PodNamesAreEscapedPathSegments) {
  Fixture f;
  const std::string url = std::string(kServer) +
                          "/api/v1/namespaces/ns%2F..%2Fx/pods/a%2F..%2F..%2Fnodes%3FdryRun%3DAll"
                          "/binding";
  f.transport->AddResponse("POST", url, 201, R"({"kind":"Status","status":"Success"})", {}, 1);
  Binding b;
  b.metadata.namespace_name = "ns/../x";
  b.metadata.name = "a/../../nodes?dryRun=All";
  b.target.name = "n1";
  TRIMARAN_EXPECT_OK(f.client->Bind(b));
  EXPECT_EQ(f.transport->LastRequest()->url, url);
  const std::string get = std::string(kServer) + "/api/v1/namespaces/ns1/pods/%2E%2E";
  f.transport->AddResponse("DELETE", get, 200, R"({"kind":"Status","status":"Success"})", {}, 1);
  TRIMARAN_EXPECT_OK(f.client->DeletePod("ns1", ".."));
  EXPECT_EQ(f.transport->LastRequest()->url, get);
}

TEST(RestClientTest, StorageObjectsListAndMergePatch) {
  Fixture f;
  f.transport->AddResponse(
      "GET", std::string(kServer) + "/apis/storage.k8s.io/v1/csinodes", 200,
      R"({"kind":"CSINodeList","metadata":{"resourceVersion":"7"},"items":[)"
      R"({"metadata":{"name":"n1"},"spec":{"drivers":[{"name":"d","nodeID":"n1",)"
      R"("allocatable":{"count":3}}]}}]})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObjectList nodes,
                                f.client->ListStorageObjects(StorageResource::kCSINodes, {}));
  ASSERT_EQ(nodes.items.size(), 1u);
  EXPECT_EQ(std::get<CSINode>(nodes.items[0].object).drivers[0].allocatable_count, 3);

  const std::string url =
      std::string(kServer) + "/api/v1/namespaces/ns1/persistentvolumeclaims/data";
  f.transport->AddResponse(
      "PATCH", url, 200,
      R"({"kind":"PersistentVolumeClaim","metadata":{"name":"data","namespace":"ns1",)"
      R"("resourceVersion":"12","annotations":{"volume.kubernetes.io/selected-node":"n1"}}})");
  StoragePatch patch{.resource_version = "11"};
  patch.annotations[std::string(kAnnSelectedNode)] = "n1";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      StorageObject claim,
      f.client->PatchStorageObject(StorageResource::kPersistentVolumeClaims, "ns1", "data", patch));
  EXPECT_EQ(claim.metadata.resource_version, "12");
  auto req = f.transport->LastRequest();
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->headers.GetOr("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(req->body, R"({"metadata":{"resourceVersion":"11","annotations":)"
                       R"({"volume.kubernetes.io/selected-node":"n1"}}})");

  // A PV's claimRef; a conflict is Aborted.
  const std::string pv_url = std::string(kServer) + "/api/v1/persistentvolumes/pv-1";
  f.transport->AddResponse(
      "PATCH", pv_url, 409,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"the object has been modified","reason":"Conflict","code":409})");
  StoragePatch bind{.resource_version = "3"};
  bind.claim_ref = ObjectReference{
      .kind = "PersistentVolumeClaim", .namespace_name = "ns1", .name = "data", .uid = "u1"};
  EXPECT_THAT(
      f.client->PatchStorageObject(StorageResource::kPersistentVolumes, "", "pv-1", bind).status(),
      StatusIs(absl::StatusCode::kAborted, HasSubstr("patch persistentvolumes pv-1")));
  req = f.transport->LastRequest();
  EXPECT_THAT(req->body, HasSubstr(R"("spec":{"claimRef":{)"));
  EXPECT_THAT(req->body, HasSubstr(R"("uid":"u1")"));
}

TEST(RestClientTest, RetriesServerErrorsAndThrottling) {
  Fixture f;
  std::string url = std::string(kServer) + "/api/v1/nodes/n1";
  f.transport->AddResponse("GET", url, 500, "etcd leader changed", {}, 1);
  http::Headers retry_after;
  retry_after.Set("Retry-After", "0");
  f.transport->AddResponse("GET", url, 429, "slow down", retry_after, 1);
  f.transport->AddResponse("GET", url, 200, EncodeNode(MakeNode().Name("n1").Obj()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node n, f.client->GetNode("n1"));
  EXPECT_EQ(n.metadata.name, "n1");
  EXPECT_EQ(f.client->counters().retries.load(), 2u);
  EXPECT_EQ(f.transport->RequestCount(), 3);
}

TEST(RestClientTest, ExportsClientGoRequestMetricsWhenGivenAScope) {
  stats::Registry registry;
  RestConfig config;
  config.server = kServer;
  config.qps = 0;
  RestClientOptions options;
  options.initial_backoff = absl::Milliseconds(1);
  options.max_backoff = absl::Milliseconds(2);
  options.stats = stats::Scope(registry, "rest_client_");
  auto transport = std::make_shared<FakeTransport>();
  auto client = *RestClient::Create(config, RealClock::Get(), options, transport,
                                    std::make_unique<CountingCredentials>());
  const std::string url = std::string(kServer) + "/api/v1/nodes/n1";
  transport->AddResponse("GET", url, 503, "etcd leader changed", {}, 1);
  transport->AddResponse("GET", url, 200, EncodeNode(MakeNode().Name("n1").Obj()));
  TRIMARAN_ASSERT_OK(client->GetNode("n1").status());

  const std::string text = registry.PrometheusText();
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"503\",method=\"GET\","
                              "host=\"apiserver.test:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"200\",method=\"GET\","
                              "host=\"apiserver.test:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_retries_total{code=\"503\",verb=\"GET\","
                              "host=\"apiserver.test:6443\"} 1\n"));
  // One call, retries included.
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_count{verb=\"GET\","
                              "host=\"apiserver.test:6443\"} 1\n"));
}

TEST(RestClientTest, GivesUpAfterMaxRetriesWithTheLastError) {
  Fixture f;
  f.transport->AddResponse("GET", std::string(kServer) + "/api/v1/nodes/n1", 503, "overloaded");
  EXPECT_THAT(f.client->GetNode("n1"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("get node n1")));
  EXPECT_EQ(f.transport->RequestCount(), 6);  // 1 + max_retries
}

TEST(RestClientTest, CallOptionsDeadlineBoundsAttemptsAndRetryAfter) {
  Fixture f;
  const std::string url =
      std::string(kServer) + "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l";
  http::Headers retry_after;
  retry_after.Set("Retry-After", "60");
  f.transport->AddResponse("GET", url, 429, "slow down", retry_after);
  const absl::Time start = f.clock.Now();
  const CallOptions options{.deadline = start + absl::Seconds(3)};
  EXPECT_THAT(f.client->GetLease("kube-system", "l", options),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("get lease kube-system/l")));
  EXPECT_EQ(f.transport->RequestCount(), 1) << "a 60 s Retry-After ends past the deadline";
  EXPECT_EQ(f.clock.Now(), start) << "no wait for a retry that cannot be made";
  // The attempt's own timeout ends by the deadline (the transport cancels it then).
  ASSERT_TRUE(f.transport->LastRequest().has_value());
  EXPECT_LE(f.transport->LastRequest()->timeout, absl::Seconds(3));
  // A deadline already past: nothing is sent.
  f.transport->ClearRequests();
  EXPECT_THAT(f.client->GetLease("kube-system", "l", {.deadline = start}),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_EQ(f.transport->RequestCount(), 0);
}

TEST(RestClientTest, CallOptionsStopCancelsBindAndItsRetrySleep) {
  Fixture f;
  Binding b;
  b.metadata.namespace_name = "default";
  b.metadata.name = "p";
  b.target.name = "n1";
  // Requested before the call: no POST at all.
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_THAT(f.client->Bind(b, {.stop = stopped.get_token()}),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(f.transport->RequestCount(), 0);
  // Requested while the POST is in flight: the stop reaches the transport's request,
  // and no retry follows.
  std::stop_source stop;
  f.transport->AddHandler("POST", kServer, [&stop](const http::HttpRequest& request) {
    EXPECT_TRUE(request.stop_token.stop_possible());
    stop.request_stop();
    return absl::StatusOr<http::HttpResponse>(absl::CancelledError("aborted by the stop"));
  });
  EXPECT_THAT(f.client->Bind(b, {.stop = stop.get_token()}),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(f.transport->RequestCount(), 1);
  // A 503 whose retry sleep is cut short by the stop (requested with the response).
  f.transport->ClearRules();
  f.transport->ClearRequests();
  std::stop_source later;
  f.transport->AddHandler("POST", kServer, [&later](const http::HttpRequest&) {
    later.request_stop();
    http::HttpResponse response;
    response.status_code = 503;
    response.body = "overloaded";
    response.headers.Set("Retry-After", "30");
    return absl::StatusOr<http::HttpResponse>(response);
  });
  EXPECT_THAT(f.client->Bind(b, {.stop = later.get_token()}),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("overloaded")));
  EXPECT_EQ(f.transport->RequestCount(), 1);
}

// The leader's other writes (preemption's DELETE and status PATCH, a PodGroup's status)
// are bounded like Bind: nothing is sent past the deadline or after the stop, and a
// 503's retry is not made past the deadline.
TEST(RestClientTest, CallOptionsBoundDeletePatchAndPodGroupStatus) {
  Fixture f;
  const absl::Time start = f.clock.Now();
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_THAT(f.client->DeletePod("default", "p", {.stop = stopped.get_token()}),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_THAT(f.client->PatchPodStatus("default", "p", PodStatusPatch{}, {.deadline = start}),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(f.client->PatchPodGroupStatus("jobs", "g", "{}", {.deadline = start}),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_EQ(f.transport->RequestCount(), 0);

  const std::string pod = std::string(kServer) + "/api/v1/namespaces/default/pods/p";
  http::Headers retry_after;
  retry_after.Set("Retry-After", "60");
  f.transport->AddResponse("DELETE", pod, 503, "overloaded", retry_after);
  EXPECT_THAT(f.client->DeletePod("default", "p", {.deadline = start + absl::Seconds(3)}),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("delete pod default/p")));
  EXPECT_EQ(f.transport->RequestCount(), 1) << "no retry past the deadline";

  const std::string group = std::string(kServer) +
                            "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/jobs/podgroups/g/status";
  f.transport->AddResponse("PATCH", group, 200, "{}");
  TRIMARAN_EXPECT_OK(
      f.client->PatchPodGroupStatus("jobs", "g", R"({"status":{"phase":"Running"}})", {}));
  ASSERT_TRUE(f.transport->LastRequest().has_value());
  EXPECT_EQ(f.transport->LastRequest()->url, group);
  EXPECT_EQ(f.transport->LastRequest()->headers.GetOr("Content-Type"),
            "application/merge-patch+json");
}

TEST(RestClientTest, ConnectionFailuresRetryOnlyReads) {
  Fixture f;
  f.transport->AddError("", kServer, absl::UnavailableError("connection refused"));
  EXPECT_THAT(f.client->GetNode("n1"), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(f.transport->RequestCount(), 6);
  f.transport->ClearRequests();
  Binding b;
  b.metadata.namespace_name = "default";
  b.metadata.name = "p";
  b.target.name = "n1";
  EXPECT_THAT(f.client->Bind(b),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("connection refused")));
  EXPECT_EQ(f.transport->RequestCount(), 1) << "a POST may have been applied: not repeated";
}

TEST(RestClientTest, UnauthorizedRefreshesCredentialsOnce) {
  Fixture f;
  std::string url = std::string(kServer) + "/api/v1/nodes/n1";
  f.transport->AddResponse("GET", url, 401, R"({"kind":"Status","code":401})", {}, 1);
  f.transport->AddResponse("GET", url, 200, EncodeNode(MakeNode().Name("n1").Obj()));
  TRIMARAN_ASSERT_OK(f.client->GetNode("n1").status());
  auto reqs = f.transport->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].headers.GetOr("Authorization"), "Bearer token-0");
  EXPECT_EQ(reqs[1].headers.GetOr("Authorization"), "Bearer token-1");
  // A second 401 is reported, not looped on.
  f.transport->ClearRules();
  f.transport->AddResponse("GET", url, 401, R"({"kind":"Status","message":"Unauthorized"})");
  EXPECT_THAT(f.client->GetNode("n1"), StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(RestClientTest, WatchFramesEventsAcrossChunks) {
  Fixture f;
  WatchEvent<Pod> a{.type = WatchEventType::kAdded, .object = MakePod().Name("a").Obj()};
  WatchEvent<Pod> b{.type = WatchEventType::kModified, .object = MakePod().Name("b").Obj()};
  WatchEvent<Pod> c{.type = WatchEventType::kDeleted, .object = MakePod().Name("c").Obj()};
  std::string all =
      EncodePodWatchEvent(a) + "\n" + EncodePodWatchEvent(b) + "\n" + EncodePodWatchEvent(c) + "\n";
  // Split at awkward places: inside an object and right after a newline.
  std::vector<std::string> chunks = {all.substr(0, 7), all.substr(7, all.size() / 2),
                                     all.substr(7 + all.size() / 2)};
  f.transport->AddStream("GET", std::string(kServer) + "/api/v1/pods?watch=true", chunks);
  std::vector<std::string> seen;
  WatchOptions wo;
  wo.resource_version = "7";
  TRIMARAN_ASSERT_OK(f.client->WatchPods("", wo,
                                         [&](WatchEvent<Pod>&& ev) {
                                           seen.push_back(std::string(ToString(ev.type)) + " " +
                                                          ev.object.metadata.name);
                                           return true;
                                         },
                                         {}));
  EXPECT_THAT(seen, ::testing::ElementsAre("ADDED a", "MODIFIED b", "DELETED c"));
  auto req = f.transport->LastRequest();
  EXPECT_THAT(req->url, HasSubstr("resourceVersion=7"));
  EXPECT_THAT(req->url, HasSubstr("allowWatchBookmarks=true"));
  EXPECT_THAT(req->url, HasSubstr("timeoutSeconds=300"));
}

TEST(RestClientTest, TruncatedWatchIsAnErrorAndMalformedEventsAreSkipped) {
  Fixture f;
  std::string good =
      EncodePodWatchEvent({.type = WatchEventType::kAdded, .object = MakePod().Name("a").Obj()});
  f.transport->AddStream("GET", std::string(kServer) + "/api/v1/pods?watch",
                         {good + "\n{\"type\":"}, 200, {}, 1);
  int events = 0;
  std::vector<WatchEvent<Pod>> undecodable;
  auto count = [&](WatchEvent<Pod>&& ev) {
    ++events;
    if (ev.undecodable) undecodable.push_back(std::move(ev));
    return true;
  };
  EXPECT_THAT(f.client->WatchPods("", {}, count, {}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("ended inside an event")));
  EXPECT_EQ(events, 1);
  // An object that does not decode, then a line that is not an event, then a good
  // event: the two bad ones are delivered as undecodable and the watch goes on.
  f.transport->AddStream(
      "GET", std::string(kServer) + "/api/v1/pods?watch",
      {"{\"type\":\"ADDED\",\"object\":{\"metadata\":7}}\n", "<html>\n", good + "\n"}, 200, {}, 1);
  TRIMARAN_EXPECT_OK(f.client->WatchPods("", {}, count, {}));
  EXPECT_EQ(events, 4);
  ASSERT_EQ(undecodable.size(), 2u);
  EXPECT_EQ(undecodable[0].type, WatchEventType::kAdded);
  EXPECT_THAT(undecodable[0].undecodable->status.message(), HasSubstr("metadata"));
  EXPECT_EQ(undecodable[1].type, WatchEventType::kModified) << "no type readable";
  EXPECT_THAT(undecodable[1].undecodable->status.message(), HasSubstr("invalid JSON"));
  EXPECT_EQ(f.client->counters().watch_decode_errors.load(), 3u);
}

// One good event, then a line that never ends, in 4 KiB chunks, until the client stops
// reading (at most 8 MiB are offered: a client without a cap would take them all).
TEST(RestClientTest, WatchLineLongerThanTheCapEndsTheStreamUnbuffered) {
  RestClientOptions options;
  options.max_watch_line_bytes = 64 << 10;
  Fixture f(options);
  const std::string good =
      EncodePodWatchEvent({.type = WatchEventType::kAdded, .object = MakePod().Name("a").Obj()}) +
      "\n";
  int64_t offered = 0;
  f.transport->AddHandler(
      "GET", std::string(kServer) + "/api/v1/pods?watch",
      [&](const http::HttpRequest& req) -> absl::StatusOr<http::HttpResponse> {
        if (!req.on_chunk(good)) return http::HttpResponse{.status_code = 200};
        const std::string chunk(4096, 'x');  // a line that never ends
        while (offered < (int64_t{8} << 20)) {
          offered += static_cast<int64_t>(chunk.size());
          if (!req.on_chunk(chunk)) break;
        }
        return http::HttpResponse{.status_code = 200};
      },
      1);
  int events = 0;
  auto count = [&](WatchEvent<Pod>&&) {
    ++events;
    return true;
  };
  EXPECT_THAT(f.client->WatchPods("", {}, count, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("exceeds 65536 bytes")));
  EXPECT_EQ(events, 1) << "the event before the long line is delivered";
  // Stopped within one chunk of the cap.
  EXPECT_GT(offered, 64 << 10);
  EXPECT_LE(offered, (64 << 10) + 4096);
  EXPECT_EQ(f.client->counters().watch_lines_too_long.load(), 1u);

  // A complete line over the cap, arriving in one chunk with its newline, is refused too
  // (a line just under the cap is framed and decoded as usual).
  const std::string big(100 << 10, 'y');
  f.transport->AddStream("GET", std::string(kServer) + "/api/v1/pods?watch",
                         {good + big + "\n" + good}, 200, {}, 1);
  events = 0;
  EXPECT_THAT(f.client->WatchPods("", {}, count, {}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(events, 1);
  EXPECT_EQ(f.client->counters().watch_lines_too_long.load(), 2u);
  const std::string under((64 << 10) - 1, 'z');
  f.transport->AddStream("GET", std::string(kServer) + "/api/v1/pods?watch", {good + under + "\n"},
                         200, {}, 1);
  EXPECT_NE(f.client->WatchPods("", {}, count, {}).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(f.client->counters().watch_lines_too_long.load(), 2u);
}

TEST(RestClientTest, LeaseUpdateConflictIsAborted) {
  Fixture f;
  f.transport->AddResponse(
      "PUT", std::string(kServer) + "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/s",
      409, R"({"kind":"Status","reason":"Conflict","message":"the object has been modified"})");
  Lease l;
  l.metadata.namespace_name = "kube-system";
  l.metadata.name = "s";
  l.metadata.resource_version = "5";
  EXPECT_THAT(f.client->UpdateLease(l),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("the object has been modified")));
}

TEST(RestClientTest, QueryEscaping) {
  EXPECT_EQ(QueryEscape("a=b,c!=d e/f"), "a%3Db%2Cc%21%3Dd%20e%2Ff");
  WatchOptions w;
  w.allow_watch_bookmarks = false;
  w.timeout = absl::ZeroDuration();
  EXPECT_EQ(EncodeWatchQuery(w), "watch=true");
}

}  // namespace
}  // namespace trimaran::kube
