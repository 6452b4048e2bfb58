#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cmd/trimaranctl/explain_command.h"
#include "common/http/testing/fake_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "scheduler/decisions/decision_json.h"
#include "scheduler/decisions/explain_format.h"
#include "scheduler/decisions/testing/decisions_fixture.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using sched::decisions::Decision;
using sched::decisions::FormatExplainTable;
using sched::decisions::testing::TwoAttempts;
using sched::decisions::testing::WebPod;
using ::testing::HasSubstr;

TEST(ExplainFlagsTest, ParsesAndRejects) {
  absl::StatusOr<ExplainFlags> f =
      ParseExplainFlags({"ns/p", "-o", "json", "--scheduler=https://h:1", "--token-file", "t",
                         "--scheduler-ca-file=ca", "--insecure-skip-tls-verify"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->pod_namespace, "ns");
  EXPECT_EQ(f->pod_name, "p");
  EXPECT_EQ(f->output, "json");
  EXPECT_EQ(f->scheduler, "https://h:1");
  EXPECT_EQ(f->token_file, "t");
  EXPECT_EQ(f->scheduler_ca_file, "ca");
  EXPECT_TRUE(f->insecure_skip_tls_verify);
  EXPECT_EQ(ParseExplainFlags({"ns/p"})->scheduler, kDefaultSchedulerAddress);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{},
                                             {"a/b/c"},
                                             {"/p"},
                                             {"ns/p", "-n", "other"},
                                             {"p", "-n"},
                                             {"ns/p", "x/y"},
                                             {"ns/p", "-o", "yaml"},
                                             {"ns/p", "--scheduler", "h:1"},
                                             {"ns/p", "--bogus"}}) {
    EXPECT_FALSE(ParseExplainFlags(bad).ok()) << absl::StrJoin(bad, " ");
  }
}

TEST(ExplainFlagsTest, NamespaceAsKubectlSpellsIt) {
  absl::StatusOr<ExplainFlags> f = ParseExplainFlags({"-n", "spark", "exec-1"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->pod_namespace, "spark");
  EXPECT_EQ(f->pod_name, "exec-1");
  f = ParseExplainFlags({"exec-1", "--namespace=spark"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->pod_namespace, "spark");
  f = ParseExplainFlags({"-n", "spark", "spark/exec-1"});  // the same namespace twice
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->pod_name, "exec-1");
  // POD alone: the namespace is left to the kubeconfig context (else "default").
  f = ParseExplainFlags({"exec-1"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->pod_namespace, "");
  EXPECT_EQ(f->pod_name, "exec-1");
}

class ExplainCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(client_.CreatePod(WebPod("node-7")).ok());
    flags_ = *ParseExplainFlags({"default/web-1", "--scheduler", "https://sched:10259"});
  }
  int Run() { return RunExplain(flags_, client_, transport_, "tok", out_, err_); }

  kube::testing::FakeClient client_;
  http::testing::FakeTransport transport_;
  ExplainFlags flags_;
  std::string out_;
  std::string err_;
};

TEST_F(ExplainCommandTest, PrintsTheDecisionAndSendsTheToken) {
  std::vector<std::shared_ptr<const Decision>> shared;
  for (const Decision& d : TwoAttempts().decisions) {
    shared.push_back(std::make_shared<const Decision>(d));
  }
  transport_.AddResponse("GET", "https://sched:10259/debug/decisions?pod=default%2Fweb-1", 200,
                         sched::decisions::EncodeDecisions(1000, shared));
  ASSERT_EQ(Run(), 0) << err_;
  EXPECT_EQ(out_, FormatExplainTable(WebPod("node-7"), TwoAttempts()));
  const auto requests = transport_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers.GetOr("Authorization"), "Bearer tok");
}

TEST_F(ExplainCommandTest, ClearErrors) {
  struct Case {
    std::string name;
    std::function<void(http::testing::FakeTransport&)> script;
    std::string want;
  } cases[] = {
      {"unreachable",
       [](auto& t) { t.AddError("GET", "https://sched", absl::UnavailableError("refused")); },
       "cannot reach the scheduler at https://sched:10259: refused"},
      {"401", [](auto& t) { t.AddResponse("GET", "https://sched", 401, "Unauthorized"); },
       "did not accept the credentials (401 Unauthorized): give a valid bearer token with "
       "--token-file"},
      {"403", [](auto& t) { t.AddResponse("GET", "https://sched", 403, "forbidden"); },
       "bind the ClusterRole trimaran-scheduler-decisions-viewer"},
      {"disabled",
       [](auto& t) {
         t.AddResponse("GET", "https://sched", 200, R"({"capacity":0,"decisions":[]})");
       },
       "records no decisions (--decisions-capacity=0)"},
      {"not trimaran's",
       [](auto& t) {
         t.AddResponse("GET", "https://sched:10259/debug/decisions?pod=", 200,
                       R"({"capacity":1000,"decisions":[]})");
         t.AddResponse(
             "GET", "https://sched:10259/debug/decisions", 200,
             R"({"capacity":1000,"decisions":[{"result":"Bound","profile":"trimaran"}]})");
       },
       "is not scheduled by trimaran: its schedulerName is \"default-scheduler\""},
      {"out of the ring",
       [](auto& t) {
         t.AddResponse("GET", "https://sched:10259/debug/decisions?pod=", 200,
                       R"({"capacity":1000,"decisions":[]})");
         t.AddResponse(
             "GET", "https://sched:10259/debug/decisions", 200,
             R"({"capacity":1000,"decisions":[{"result":"Bound","profile":"default-scheduler"}]})");
       },
       "no decision for pod default/web-1 in the scheduler's ring (it keeps the last 1000 "
       "decisions)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    http::testing::FakeTransport fresh;
    c.script(fresh);
    out_.clear();
    err_.clear();
    EXPECT_EQ(RunExplain(flags_, client_, fresh, "tok", out_, err_), 1);
    EXPECT_THAT(err_, HasSubstr(c.want));
    EXPECT_EQ(out_, "");
  }
}

TEST_F(ExplainCommandTest, PodNotFound) {
  flags_.pod_name = "missing";
  EXPECT_EQ(Run(), 1);
  EXPECT_THAT(err_, HasSubstr("pod default/missing not found"));
  EXPECT_TRUE(transport_.Requests().empty());
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl
