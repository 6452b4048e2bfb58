#include "providers/signalfx/signalfx_provider.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/http/status_mapping.h"
#include "common/json_parse.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/url_escape.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"

namespace trimaran::providers::signalfx {
namespace {

// At most this many skipped series ids are named in a report.
constexpr size_t kMaxNamedSkips = 5;

absl::StatusOr<rapidjson::Document> ParseObject(absl::string_view body, absl::string_view what) {
  rapidjson::Document doc;
  if (absl::Status s = ParseJsonDocument(body, doc, JsonLimits{}, absl::StrCat("decode ", what));
      !s.ok()) {
    return absl::InternalError(s.message());
  }
  if (!doc.IsObject()) return absl::InternalError(absl::StrCat("decode ", what, ": not an object"));
  return doc;
}

struct Accumulator {
  double sum = 0;
  int64_t count = 0;
};

// One metric's per-node means, plus the description of skipped series.
struct MetricResult {
  std::map<std::string, double, std::less<>> means;
  absl::Status skipped;  // OK when nothing was skipped
};

// Series id -> its host dimension, from metrictimeseries' "results" (null: none).
// The views point into `results`.
absl::flat_hash_map<absl::string_view, absl::string_view> HostOfSeries(
    const rapidjson::Value& results) {
  absl::flat_hash_map<absl::string_view, absl::string_view> host_of;
  if (!results.IsArray()) return host_of;
  for (const rapidjson::Value& r : results.GetArray()) {
    if (!r.IsObject()) continue;
    auto id = r.FindMember("id");
    auto dims = r.FindMember("dimensions");
    if (id == r.MemberEnd() || !id->value.IsString() || dims == r.MemberEnd() ||
        !dims->value.IsObject()) {
      continue;
    }
    auto host = dims->value.FindMember("host");
    if (host == dims->value.MemberEnd() || !host->value.IsString()) continue;
    host_of[absl::string_view(id->value.GetString(), id->value.GetStringLength())] =
        absl::string_view(host->value.GetString(), host->value.GetStringLength());
  }
  return host_of;
}

// The points of timeserieswindow's "data" (null: none) summed per node (the host's
// first label); the ids of series without a host or points go to `skipped`.
std::map<std::string, Accumulator, std::less<>> SumPerNode(
    const rapidjson::Value& data,
    const absl::flat_hash_map<absl::string_view, absl::string_view>& host_of,
    std::vector<std::string>& skipped) {
  std::map<std::string, Accumulator, std::less<>> acc;
  if (!data.IsObject()) return acc;
  for (const auto& series : data.GetObject()) {
    absl::string_view id(series.name.GetString(), series.name.GetStringLength());
    auto h = host_of.find(id);
    absl::string_view node = h == host_of.end() ? "" : NodeNameFromHost(h->second);
    if (node.empty() || !series.value.IsArray()) {
      skipped.emplace_back(id);
      continue;
    }
    Accumulator a;
    for (const rapidjson::Value& point : series.value.GetArray()) {
      if (!point.IsArray() || point.Size() < 2 || !point[1].IsNumber()) continue;
      a.sum += point[1].GetDouble();
      ++a.count;
    }
    if (a.count == 0) {
      skipped.emplace_back(id);
      continue;
    }
    Accumulator& total = acc[std::string(node)];
    total.sum += a.sum;
    total.count += a.count;
  }
  return acc;
}

// The per-node means, and the skipped series (the first kMaxNamedSkips named).
MetricResult MeansOf(const std::map<std::string, Accumulator, std::less<>>& acc,
                     const std::vector<std::string>& skipped, absl::string_view what_data) {
  MetricResult result;
  for (const auto& [node, a] : acc) {
    result.means.emplace(node, a.sum / static_cast<double>(a.count));
  }
  if (!skipped.empty()) {
    std::vector<std::string> named(skipped.begin(),
                                   skipped.begin() + std::min(skipped.size(), kMaxNamedSkips));
    result.skipped = absl::NotFoundError(absl::StrCat(
        what_data, ": skipped ", skipped.size(), " series without host metadata or points: ",
        absl::StrJoin(named, ", "), skipped.size() > kMaxNamedSkips ? ", ..." : ""));
  }
  return result;
}

// One metric's answers, timeserieswindow's `data_body` and metrictimeseries'
// `meta_body` (`what_data`, `what_meta` name them in errors), joined on the series id.
absl::StatusOr<MetricResult> DecodeMetric(absl::string_view metric, absl::string_view data_body,
                                          absl::string_view meta_body, const std::string& what_data,
                                          const std::string& what_meta) {
  // Const: RapidJSON's non-const MemberIterator comparisons are ambiguous under C++20's
  // reversed operators.
  TRIMARAN_ASSIGN_OR_RETURN(const rapidjson::Document data, ParseObject(data_body, what_data));
  TRIMARAN_ASSIGN_OR_RETURN(const rapidjson::Document meta, ParseObject(meta_body, what_meta));
  auto data_it = data.FindMember("data");
  if (data_it == data.MemberEnd() || !(data_it->value.IsObject() || data_it->value.IsNull())) {
    return absl::InternalError(absl::StrCat("decode ", what_data, ": no data object"));
  }
  auto results_it = meta.FindMember("results");
  if (results_it == meta.MemberEnd() ||
      !(results_it->value.IsArray() || results_it->value.IsNull())) {
    return absl::InternalError(absl::StrCat("decode ", what_meta, ": no results array"));
  }
  if (auto errs = data.FindMember("errors");
      errs != data.MemberEnd() && errs->value.IsArray() && !errs->value.Empty()) {
    Log(Component::kProvider)
        .warn("signalfx timeserieswindow reported errors metric={} count={}", metric,
              errs->value.Size());
  }
  const absl::flat_hash_map<absl::string_view, absl::string_view> host_of =
      HostOfSeries(results_it->value);
  std::vector<std::string> skipped;
  const std::map<std::string, Accumulator, std::less<>> acc =
      SumPerNode(data_it->value, host_of, skipped);
  return MeansOf(acc, skipped, what_data);
}

// `means` into `out` as `metric`'s averages of `type`.
void AddMeans(absl::string_view metric, absl::string_view type,
              const std::map<std::string, double, std::less<>>& means, lw::HostsMetrics& out) {
  for (const auto& [node, mean] : means) {
    lw::Metric m;
    m.name = std::string(metric);
    m.type = std::string(type);
    m.op = std::string(lw::kOpAvg);
    m.value = mean;
    out.nodes[node].metrics.push_back(std::move(m));
  }
}

}  // namespace

std::string BuildQuery(const Options& options, absl::string_view metric) {
  std::string q = absl::StrCat("host:*", options.host_name_suffix);
  if (!options.cluster_name.empty()) absl::StrAppend(&q, " AND cluster:", options.cluster_name);
  absl::StrAppend(&q, " AND ", metric);
  return q;
}

absl::string_view NodeNameFromHost(absl::string_view host) {
  return host.substr(0, host.find('.'));
}

absl::StatusOr<std::unique_ptr<SignalFxProvider>> SignalFxProvider::Create(
    http::HttpTransport& transport, Options options) {
  if (options.token.empty()) {
    return absl::InvalidArgumentError("signalfx: a token (METRICS_PROVIDER_TOKEN) is required");
  }
  if (options.address.empty()) options.address = std::string(kDefaultAddress);
  while (absl::EndsWith(options.address, "/")) options.address.pop_back();
  if (!absl::StartsWith(options.address, "http://") &&
      !absl::StartsWith(options.address, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "signalfx: address must be http(s)://host[:port], got \"", options.address, "\""));
  }
  return std::unique_ptr<SignalFxProvider>(new SignalFxProvider(transport, std::move(options)));
}

SignalFxProvider::SignalFxProvider(http::HttpTransport& transport, Options options)
    : transport_(transport), options_(std::move(options)) {}

std::string SignalFxProvider::Name() const { return std::string(lw::kProviderSignalFx); }

http::HttpRequest SignalFxProvider::NewRequest(std::string method, std::string url) const {
  http::HttpRequest req;
  req.method = std::move(method);
  req.url = std::move(url);
  req.headers.Set("X-SF-Token", options_.token);
  req.headers.Set("Content-Type", "application/json");
  req.timeout = options_.timeout;
  if (options_.insecure_skip_verify) {
    http::TlsOptions tls;
    tls.insecure_skip_verify = true;
    req.tls = tls;
  }
  return req;
}

absl::StatusOr<std::string> SignalFxProvider::Get(const std::string& url,
                                                  absl::string_view what) const {
  absl::StatusOr<http::HttpResponse> resp = transport_.Send(NewRequest("GET", url));
  if (!resp.ok()) return Annotate(resp.status(), what);
  if (!resp->ok()) {
    // The URL carries no secret (the token is a header).
    return Annotate(http::StatusFromResponse(*resp, {.method = "GET", .target = url}), what);
  }
  return std::move(resp->body);
}

absl::StatusOr<lw::HostsMetrics> SignalFxProvider::FetchAllHostsMetrics(const lw::Window& window) {
  struct Spec {
    absl::string_view metric;
    absl::string_view type;
  };
  constexpr Spec kSpecs[] = {{kCpuMetric, lw::kTypeCpu}, {kMemoryMetric, lw::kTypeMemory}};

  lw::HostsMetrics out;
  std::vector<absl::Status> failures;
  for (const Spec& spec : kSpecs) {
    const std::string query = QueryEscape(BuildQuery(options_, spec.metric));
    const std::string what_data = absl::StrCat("signalfx timeserieswindow ", spec.metric);
    const std::string what_meta = absl::StrCat("signalfx metrictimeseries ", spec.metric);
    // The points, then the series' metadata (their hosts), then the join.
    auto fetch = [&]() -> absl::StatusOr<MetricResult> {
      TRIMARAN_ASSIGN_OR_RETURN(
          std::string data_body,
          Get(absl::StrCat(options_.address, "/v1/timeserieswindow?query=", query,
                           "&startMs=", window.start * 1000, "&endMs=", window.end * 1000,
                           "&resolution=", options_.resolution_ms),
              what_data));
      TRIMARAN_ASSIGN_OR_RETURN(std::string meta_body,
                                Get(absl::StrCat(options_.address, "/v2/metrictimeseries?query=",
                                                 query, "&limit=", options_.metadata_limit),
                                    what_meta));
      return DecodeMetric(spec.metric, data_body, meta_body, what_data, what_meta);
    };
    absl::StatusOr<MetricResult> result = fetch();
    if (!result.ok()) {
      Log(Component::kProvider)
          .warn("signalfx fetch failed metric={} err=\"{}\"", spec.metric,
                result.status().message());
      failures.push_back(result.status());
      continue;
    }
    if (!result->skipped.ok()) out.partial_errors.push_back(result->skipped);
    AddMeans(spec.metric, spec.type, result->means, out);
  }
  if (failures.size() == std::size(kSpecs)) return failures.front();
  for (absl::Status& s : failures) out.partial_errors.push_back(std::move(s));
  return out;
}

absl::StatusOr<std::vector<lw::Metric>> SignalFxProvider::FetchHostMetrics(
    absl::string_view host, const lw::Window& window) {
  TRIMARAN_ASSIGN_OR_RETURN(lw::HostsMetrics all, FetchAllHostsMetrics(window));
  auto it = all.nodes.find(NodeNameFromHost(host));
  if (it == all.nodes.end()) {
    return absl::NotFoundError(absl::StrCat("no signalfx metrics for host ", host));
  }
  return std::move(it->second.metrics);
}

absl::Status SignalFxProvider::Health() {
  absl::StatusOr<http::HttpResponse> resp = transport_.Send(NewRequest("HEAD", options_.address));
  if (!resp.ok()) return Annotate(resp.status(), "signalfx health");
  return http::StatusFromResponse(*resp, {.method = "HEAD", .target = options_.address});
}

}  // namespace trimaran::providers::signalfx
