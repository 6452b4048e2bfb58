#include "common/http/self_signed.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "trimaran_selfsigned_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

TEST(SelfSignedTest, DefaultHostsIncludeLoopback) {
  std::vector<std::string> hosts = DefaultServingHosts();
  ASSERT_GE(hosts.size(), 2u);
  EXPECT_EQ(hosts[0], "localhost");
  EXPECT_EQ(hosts[1], "127.0.0.1");
}

TEST(SelfSignedTest, ServesHttpsVerifiedWithTheCertAsCa) {
  const std::string dir = MakeTempDir() + "/nested/certs";  // created by Ensure
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ServingCertFiles files, EnsureSelfSignedCert(dir));
  EXPECT_TRUE(files.generated);
  EXPECT_EQ(files.cert_file, dir + "/trimaran-scheduler.crt");
  EXPECT_EQ(files.key_file, dir + "/trimaran-scheduler.key");
  struct stat st;
  ASSERT_EQ(stat(files.key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpServerPtr server,
                                HttpServer::Create({.name = "selfsigned",
                                                    .address = "127.0.0.1",
                                                    .port = 0,
                                                    .tls_cert_file = files.cert_file,
                                                    .tls_key_file = files.key_file,
                                                    // Each client connection holds a worker.
                                                    .worker_threads = 4}));
  ASSERT_THAT(server->AddRoute(
                  {.path = "/hello",
                   .handler = [](const ServerRequest&, ServerResponse& res) { res.body = "hi"; }}),
              trimaran::testing::IsOk());
  ASSERT_THAT(server->Start(), trimaran::testing::IsOk());

  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto client,
                                CurlTransport::Create({.tls = {.ca_file = files.cert_file}}));
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    SCOPED_TRACE(host);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        HttpResponse resp,
        client->Send({.url = absl::StrCat("https://", host, ":", server->port(), "/hello")}));
    EXPECT_EQ(resp.status_code, 200);
    EXPECT_EQ(resp.body, "hi");
  }
  // Another self-signed certificate as the CA does not verify this server.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ServingCertFiles other, EnsureSelfSignedCert(MakeTempDir()));
  HttpRequest bad{.url = absl::StrCat("https://127.0.0.1:", server->port(), "/hello")};
  bad.tls = TlsOptions{.ca_file = other.cert_file};
  EXPECT_FALSE(client->Send(bad).ok());
  client.reset();  // closes its connections, so Stop() has none to wait for
  server->Stop();
}

TEST(SelfSignedTest, ReusesValidFilesAndReplacesUnusableOnes) {
  const std::string dir = MakeTempDir();
  SelfSignedOptions options{.hosts = {"localhost", "127.0.0.1"},
                            .validity = absl::Hours(24 * 10),
                            .min_remaining = absl::Hours(24),
                            .now = kNow};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ServingCertFiles first, EnsureSelfSignedCert(dir, options));
  ASSERT_TRUE(first.generated);
  const std::string pem = ReadAll(first.cert_file);

  struct Case {
    std::string name;
    std::function<void(SelfSignedOptions&)> change;
    std::function<void()> damage;
    bool generated;
  } cases[] = {
      {"same request: reused", [](SelfSignedOptions&) {}, [] {}, false},
      // Issued at kNow - 1h, valid until kNow + 10d; 8 days later 2 days remain > 1 day.
      {"8 days later: still reused",
       [](SelfSignedOptions& o) { o.now = kNow + absl::Hours(24 * 8); }, [] {}, false},
      // 9.5 days later only 12h remain < min_remaining 24h.
      {"near expiry: replaced",
       [](SelfSignedOptions& o) { o.now = kNow + absl::Hours(24 * 9 + 12); }, [] {}, true},
      // Before notBefore (kNow - 1h).
      {"not yet valid: replaced", [](SelfSignedOptions& o) { o.now = kNow - absl::Hours(2); },
       [] {}, true},
      {"new host: replaced", [](SelfSignedOptions& o) { o.hosts.push_back("sched.example"); },
       [] {}, true},
      {"new IP: replaced", [](SelfSignedOptions& o) { o.hosts.push_back("10.0.0.1"); }, [] {},
       true},
      {"garbage key: replaced", [](SelfSignedOptions&) {},
       [&] { std::ofstream(first.key_file) << "not a key"; }, true},
      {"missing cert: replaced", [](SelfSignedOptions&) {},
       [&] { std::remove(first.cert_file.c_str()); }, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // Start each case from the first pair.
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ServingCertPem fresh, GenerateSelfSignedCert(options));
    {
      std::ofstream(first.cert_file) << fresh.cert_pem;
      std::ofstream(first.key_file) << fresh.key_pem;
    }
    const std::string before = ReadAll(first.cert_file);
    c.damage();
    SelfSignedOptions o = options;
    c.change(o);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ServingCertFiles again, EnsureSelfSignedCert(dir, o));
    EXPECT_EQ(again.generated, c.generated);
    EXPECT_EQ(ReadAll(first.cert_file) != before, c.generated);
  }
  EXPECT_FALSE(pem.empty());
}

TEST(SelfSignedTest, RejectsBadInput) {
  EXPECT_THAT(GenerateSelfSignedCert({.hosts = {""}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty host")));
  EXPECT_THAT(GenerateSelfSignedCert({.validity = absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("validity")));
  EXPECT_THAT(EnsureSelfSignedCert(""), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(EnsureSelfSignedCert("/proc/no/such/dir"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/proc/no")));
}

}  // namespace
}  // namespace trimaran::http
