#pragma once
// ServeDecisions: the /debug/decisions handler (the route itself, behind the delegated
// authn/authz, is the AdminServer's; see docs/operations.md, "Live decisions").
//
//   GET /debug/decisions[?pod=NAMESPACE/NAME][&limit=N]
//     200 application/json (decision_json.h), newest first; with ?pod= only that pod's
//         decisions (an unknown pod: an empty list); limit: at most N (1..1000000).
//     400 text/plain naming the bad parameter: limit not a positive integer.
//   With no ring (--decisions-capacity=0): 200 {"capacity":0,"decisions":[]}.
//
// Thread-safety: as DecisionRing (safe for concurrent use).

#include "common/http/http_server.h"
#include "scheduler/decisions/decision_ring.h"

namespace trimaran::sched::decisions {

inline constexpr size_t kMaxLimit = 1000000;

// `ring` may be null (recording disabled).
void ServeDecisions(const DecisionRing* ring, const http::ServerRequest& request,
                    http::ServerResponse& response);

}  // namespace trimaran::sched::decisions
