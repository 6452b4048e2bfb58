#include "common/http/cert_reloader.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/http/testing/test_certs.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

class CertKeyReloaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.Path("a"));
    std::filesystem::create_directories(dir_.Path("b"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(a_, testing::MakeTestPki(dir_.Path("a")));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(b_, testing::MakeTestPki(dir_.Path("b")));
    cert_ = dir_.Write("live/tls.crt", a_.server.cert_pem);
    key_ = dir_.Write("live/tls.key", a_.server.key_pem);
  }
  // Replaces the live pair atomically (rename), as a Secret volume update does.
  void RotateTo(const testing::TestPki& pki) {
    const std::string c = dir_.Write("live/tls.crt.new", pki.server.cert_pem);
    const std::string k = dir_.Write("live/tls.key.new", pki.server.key_pem);
    ASSERT_EQ(std::rename(k.c_str(), key_.c_str()), 0);
    ASSERT_EQ(std::rename(c.c_str(), cert_.c_str()), 0);
  }
  // A fresh connection (no reuse) verified against `ca_file`.
  absl::StatusOr<HttpResponse> Get(const std::string& url, const std::string& ca_file) {
    TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<CurlTransport> client, CurlTransport::Create());
    HttpRequest req{.url = url};
    req.tls = TlsOptions{.ca_file = ca_file};
    return client->Send(req);
  }

  trimaran::testing::TempDirForTest dir_;
  testing::TestPki a_, b_;
  std::string cert_, key_;
};

TEST_F(CertKeyReloaderTest, ServerPicksUpRotatedCertificateWithoutRestart) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HttpServer> server,
      HttpServer::Create({.name = "tls", .tls_cert_file = cert_, .tls_key_file = key_}));
  ASSERT_THAT(
      server->AddRoute({.path = "/x",
                        .handler = [](const ServerRequest&, ServerResponse& r) { r.body = "ok"; }}),
      IsOk());
  ASSERT_THAT(server->Start(), IsOk());
  const std::string url = absl::StrCat(server->url(), "/x");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse before, Get(url, a_.ca.cert_file));
  EXPECT_EQ(before.body, "ok");
  EXPECT_FALSE(Get(url, b_.ca.cert_file).ok());

  ASSERT_NO_FATAL_FAILURE(RotateTo(b_));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse after, Get(url, b_.ca.cert_file));
  EXPECT_EQ(after.body, "ok");
  EXPECT_FALSE(Get(url, a_.ca.cert_file).ok());
}

TEST_F(CertKeyReloaderTest, BadRotationKeepsTheLastGoodPair) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CertKeyReloader> r,
                                CertKeyReloader::Create(cert_, key_));
  const std::string first = r->fingerprint();
  EXPECT_EQ(first.size(), 64u);
  EXPECT_TRUE(r->Refresh());
  EXPECT_EQ(r->reloads(), 0);

  // A key that does not match the certificate: refused, the old pair stays.
  const std::string k = dir_.Write("live/tls.key.new", b_.server.key_pem);
  ASSERT_EQ(std::rename(k.c_str(), key_.c_str()), 0);
  EXPECT_TRUE(r->Refresh());
  EXPECT_EQ(r->fingerprint(), first);
  EXPECT_EQ(r->reloads(), 0);

  ASSERT_NO_FATAL_FAILURE(RotateTo(b_));
  EXPECT_TRUE(r->Refresh());
  EXPECT_NE(r->fingerprint(), first);
  EXPECT_EQ(r->reloads(), 1);
}

TEST_F(CertKeyReloaderTest, CreateNamesTheBadFile) {
  EXPECT_THAT(CertKeyReloader::Create(dir_.Path("missing.crt"), key_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing.crt")));
  const std::string garbage = dir_.Write("garbage.key", "not a key");
  EXPECT_THAT(CertKeyReloader::Create(cert_, garbage),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("garbage.key")));
  EXPECT_THAT(CertKeyReloader::Create(cert_, b_.server.key_file),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not match")));
}

}  // namespace
}  // namespace trimaran::http
