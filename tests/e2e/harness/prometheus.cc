#include "tests/e2e/harness/prometheus.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/http/curl_transport.h"

namespace trimaran::e2e {
namespace {

bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string p(path);
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string candidate = absl::StrCat(p.substr(start, end - start), "/", name);
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::string ToOpenMetrics(const std::vector<PromSample>& history) {
  // OpenMetrics wants each family contiguous and each series in timestamp order.
  std::vector<const PromSample*> sorted;
  sorted.reserve(history.size());
  for (const PromSample& s : history) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(), [](const PromSample* a, const PromSample* b) {
    if (a->metric != b->metric) return a->metric < b->metric;
    if (a->labels != b->labels) return a->labels < b->labels;
    return a->unix_seconds < b->unix_seconds;
  });
  std::string out;
  out.reserve(history.size() * 64);
  const std::string* family = nullptr;
  for (const PromSample* s : sorted) {
    if (family == nullptr || *family != s->metric) {
      absl::StrAppend(&out, "# TYPE ", s->metric, " gauge\n");
      family = &s->metric;
    }
    absl::StrAppend(&out, s->metric);
    if (!s->labels.empty()) {
      std::vector<std::string> parts;
      for (const auto& [k, v] : s->labels) parts.push_back(absl::StrCat(k, "=\"", v, "\""));
      absl::StrAppend(&out, "{", absl::StrJoin(parts, ","), "}");
    }
    absl::StrAppend(&out, " ", FormatDouble(s->value), " ", s->unix_seconds, "\n");
  }
  absl::StrAppend(&out, "# EOF\n");
  return out;
}

bool Prometheus::Available() { return OnPath("prometheus") && OnPath("promtool"); }

absl::StatusOr<std::unique_ptr<Prometheus>> Prometheus::Start(
    const std::vector<PromSample>& history) {
  std::unique_ptr<Prometheus> p(new Prometheus());
  char tmpl[] = "/tmp/trimaran-prom-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return absl::InternalError("mkdtemp failed");
  p->dir_ = tmpl;
  const std::string om = absl::StrCat(p->dir_, "/history.om");
  {
    std::ofstream out(om);
    out << ToOpenMetrics(history);
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", om));
  }
  {
    std::ofstream cfg(absl::StrCat(p->dir_, "/prometheus.yml"));
    cfg << "global:\n  scrape_interval: 15s\nscrape_configs: []\n";
  }
  const absl::Time start = absl::Now();
  {
    absl::StatusOr<std::unique_ptr<Subprocess>> promtool = Subprocess::Start(
        {"promtool", "tsdb", "create-blocks-from", "openmetrics", om, p->dir_ + "/data"},
        p->dir_ + "/promtool.log");
    if (!promtool.ok()) return promtool.status();
    absl::StatusOr<int> code = (*promtool)->Wait(absl::Minutes(5));
    if (!code.ok() || *code != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "promtool tsdb create-blocks-from openmetrics failed: ", (*promtool)->LogTail()));
    }
  }
  p->import_time_ = absl::Now() - start;
  std::filesystem::remove(om);
  absl::StatusOr<int> port = PickFreePort();
  if (!port.ok()) return port.status();
  p->port_ = *port;
  p->url_ = absl::StrCat("http://127.0.0.1:", p->port_);
  if (absl::Status s = p->Launch(); !s.ok()) return s;
  return p;
}

absl::Status Prometheus::Launch() {
  absl::StatusOr<std::unique_ptr<Subprocess>> proc = Subprocess::Start(
      {"prometheus", absl::StrCat("--config.file=", dir_, "/prometheus.yml"),
       absl::StrCat("--storage.tsdb.path=", dir_, "/data"),
       absl::StrCat("--web.listen-address=127.0.0.1:", port_), "--log.level=warn"},
      dir_ + "/prometheus.log");
  if (!proc.ok()) return proc.status();
  process_ = *std::move(proc);
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> transport = http::CurlTransport::Create();
  if (!transport.ok()) return transport.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    if (!process_->Running()) {
      return absl::FailedPreconditionError(
          absl::StrCat("prometheus exited during startup: ", process_->LogTail()));
    }
    http::HttpRequest req;
    req.url = absl::StrCat(url_, "/-/ready");
    req.timeout = absl::Seconds(2);
    absl::StatusOr<http::HttpResponse> resp = (*transport)->Send(req);
    if (resp.ok() && resp->status_code == 200) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("prometheus not ready after 60 s: ", process_->LogTail()));
}

void Prometheus::Stop() {
  if (process_ != nullptr) {
    process_->Signal(SIGKILL);
    (void)process_->Wait(absl::Seconds(10));
    process_.reset();
  }
}

absl::Status Prometheus::Restart() {
  Stop();
  return Launch();
}

std::string Prometheus::LogTail() const {
  std::string log = ReadFile(dir_ + "/prometheus.log");
  return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
}

Prometheus::~Prometheus() {
  Stop();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

}  // namespace trimaran::e2e
