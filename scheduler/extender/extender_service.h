#pragma once
// ExtenderService: the scheduler extender HTTP protocol (spec kube-scheduler.md §7) over
// an ExtenderBackend. kube-scheduler POSTs JSON to <urlPrefix>/<verb>:
//
//   POST /filter      ExtenderArgs -> ExtenderFilterResult. Names in, names out
//                     (nodeCacheCapable true); objects in, the same objects out
//                     (nodeCacheCapable false; echoed as received). Every error (bad
//                     request, not ready, a plugin error) is a 200 with "Error" set, which
//                     kube-scheduler treats as the extender failing (skipped when
//                     ignorable).
//   POST /prioritize  ExtenderArgs -> HostPriorityList (0..10). The protocol has no error
//                     field: errors answer 400 (bad request) or 500 with a text body;
//                     kube-scheduler ignores a failed prioritize either way.
//   POST /bind        ExtenderBindingArgs -> ExtenderBindingResult ("Error" on failure).
//                     Registered only when binding is on.
//   POST /preempt     not supported: 501 with a text body ("leave preemptVerb empty").
//
// Before `ready` says OK (the informers have not synced) every verb answers an error:
// the extender never judges a cluster it has not seen. The body limit is the HTTP
// server's (the daemon sets 256 MiB: 5,000 full Node objects are tens of MiB).
//
// Stats (relative to the scope given; the daemon passes "trimaran_extender_"):
//   requests_total{verb,result}           counter; result ok | error | bad_request
//   request_duration_seconds{verb}        histogram 0.0001×2^k, k < 18 (100 µs .. 13 s)
// Bad requests and errors are logged at warning, at most one line per 10 s (with the
// number suppressed since the last line).
//
// Thread-safety: the handlers are safe for concurrent calls; AddRoutes before the server
// starts.

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/stats/scope.h"
#include "common/stats/stats.h"
#include "scheduler/extender/extender_backend.h"

namespace trimaran::sched::extender {

struct ExtenderServiceOptions {
  // Serve POST /bind.
  bool bind = false;
  // OK once the extender can answer (informers synced). Default: always ready.
  std::function<absl::Status()> ready;
};

class ExtenderService {
 public:
  // `backend`, `clock` and the scope's registry must outlive the service.
  ExtenderService(ExtenderBackend& backend, const Clock& clock, const stats::Scope& scope,
                  ExtenderServiceOptions options);

  // Adds /filter, /prioritize, /preempt and (when on) /bind.
  absl::Status AddRoutes(http::HttpServer& server);

  // The handlers (also what tests call).
  void ServeFilter(const http::ServerRequest& req, http::ServerResponse& res);
  void ServePrioritize(const http::ServerRequest& req, http::ServerResponse& res);
  void ServeBind(const http::ServerRequest& req, http::ServerResponse& res);
  void ServePreempt(const http::ServerRequest& req, http::ServerResponse& res);

 private:
  enum class Result { kOk, kError, kBadRequest };
  void Observe(absl::string_view verb, Result result, absl::Time start, const absl::Status& error);

  ExtenderBackend& backend_;
  const Clock& clock_;
  const ExtenderServiceOptions options_;
  stats::Family<stats::Counter>& requests_;
  stats::Family<stats::Histogram>& duration_;

  absl::Mutex log_mu_;
  absl::Time last_log_ ABSL_GUARDED_BY(log_mu_) = absl::InfinitePast();
  int64_t suppressed_ ABSL_GUARDED_BY(log_mu_) = 0;
};

}  // namespace trimaran::sched::extender
