#include "scheduler/extender/extender_service.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/stats/registry.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/extender/extender_codec.h"

namespace trimaran::sched::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// Feasible: names starting with "ok"; every node scores its name's length; records calls.
class FakeBackend final : public ExtenderBackend {
 public:
  absl::StatusOr<FilterVerdicts> Filter(const kube::Pod& pod,
                                        std::span<const CandidateNode> nodes) override {
    absl::MutexLock lock(&mu_);
    if (!error.ok()) return error;
    seen.assign(nodes.begin(), nodes.end());
    pod_name = pod.metadata.name;
    FilterVerdicts v;
    for (const CandidateNode& n : nodes) {
      if (n.name.rfind("ok", 0) == 0) {
        v.feasible.push_back(n.name);
      } else if (n.name.rfind("never", 0) == 0) {
        v.failed_and_unresolvable[n.name] = "node(s) had untolerated taint";
      } else {
        v.failed[n.name] = "Insufficient cpu";
      }
    }
    return v;
  }
  absl::StatusOr<std::vector<HostPriority>> Prioritize(
      const kube::Pod&, std::span<const CandidateNode> nodes) override {
    absl::MutexLock lock(&mu_);
    if (!error.ok()) return error;
    std::vector<HostPriority> out;
    for (const CandidateNode& n : nodes) {
      out.push_back({n.name, static_cast<int64_t>(n.name.size())});
    }
    return out;
  }
  absl::Status Bind(const ExtenderBindingArgs& args) override {
    absl::MutexLock lock(&mu_);
    bound.push_back(args);
    return error;
  }

  absl::Mutex mu_;
  absl::Status error;
  std::vector<CandidateNode> seen;
  std::string pod_name;
  std::vector<ExtenderBindingArgs> bound;
};

class ExtenderServiceTest : public ::testing::Test {
 protected:
  ExtenderService& Service(ExtenderServiceOptions options = {}) {
    service_ = std::make_unique<ExtenderService>(backend_, clock_, stats::Scope(registry_, "x_"),
                                                 std::move(options));
    return *service_;
  }
  static http::ServerRequest Post(std::string body) {
    http::ServerRequest req;
    req.method = "POST";
    req.body = std::move(body);
    return req;
  }
  static std::string NamesArgs(std::vector<std::string> names) {
    ExtenderArgs args;
    args.pod = kube::testing::MakePod().Namespace("ns").Name("p").Obj();
    args.node_names = std::move(names);
    return EncodeExtenderArgs(args);
  }
  std::string Metrics() { return registry_.PrometheusText(); }

  FakeBackend backend_;
  ::trimaran::testing::FakeClock clock_;
  stats::Registry registry_;
  std::unique_ptr<ExtenderService> service_;
};

TEST_F(ExtenderServiceTest, FilterWithNodeNames) {
  http::ServerResponse res;
  Service().ServeFilter(Post(NamesArgs({"ok-1", "busy", "never", "ok-2"})), res);
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.content_type, "application/json");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult r, DecodeExtenderFilterResult(res.body));
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.nodes.has_value());
  EXPECT_THAT(*r.node_names, ElementsAre("ok-1", "ok-2"));
  EXPECT_THAT(r.failed_nodes, UnorderedElementsAre(Pair("busy", "Insufficient cpu")));
  EXPECT_THAT(r.failed_and_unresolvable_nodes,
              UnorderedElementsAre(Pair("never", "node(s) had untolerated taint")));
  EXPECT_EQ(backend_.pod_name, "p");
  ASSERT_EQ(backend_.seen.size(), 4u);
  EXPECT_EQ(backend_.seen[0].object, nullptr);
  EXPECT_THAT(Metrics(), HasSubstr(R"(x_requests_total{verb="filter",result="ok"} 1)"));
  EXPECT_THAT(Metrics(), HasSubstr(R"(x_request_duration_seconds_count{verb="filter"} 1)"));
}

TEST_F(ExtenderServiceTest, FilterWithNodeObjectsAnswersWithTheSameObjects) {
  const std::string ok_json = R"({"metadata":{"name":"ok-1","labels":{"a":"b"}}})";
  const std::string args = std::string(R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[)") +
                           ok_json + R"(,{"metadata":{"name":"busy"}}]},"NodeNames":null})";
  http::ServerResponse res;
  Service().ServeFilter(Post(args), res);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult r, DecodeExtenderFilterResult(res.body));
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.node_names.has_value());
  ASSERT_TRUE(r.nodes.has_value());
  ASSERT_EQ(r.nodes->size(), 1u);
  EXPECT_EQ((*r.nodes)[0].json, ok_json);
  EXPECT_THAT(r.failed_nodes, UnorderedElementsAre(Pair("busy", "Insufficient cpu")));
  ASSERT_EQ(backend_.seen.size(), 2u);
  ASSERT_NE(backend_.seen[0].object, nullptr);
  EXPECT_EQ(backend_.seen[0].object->metadata.labels.at("a"), "b");
}

TEST_F(ExtenderServiceTest, FilterErrorsUseTheErrorField) {
  ExtenderService& service = Service();
  http::ServerResponse bad;
  service.ServeFilter(Post("{not json"), bad);
  EXPECT_EQ(bad.status, 200);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult r, DecodeExtenderFilterResult(bad.body));
  EXPECT_THAT(r.error, HasSubstr("not JSON"));
  EXPECT_FALSE(r.node_names.has_value());

  backend_.error = absl::InternalError("Filter on node n: plugin broke");
  http::ServerResponse failed;
  service.ServeFilter(Post(NamesArgs({"ok-1"})), failed);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, DecodeExtenderFilterResult(failed.body));
  EXPECT_THAT(r.error, HasSubstr("plugin broke"));
  EXPECT_THAT(Metrics(), HasSubstr(R"(x_requests_total{verb="filter",result="bad_request"} 1)"));
  EXPECT_THAT(Metrics(), HasSubstr(R"(x_requests_total{verb="filter",result="error"} 1)"));
}

TEST_F(ExtenderServiceTest, NotReadyAnswersAnErrorWithoutAskingTheBackend) {
  ExtenderService& service =
      Service({.ready = [] { return absl::UnavailableError("informers have not synced yet"); }});
  http::ServerResponse filter;
  service.ServeFilter(Post(NamesArgs({"ok-1"})), filter);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderFilterResult r, DecodeExtenderFilterResult(filter.body));
  EXPECT_THAT(r.error, HasSubstr("not synced"));
  http::ServerResponse prioritize;
  service.ServePrioritize(Post(NamesArgs({"ok-1"})), prioritize);
  EXPECT_EQ(prioritize.status, 500);
  EXPECT_THAT(backend_.seen, IsEmpty());
}

TEST_F(ExtenderServiceTest, PrioritizeAnswersAHostPriorityList) {
  http::ServerResponse res;
  Service().ServePrioritize(Post(NamesArgs({"ok-1", "b"})), res);
  EXPECT_EQ(res.status, 200);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<HostPriority> list, DecodeHostPriorityList(res.body));
  EXPECT_THAT(list, ElementsAre(HostPriority{"ok-1", 4}, HostPriority{"b", 1}));
}

TEST_F(ExtenderServiceTest, PrioritizeErrorsAreHttpErrors) {
  ExtenderService& service = Service();
  http::ServerResponse bad;
  service.ServePrioritize(Post("[]"), bad);
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr("ExtenderArgs"));
  backend_.error = absl::InternalError("Score: boom");
  http::ServerResponse failed;
  service.ServePrioritize(Post(NamesArgs({"a"})), failed);
  EXPECT_EQ(failed.status, 500);
  EXPECT_THAT(failed.body, HasSubstr("boom"));
}

TEST_F(ExtenderServiceTest, BindCallsTheBackendOnlyWhenOn) {
  const std::string args = EncodeExtenderBindingArgs({"p", "ns", "u1", "ok-1"});
  http::ServerResponse off;
  Service().ServeBind(Post(args), off);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ExtenderBindingResult r, DecodeExtenderBindingResult(off.body));
  EXPECT_THAT(r.error, HasSubstr("binding is off"));
  EXPECT_THAT(backend_.bound, IsEmpty());

  http::ServerResponse on;
  Service({.bind = true}).ServeBind(Post(args), on);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, DecodeExtenderBindingResult(on.body));
  EXPECT_EQ(r.error, "");
  EXPECT_THAT(backend_.bound, ElementsAre(ExtenderBindingArgs{"p", "ns", "u1", "ok-1"}));

  backend_.error = absl::NotFoundError("pods \"p\" not found");
  http::ServerResponse failed;
  service_->ServeBind(Post(args), failed);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, DecodeExtenderBindingResult(failed.body));
  EXPECT_THAT(r.error, HasSubstr("not found"));
}

TEST_F(ExtenderServiceTest, PreemptIsNotSupported) {
  http::ServerResponse res;
  Service().ServePreempt(Post("{}"), res);
  EXPECT_EQ(res.status, 501);
  EXPECT_THAT(res.body, HasSubstr("preemptVerb"));
}

TEST_F(ExtenderServiceTest, RoutesServeOverHttp) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<http::HttpServer> server,
                                http::HttpServer::Create({}));
  TRIMARAN_ASSERT_OK(Service({.bind = true}).AddRoutes(*server));
  const std::string index = server->IndexText();
  EXPECT_THAT(index, HasSubstr("/filter"));
  EXPECT_THAT(index, HasSubstr("/prioritize"));
  EXPECT_THAT(index, HasSubstr("/bind"));
  EXPECT_THAT(index, HasSubstr("/preempt"));
}

}  // namespace
}  // namespace trimaran::sched::extender
