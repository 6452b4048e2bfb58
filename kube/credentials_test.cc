#include "kube/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::StatusIs;
using ::trimaran::testing::TempDirForTest;

constexpr char kCertPem[] = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n";
constexpr char kKeyPem[] = "-----BEGIN EC PRIVATE KEY-----\nMHckey\n-----END EC PRIVATE KEY-----\n";

// An ExecCredential as a plugin prints it.
std::string ExecCredentialJson(absl::string_view api_version, absl::string_view status) {
  return absl::StrCat(R"({"apiVersion":")", api_version, R"(","kind":"ExecCredential","status":)",
                      status, "}");
}

std::string TokenStatus(absl::string_view token, std::optional<absl::Time> expiry = std::nullopt) {
  if (!expiry.has_value()) return absl::StrCat(R"({"token":")", token, R"("})");
  return absl::StrCat(R"({"token":")", token, R"(","expirationTimestamp":")",
                      absl::FormatTime(absl::RFC3339_sec, *expiry, absl::UTCTimeZone()), R"("})");
}

// A ProcessRunner that records each call and plays back queued results.
class FakeRunner {
 public:
  void Push(absl::StatusOr<SubprocessResult> result) { results_.push_back(std::move(result)); }
  void PushStdout(std::string out) {
    SubprocessResult r;
    r.stdout_text = std::move(out);
    Push(std::move(r));
  }

  ProcessRunner AsRunner() {
    return [this](const SubprocessSpec& spec) -> absl::StatusOr<SubprocessResult> {
      calls_.push_back(spec);
      if (results_.empty()) return absl::InternalError("FakeRunner: no result queued");
      absl::StatusOr<SubprocessResult> r = std::move(results_.front());
      results_.pop_front();
      return r;
    };
  }

  const std::vector<SubprocessSpec>& calls() const { return calls_; }

 private:
  std::deque<absl::StatusOr<SubprocessResult>> results_;
  std::vector<SubprocessSpec> calls_;
};

RestConfig ExecRestConfig(absl::string_view api_version = kExecApiV1) {
  RestConfig config;
  config.server = "https://k8s.example:6443";
  config.exec = ExecConfig{.api_version = std::string(api_version),
                           .command = "get-token",
                           .args = {"--cluster", "prod"},
                           .env = {{"AWS_PROFILE", "prod"}},
                           .install_hint = "Install get-token from https://example.com/get-token",
                           .interactive_mode = ExecInteractiveMode::kNever};
  return config;
}

// --- Static and token file ---------------------------------------------------------------

TEST(StaticCredentialSourceTest, ReturnsTheToken) {
  StaticCredentialSource source(Credentials{.bearer_token = "abc"});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());
  EXPECT_EQ(c.bearer_token, "abc");
  source.Invalidate();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source.Get());
  EXPECT_EQ(c.bearer_token, "abc");
}

// Sets the file's mtime (so a same-size rewrite looks unchanged to stat).
void SetMtime(const std::string& path, const struct timespec& mtime) {
  struct timespec times[2] = {mtime, mtime};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

struct timespec Mtime(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mtim;
}

TEST(TokenFileCredentialSourceTest, PicksUpARotatedToken) {
  TempDirForTest dir;
  FakeClock clock;
  const std::string path = dir.Write("token", "first-token\n");
  TokenFileCredentialSource source(path, clock);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());
  EXPECT_EQ(c.bearer_token, "first-token");

  // The kubelet rotates the projected token: a new file, new size.
  dir.Write("token", "the-second-token");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source.Get());
  EXPECT_EQ(c.bearer_token, "the-second-token");
}

TEST(TokenFileCredentialSourceTest, RereadsAtLeastEveryMinuteEvenIfStatLooksTheSame) {
  TempDirForTest dir;
  FakeClock clock;
  const std::string path = dir.Write("token", "token-aaaa");
  TokenFileCredentialSource source(path, clock);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());
  EXPECT_EQ(c.bearer_token, "token-aaaa");

  // Same size, same mtime, same inode (rewritten in place): invisible to stat.
  const struct timespec mtime = Mtime(path);
  dir.Write("token", "token-bbbb");
  SetMtime(path, mtime);
  clock.Advance(absl::Seconds(59));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source.Get());
  EXPECT_EQ(c.bearer_token, "token-aaaa");

  clock.Advance(absl::Seconds(1));  // kMaxTokenAge since the last read
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source.Get());
  EXPECT_EQ(c.bearer_token, "token-bbbb");
}

TEST(TokenFileCredentialSourceTest, InvalidateForcesAReread) {
  TempDirForTest dir;
  FakeClock clock;
  const std::string path = dir.Write("token", "token-aaaa");
  TokenFileCredentialSource source(path, clock);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());

  const struct timespec mtime = Mtime(path);
  dir.Write("token", "token-cccc");
  SetMtime(path, mtime);
  source.Invalidate();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source.Get());
  EXPECT_EQ(c.bearer_token, "token-cccc");
}

TEST(TokenFileCredentialSourceTest, Errors) {
  TempDirForTest dir;
  FakeClock clock;
  {
    SCOPED_TRACE("missing file");
    TokenFileCredentialSource source(dir.Path("missing"), clock);
    EXPECT_THAT(source.Get(),
                StatusIs(absl::StatusCode::kUnavailable,
                         absl::StrCat("reading bearer token file ", dir.Path("missing"),
                                      ": No such file or directory")));
  }
  {
    SCOPED_TRACE("missing file with a static fallback token");
    TokenFileCredentialSource source(dir.Path("missing"), clock, "static");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());
    EXPECT_EQ(c.bearer_token, "static");
  }
  {
    SCOPED_TRACE("empty file");
    const std::string path = dir.Write("empty", " \n");
    TokenFileCredentialSource source(path, clock);
    EXPECT_THAT(source.Get(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("file is empty")));
  }
  {
    SCOPED_TRACE("file removed after a successful read: the last token is kept");
    const std::string path = dir.Write("gone", "kept-token");
    TokenFileCredentialSource source(path, clock);
    TRIMARAN_ASSERT_OK(source.Get().status());
    ASSERT_EQ(::unlink(path.c_str()), 0);
    clock.Advance(absl::Minutes(5));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source.Get());
    EXPECT_EQ(c.bearer_token, "kept-token");
    // ... but not after the apiserver rejected it.
    source.Invalidate();
    EXPECT_THAT(source.Get(), StatusIs(absl::StatusCode::kUnavailable));
  }
}

// --- ExecCredential decoding -------------------------------------------------------------

TEST(ParseExecCredentialTest, Table) {
  const absl::Time expiry = absl::FromUnixSeconds(1'700'000'900);
  struct Case {
    std::string name;
    std::string json;
    std::string api_version = std::string(kExecApiV1);
    Credentials want;
    std::optional<absl::Time> want_expiry;
    std::string error;  // FailedPrecondition containing this
  };
  const std::vector<Case> cases = {
      {"v1 token",
       ExecCredentialJson(kExecApiV1, R"({"token":"t1"})"),
       std::string(kExecApiV1),
       {.bearer_token = "t1"}},
      {"v1beta1 token with expiry",
       ExecCredentialJson(kExecApiV1beta1, TokenStatus("t2", expiry)),
       std::string(kExecApiV1beta1),
       {.bearer_token = "t2"},
       expiry},
      {"fractional seconds and offset",
       ExecCredentialJson(kExecApiV1,
                          R"({"token":"t","expirationTimestamp":"2023-11-14T23:28:20.5+01:00"})"),
       std::string(kExecApiV1),
       {.bearer_token = "t"},
       absl::FromUnixMillis(1'700'000'900'500)},
      {"client certificate",
       ExecCredentialJson(
           kExecApiV1,
           R"({"clientCertificateData":"-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n","clientKeyData":"-----BEGIN EC PRIVATE KEY-----\nMHckey\n-----END EC PRIVATE KEY-----\n","expirationTimestamp":null})"),
       std::string(kExecApiV1),
       {.client_cert_pem = kCertPem, .client_key_pem = kKeyPem}},
      {"unknown fields ignored",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false},"status":{"token":"t","extra":1}})",
       std::string(kExecApiV1),
       {.bearer_token = "t"}},
      {"wrong apiVersion",
       ExecCredentialJson(kExecApiV1beta1, R"({"token":"t"})"),
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "plugin returned apiVersion client.authentication.k8s.io/v1beta1, but the kubeconfig asks "
       "for client.authentication.k8s.io/v1"},
      {"no apiVersion",
       R"({"kind":"ExecCredential","status":{"token":"t"}})",
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "has no apiVersion"},
      {"wrong kind",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod","status":{"token":"t"}})",
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "kind is \"Pod\", want ExecCredential"},
      {"not JSON",
       "Error: credentials expired",
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "stdout is not valid JSON (ExecCredential: not JSON: Invalid value. at offset 0"},
      {"not an object",
       "[1]",
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "stdout is not a JSON object"},
      {"no status",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "has no status object"},
      {"nothing in status",
       ExecCredentialJson(kExecApiV1, "{}"),
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "status has neither a token nor a client certificate and key"},
      {"certificate without key",
       ExecCredentialJson(kExecApiV1, R"({"clientCertificateData":"x"})"),
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "status.clientCertificateData and status.clientKeyData must be returned together"},
      {"token of the wrong type",
       ExecCredentialJson(kExecApiV1, R"({"token":5})"),
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "status.token: expected a string"},
      {"bad timestamp",
       ExecCredentialJson(kExecApiV1, R"({"token":"t","expirationTimestamp":"tomorrow"})"),
       std::string(kExecApiV1),
       {},
       std::nullopt,
       "status.expirationTimestamp: invalid RFC 3339 time \"tomorrow\""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::StatusOr<ExecCredentialStatus> got = ParseExecCredential(tc.json, tc.api_version);
    if (!tc.error.empty()) {
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(tc.error)));
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->credentials, tc.want);
    EXPECT_EQ(got->expiration, tc.want_expiry);
  }
}

// --- ExecCredentialSource with a fake runner ---------------------------------------------

TEST(ExecCredentialSourceTest, RunsThePluginWithArgsEnvAndExecInfo) {
  for (absl::string_view version : {kExecApiV1, kExecApiV1beta1}) {
    SCOPED_TRACE(version);
    FakeClock clock;
    FakeRunner runner;
    runner.PushStdout(ExecCredentialJson(version, R"({"token":"plugin-token"})"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        auto source,
        ExecCredentialSource::Create(ExecRestConfig(version), clock,
                                     {.runner = runner.AsRunner(), .timeout = absl::Seconds(7)}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
    EXPECT_EQ(c.bearer_token, "plugin-token");

    ASSERT_EQ(runner.calls().size(), 1u);
    const SubprocessSpec& spec = runner.calls()[0];
    EXPECT_EQ(spec.command, "get-token");
    EXPECT_THAT(spec.args, ElementsAre("--cluster", "prod"));
    EXPECT_EQ(spec.timeout, absl::Seconds(7));
    const std::string exec_info =
        absl::StrCat(R"({"apiVersion":")", version,
                     R"(","kind":"ExecCredential","spec":{"interactive":false}})");
    EXPECT_THAT(spec.extra_env,
                ElementsAre(Pair("AWS_PROFILE", "prod"), Pair("KUBERNETES_EXEC_INFO", exec_info)));
  }
}

TEST(ExecCredentialSourceTest, ProvidesClusterInfo) {
  TempDirForTest dir;
  FakeClock clock;
  FakeRunner runner;
  RestConfig config = ExecRestConfig();
  config.exec->provide_cluster_info = true;
  config.tls.server_name = "kubernetes";
  config.tls.ca_file = dir.Write("ca.crt", "PEM");  // base64 "UEVN"
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto source, ExecCredentialSource::Create(config, clock, {.runner = runner.AsRunner()}));
  EXPECT_EQ(source->exec_info(),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"cluster":{"server":"https://k8s.example:6443","tls-server-name":)"
            R"("kubernetes","certificate-authority-data":"UEVN"},"interactive":false}})");

  config.tls = {};
  config.tls.insecure_skip_verify = true;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      source, ExecCredentialSource::Create(config, clock, {.runner = runner.AsRunner()}));
  EXPECT_EQ(source->exec_info(),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"cluster":{"server":"https://k8s.example:6443",)"
            R"("insecure-skip-tls-verify":true},"interactive":false}})");

  config.tls = {};
  config.tls.ca_file = dir.Path("missing.crt");
  EXPECT_THAT(ExecCredentialSource::Create(config, clock, {.runner = runner.AsRunner()}),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("exec plugin get-token: reading the cluster CA")));
}

TEST(ExecCredentialSourceTest, CachesUntilShortlyBeforeExpiry) {
  FakeClock clock;
  FakeRunner runner;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto source,
      ExecCredentialSource::Create(ExecRestConfig(), clock, {.runner = runner.AsRunner()}));
  const absl::Time t0 = clock.Now();

  // A 15-minute token (aws eks get-token): refreshed 30 s early (10% would be 90 s).
  runner.PushStdout(ExecCredentialJson(kExecApiV1, TokenStatus("a", t0 + absl::Minutes(15))));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
  EXPECT_EQ(c.bearer_token, "a");
  clock.SetTime(t0 + absl::Minutes(15) - absl::Seconds(31));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "a");
  EXPECT_EQ(runner.calls().size(), 1u);

  // A 100 s token: refreshed 10 s (10%) early.
  const absl::Time t1 = t0 + absl::Minutes(15) - absl::Seconds(30);
  clock.SetTime(t1);
  runner.PushStdout(ExecCredentialJson(kExecApiV1, TokenStatus("b", t1 + absl::Seconds(100))));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "b");
  EXPECT_EQ(runner.calls().size(), 2u);
  clock.SetTime(t1 + absl::Seconds(89));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "b");
  EXPECT_EQ(runner.calls().size(), 2u);
  clock.SetTime(t1 + absl::Seconds(90));
  runner.PushStdout(ExecCredentialJson(kExecApiV1, R"({"token":"forever"})"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "forever");
  EXPECT_EQ(runner.calls().size(), 3u);

  // No expirationTimestamp: cached until invalidated.
  clock.Advance(absl::Hours(1000));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "forever");
  EXPECT_EQ(runner.calls().size(), 3u);
}

TEST(ExecCredentialSourceTest, InvalidateForcesARerun) {
  FakeClock clock;
  FakeRunner runner;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto source,
      ExecCredentialSource::Create(ExecRestConfig(), clock, {.runner = runner.AsRunner()}));
  runner.PushStdout(ExecCredentialJson(kExecApiV1, R"({"token":"old"})"));
  runner.PushStdout(ExecCredentialJson(kExecApiV1, R"({"token":"new"})"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
  EXPECT_EQ(c.bearer_token, "old");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "old");
  source->Invalidate();  // the apiserver said 401
  TRIMARAN_ASSERT_OK_AND_ASSIGN(c, source->Get());
  EXPECT_EQ(c.bearer_token, "new");
  EXPECT_EQ(runner.calls().size(), 2u);

  // After a 401 the old credentials are not used even if the rerun fails.
  source->Invalidate();
  SubprocessResult failed;
  failed.exit_code = 1;
  runner.Push(failed);
  EXPECT_THAT(source->Get(), StatusIs(absl::StatusCode::kUnavailable));
}

TEST(ExecCredentialSourceTest, AFailedEarlyRefreshKeepsTheUnexpiredCredentials) {
  FakeClock clock;
  FakeRunner runner;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto source,
      ExecCredentialSource::Create(ExecRestConfig(), clock, {.runner = runner.AsRunner()}));
  const absl::Time t0 = clock.Now();
  runner.PushStdout(ExecCredentialJson(kExecApiV1, TokenStatus("a", t0 + absl::Minutes(10))));
  TRIMARAN_ASSERT_OK(source->Get().status());

  SubprocessResult failed;
  failed.exit_code = 255;
  failed.stderr_text = "network unreachable\n";
  runner.Push(failed);
  clock.SetTime(t0 + absl::Minutes(10) - absl::Seconds(10));  // inside the 30 s margin
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
  EXPECT_EQ(c.bearer_token, "a");

  runner.Push(failed);
  clock.SetTime(t0 + absl::Minutes(10));  // expired
  EXPECT_THAT(source->Get(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("network unreachable")));
  EXPECT_EQ(runner.calls().size(), 3u);
}

TEST(ExecCredentialSourceTest, Errors) {
  SubprocessResult exit_1;
  exit_1.exit_code = 1;
  exit_1.stderr_text = "line one\nAn error occurred (ExpiredToken): the SSO session expired\n";
  SubprocessResult silent_exit;
  silent_exit.exit_code = 3;
  SubprocessResult killed;
  killed.exit_code = -1;
  killed.term_signal = 9;
  SubprocessResult long_stderr;
  long_stderr.exit_code = 2;
  long_stderr.stderr_text = absl::StrCat(std::string(5000, 'x'), "the real reason");
  SubprocessResult wrong_version;
  wrong_version.stdout_text = ExecCredentialJson(kExecApiV1beta1, R"({"token":"t"})");

  struct Case {
    std::string name;
    absl::StatusOr<SubprocessResult> run;
    absl::StatusCode code;
    std::vector<std::string> parts;   // the message contains each
    std::vector<std::string> absent;  // ... and none of these
  };
  const std::vector<Case> cases = {
      {"non-zero exit carries the stderr tail",
       exit_1,
       absl::StatusCode::kUnavailable,
       {"exec plugin get-token failed with exit code 1: line one\nAn error occurred "
        "(ExpiredToken): the SSO session expired"}},
      {"non-zero exit without stderr",
       silent_exit,
       absl::StatusCode::kUnavailable,
       {"exec plugin get-token failed with exit code 3 (no stderr output)"}},
      {"killed by a signal",
       killed,
       absl::StatusCode::kUnavailable,
       {"exec plugin get-token was killed by signal 9"}},
      {"stderr is cut to its tail",
       long_stderr,
       absl::StatusCode::kUnavailable,
       {"exit code 2: ...xxx", "the real reason"},
       {std::string(600, 'x')}},
      {"command not found shows the install hint",
       absl::NotFoundError("executable not found: get-token"),
       absl::StatusCode::kFailedPrecondition,
       {"exec plugin get-token: executable not found. Install get-token from "
        "https://example.com/get-token"}},
      {"not executable",
       absl::PermissionDeniedError("cannot execute get-token: Permission denied"),
       absl::StatusCode::kFailedPrecondition,
       {"exec plugin get-token: cannot execute get-token: Permission denied"}},
      {"timeout",
       absl::DeadlineExceededError("get-token did not finish within 1m"),
       absl::StatusCode::kDeadlineExceeded,
       {"exec plugin get-token: get-token did not finish within 1m"}},
      {"wrong apiVersion in the output",
       wrong_version,
       absl::StatusCode::kFailedPrecondition,
       {"exec plugin get-token: plugin returned apiVersion client.authentication.k8s.io/v1beta1, "
        "but the kubeconfig asks for client.authentication.k8s.io/v1"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    FakeClock clock;
    FakeRunner runner;
    runner.Push(tc.run);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        auto source,
        ExecCredentialSource::Create(ExecRestConfig(), clock, {.runner = runner.AsRunner()}));
    absl::StatusOr<Credentials> got = source->Get();
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), tc.code) << got.status();
    for (const std::string& part : tc.parts) {
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(part));
    }
    for (const std::string& part : tc.absent) {
      EXPECT_THAT(std::string(got.status().message()), Not(HasSubstr(part)));
    }
  }
}

TEST(ExecCredentialSourceTest, RejectsConfigsItCannotRun) {
  FakeClock clock;
  RestConfig always = ExecRestConfig();
  always.exec->interactive_mode = ExecInteractiveMode::kAlways;
  EXPECT_THAT(
      ExecCredentialSource::Create(always, clock),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("interactiveMode is Always, but trimaran runs without a terminal")));
  RestConfig alpha = ExecRestConfig("client.authentication.k8s.io/v1alpha1");
  EXPECT_THAT(ExecCredentialSource::Create(alpha, clock),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("unsupported apiVersion")));
  RestConfig none;
  EXPECT_THAT(ExecCredentialSource::Create(none, clock),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// --- MakeCredentialSource ------------------------------------------------------------------

TEST(MakeCredentialSourceTest, PicksBySourcePrecedence) {
  TempDirForTest dir;
  const std::string token_file = dir.Write("token", "from-file");
  FakeClock clock;
  FakeRunner runner;
  runner.PushStdout(ExecCredentialJson(kExecApiV1, R"({"token":"from-exec"})"));

  struct Case {
    std::string name;
    RestConfig config;
    std::string want_token;
  };
  std::vector<Case> cases;
  {
    RestConfig c = ExecRestConfig();
    c.bearer_token_file = token_file;
    c.bearer_token = "static";
    cases.push_back({"token file beats token and exec", c, "from-file"});
  }
  {
    RestConfig c = ExecRestConfig();
    c.bearer_token_file = dir.Path("missing");
    c.bearer_token = "static";
    cases.push_back({"static token is the token file's fallback", c, "static"});
  }
  {
    RestConfig c = ExecRestConfig();
    c.bearer_token = "static";
    cases.push_back({"static token beats exec", c, "static"});
  }
  {
    RestConfig c = ExecRestConfig();
    c.tls.client_cert_pem = kCertPem;
    c.tls.client_key_pem = kKeyPem;
    cases.push_back({"a client certificate disables exec", c, ""});
  }
  cases.push_back({"exec", ExecRestConfig(), "from-exec"});
  cases.push_back({"nothing", RestConfig{}, ""});

  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        CredentialSourcePtr source,
        MakeCredentialSource(tc.config, clock, {.runner = runner.AsRunner()}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
    EXPECT_EQ(c.bearer_token, tc.want_token);
  }
  EXPECT_EQ(runner.calls().size(), 1u);
}

// --- A real plugin -----------------------------------------------------------------------

// A shell script standing in for `aws eks get-token`: it checks its argument, its
// environment and KUBERNETES_EXEC_INFO, complains on stderr, and prints an
// ExecCredential.
constexpr char kPluginScript[] = R"(#!/bin/sh
echo "fetching token for cluster $2" >&2
case "$KUBERNETES_EXEC_INFO" in
  *'"kind":"ExecCredential"'*'"interactive":false'*) ;;
  *) echo "bad KUBERNETES_EXEC_INFO: $KUBERNETES_EXEC_INFO" >&2; exit 7 ;;
esac
if [ "$1" != "--cluster" ] || [ "$PLUGIN_PROFILE" != "prod" ]; then
  echo "bad args or env" >&2
  exit 8
fi
cat <<EOF
{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
 "status":{"token":"k8s-aws-v1.$2","expirationTimestamp":"2099-01-01T00:00:00Z"}}
EOF
)";

TEST(ExecCredentialSourceTest, RunsARealPlugin) {
  TempDirForTest dir;
  FakeClock clock;
  RestConfig config;
  config.server = "https://k8s.example:6443";
  config.exec = ExecConfig{.api_version = std::string(kExecApiV1beta1),
                           .command = dir.Write("bin/get-token", kPluginScript, 0755),
                           .args = {"--cluster", "prod"},
                           .env = {{"PLUGIN_PROFILE", "prod"}}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(CredentialSourcePtr source, MakeCredentialSource(config, clock));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Credentials c, source->Get());
  EXPECT_EQ(c.bearer_token, "k8s-aws-v1.prod");

  config.exec->env = {{"PLUGIN_PROFILE", "dev"}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(source, MakeCredentialSource(config, clock));
  EXPECT_THAT(source->Get(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("failed with exit code 8: fetching token for cluster "
                                 "prod\nbad args or env")));

  config.exec->command = dir.Path("bin/not-installed");
  config.exec->install_hint = "See https://example.com/install";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(source, MakeCredentialSource(config, clock));
  EXPECT_THAT(source->Get(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      absl::StrCat("exec plugin ", dir.Path("bin/not-installed"),
                                                   ": executable not found. See "
                                                   "https://example.com/install")));

  config.exec->command = "trimaran-no-such-plugin-in-path";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(source, MakeCredentialSource(config, clock));
  EXPECT_THAT(source->Get(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      HasSubstr("executable not found. See")));
}

}  // namespace
}  // namespace trimaran::kube
