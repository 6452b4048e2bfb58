#include "kube/rest_config.h"

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::kube {

// Readable failure output.
void PrintTo(const RestConfig& c, std::ostream* os) {
  *os << "{server=" << c.server << " ca_file=" << c.tls.ca_file << " ca_pem=" << c.tls.ca_pem.size()
      << "B cert_file=" << c.tls.client_cert_file << " cert_pem=" << c.tls.client_cert_pem.size()
      << "B key_file=" << c.tls.client_key_file << " key_pem=" << c.tls.client_key_pem.size()
      << "B insecure=" << c.tls.insecure_skip_verify << " server_name=" << c.tls.server_name
      << " token=" << c.bearer_token << " token_file=" << c.bearer_token_file
      << " exec=" << (c.exec.has_value() ? c.exec->command : "none") << " source=" << c.source
      << "}";
}

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;
using ::trimaran::testing::TempDirForTest;

constexpr char kCaPem[] = "-----BEGIN CERTIFICATE-----\nMIIBcaCA\n-----END CERTIFICATE-----\n";
constexpr char kCertPem[] =
    "-----BEGIN CERTIFICATE-----\nMIIBclientCERT\n-----END CERTIFICATE-----\n";
constexpr char kKeyPem[] = "-----BEGIN EC PRIVATE KEY-----\nMHckey\n-----END EC PRIVATE KEY-----\n";

std::string Indent(absl::string_view text, int spaces) {
  std::string out;
  const std::string pad(spaces, ' ');
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, pad, line, "\n");
  }
  return out;
}

// A kubeconfig with contexts "ctx" (c1/u1, the current one) and "other" (c2/u2).
// `cluster` and `user` are the bodies of c1 and u1.
std::string Kubeconfig(absl::string_view cluster, absl::string_view user,
                       absl::string_view current_context = "ctx") {
  return absl::StrCat(
      "apiVersion: v1\n"
      "kind: Config\n",
      current_context.empty() ? "" : absl::StrCat("current-context: ", current_context, "\n"),
      "contexts:\n"
      "- name: ctx\n"
      "  context: {cluster: c1, user: u1, namespace: default}\n"
      "- name: other\n"
      "  context: {cluster: c2, user: u2, namespace: spark}\n"
      "clusters:\n"
      "- name: c1\n"
      "  cluster:\n",
      Indent(cluster, 4),
      "- name: c2\n"
      "  cluster:\n"
      "    server: https://other.example:6443\n"
      "users:\n"
      "- name: u1\n",
      user.empty() ? "  user: {}\n" : absl::StrCat("  user:\n", Indent(user, 4)),
      "- name: u2\n"
      "  user:\n"
      "    token: other-token\n");
}

RestConfig Want(absl::string_view server, absl::string_view context = "ctx") {
  RestConfig c;
  c.server = std::string(server);
  c.source = absl::StrCat("kubeconfig (context ", context, ")");
  // The contexts' namespaces, as Kubeconfig() writes them.
  if (context == "ctx") c.context_namespace = "default";
  if (context == "other") c.context_namespace = "spark";
  return c;
}

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("ca.crt", kCaPem);
    dir_.Write("certs/client.crt", kCertPem);
    dir_.Write("certs/client.key", kKeyPem);
    dir_.Write("token", "file-token\n");
  }

  // Replaces $DIR, $CA_DATA, $CERT_DATA, $KEY_DATA.
  std::string Expand(absl::string_view text) const {
    return absl::StrReplaceAll(text, {{"$DIR", dir_.path()},
                                      {"$CA_DATA", absl::Base64Escape(kCaPem)},
                                      {"$CERT_DATA", absl::Base64Escape(kCertPem)},
                                      {"$KEY_DATA", absl::Base64Escape(kKeyPem)}});
  }

  TempDirForTest dir_;
};

struct KubeconfigCase {
  std::string name;
  std::string yaml;  // before Expand()
  std::string context_override;
  std::optional<RestConfig> want;  // set for success cases
  std::string error;               // InvalidArgument containing this, for failures
};

TEST_F(KubeconfigTest, ParsesEveryField) {
  const std::string dir = dir_.path();
  std::vector<KubeconfigCase> cases;
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.ca_pem = kCaPem;
    want.bearer_token = "abc";
    cases.push_back({"token and CA data",
                     Kubeconfig("server: https://k8s.example:6443\n"
                                "certificate-authority-data: $CA_DATA",
                                "token: abc"),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.ca_file = dir + "/ca.crt";
    cases.push_back({"relative CA file resolved against the kubeconfig directory",
                     Kubeconfig("server: https://k8s.example:6443/\n"
                                "certificate-authority: ./certs/../ca.crt",
                                ""),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.ca_file = dir + "/ca.crt";
    cases.push_back({"absolute CA file kept",
                     Kubeconfig("server: https://k8s.example:6443\n"
                                "certificate-authority: $DIR/ca.crt",
                                ""),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://10.0.0.1:6443/prefix");
    want.tls.insecure_skip_verify = true;
    want.tls.server_name = "kubernetes.default";
    cases.push_back({"insecure, tls-server-name, path prefix, trailing slashes stripped",
                     Kubeconfig("server: https://10.0.0.1:6443/prefix//\n"
                                "insecure-skip-tls-verify: true\n"
                                "tls-server-name: kubernetes.default",
                                ""),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.ca_pem = kCaPem;
    cases.push_back(
        {"server without scheme and with TLS settings -> https",
         Kubeconfig("server: k8s.example:6443\ncertificate-authority-data: $CA_DATA", ""), "", want,
         ""});
  }
  cases.push_back({"server without scheme and no TLS settings -> http",
                   Kubeconfig("server: localhost:8080", ""), "", Want("http://localhost:8080"),
                   ""});
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.client_cert_pem = kCertPem;
    want.tls.client_key_pem = kKeyPem;
    cases.push_back({"client certificate and key data",
                     Kubeconfig("server: https://k8s.example:6443",
                                "client-certificate-data: $CERT_DATA\n"
                                "client-key-data: $KEY_DATA"),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.tls.client_cert_file = dir + "/certs/client.crt";
    want.tls.client_key_file = dir + "/certs/client.key";
    cases.push_back({"client certificate and key files (relative)",
                     Kubeconfig("server: https://k8s.example:6443",
                                "client-certificate: certs/client.crt\n"
                                "client-key: certs/client.key"),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.bearer_token_file = dir + "/token";
    cases.push_back({"tokenFile (relative)",
                     Kubeconfig("server: https://k8s.example:6443", "tokenFile: token"), "", want,
                     ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.exec = ExecConfig{
        .api_version = std::string(kExecApiV1),
        .command = "aws",
        .args = {"eks", "get-token", "--cluster-name", "prod"},
        .env = {{"AWS_PROFILE", "prod"}, {"EMPTY", ""}},
        .install_hint = "install the AWS CLI",
        .provide_cluster_info = true,
        .interactive_mode = ExecInteractiveMode::kNever,
    };
    cases.push_back({"exec v1 with every field",
                     Kubeconfig("server: https://k8s.example:6443",
                                "exec:\n"
                                "  apiVersion: client.authentication.k8s.io/v1\n"
                                "  command: aws\n"
                                "  args: [eks, get-token, --cluster-name, prod]\n"
                                "  env:\n"
                                "  - {name: AWS_PROFILE, value: prod}\n"
                                "  - {name: EMPTY}\n"
                                "  installHint: install the AWS CLI\n"
                                "  provideClusterInfo: true\n"
                                "  interactiveMode: Never"),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://k8s.example:6443");
    want.exec = ExecConfig{.api_version = std::string(kExecApiV1beta1),
                           .command = dir + "/bin/plugin",
                           .interactive_mode = ExecInteractiveMode::kIfAvailable};
    cases.push_back({"exec v1beta1 defaults interactiveMode; a command with '/' is resolved",
                     Kubeconfig("server: https://k8s.example:6443",
                                "exec:\n"
                                "  apiVersion: client.authentication.k8s.io/v1beta1\n"
                                "  command: ./bin/plugin\n"
                                "  env: null"),
                     "", want, ""});
  }
  {
    RestConfig want = Want("https://other.example:6443", "other");
    want.bearer_token = "other-token";
    cases.push_back({"named context overrides current-context",
                     Kubeconfig("server: https://k8s.example:6443", "token: abc"), "other", want,
                     ""});
    cases.push_back({"named context when current-context is unset",
                     Kubeconfig("server: https://k8s.example:6443", "token: abc", ""), "other",
                     want, ""});
  }
  cases.push_back(
      {"JSON is YAML too",
       R"({"current-context":"a","contexts":[{"name":"a","context":{"cluster":"c","user":"u"}}],
                       "clusters":[{"name":"c","cluster":{"server":"https://json:443"}}],
                       "users":[{"name":"u","user":{"token":"t"}}]})",
       "",
       [] {
         RestConfig c = Want("https://json:443", "a");
         c.bearer_token = "t";
         return c;
       }(),
       ""});

  // Failures: InvalidArgument naming the field.
  const std::string server = "server: https://k8s.example:6443";
  cases.push_back({"context not found", Kubeconfig(server, "token: abc"), "prod", std::nullopt,
                   "context \"prod\" not found (available: ctx, other)"});
  cases.push_back({"no current-context and no override", Kubeconfig(server, "token: abc", ""), "",
                   std::nullopt,
                   "no context selected: current-context is not set and no context was given "
                   "(available contexts: ctx, other)"});
  cases.push_back({"context names a missing cluster",
                   "current-context: a\n"
                   "contexts: [{name: a, context: {cluster: nope, user: u}}]\n"
                   "clusters: [{name: c, cluster: {server: 'https://x'}}]\n"
                   "users: [{name: u, user: {}}]\n",
                   "", std::nullopt,
                   "contexts[0].context.cluster: cluster \"nope\" not found (available: c)"});
  cases.push_back({"context without user",
                   "current-context: a\n"
                   "contexts: [{name: a, context: {cluster: c}}]\n"
                   "clusters: [{name: c, cluster: {server: 'https://x'}}]\n",
                   "", std::nullopt, "contexts[0].context.user: not set"});
  cases.push_back(
      {"bad base64 in CA data",
       Kubeconfig(absl::StrCat(server, "\ncertificate-authority-data: '!!notbase64'"), ""), "",
       std::nullopt, "clusters[0].cluster.certificate-authority-data: invalid base64"});
  cases.push_back({"bad base64 in client certificate data",
                   Kubeconfig(server, "client-certificate-data: '@@@'\nclient-key-data: $KEY_DATA"),
                   "", std::nullopt, "users[0].user.client-certificate-data: invalid base64"});
  cases.push_back(
      {"base64 that is not PEM",
       Kubeconfig(server, "client-certificate-data: aGVsbG8=\nclient-key-data: $KEY_DATA"), "",
       std::nullopt, "users[0].user.client-certificate-data: decoded data is not PEM"});
  cases.push_back({"unsupported auth-provider",
                   Kubeconfig(server, "auth-provider:\n  name: gcp\n  config: {access-token: x}"),
                   "", std::nullopt,
                   "users[0].user.auth-provider: auth provider \"gcp\" is not supported; use an "
                   "exec credential plugin"});
  cases.push_back({"basic auth", Kubeconfig(server, "username: admin\npassword: secret"), "",
                   std::nullopt,
                   "users[0].user.username: basic authentication (username/password) is not "
                   "supported"});
  cases.push_back({"impersonation", Kubeconfig(server, "token: t\nas: admin"), "", std::nullopt,
                   "users[0].user.as: impersonation is not supported"});
  cases.push_back({"missing server", Kubeconfig("tls-server-name: x", ""), "", std::nullopt,
                   "clusters[0].cluster.server: not set"});
  cases.push_back({"unsupported scheme", Kubeconfig("server: ftp://x", ""), "", std::nullopt,
                   "clusters[0].cluster.server: server \"ftp://x\": scheme must be https or http"});
  cases.push_back({"CA file does not exist",
                   Kubeconfig(absl::StrCat(server, "\ncertificate-authority: missing.crt"), ""), "",
                   std::nullopt,
                   absl::StrCat("clusters[0].cluster.certificate-authority: cannot read ", dir,
                                "/missing.crt: No such file or directory")});
  cases.push_back({"CA file and data",
                   Kubeconfig(absl::StrCat(server,
                                           "\ncertificate-authority: ca.crt\n"
                                           "certificate-authority-data: $CA_DATA"),
                              ""),
                   "", std::nullopt,
                   "clusters[0].cluster: certificate-authority and certificate-authority-data are "
                   "both set"});
  cases.push_back({"insecure with a CA",
                   Kubeconfig(absl::StrCat(server,
                                           "\ninsecure-skip-tls-verify: true\n"
                                           "certificate-authority-data: $CA_DATA"),
                              ""),
                   "", std::nullopt, "insecure-skip-tls-verify cannot be combined"});
  cases.push_back({"not a boolean",
                   Kubeconfig(absl::StrCat(server, "\ninsecure-skip-tls-verify: maybe"), ""), "",
                   std::nullopt,
                   "clusters[0].cluster.insecure-skip-tls-verify: expected true or false, got "
                   "\"maybe\""});
  cases.push_back({"proxy-url",
                   Kubeconfig(absl::StrCat(server, "\nproxy-url: http://proxy:3128"), ""), "",
                   std::nullopt, "clusters[0].cluster.proxy-url: not supported"});
  cases.push_back({"client certificate without key",
                   Kubeconfig(server, "client-certificate-data: $CERT_DATA"), "", std::nullopt,
                   "users[0].user: client certificate given without client-key(-data)"});
  cases.push_back({"client certificate file and data",
                   Kubeconfig(server,
                              "client-certificate: certs/client.crt\n"
                              "client-certificate-data: $CERT_DATA\n"
                              "client-key-data: $KEY_DATA"),
                   "", std::nullopt,
                   "client-certificate and client-certificate-data are both set"});
  cases.push_back({"client key file missing",
                   Kubeconfig(server, "client-certificate: certs/client.crt\nclient-key: nokey"),
                   "", std::nullopt,
                   absl::StrCat("users[0].user.client-key: cannot read ", dir, "/nokey")});
  cases.push_back({"tokenFile missing", Kubeconfig(server, "tokenFile: /nonexistent/token"), "",
                   std::nullopt, "users[0].user.tokenFile: cannot read /nonexistent/token"});
  cases.push_back(
      {"exec v1 without interactiveMode",
       Kubeconfig(server, "exec: {apiVersion: client.authentication.k8s.io/v1, command: x}"), "",
       std::nullopt,
       "users[0].user.exec.interactiveMode: must be set for "
       "client.authentication.k8s.io/v1"});
  cases.push_back({"exec bad interactiveMode",
                   Kubeconfig(server,
                              "exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "
                              "x, interactiveMode: Sometimes}"),
                   "", std::nullopt,
                   "users[0].user.exec.interactiveMode: invalid value \"Sometimes\""});
  cases.push_back(
      {"exec v1alpha1",
       Kubeconfig(server, "exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}"),
       "", std::nullopt,
       "users[0].user.exec.apiVersion: client.authentication.k8s.io/v1alpha1 is no "
       "longer supported"});
  cases.push_back({"exec without command",
                   Kubeconfig(server, "exec: {apiVersion: client.authentication.k8s.io/v1beta1}"),
                   "", std::nullopt, "users[0].user.exec.command: not set"});
  cases.push_back({"exec env without name",
                   Kubeconfig(server,
                              "exec:\n  apiVersion: client.authentication.k8s.io/v1beta1\n"
                              "  command: x\n  env: [{value: v}]"),
                   "", std::nullopt, "users[0].user.exec.env[0].name: not set"});
  cases.push_back({"exec args not a list",
                   Kubeconfig(server,
                              "exec:\n  apiVersion: client.authentication.k8s.io/v1beta1\n"
                              "  command: x\n  args: {a: b}"),
                   "", std::nullopt,
                   "users[0].user.exec.args: expected a list of strings, got a map"});
  cases.push_back({"YAML syntax error", "clusters: [unclosed\n", "", std::nullopt, "invalid YAML"});
  cases.push_back({"empty document", "", "", std::nullopt, "the kubeconfig is empty"});
  cases.push_back({"top level is a list", "- a\n- b\n", "", std::nullopt,
                   "expected a map at the top level, got a list"});
  cases.push_back({"clusters is not a list",
                   "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n"
                   "clusters: {c: {}}\nusers: [{name: u, user: {}}]\n",
                   "", std::nullopt, "clusters: expected a list, got a map"});

  for (const KubeconfigCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::StatusOr<RestConfig> got = ParseKubeconfig(Expand(tc.yaml), dir, tc.context_override);
    if (tc.want.has_value()) {
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(*got, *tc.want);
    } else {
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.error)));
    }
  }
}

TEST_F(KubeconfigTest, LoadKubeconfigResolvesPathsAgainstTheFileAndNamesItInErrors) {
  const std::string path = dir_.Write("sub/config", Kubeconfig("server: https://k8s:6443\n"
                                                               "certificate-authority: ../ca.crt",
                                                               "tokenFile: ../token"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RestConfig cfg, LoadKubeconfig(path));
  EXPECT_EQ(cfg.tls.ca_file, dir_.Path("ca.crt"));
  EXPECT_EQ(cfg.bearer_token_file, dir_.Path("token"));
  EXPECT_EQ(cfg.source, absl::StrCat("kubeconfig ", path, " (context ctx)"));

  EXPECT_THAT(LoadKubeconfig(path, "prod"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("kubeconfig ", path,
                                    ": context \"prod\" not found (available: ctx, other)")));
  EXPECT_THAT(LoadKubeconfig(dir_.Path("nope")),
              StatusIs(absl::StatusCode::kNotFound, absl::StrCat("kubeconfig ", dir_.Path("nope"),
                                                                 ": No such file or directory")));
  const std::string bad =
      dir_.Write("bad", Kubeconfig("server: https://k8s:6443", "client-key-data: '%%%'"));
  EXPECT_THAT(LoadKubeconfig(bad),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("kubeconfig ", bad,
                                    ": users[0].user.client-key-data: invalid base64")));
}

// An environment for tests: name -> value.
EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(InClusterTest, Table) {
  TempDirForTest dir;
  const std::string token = dir.Write("token", "sa-token");
  const std::string ca = dir.Write("ca.crt", kCaPem);
  struct Case {
    std::string name;
    std::map<std::string, std::string> env;
    std::string token_file;
    std::string ca_file;
    std::string want_server;  // empty: expect an error
    absl::StatusCode code = absl::StatusCode::kOk;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"IPv4",
       {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
       token,
       ca,
       "https://10.96.0.1:443"},
      {"IPv6 host is bracketed",
       {{"KUBERNETES_SERVICE_HOST", "fd00:10:96::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}},
       token,
       ca,
       "https://[fd00:10:96::1]:6443"},
      {"host unset",
       {{"KUBERNETES_SERVICE_PORT", "443"}},
       token,
       ca,
       "",
       absl::StatusCode::kFailedPrecondition,
       "not running in a cluster: KUBERNETES_SERVICE_HOST is unset"},
      {"host empty",
       {{"KUBERNETES_SERVICE_HOST", ""}, {"KUBERNETES_SERVICE_PORT", "443"}},
       token,
       ca,
       "",
       absl::StatusCode::kFailedPrecondition,
       "not running in a cluster: KUBERNETES_SERVICE_HOST is unset"},
      {"port unset",
       {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}},
       token,
       ca,
       "",
       absl::StatusCode::kFailedPrecondition,
       "not running in a cluster: KUBERNETES_SERVICE_PORT is unset"},
      {"token missing",
       {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
       dir.Path("missing-token"),
       ca,
       "",
       absl::StatusCode::kNotFound,
       absl::StrCat("in-cluster config: reading the service account token (is "
                    "automountServiceAccountToken disabled?): ",
                    dir.Path("missing-token"), ": No such file or directory")},
      {"CA missing",
       {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
       token,
       dir.Path("missing-ca"),
       "",
       absl::StatusCode::kNotFound,
       "in-cluster config: reading the service account CA"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::StatusOr<RestConfig> got = LoadInClusterConfig(
        {.token_file = tc.token_file, .ca_file = tc.ca_file, .getenv = FakeEnv(tc.env)});
    if (tc.want_server.empty()) {
      EXPECT_THAT(got, StatusIs(tc.code, HasSubstr(tc.error)));
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    RestConfig want;
    want.server = tc.want_server;
    want.bearer_token_file = token;
    want.tls.ca_file = ca;
    want.source = "in-cluster";
    EXPECT_EQ(*got, want);
  }
}

TEST(InClusterTest, DefaultsToTheServiceAccountPaths) {
  InClusterOptions options;
  EXPECT_EQ(options.token_file, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(options.ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
}

TEST(LoadRestConfigTest, ResolutionOrder) {
  TempDirForTest dir;
  auto config_with_server = [](absl::string_view server) {
    return Kubeconfig(absl::StrCat("server: ", server), "token: t");
  };
  const std::string flag = dir.Write("flag.yaml", config_with_server("https://flag:6443"));
  const std::string env1 = dir.Write("env1.yaml", config_with_server("https://env1:6443"));
  const std::string env2 = dir.Write("env2.yaml", config_with_server("https://env2:6443"));
  const std::string home = dir.Path("home");
  const std::string home_config =
      dir.Write("home/.kube/config", config_with_server("https://home:6443"));
  const std::string empty_home = dir.Path("empty-home");
  const std::string token = dir.Write("sa/token", "sa-token");
  const std::string ca = dir.Write("sa/ca.crt", kCaPem);
  const std::map<std::string, std::string> in_cluster_env = {
      {"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
  auto with = [](std::map<std::string, std::string> env, std::map<std::string, std::string> more) {
    env.insert(more.begin(), more.end());
    return env;
  };

  struct Case {
    std::string name;
    LoadOptions options;  // getenv and in_cluster are filled from `env` / `sa_dir`
    std::map<std::string, std::string> env;
    bool sa_files = true;  // whether the service-account files exist
    std::string want_server;
    std::string want_source;  // empty: expect an error
    absl::StatusCode code = absl::StatusCode::kOk;
    std::vector<std::string> error_parts;
  };
  const std::vector<Case> cases = {
      {"--kubeconfig wins over everything",
       {.kubeconfig_path = flag},
       with(in_cluster_env, {{"KUBECONFIG", env1}, {"HOME", home}}),
       true,
       "https://flag:6443",
       absl::StrCat("kubeconfig ", flag, " (context ctx)")},
      {"--kubeconfig with --context",
       {.kubeconfig_path = flag, .context = "other"},
       {},
       true,
       "https://other.example:6443",
       absl::StrCat("kubeconfig ", flag, " (context other)")},
      {"--kubeconfig that does not exist",
       {.kubeconfig_path = dir.Path("nope.yaml")},
       with(in_cluster_env, {{"HOME", home}}),
       true,
       "",
       "",
       absl::StatusCode::kNotFound,
       {absl::StrCat("kubeconfig ", dir.Path("nope.yaml"))}},
      {"KUBECONFIG: first existing file, no merging",
       {},
       with(in_cluster_env,
            {{"KUBECONFIG", absl::StrCat(dir.Path("missing"), "::", env1, ":", env2)},
             {"HOME", home}}),
       true,
       "https://env1:6443",
       absl::StrCat("kubeconfig ", env1, " (context ctx)")},
      {"KUBECONFIG naming no existing file is an error",
       {},
       with(in_cluster_env, {{"KUBECONFIG", dir.Path("missing")}, {"HOME", home}}),
       true,
       "",
       "",
       absl::StatusCode::kNotFound,
       {absl::StrCat("KUBECONFIG=", dir.Path("missing"), ": none of the listed files exists")}},
      {"in-cluster before ~/.kube/config",
       {},
       with(in_cluster_env, {{"HOME", home}}),
       true,
       "https://10.96.0.1:443",
       "in-cluster"},
      {"--context skips in-cluster",
       {.context = "other"},
       with(in_cluster_env, {{"HOME", home}}),
       true,
       "https://other.example:6443",
       absl::StrCat("kubeconfig ", home_config, " (context other)")},
      {"~/.kube/config outside a cluster",
       {},
       {{"HOME", home}},
       true,
       "https://home:6443",
       absl::StrCat("kubeconfig ", home_config, " (context ctx)")},
      {"--master replaces the server",
       {.master_override = "https://master:8443/"},
       {{"HOME", home}},
       true,
       "https://master:8443",
       absl::StrCat("kubeconfig ", home_config, " (context ctx), server from --master")},
      {"--master with in-cluster",
       {.master_override = "https://master:8443"},
       in_cluster_env,
       true,
       "https://master:8443",
       "in-cluster, server from --master"},
      {"--master alone",
       {.master_override = "localhost:8080"},
       {{"HOME", empty_home}},
       true,
       "http://localhost:8080",
       "--master without a kubeconfig (no credentials)"},
      {"nothing found lists what was tried",
       {},
       {{"HOME", empty_home}},
       true,
       "",
       "",
       absl::StatusCode::kNotFound,
       {"no Kubernetes API configuration found (--kubeconfig not given; $KUBECONFIG unset; not "
        "running in a cluster: KUBERNETES_SERVICE_HOST is unset; ",
        absl::StrCat(empty_home, "/.kube/config does not exist")}},
      {"nothing found without HOME",
       {},
       {},
       true,
       "",
       "",
       absl::StatusCode::kNotFound,
       {"~/.kube/config not looked for (HOME is unset)"}},
      {"in a pod without service account files",
       {},
       with(in_cluster_env, {{"HOME", empty_home}}),
       false,
       "",
       "",
       absl::StatusCode::kNotFound,
       {"no kubeconfig found (--kubeconfig not given, $KUBECONFIG unset, ",
        "automountServiceAccountToken"}},
      {"in a pod without service account files, but with ~/.kube/config",
       {},
       with(in_cluster_env, {{"HOME", home}}),
       false,
       "https://home:6443",
       absl::StrCat("kubeconfig ", home_config, " (context ctx)")},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    LoadOptions options = tc.options;
    options.getenv = FakeEnv(tc.env);
    options.in_cluster.token_file = tc.sa_files ? token : dir.Path("sa/missing-token");
    options.in_cluster.ca_file = ca;
    absl::StatusOr<RestConfig> got = LoadRestConfig(options);
    if (tc.want_source.empty()) {
      ASSERT_FALSE(got.ok()) << "got server " << got->server;
      EXPECT_EQ(got.status().code(), tc.code) << got.status();
      for (const std::string& part : tc.error_parts) {
        EXPECT_THAT(std::string(got.status().message()), HasSubstr(part));
      }
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->server, tc.want_server);
    EXPECT_EQ(got->source, tc.want_source);
  }
}

}  // namespace
}  // namespace trimaran::kube
