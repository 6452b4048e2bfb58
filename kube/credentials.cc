#include "kube/credentials.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json_parse.h"
#include "common/logging.h"
#include "common/read_file.h"
#include "common/status_macros.h"

namespace trimaran::kube {
namespace {

// How much of a failing plugin's stderr goes into the error message.
constexpr size_t kStderrTailInError = 512;
// Longer stderr lines are cut in our log.
constexpr size_t kMaxLoggedLine = 1024;

std::string StderrTail(const std::string& stderr_text) {
  absl::string_view text = absl::StripAsciiWhitespace(stderr_text);
  if (text.size() > kStderrTailInError) {
    text = text.substr(text.size() - kStderrTailInError);
    return absl::StrCat("...", text);
  }
  return std::string(text);
}

// Passes a plugin's stderr through to our log, line by line.
void LogStderr(const std::string& command, const std::string& stderr_text) {
  for (absl::string_view line : absl::StrSplit(stderr_text, '\n', absl::SkipWhitespace())) {
    line = absl::StripTrailingAsciiWhitespace(line);
    const bool cut = line.size() > kMaxLoggedLine;
    Log(Component::kKube)
        .info("exec plugin stderr command={} line=\"{}{}\"", command,
              absl::CHexEscape(line.substr(0, kMaxLoggedLine)), cut ? "..." : "");
  }
}

std::string BuildExecInfo(const ExecConfig& exec, const RestConfig& config,
                          const std::string& ca_pem) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto key = [&w](const char* k) { w.Key(k); };
  auto str = [&w](const std::string& s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  key("apiVersion");
  str(exec.api_version);
  key("kind");
  str("ExecCredential");
  key("spec");
  w.StartObject();
  if (exec.provide_cluster_info) {
    key("cluster");
    w.StartObject();
    key("server");
    str(config.server);
    if (!config.tls.server_name.empty()) {
      key("tls-server-name");
      str(config.tls.server_name);
    }
    if (config.tls.insecure_skip_verify) {
      key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!ca_pem.empty()) {
      key("certificate-authority-data");
      str(absl::Base64Escape(ca_pem));
    }
    w.EndObject();
  }
  key("interactive");
  w.Bool(false);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::Status BadOutput(absl::string_view message) { return absl::FailedPreconditionError(message); }

// The string member `name` of `obj` at `path`; nullopt when missing or null.
absl::StatusOr<std::optional<std::string>> OptionalString(const rapidjson::Value& obj,
                                                          const char* name,
                                                          absl::string_view path) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsString()) return BadOutput(absl::StrCat(path, name, ": expected a string"));
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

// --- TokenFileCredentialSource ---------------------------------------------------------

TokenFileCredentialSource::TokenFileCredentialSource(std::string path, const Clock& clock,
                                                     std::string fallback_token)
    : path_(std::move(path)), clock_(clock), fallback_token_(std::move(fallback_token)) {}

absl::StatusOr<Credentials> TokenFileCredentialSource::Get() {
  absl::MutexLock lock(&mu_);
  return GetLocked();
}

void TokenFileCredentialSource::Invalidate() {
  absl::MutexLock lock(&mu_);
  invalidated_ = true;
}

absl::StatusOr<Credentials> TokenFileCredentialSource::GetLocked() {
  const absl::Time now = clock_.Now();
  FileIdentity current;
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0) {
    current.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    current.size = static_cast<int64_t>(st.st_size);
    current.inode = static_cast<uint64_t>(st.st_ino);
  }
  if (!token_.empty() && !invalidated_ && current == identity_ && now - read_at_ < kMaxTokenAge) {
    return Credentials{.bearer_token = token_};
  }

  absl::StatusOr<std::string> content = ReadFileToString(path_);
  std::string token;
  if (content.ok()) {
    token = std::string(absl::StripAsciiWhitespace(*content));
    if (token.empty()) content = absl::UnavailableError(absl::StrCat(path_, ": file is empty"));
  }
  if (!content.ok()) {
    const absl::Status error(
        absl::StatusCode::kUnavailable,
        absl::StrCat("reading bearer token file ", content.status().message()));
    if (!token_.empty() && !invalidated_) {
      if (!warned_) {
        Log(Component::kKube)
            .warn("token file unreadable, using the last token read file={} err=\"{}\"", path_,
                  std::string(error.message()));
        warned_ = true;
      }
      return Credentials{.bearer_token = token_};
    }
    if (!fallback_token_.empty()) return Credentials{.bearer_token = fallback_token_};
    return error;
  }
  if (token != token_ && !token_.empty()) {
    Log(Component::kKube).info("bearer token file changed, using the new token file={}", path_);
  }
  token_ = std::move(token);
  identity_ = current;
  read_at_ = now;
  invalidated_ = false;
  warned_ = false;
  return Credentials{.bearer_token = token_};
}

// --- ExecCredential decoding -----------------------------------------------------------

absl::StatusOr<ExecCredentialStatus> ParseExecCredential(absl::string_view json,
                                                         absl::string_view api_version) {
  rapidjson::Document doc;
  if (absl::Status s = ParseJsonDocument(json, doc, kSmallJsonLimits, "ExecCredential"); !s.ok()) {
    return BadOutput(absl::StrCat("stdout is not valid JSON (", s.message(), ")"));
  }
  if (!doc.IsObject()) return BadOutput("stdout is not a JSON object");

  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> got_version,
                            OptionalString(doc, "apiVersion", ""));
  if (!got_version.has_value()) return BadOutput("the ExecCredential has no apiVersion");
  if (*got_version != api_version) {
    return BadOutput(absl::StrCat("plugin returned apiVersion ", *got_version,
                                  ", but the kubeconfig asks for ", api_version));
  }
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> kind, OptionalString(doc, "kind", ""));
  if (kind.value_or("") != "ExecCredential") {
    return BadOutput(absl::StrCat("kind is \"", kind.value_or(""), "\", want ExecCredential"));
  }
  const rapidjson::Value& root = doc;
  auto status_it = root.FindMember("status");
  if (status_it == root.MemberEnd() || !status_it->value.IsObject()) {
    return BadOutput("the ExecCredential has no status object");
  }
  const rapidjson::Value& status = status_it->value;

  ExecCredentialStatus out;
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> token,
                            OptionalString(status, "token", "status."));
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> cert,
                            OptionalString(status, "clientCertificateData", "status."));
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> key,
                            OptionalString(status, "clientKeyData", "status."));
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<std::string> expiration,
                            OptionalString(status, "expirationTimestamp", "status."));
  out.credentials.bearer_token = token.value_or("");
  out.credentials.client_cert_pem = cert.value_or("");
  out.credentials.client_key_pem = key.value_or("");
  if (out.credentials.client_cert_pem.empty() != out.credentials.client_key_pem.empty()) {
    return BadOutput(
        "status.clientCertificateData and status.clientKeyData must be returned together");
  }
  if (out.credentials.bearer_token.empty() && out.credentials.client_cert_pem.empty()) {
    return BadOutput("status has neither a token nor a client certificate and key");
  }
  if (expiration.has_value() && !expiration->empty()) {
    absl::Time t;
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, *expiration, &t, &error)) {
      return BadOutput(absl::StrCat("status.expirationTimestamp: invalid RFC 3339 time \"",
                                    absl::CHexEscape(*expiration), "\""));
    }
    out.expiration = t;
  }
  return out;
}

// --- ExecCredentialSource --------------------------------------------------------------

absl::StatusOr<std::unique_ptr<ExecCredentialSource>> ExecCredentialSource::Create(
    const RestConfig& config, const Clock& clock, ExecCredentialOptions options) {
  if (!config.exec.has_value()) {
    return absl::InvalidArgumentError("exec credential source without an exec config");
  }
  const ExecConfig& exec = *config.exec;
  const std::string context = absl::StrCat("exec plugin ", exec.command);
  if (exec.command.empty()) return absl::FailedPreconditionError("exec plugin: no command");
  if (exec.api_version != kExecApiV1 && exec.api_version != kExecApiV1beta1) {
    return absl::FailedPreconditionError(
        absl::StrCat(context, ": unsupported apiVersion \"", exec.api_version, "\""));
  }
  if (exec.interactive_mode == ExecInteractiveMode::kAlways) {
    return absl::FailedPreconditionError(
        absl::StrCat(context,
                     ": interactiveMode is Always, but trimaran runs without a terminal; use a "
                     "non-interactive login for this plugin"));
  }
  std::string ca_pem = config.tls.ca_pem;
  if (exec.provide_cluster_info && ca_pem.empty() && !config.tls.ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadFileToString(config.tls.ca_file);
    if (!ca.ok()) return Annotate(ca.status(), absl::StrCat(context, ": reading the cluster CA"));
    ca_pem = *std::move(ca);
  }
  if (!options.runner) options.runner = RunSubprocess;
  return std::unique_ptr<ExecCredentialSource>(new ExecCredentialSource(
      exec, BuildExecInfo(exec, config, ca_pem), clock, std::move(options)));
}

ExecCredentialSource::ExecCredentialSource(ExecConfig exec, std::string exec_info,
                                           const Clock& clock, ExecCredentialOptions options)
    : exec_(std::move(exec)),
      exec_info_(std::move(exec_info)),
      clock_(clock),
      options_(std::move(options)) {}

absl::StatusOr<ExecCredentialSource::Fetched> ExecCredentialSource::Run() const {
  const std::string context = absl::StrCat("exec plugin ", exec_.command);
  SubprocessSpec spec;
  spec.command = exec_.command;
  spec.args = exec_.args;
  for (const ExecEnvVar& var : exec_.env) spec.extra_env.emplace_back(var.name, var.value);
  spec.extra_env.emplace_back("KUBERNETES_EXEC_INFO", exec_info_);
  spec.timeout = options_.timeout;

  absl::StatusOr<SubprocessResult> result = options_.runner(spec);
  if (!result.ok()) {
    const absl::Status& s = result.status();
    if (absl::IsNotFound(s)) {
      std::string message = absl::StrCat(context, ": executable not found");
      if (!exec_.install_hint.empty()) absl::StrAppend(&message, ". ", exec_.install_hint);
      return absl::FailedPreconditionError(message);
    }
    if (absl::IsPermissionDenied(s)) {
      return absl::FailedPreconditionError(absl::StrCat(context, ": ", s.message()));
    }
    if (absl::IsDeadlineExceeded(s)) return Annotate(s, context);
    return absl::UnavailableError(absl::StrCat(context, ": ", s.message()));
  }
  LogStderr(exec_.command, result->stderr_text);
  if (result->exit_code != 0) {
    std::string message = result->term_signal != 0
                              ? absl::StrCat(context, " was killed by signal ", result->term_signal)
                              : absl::StrCat(context, " failed with exit code ", result->exit_code);
    const std::string tail = StderrTail(result->stderr_text);
    absl::StrAppend(&message, tail.empty() ? " (no stderr output)" : absl::StrCat(": ", tail));
    return absl::UnavailableError(message);
  }
  absl::StatusOr<ExecCredentialStatus> parsed =
      ParseExecCredential(result->stdout_text, exec_.api_version);
  if (!parsed.ok()) return Annotate(parsed.status(), context);
  Fetched fetched;
  fetched.credentials = std::move(parsed->credentials);
  if (parsed->expiration.has_value()) fetched.expiry = *parsed->expiration;
  return fetched;
}

absl::StatusOr<Credentials> ExecCredentialSource::Get() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  if (cached_.has_value() && now < refresh_at_) return *cached_;

  absl::StatusOr<Fetched> fetched = Run();
  if (!fetched.ok()) {
    if (cached_.has_value() && now < expiry_) {
      Log(Component::kKube)
          .warn(
              "exec plugin refresh failed, using the cached credentials until they expire "
              "command={} expiry={} err=\"{}\"",
              exec_.command, absl::FormatTime(absl::RFC3339_sec, expiry_, absl::UTCTimeZone()),
              std::string(fetched.status().message()));
      return *cached_;
    }
    cached_.reset();
    return fetched.status();
  }
  cached_ = std::move(fetched->credentials);
  expiry_ = fetched->expiry;
  if (expiry_ == absl::InfiniteFuture()) {
    refresh_at_ = absl::InfiniteFuture();
  } else {
    const absl::Duration lifetime = std::max(expiry_ - now, absl::ZeroDuration());
    refresh_at_ = expiry_ - std::min(kMaxRefreshMargin, lifetime / 10);
    Log(Component::kKube)
        .debug("exec plugin returned credentials command={} expiry={}", exec_.command,
               absl::FormatTime(absl::RFC3339_sec, expiry_, absl::UTCTimeZone()));
  }
  return *cached_;
}

void ExecCredentialSource::Invalidate() {
  absl::MutexLock lock(&mu_);
  cached_.reset();
  expiry_ = absl::InfinitePast();
  refresh_at_ = absl::InfinitePast();
}

// --- MakeCredentialSource --------------------------------------------------------------

absl::StatusOr<CredentialSourcePtr> MakeCredentialSource(const RestConfig& config,
                                                         const Clock& clock,
                                                         ExecCredentialOptions exec_options) {
  if (!config.bearer_token_file.empty()) {
    return std::make_unique<TokenFileCredentialSource>(config.bearer_token_file, clock,
                                                       config.bearer_token);
  }
  if (!config.bearer_token.empty()) {
    return std::make_unique<StaticCredentialSource>(
        Credentials{.bearer_token = config.bearer_token});
  }
  const bool has_client_cert =
      !config.tls.client_cert_file.empty() || !config.tls.client_cert_pem.empty();
  if (config.exec.has_value() && !has_client_cert) {
    TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<ExecCredentialSource> exec,
                              ExecCredentialSource::Create(config, clock, std::move(exec_options)));
    return CredentialSourcePtr(std::move(exec));
  }
  if (config.exec.has_value()) {
    Log(Component::kKube)
        .info("exec plugin not used because a client certificate is configured command={}",
              config.exec->command);
  }
  return std::make_unique<StaticCredentialSource>(Credentials{});
}

}  // namespace trimaran::kube
