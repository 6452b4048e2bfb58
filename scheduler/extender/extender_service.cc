#include "scheduler/extender/extender_service.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "scheduler/extender/extender_codec.h"

namespace trimaran::sched::extender {
namespace {

constexpr absl::Duration kLogInterval = absl::Seconds(10);
constexpr char kJson[] = "application/json";

// The candidates of a request: objects when kube-scheduler sent them, else names.
std::vector<CandidateNode> Candidates(const ExtenderArgs& args) {
  std::vector<CandidateNode> out;
  if (args.nodes.has_value()) {
    out.reserve(args.nodes->size());
    for (const WireNode& n : *args.nodes) out.push_back({n.node->metadata.name, n.node});
  } else if (args.node_names.has_value()) {
    out.reserve(args.node_names->size());
    for (const std::string& name : *args.node_names) out.push_back({name, nullptr});
  }
  return out;
}

}  // namespace

ExtenderService::ExtenderService(ExtenderBackend& backend, const Clock& clock,
                                 const stats::Scope& scope, ExtenderServiceOptions options)
    : backend_(backend),
      clock_(clock),
      options_(std::move(options)),
      requests_(scope.CounterFamily("requests_total",
                                    "Extender requests served, by verb and result (ok, error, "
                                    "bad_request).",
                                    {"verb", "result"})),
      duration_(scope.HistogramFamily("request_duration_seconds",
                                      "Time to serve one extender request (decode, plugins, "
                                      "encode), by verb.",
                                      {"verb"}, stats::ExponentialBuckets(0.0001, 2, 18))) {}

absl::Status ExtenderService::AddRoutes(http::HttpServer& server) {
  auto route = [this](
                   const char* path, const char* help,
                   void (ExtenderService::*fn)(const http::ServerRequest&, http::ServerResponse&)) {
    return http::Route{
        .path = path,
        .methods = {"POST"},
        .help = help,
        .handler = [this, fn](const http::ServerRequest& req,
                              http::ServerResponse& res) { (this->*fn)(req, res); },
    };
  };
  TRIMARAN_RETURN_IF_ERROR(
      server.AddRoute(route("/filter", "extender filter: ExtenderArgs -> ExtenderFilterResult",
                            &ExtenderService::ServeFilter)));
  TRIMARAN_RETURN_IF_ERROR(server.AddRoute(
      route("/prioritize", "extender prioritize: ExtenderArgs -> HostPriorityList (0..10)",
            &ExtenderService::ServePrioritize)));
  TRIMARAN_RETURN_IF_ERROR(server.AddRoute(route(
      "/preempt", "extender preemption: not supported (501)", &ExtenderService::ServePreempt)));
  if (options_.bind) {
    TRIMARAN_RETURN_IF_ERROR(server.AddRoute(
        route("/bind", "extender bind: ExtenderBindingArgs -> ExtenderBindingResult",
              &ExtenderService::ServeBind)));
  }
  return absl::OkStatus();
}

void ExtenderService::Observe(absl::string_view verb, Result result, absl::Time start,
                              const absl::Status& error) {
  const absl::string_view label = result == Result::kOk      ? "ok"
                                  : result == Result::kError ? "error"
                                                             : "bad_request";
  requests_.WithLabels({verb, label}).Inc();
  duration_.WithLabels({verb}).Observe(absl::ToDoubleSeconds(clock_.Now() - start));
  if (result == Result::kOk) return;
  absl::MutexLock lock(&log_mu_);
  const absl::Time now = clock_.Now();
  if (now - last_log_ < kLogInterval) {
    ++suppressed_;
    return;
  }
  Log(Component::kAdmin)
      .warn("extender {} {}: {} ({} similar lines suppressed in the last {})", verb, label,
            error.ToString(), suppressed_, absl::FormatDuration(kLogInterval));
  last_log_ = now;
  suppressed_ = 0;
}

void ExtenderService::ServeFilter(const http::ServerRequest& req, http::ServerResponse& res) {
  const absl::Time start = clock_.Now();
  res.status = 200;
  res.content_type = kJson;
  ExtenderFilterResult out;
  auto fail = [&](Result result, const absl::Status& error) {
    out.error = error.ToString();
    res.body = EncodeExtenderFilterResult(out);
    Observe("filter", result, start, error);
  };
  if (options_.ready) {
    if (absl::Status ready = options_.ready(); !ready.ok()) return fail(Result::kError, ready);
  }
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(req.body);
  if (!args.ok()) return fail(Result::kBadRequest, args.status());
  const std::vector<CandidateNode> candidates = Candidates(*args);
  absl::StatusOr<FilterVerdicts> verdicts = backend_.Filter(args->pod, candidates);
  if (!verdicts.ok()) return fail(Result::kError, verdicts.status());
  if (args->nodes.has_value()) {
    // Echo the passing objects as received, in request order.
    out.nodes.emplace();
    size_t next = 0;
    for (const std::string& name : verdicts->feasible) {
      while (next < args->nodes->size() && (*args->nodes)[next].node->metadata.name != name) {
        ++next;
      }
      if (next == args->nodes->size()) break;
      out.nodes->push_back(std::move((*args->nodes)[next]));
      ++next;
    }
  } else {
    out.node_names = std::move(verdicts->feasible);
  }
  out.failed_nodes = std::move(verdicts->failed);
  out.failed_and_unresolvable_nodes = std::move(verdicts->failed_and_unresolvable);
  res.body = EncodeExtenderFilterResult(out);
  Observe("filter", Result::kOk, start, absl::OkStatus());
}

void ExtenderService::ServePrioritize(const http::ServerRequest& req, http::ServerResponse& res) {
  const absl::Time start = clock_.Now();
  auto fail = [&](Result result, const absl::Status& error) {
    res.status = result == Result::kBadRequest ? 400 : 500;
    res.content_type = "text/plain; charset=utf-8";
    res.body = absl::StrCat(error.ToString(), "\n");
    Observe("prioritize", result, start, error);
  };
  if (options_.ready) {
    if (absl::Status ready = options_.ready(); !ready.ok()) return fail(Result::kError, ready);
  }
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(req.body);
  if (!args.ok()) return fail(Result::kBadRequest, args.status());
  absl::StatusOr<std::vector<HostPriority>> list =
      backend_.Prioritize(args->pod, Candidates(*args));
  if (!list.ok()) return fail(Result::kError, list.status());
  res.status = 200;
  res.content_type = kJson;
  res.body = EncodeHostPriorityList(*list);
  Observe("prioritize", Result::kOk, start, absl::OkStatus());
}

void ExtenderService::ServeBind(const http::ServerRequest& req, http::ServerResponse& res) {
  const absl::Time start = clock_.Now();
  res.status = 200;
  res.content_type = kJson;
  auto fail = [&](Result result, const absl::Status& error) {
    res.body = EncodeExtenderBindingResult({.error = error.ToString()});
    Observe("bind", result, start, error);
  };
  if (!options_.bind) {
    return fail(Result::kError, absl::UnimplementedError("binding is off"));
  }
  if (options_.ready) {
    if (absl::Status ready = options_.ready(); !ready.ok()) return fail(Result::kError, ready);
  }
  absl::StatusOr<ExtenderBindingArgs> args = DecodeExtenderBindingArgs(req.body);
  if (!args.ok()) return fail(Result::kBadRequest, args.status());
  if (absl::Status s = backend_.Bind(*args); !s.ok()) return fail(Result::kError, s);
  res.body = EncodeExtenderBindingResult({});
  Observe("bind", Result::kOk, start, absl::OkStatus());
}

void ExtenderService::ServePreempt(const http::ServerRequest&, http::ServerResponse& res) {
  const absl::Time start = clock_.Now();
  res.status = 501;
  res.body =
      "preemption is not supported by the trimaran extender: leave preemptVerb empty "
      "(kube-scheduler's own DefaultPreemption still runs)\n";
  Observe("preempt", Result::kError, start, absl::UnimplementedError("preempt called"));
}

}  // namespace trimaran::sched::extender
