#pragma once
// RequestAuthorizer: decides whether an admin-port request may be served (delegated
// authentication and authorization, spec kube-scheduler.md §8.1; kube-scheduler's
// secure serving). AdminServer asks it before every route.
//
// Thread-safety: implementations are safe for concurrent Check calls (the HTTP worker
// threads).

#include <string>

#include "common/http/http_server.h"

namespace trimaran::sched {

struct AuthDecision {
  int status = 200;     // 200: serve; 401, 403 or 500: answer with `message`
  std::string message;  // the body of a refusal ("Unauthorized", "forbidden: ...")
  std::string user;     // the authenticated user, "" when none (for logs)

  bool allowed() const { return status == 200; }
};

class RequestAuthorizer {
 public:
  virtual ~RequestAuthorizer() = default;
  virtual AuthDecision Check(const http::ServerRequest& request) const = 0;
};

}  // namespace trimaran::sched
