#pragma once
// Which client certificates may use the extender's protocol (docs/extender.md,
// "Security"). The TLS handshake already requires a certificate of the client CA
// (--extender-client-ca-file); ClientNamePolicy then checks its names, as kube's
// --requestheader-allowed-names does for its front proxies: a certificate passes when
// its subject's common name or one of its DNS subject alternative names is in
// allowed_names; an empty list lets every certificate of the CA through. Without a
// client CA (--extender-allow-unauthenticated) there is nothing to check.
//
// Thread-safety: immutable after construction; Check is safe from any thread.

#include <string>
#include <vector>

#include "common/http/http_server.h"

namespace trimaran::sched::extender {

struct ClientNamePolicy {
  bool require_client_certificate = true;
  std::vector<std::string> allowed_names{};

  // True when `request` may be served; otherwise fills `response` with 403 (a
  // certificate whose names are not allowed) or 401 (no certificate) and returns false.
  // The refusal names the certificate's common name, never anything secret.
  bool Check(const http::ServerRequest& request, http::ServerResponse& response) const;
};

}  // namespace trimaran::sched::extender
