#include "tests/e2e/harness/control_plane.h"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

#ifndef TRIMARAN_SOURCE_DIR
#error "TRIMARAN_SOURCE_DIR must be defined by the build"
#endif

namespace trimaran::e2e {
namespace {

bool HasAssets(const std::string& dir) {
  return !dir.empty() && std::filesystem::exists(dir + "/kube-apiserver") &&
         std::filesystem::exists(dir + "/etcd");
}

absl::StatusOr<std::string> RunCapture(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return absl::InternalError(absl::StrCat("popen ", cmd));
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  if (rc != 0) {
    return absl::FailedPreconditionError(absl::StrCat("`", cmd, "` exited with ", rc));
  }
  return std::string(absl::StripAsciiWhitespace(out));
}

absl::Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  out << content;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("write ", path));
  return absl::OkStatus();
}

}  // namespace

std::string K8sMinor() {
  const char* v = std::getenv("TRIMARAN_K8S_MINOR");
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(kNewestK8sMinor);
}

absl::StatusOr<std::string> K8sAssetsDir() {
  const std::string minor = K8sMinor();
  // TRIMARAN_K8S_ASSETS_1_32 and the like name one minor's directory (tools/test.sh sets
  // one per tested minor); TRIMARAN_K8S_ASSETS and KUBEBUILDER_ASSETS only the newest's.
  std::string per_minor = absl::StrCat("TRIMARAN_K8S_ASSETS_", minor);
  std::replace(per_minor.begin(), per_minor.end(), '.', '_');
  std::vector<std::string> vars = {per_minor};
  if (minor == kNewestK8sMinor) {
    vars.push_back("TRIMARAN_K8S_ASSETS");
    vars.push_back("KUBEBUILDER_ASSETS");
  }
  for (const std::string& var : vars) {
    const char* v = std::getenv(var.c_str());
    if (v != nullptr && HasAssets(v)) return std::string(v);
  }
  TRIMARAN_ASSIGN_OR_RETURN(
      std::string dir,
      RunCapture(absl::StrCat(TRIMARAN_SOURCE_DIR, "/tools/build-k8s.sh ", minor)));
  if (!HasAssets(dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat("tools/build-k8s.sh printed \"", dir, "\", which lacks kube-apiserver/etcd"));
  }
  return dir;
}

absl::StatusOr<std::string> ExpectedK8sVersion(const std::string& assets) {
  std::ifstream in(assets + "/VERSION");
  std::string version;
  if (!(in >> version)) {
    return absl::FailedPreconditionError(
        absl::StrCat(assets, "/VERSION is missing: rebuild with tools/build-k8s.sh ", K8sMinor()));
  }
  return version;
}

absl::StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Start(ControlPlaneOptions options) {
  std::unique_ptr<ControlPlane> cp(new ControlPlane());
  cp->options_ = options;
  TRIMARAN_ASSIGN_OR_RETURN(cp->assets_, K8sAssetsDir());
  char tmpl[] = "/tmp/trimaran-e2e-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return absl::InternalError("mkdtemp failed");
  cp->dir_ = tmpl;
  cp->token_ = "trimaran-e2e-admin-token";
  cp->tokens_csv_ = absl::StrCat(cp->token_, ",admin,admin,system:masters\n");
  TRIMARAN_RETURN_IF_ERROR(WriteFile(cp->dir_ + "/tokens.csv", cp->tokens_csv_));
  TRIMARAN_ASSIGN_OR_RETURN(
      std::string ignored,
      RunCapture(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -keyout ", cp->dir_,
                              "/sa.key -out ", cp->dir_, "/sa.crt -days 1 -subj /CN=sa 2>&1")));
  TRIMARAN_RETURN_IF_ERROR(cp->StartEtcd());
  TRIMARAN_ASSIGN_OR_RETURN(cp->apiserver_port_, PickFreePort());
  cp->server_ = absl::StrCat("https://127.0.0.1:", cp->apiserver_port_);
  cp->ca_file_ = cp->dir_ + "/certs/apiserver.crt";
  TRIMARAN_RETURN_IF_ERROR(cp->StartApiserver());
  TRIMARAN_RETURN_IF_ERROR(cp->CheckServerVersion());
  return cp;
}

absl::Status ControlPlane::CheckServerVersion() {
  TRIMARAN_ASSIGN_OR_RETURN(std::string want, ExpectedK8sVersion(assets_));
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse resp, Request("GET", "/version"));
  if (resp.status_code != 200) {
    return absl::InternalError(absl::StrCat("GET /version: HTTP ", resp.status_code));
  }
  // {"major": "1", ..., "gitVersion": "v1.37.2", ...}, indented or not.
  size_t at = resp.body.find("\"gitVersion\"");
  if (at != std::string::npos) at = resp.body.find(':', at);
  if (at != std::string::npos) at = resp.body.find('"', at);
  size_t end = at == std::string::npos ? at : resp.body.find('"', at + 1);
  if (end == std::string::npos) {
    return absl::InternalError(absl::StrCat("GET /version: no gitVersion in ", resp.body));
  }
  server_version_ = resp.body.substr(at + 1, end - at - 1);
  std::fprintf(stderr, "e2e: kube-apiserver %s (%s)\n", server_version_.c_str(), assets_.c_str());
  if (server_version_ != want) {
    return absl::FailedPreconditionError(absl::StrCat("kube-apiserver reports ", server_version_,
                                                      ", expected ", want, " (", assets_, ")"));
  }
  return absl::OkStatus();
}

ControlPlane::~ControlPlane() {
  apiserver_.reset();
  etcd_.reset();
  if (!dir_.empty() && std::getenv("TRIMARAN_E2E_KEEP") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

absl::Status ControlPlane::StartEtcd() {
  TRIMARAN_ASSIGN_OR_RETURN(int client_port, PickFreePort());
  TRIMARAN_ASSIGN_OR_RETURN(int peer_port, PickFreePort());
  etcd_url_ = absl::StrCat("http://127.0.0.1:", client_port);
  TRIMARAN_ASSIGN_OR_RETURN(
      etcd_, Subprocess::Start(
                 {assets_ + "/etcd", "--data-dir", dir_ + "/etcd", "--listen-client-urls",
                  etcd_url_, "--advertise-client-urls", etcd_url_, "--listen-peer-urls",
                  absl::StrCat("http://127.0.0.1:", peer_port), "--initial-advertise-peer-urls",
                  absl::StrCat("http://127.0.0.1:", peer_port), "--initial-cluster",
                  absl::StrCat("default=http://127.0.0.1:", peer_port), "--unsafe-no-fsync=false",
                  "--log-level", "warn"},
                 dir_ + "/etcd.log", {"ETCD_UNSUPPORTED_ARCH=amd64"}));
  // etcd is ready when its HTTP health endpoint answers.
  TRIMARAN_ASSIGN_OR_RETURN(auto plain, http::CurlTransport::Create());
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    if (!etcd_->Running()) {
      return absl::InternalError(absl::StrCat("etcd exited: ", etcd_->LogTail()));
    }
    http::HttpRequest req;
    req.url = etcd_url_ + "/health";
    req.timeout = absl::Seconds(1);
    auto resp = plain->Send(req);
    if (resp.ok() && resp->status_code == 200) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat("etcd not healthy: ", etcd_->LogTail()));
}

absl::Status ControlPlane::StartApiserver() {
  TRIMARAN_ASSIGN_OR_RETURN(
      apiserver_,
      Subprocess::Start(
          {assets_ + "/kube-apiserver", "--etcd-servers=" + etcd_url_, "--bind-address=127.0.0.1",
           "--advertise-address=127.0.0.1", absl::StrCat("--secure-port=", apiserver_port_),
           "--cert-dir=" + dir_ + "/certs", "--service-account-key-file=" + dir_ + "/sa.crt",
           "--service-account-signing-key-file=" + dir_ + "/sa.key",
           "--service-account-issuer=https://kubernetes.default.svc",
           "--token-auth-file=" + dir_ + "/tokens.csv", "--authorization-mode=RBAC",
           "--service-cluster-ip-range=10.0.0.0/24", "--disable-admission-plugins=ServiceAccount",
           // 1.37 refuses a loopback advertise address for the kubernetes Service.
           "--endpoint-reconciler-type=none",
           options_.watch_cache ? "--watch-cache=true" : "--watch-cache=false", "--v=1"},
          dir_ + "/kube-apiserver.log"));
  return WaitReady(absl::Seconds(60));
}

void ControlPlane::KillApiserver() {
  if (apiserver_) apiserver_->Signal(SIGKILL);
  if (apiserver_) apiserver_->Stop(absl::Seconds(5));
  apiserver_.reset();
}

absl::Status ControlPlane::WaitReady(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  absl::Status last = absl::UnknownError("not polled");
  while (absl::Now() < deadline) {
    if (!apiserver_->Running()) {
      return absl::InternalError(absl::StrCat("kube-apiserver exited: ", apiserver_->LogTail()));
    }
    if (std::filesystem::exists(ca_file_)) {
      if (!transport_) {
        http::CurlTransportOptions opts;
        opts.tls.ca_file = ca_file_;
        TRIMARAN_ASSIGN_OR_RETURN(transport_, http::CurlTransport::Create(opts));
      }
      auto resp = Request("GET", "/readyz");
      if (resp.ok() && resp->status_code == 200) {
        // Ready also means the bootstrap controller has made the `default` namespace:
        // right after /readyz, creating a pod there can still fail (seen under load).
        auto ns = Request("GET", "/api/v1/namespaces/default");
        if (ns.ok() && ns->status_code == 200) return absl::OkStatus();
        last =
            ns.ok()
                ? absl::UnavailableError(absl::StrCat("namespace default: HTTP ", ns->status_code))
                : ns.status();
      } else {
        last = resp.ok() ? absl::UnavailableError(resp->body) : resp.status();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return absl::DeadlineExceededError(absl::StrCat("kube-apiserver not ready after ",
                                                  absl::FormatDuration(timeout), ": ",
                                                  last.ToString(), "\n", apiserver_->LogTail()));
}

absl::StatusOr<std::string> ControlPlane::WriteKubeconfig(const std::string& name) const {
  return WriteKubeconfigFor(name, server_, ca_file_);
}

absl::StatusOr<std::string> ControlPlane::WriteKubeconfigFor(const std::string& name,
                                                             const std::string& server,
                                                             const std::string& ca_file) const {
  std::string path = absl::StrCat(dir_, "/", name, ".kubeconfig");
  TRIMARAN_RETURN_IF_ERROR(WriteFile(
      path, absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n"
                         "    server: ",
                         server, "\n    certificate-authority: ", ca_file,
                         "\nusers:\n- name: admin\n  user:\n    token: ", token_,
                         "\ncontexts:\n- name: e2e\n  context:\n    cluster: e2e\n"
                         "    user: admin\ncurrent-context: e2e\n")));
  return path;
}

absl::StatusOr<std::string> ControlPlane::AddTokenUser(const std::string& user,
                                                       const std::string& groups) {
  std::string token = absl::StrCat("trimaran-e2e-", user, "-token");
  tokens_csv_ += absl::StrCat(token, ",", user, ",", user, ",\"", groups, "\"\n");
  TRIMARAN_RETURN_IF_ERROR(WriteFile(dir_ + "/tokens.csv", tokens_csv_));
  KillApiserver();
  TRIMARAN_RETURN_IF_ERROR(StartApiserver());
  return token;
}

absl::StatusOr<int64_t> ControlPlane::CompactEtcd() {
  TRIMARAN_ASSIGN_OR_RETURN(auto plain, http::CurlTransport::Create());
  // The etcd v3 JSON gateway: read the current revision, then compact at it.
  http::HttpRequest range;
  range.method = "POST";
  range.url = etcd_url_ + "/v3/kv/range";
  range.body = R"({"key":"AA=="})";  // any key; only header.revision matters
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r, plain->Send(range));
  if (r.status_code != 200) return absl::InternalError("etcd range: " + r.body);
  auto pos = r.body.find("\"revision\":\"");
  if (pos == std::string::npos) return absl::InternalError("etcd range: no revision: " + r.body);
  pos += 12;
  int64_t revision = std::stoll(r.body.substr(pos, r.body.find('"', pos) - pos));
  http::HttpRequest compact;
  compact.method = "POST";
  compact.url = etcd_url_ + "/v3/kv/compaction";
  compact.body = absl::StrCat(R"({"revision":")", revision, R"(","physical":true})");
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse c, plain->Send(compact));
  if (c.status_code != 200) return absl::InternalError("etcd compaction: " + c.body);
  return revision;
}

absl::StatusOr<http::HttpResponse> ControlPlane::Request(const std::string& method,
                                                         const std::string& path,
                                                         const std::string& body,
                                                         const std::string& content_type) const {
  if (!transport_) return absl::FailedPreconditionError("apiserver not started");
  http::HttpRequest req;
  req.method = method;
  req.url = server_ + path;
  req.body = body;
  req.headers.Set("Authorization", "Bearer " + token_);
  req.headers.Set("Accept", "application/json");
  if (!body.empty()) req.headers.Set("Content-Type", content_type);
  req.timeout = absl::Seconds(30);
  return transport_->Send(req);
}

std::string ControlPlane::ApiserverLogTail() const {
  return apiserver_ ? apiserver_->LogTail() : "";
}

}  // namespace trimaran::e2e
