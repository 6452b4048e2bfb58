#pragma once
// A client of the scheduler's /debug/decisions (decisions_endpoint.h), as `trimaranctl
// explain` reads it: GET /debug/decisions[?pod=NAMESPACE/NAME] on the scheduler's secure
// port with a bearer token and TLS settings, decoded (decision_json.h).
//
//   TRIMARAN_ASSIGN_OR_RETURN(DecisionList list,
//       FetchDecisions(transport, {.scheduler = "https://127.0.0.1:10259",
//                                  .token = token}, "default/web-1"));
//
// Errors are one message for a person, with what to do (the flags named are trimaranctl
// explain's): Unavailable when the scheduler cannot be reached (the port-forward hint)
// or answers an unexpected status, Unauthenticated on 401 (the token), PermissionDenied
// on 403 (the ClusterRole to bind, kDecisionsViewerRole), NotFound on 404 (no decision
// recording), Internal when the answer does not decode.
//
// Thread-safety: reentrant when the transport is (CurlTransport is).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/http/transport.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {

// The ClusterRole that allows GET on /debug/decisions.
inline constexpr char kDecisionsViewerRole[] = "trimaran-scheduler-decisions-viewer";

struct DecisionsClientOptions {
  std::string scheduler;  // "https://HOST:PORT" (trailing slashes ignored)
  std::string ca_file;    // verifies the scheduler's serving certificate; "" system CAs
  bool insecure_skip_tls_verify = false;
  std::string token;  // the bearer token; "" sends none
};

// The decisions of `pod` ("NAMESPACE/NAME"), or of every pod when `pod` is "".
absl::StatusOr<DecisionList> FetchDecisions(http::HttpTransport& transport,
                                            const DecisionsClientOptions& options,
                                            absl::string_view pod);

}  // namespace trimaran::sched::decisions
