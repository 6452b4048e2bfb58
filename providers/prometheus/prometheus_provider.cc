#include "providers/prometheus/prometheus_provider.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/http/status_mapping.h"
#include "common/json_parse.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/url_escape.h"

namespace trimaran::providers::prometheus {

std::vector<QuerySpec> DefaultQueries() {
  return QueriesFor(kDefaultCpuMetric, kDefaultMemoryMetric);
}

std::vector<QuerySpec> QueriesFor(const std::string& cpu_metric, const std::string& memory_metric) {
  const std::pair<const char*, const char*> metrics[] = {
      {cpu_metric.c_str(), "CPU"},
      {memory_metric.c_str(), "Memory"},
  };
  const std::pair<const char*, const char*> methods[] = {{"avg_over_time", "AVG"},
                                                         {"stddev_over_time", "STD"}};
  std::vector<QuerySpec> out;
  for (const auto& [method, op] : methods) {
    for (const auto& [metric, type] : metrics) {
      out.push_back(
          QuerySpec{.expr = absl::StrCat(method, "(", metric, "[", kWindowPlaceholder, "])"),
                    .name = metric,
                    .type = type,
                    .op = op,
                    .scale = 100});
    }
  }
  return out;
}

std::string ExpandQuery(const std::string& expr, const std::string& window) {
  return absl::StrReplaceAll(expr, {{kWindowPlaceholder, window}});
}

namespace {

bool IsIpv4(absl::string_view s) {
  int dots = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots == 3;
}

// "host:port" -> "host", "[v6]:port" -> "v6"; a bare IPv6 address is kept whole.
absl::string_view StripPort(absl::string_view value) {
  if (absl::StartsWith(value, "[")) {
    size_t close = value.find(']');
    if (close != absl::string_view::npos) return value.substr(1, close - 1);
    return value;
  }
  size_t colon = value.rfind(':');
  if (colon == absl::string_view::npos) return value;
  if (value.find(':') != colon) return value;  // IPv6 without brackets
  return value.substr(0, colon);
}

// "node-1.example.com" -> "node-1"; IPv4 addresses and IPv6 are kept whole.
absl::string_view TrimFqdn(absl::string_view host) {
  if (IsIpv4(host) || absl::StrContains(host, ':')) return host;
  size_t dot = host.find('.');
  return dot == absl::string_view::npos ? host : host.substr(0, dot);
}

// Best-effort message of a Prometheus error document {"status":"error","errorType":...,
// "error":...}; "" when `body` is not one.
std::string ApiErrorMessage(const rapidjson::Document& doc) {
  if (!doc.IsObject()) return "";
  std::string type, error;
  auto it = doc.FindMember("errorType");
  if (it != doc.MemberEnd() && it->value.IsString()) type = it->value.GetString();
  it = doc.FindMember("error");
  if (it != doc.MemberEnd() && it->value.IsString()) error = it->value.GetString();
  if (type.empty() && error.empty()) return "";
  return type.empty() ? error : absl::StrCat(type, ": ", error);
}

}  // namespace

struct PrometheusProvider::NodeTable {
  bool empty = true;
  std::unordered_map<std::string, std::string> key_to_node;  // name/address/short name
  std::vector<std::string> names;                            // sorted

  std::string Map(absl::string_view value) const {
    if (empty) {
      return std::string(TrimFqdn(StripPort(value)));
    }
    auto find = [&](absl::string_view key) -> const std::string* {
      auto it = key_to_node.find(std::string(key));
      return it == key_to_node.end() ? nullptr : &it->second;
    };
    if (const std::string* n = find(value)) return *n;
    absl::string_view host = StripPort(value);
    if (const std::string* n = find(host)) return *n;
    if (const std::string* n = find(TrimFqdn(host))) return *n;
    return "";
  }
};

std::string StartupReport::Summary(int node_count) const {
  return absl::StrCat(
      "prometheus startup check: ", node_count - static_cast<int>(nodes_without_series.size()), "/",
      node_count, " nodes have series; nodes without series: [",
      absl::StrJoin(nodes_without_series, ", "), "]; queries returning nothing: [",
      absl::StrJoin(empty_queries, ", "), "]; failed queries: [",
      absl::StrJoin(failed_queries, ", "), "]");
}

absl::StatusOr<std::unique_ptr<PrometheusProvider>> PrometheusProvider::Create(
    PrometheusOptions options, http::HttpTransport* transport) {
  if (transport == nullptr) return absl::InvalidArgumentError("prometheus: no transport");
  if (options.address.empty()) options.address = kDefaultAddress;
  if (!absl::StartsWith(options.address, "http://") &&
      !absl::StartsWith(options.address, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat("prometheus: address \"", options.address,
                                                   "\" must start with http:// or https://"));
  }
  while (absl::EndsWith(options.address, "/")) options.address.pop_back();
  if (!options.bearer_token.empty() && !options.bearer_token_file.empty()) {
    return absl::InvalidArgumentError("prometheus: set a bearer token or a token file, not both");
  }
  if (options.query_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("prometheus: query timeout must be positive");
  }
  if (options.queries.empty()) return absl::InvalidArgumentError("prometheus: no queries");
  for (const QuerySpec& q : options.queries) {
    if (q.expr.empty())
      return absl::InvalidArgumentError("prometheus: a query has an empty expression");
  }
  if (options.node_labels.empty()) options.node_labels = {"instance"};
  return std::unique_ptr<PrometheusProvider>(new PrometheusProvider(std::move(options), transport));
}

PrometheusProvider::PrometheusProvider(PrometheusOptions options, http::HttpTransport* transport)
    : options_(std::move(options)), transport_(transport), table_(std::make_shared<NodeTable>()) {}

void PrometheusProvider::SetNodes(const std::vector<NodeRef>& nodes) {
  auto table = std::make_shared<NodeTable>();
  table->empty = nodes.empty();
  for (const NodeRef& node : nodes) {
    table->names.push_back(node.name);
    // Exact names win over addresses and short names: insert them first, never
    // overwrite.
    table->key_to_node.emplace(node.name, node.name);
  }
  for (const NodeRef& node : nodes) {
    for (const std::string& addr : node.addresses) table->key_to_node.emplace(addr, node.name);
    table->key_to_node.emplace(std::string(TrimFqdn(node.name)), node.name);
  }
  std::sort(table->names.begin(), table->names.end());
  absl::MutexLock lock(&mu_);
  table_ = std::move(table);
}

std::shared_ptr<const PrometheusProvider::NodeTable> PrometheusProvider::Table() const {
  absl::MutexLock lock(&mu_);
  return table_;
}

std::string PrometheusProvider::MapLabelForTest(absl::string_view value) const {
  return Table()->Map(value);
}

std::string PrometheusProvider::Name() const { return std::string(lw::kProviderPrometheus); }

absl::StatusOr<std::string> PrometheusProvider::Token() const {
  if (options_.bearer_token_file.empty()) return options_.bearer_token;
  std::ifstream in(options_.bearer_token_file);
  if (!in) {
    return absl::FailedPreconditionError(
        absl::StrCat("prometheus: cannot read token file ", options_.bearer_token_file));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(ss.str()));
}

absl::StatusOr<http::HttpResponse> PrometheusProvider::Send(std::string method, std::string url,
                                                            std::string body,
                                                            absl::string_view token) const {
  http::HttpRequest req;
  req.method = std::move(method);
  req.url = std::move(url);
  req.timeout = options_.query_timeout;
  if (!token.empty()) req.headers.Set("Authorization", absl::StrCat("Bearer ", token));
  for (const auto& [name, value] : options_.headers) req.headers.Set(name, value);
  req.headers.Set("Accept", "application/json");
  if (req.method == "POST") {
    req.headers.Set("Content-Type", "application/x-www-form-urlencoded");
    req.body = std::move(body);
  }
  if (!(options_.tls == http::TlsOptions{})) req.tls = options_.tls;
  return transport_->Send(req);
}

absl::StatusOr<std::vector<PrometheusProvider::Sample>> PrometheusProvider::RunQuery(
    absl::string_view expr, int64_t time_unix, absl::string_view token,
    const NodeTable& table) const {
  std::string params = absl::StrCat("query=", QueryEscape(expr));
  if (time_unix > 0) absl::StrAppend(&params, "&time=", time_unix);
  const std::string url = absl::StrCat(options_.address, "/api/v1/query");
  const std::string context = absl::StrCat("prometheus query \"", expr, "\"");

  absl::StatusOr<http::HttpResponse> resp = Send("POST", url, params, token);
  if (resp.ok() && (resp->status_code == 405 || resp->status_code == 501)) {
    resp = Send("GET", absl::StrCat(url, "?", params), "", token);
  }
  if (!resp.ok()) return Annotate(resp.status(), context);

  rapidjson::Document doc;
  const absl::Status parse = ParseJsonDocument(resp->body, doc, JsonLimits{}, context);
  const bool parsed = parse.ok() && doc.IsObject();
  if (!resp->ok()) {
    std::string msg = parsed ? ApiErrorMessage(doc) : "";
    return http::StatusFromHttp(resp->status_code, msg.empty() ? resp->body : msg,
                                {.method = "POST", .target = context, .method_in_message = false});
  }
  if (!parsed) {
    return absl::DataLossError(
        absl::StrCat(context, ": response is not a JSON object",
                     parse.ok() ? "" : absl::StrCat(" (", parse.message(), ")")));
  }
  // Read through a const view: RapidJSON's non-const MemberIterator comparisons are
  // ambiguous under C++20's reversed operators.
  const rapidjson::Value& root = doc;
  auto status = root.FindMember("status");
  if (status == root.MemberEnd() || !status->value.IsString() ||
      absl::string_view(status->value.GetString()) != "success") {
    std::string msg = ApiErrorMessage(doc);
    return absl::FailedPreconditionError(
        absl::StrCat(context, ": status is not success: ", msg.empty() ? "no error given" : msg));
  }
  auto data = root.FindMember("data");
  if (data == root.MemberEnd() || !data->value.IsObject()) {
    return absl::DataLossError(absl::StrCat(context, ": no data object"));
  }
  auto rtype = data->value.FindMember("resultType");
  auto result = data->value.FindMember("result");
  if (rtype == data->value.MemberEnd() || !rtype->value.IsString() ||
      result == data->value.MemberEnd()) {
    return absl::DataLossError(absl::StrCat(context, ": data has no resultType/result"));
  }
  if (absl::string_view(rtype->value.GetString()) != "vector") {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": result type is ", rtype->value.GetString(), ", want vector"));
  }
  if (!result->value.IsArray()) {
    return absl::DataLossError(absl::StrCat(context, ": result is not an array"));
  }
  std::vector<Sample> samples;
  samples.reserve(result->value.Size());
  for (const auto& item : result->value.GetArray()) {
    if (!item.IsObject()) continue;
    auto metric = item.FindMember("metric");
    auto value = item.FindMember("value");
    if (metric == item.MemberEnd() || !metric->value.IsObject() || value == item.MemberEnd() ||
        !value->value.IsArray() || value->value.Size() != 2 || !value->value[1].IsString()) {
      continue;
    }
    double v = 0;
    if (!absl::SimpleAtod(value->value[1].GetString(), &v) || !std::isfinite(v)) continue;
    Sample s;
    for (const std::string& label : options_.node_labels) {
      auto l = metric->value.FindMember(label.c_str());
      if (l != metric->value.MemberEnd() && l->value.IsString() && l->value.GetStringLength() > 0) {
        s.label_value = l->value.GetString();
        break;
      }
    }
    if (s.label_value.empty()) continue;
    s.node = table.Map(s.label_value);
    s.value = v;
    samples.push_back(std::move(s));
  }
  return samples;
}

absl::StatusOr<lw::HostsMetrics> PrometheusProvider::FetchAllHostsMetrics(
    const lw::Window& window) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string token, Token());
  std::shared_ptr<const NodeTable> table = Table();
  lw::HostsMetrics out;
  absl::Status first_error;
  int failed = 0;
  for (const QuerySpec& q : options_.queries) {
    const std::string expr = ExpandQuery(q.expr, window.duration);
    absl::StatusOr<std::vector<Sample>> samples = RunQuery(expr, window.end, token, *table);
    if (!samples.ok()) {
      ++failed;
      if (first_error.ok()) first_error = samples.status();
      out.partial_errors.push_back(samples.status());
      continue;
    }
    for (const Sample& s : *samples) {
      if (s.node.empty()) continue;
      std::vector<lw::Metric>& metrics = out.nodes[s.node].metrics;
      // Usually one series per node and query: allocate each list once, at that size.
      if (metrics.capacity() == 0) metrics.reserve(options_.queries.size());
      metrics.push_back(lw::Metric{.name = q.name,
                                   .type = q.type,
                                   .op = q.op,
                                   .rollup = window.duration,
                                   .value = s.value * q.scale});
    }
  }
  if (failed == static_cast<int>(options_.queries.size())) {
    return Annotate(first_error, absl::StrCat("prometheus: all ", failed, " queries failed"));
  }
  return out;
}

absl::StatusOr<std::vector<lw::Metric>> PrometheusProvider::FetchHostMetrics(
    absl::string_view host, const lw::Window& window) {
  TRIMARAN_ASSIGN_OR_RETURN(lw::HostsMetrics all, FetchAllHostsMetrics(window));
  auto it = all.nodes.find(host);
  if (it == all.nodes.end()) {
    return absl::NotFoundError(absl::StrCat("prometheus: no metrics for host ", host));
  }
  return std::move(it->second.metrics);
}

absl::Status PrometheusProvider::Health() {
  TRIMARAN_ASSIGN_OR_RETURN(std::string token, Token());
  const std::string url = absl::StrCat(options_.address, "/-/healthy");
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse resp, Send("GET", url, "", token));
  if (resp.ok()) return absl::OkStatus();
  if (resp.status_code != 404) {
    return http::StatusFromResponse(resp, {.method = "GET", .target = url});
  }
  NodeTable none;
  return RunQuery("vector(1)", 0, token, none).status();
}

absl::StatusOr<StartupReport> PrometheusProvider::StartupCheck(const std::vector<NodeRef>& nodes,
                                                               absl::string_view window_duration,
                                                               int64_t now_unix) {
  SetNodes(nodes);
  TRIMARAN_ASSIGN_OR_RETURN(std::string token, Token());
  std::shared_ptr<const NodeTable> table = Table();
  StartupReport report;
  std::set<std::string> seen_nodes, unmapped;
  for (const QuerySpec& q : options_.queries) {
    QueryCheck check;
    check.query = ExpandQuery(q.expr, std::string(window_duration));
    absl::StatusOr<std::vector<Sample>> samples = RunQuery(check.query, now_unix, token, *table);
    if (!samples.ok()) {
      check.status = samples.status();
      report.failed_queries.push_back(check.query);
    } else {
      check.series = static_cast<int>(samples->size());
      for (const Sample& s : *samples) {
        if (s.node.empty()) {
          unmapped.insert(s.label_value);
        } else {
          ++check.mapped_series;
          seen_nodes.insert(s.node);
        }
      }
      if (check.series == 0) report.empty_queries.push_back(check.query);
    }
    report.queries.push_back(std::move(check));
  }
  for (const NodeRef& n : nodes) {
    if (!seen_nodes.contains(n.name)) report.nodes_without_series.push_back(n.name);
  }
  std::sort(report.nodes_without_series.begin(), report.nodes_without_series.end());
  report.unmapped_labels.assign(unmapped.begin(), unmapped.end());
  const std::string line = report.Summary(static_cast<int>(nodes.size()));
  if (report.ok()) {
    Log(Component::kProvider).info("{}", line);
  } else {
    Log(Component::kProvider)
        .warn("{}; unmapped series labels: [{}] (check the node label options)", line,
              absl::StrJoin(report.unmapped_labels, ", "));
  }
  return report;
}

}  // namespace trimaran::providers::prometheus
