#include "loadwatcher/connect.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/http/curl_transport.h"
#include "loadwatcher/grpc_client.h"
#include "loadwatcher/http_client.h"

namespace trimaran::lw {
namespace {

absl::StatusOr<ConnectedClient> ConnectGrpc(absl::string_view target, bool tls,
                                            const std::string& ca_file,
                                            const std::string& token_file) {
  GrpcClientOptions g;
  g.target = std::string(target);
  g.timeout = absl::Seconds(10);
  g.token_file = token_file;
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    if (!ca_file.empty()) {
      std::ifstream in(ca_file, std::ios::binary);
      std::ostringstream pem;
      pem << in.rdbuf();
      if (!in || pem.str().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--watcher-ca-file \"", ca_file, "\": cannot read the file"));
      }
      ssl.pem_root_certs = pem.str();
    }
    g.credentials = grpc::SslCredentials(ssl);
  }
  ConnectedClient out;
  out.client = std::make_unique<GrpcClient>(g);
  return out;
}

absl::StatusOr<ConnectedClient> ConnectRest(std::string address, const std::string& ca_file,
                                            const std::string& token_file) {
  if (!absl::StrContains(address, "://")) address = absl::StrCat("http://", address);
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> t = http::CurlTransport::Create();
  if (!t.ok()) return t.status();
  ConnectedClient out;
  out.transport = std::move(*t);
  HttpClientOptions h;
  h.address = address;
  h.timeout = absl::Seconds(10);
  h.ca_file = ca_file;
  h.token_file = token_file;
  out.client = std::make_unique<HttpClient>(*out.transport, h);
  return out;
}

}  // namespace

absl::StatusOr<ConnectedClient> ConnectWatcher(const std::string& address,
                                               const std::string& ca_file,
                                               const std::string& token_file) {
  if (address.empty()) return ConnectedClient{};
  absl::string_view target = address;
  const bool grpcs = absl::ConsumePrefix(&target, "grpcs://");
  if (grpcs || absl::ConsumePrefix(&target, "grpc://")) {
    return ConnectGrpc(target, grpcs, ca_file, token_file);
  }
  return ConnectRest(address, ca_file, token_file);
}

}  // namespace trimaran::lw
