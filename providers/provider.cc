#include "providers/provider.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/status_macros.h"

namespace trimaran::providers {

absl::StatusOr<std::shared_ptr<http::HttpTransport>> DefaultTransportFactory(
    const lw::ProviderSpec& spec) {
  http::CurlTransportOptions options;
  options.tls.insecure_skip_verify = spec.insecure_skip_verify;
  options.tls.ca_file = spec.ca_file;
  options.tls.client_cert_file = spec.client_cert_file;
  options.tls.client_key_file = spec.client_key_file;
  options.user_agent = "trimaran-load-watcher";
  options.max_idle_handles = 4;
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<http::CurlTransport> transport,
                            http::CurlTransport::Create(std::move(options)));
  return std::shared_ptr<http::HttpTransport>(std::move(transport));
}

absl::Status CheckHttpAddress(const std::string& address) {
  if (address.empty()) return absl::OkStatus();
  const bool https = absl::StartsWith(address, "https://");
  const bool http = https || absl::StartsWith(address, "http://");
  if (!http || address.size() <= (https ? 8u : 7u)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kAddressField, ": \"", address,
                     "\" is not an absolute http:// or https:// URL (e.g. "
                     "\"http://prometheus-k8s.monitoring:9090\")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<http::HttpTransport>> MakeTransport(const lw::ProviderSpec& spec,
                                                                   const ProviderExtras& extras) {
  absl::StatusOr<std::shared_ptr<http::HttpTransport>> transport =
      extras.transport_factory ? extras.transport_factory(spec) : DefaultTransportFactory(spec);
  if (!transport.ok()) return transport.status();
  if (*transport == nullptr) {
    return absl::InternalError(absl::StrCat("provider ", spec.type, ": no HTTP transport"));
  }
  return transport;
}

}  // namespace trimaran::providers
