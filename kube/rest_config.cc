#include "kube/rest_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/logging.h"
#include "common/read_file.h"
#include "common/status_macros.h"

namespace trimaran::kube {
namespace {

EnvLookup OrProcessEnv(const EnvLookup& getenv) {
  return getenv ? getenv : EnvLookup(GetProcessEnv);
}

// Non-empty value of an environment variable.
std::optional<std::string> NonEmptyEnv(const EnvLookup& getenv, const std::string& name) {
  std::optional<std::string> value = getenv(name);
  if (!value.has_value() || value->empty()) return std::nullopt;
  return value;
}

absl::Status FieldError(absl::string_view path, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", message));
}

std::string Join(absl::string_view parent, absl::string_view key) {
  return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
}

// How a YAML node looks, for "expected X, got Y" messages.
std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return absl::StrCat("\"", absl::CHexEscape(node.Scalar()), "\"");
    default:
      return "nothing";
  }
}

bool IsUnset(const YAML::Node& node) { return !node.IsDefined() || node.IsNull(); }

// The string at parent[key]; empty when missing or null.
absl::StatusOr<std::string> GetString(const YAML::Node& parent, absl::string_view key,
                                      absl::string_view parent_path) {
  const YAML::Node node = parent[std::string(key)];
  if (IsUnset(node)) return std::string();
  if (!node.IsScalar()) {
    return FieldError(Join(parent_path, key),
                      absl::StrCat("expected a string, got ", Describe(node)));
  }
  return node.Scalar();
}

absl::StatusOr<bool> GetBool(const YAML::Node& parent, absl::string_view key,
                             absl::string_view parent_path) {
  const YAML::Node node = parent[std::string(key)];
  if (IsUnset(node)) return false;
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    return FieldError(Join(parent_path, key),
                      absl::StrCat("expected true or false, got ", Describe(node)));
  }
  return value;
}

absl::StatusOr<std::vector<std::string>> GetStringList(const YAML::Node& parent,
                                                       absl::string_view key,
                                                       absl::string_view parent_path) {
  const YAML::Node node = parent[std::string(key)];
  std::vector<std::string> out;
  if (IsUnset(node)) return out;
  const std::string path = Join(parent_path, key);
  if (!node.IsSequence()) {
    return FieldError(path, absl::StrCat("expected a list of strings, got ", Describe(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.IsScalar()) {
      return FieldError(absl::StrCat(path, "[", i, "]"),
                        absl::StrCat("expected a string, got ", Describe(item)));
    }
    out.push_back(item.Scalar());
  }
  return out;
}

// A base64 field holding PEM (certificate-authority-data, client-*-data). Empty when
// unset.
absl::StatusOr<std::string> GetBase64Pem(const YAML::Node& parent, absl::string_view key,
                                         absl::string_view parent_path) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string encoded, GetString(parent, key, parent_path));
  if (encoded.empty()) return encoded;
  std::string decoded;
  if (!absl::Base64Unescape(encoded, &decoded)) {
    return FieldError(Join(parent_path, key), "invalid base64");
  }
  if (!absl::StrContains(decoded, "-----BEGIN ")) {
    return FieldError(Join(parent_path, key),
                      "decoded data is not PEM (no \"-----BEGIN\" line); was it encoded twice?");
  }
  return decoded;
}

// client-go resolves relative paths against the kubeconfig's directory.
std::string ResolvePath(absl::string_view base_dir, const std::string& path) {
  if (path.empty() || absl::StartsWith(path, "/") || base_dir.empty()) return path;
  return (std::filesystem::path(std::string(base_dir)) / path).lexically_normal().string();
}

// A referenced file must be readable now, so a typo fails at startup.
absl::Status CheckFileField(absl::string_view field_path, const std::string& file) {
  absl::Status status = CheckReadable(file);
  if (status.ok()) return status;
  return FieldError(field_path, absl::StrCat("cannot read ", status.message()));
}

// "host:6443" -> "https://host:6443" (http when no TLS setting exists, as client-go
// defaults); strips trailing slashes; rejects other schemes.
absl::StatusOr<std::string> NormalizeServer(absl::string_view server, bool tls_configured) {
  std::string s(absl::StripAsciiWhitespace(server));
  if (!absl::StrContains(s, "://")) s = absl::StrCat(tls_configured ? "https://" : "http://", s);
  while (absl::EndsWith(s, "/")) s.pop_back();
  const absl::string_view view(s);
  const size_t scheme_end = view.find("://");
  const absl::string_view scheme = view.substr(0, scheme_end);
  if (scheme != "https" && scheme != "http") {
    return absl::InvalidArgumentError(
        absl::StrCat("server \"", server, "\": scheme must be https or http"));
  }
  if (view.size() == scheme_end + 3 || view[scheme_end + 3] == '/') {
    return absl::InvalidArgumentError(absl::StrCat("server \"", server, "\": no host"));
  }
  return s;
}

bool HasTlsSettings(const http::TlsOptions& tls) { return tls != http::TlsOptions{}; }

// One entry of a kubeconfig's clusters/contexts/users list.
struct NamedEntry {
  YAML::Node body;   // e.g. clusters[i].cluster
  std::string path;  // "clusters[2].cluster"
};

// Validates the list and returns the names of its entries in order.
absl::StatusOr<std::vector<std::string>> EntryNames(const YAML::Node& root,
                                                    absl::string_view list_key) {
  const YAML::Node list = root[std::string(list_key)];
  std::vector<std::string> names;
  if (IsUnset(list)) return names;
  if (!list.IsSequence()) {
    return FieldError(list_key, absl::StrCat("expected a list, got ", Describe(list)));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item_path = absl::StrCat(list_key, "[", i, "]");
    if (!list[i].IsMap()) {
      return FieldError(item_path, absl::StrCat("expected a map, got ", Describe(list[i])));
    }
    TRIMARAN_ASSIGN_OR_RETURN(std::string name, GetString(list[i], "name", item_path));
    names.push_back(std::move(name));
  }
  return names;
}

std::string ListNames(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : absl::StrJoin(names, ", ");
}

// The first entry of `list_key` called `name`; NotFound listing the names otherwise.
absl::StatusOr<NamedEntry> FindEntry(const YAML::Node& root, absl::string_view list_key,
                                     absl::string_view body_key, absl::string_view kind,
                                     const std::string& name) {
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<std::string> names, EntryNames(root, list_key));
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != name) continue;
    NamedEntry entry{root[std::string(list_key)][i][std::string(body_key)],
                     absl::StrCat(list_key, "[", i, "].", body_key)};
    if (IsUnset(entry.body)) return FieldError(entry.path, "not set");
    if (!entry.body.IsMap()) {
      return FieldError(entry.path, absl::StrCat("expected a map, got ", Describe(entry.body)));
    }
    return entry;
  }
  return absl::NotFoundError(
      absl::StrCat(kind, " \"", name, "\" not found (available: ", ListNames(names), ")"));
}

absl::Status ParseCluster(const NamedEntry& cluster, absl::string_view base_dir, RestConfig& cfg) {
  const YAML::Node& c = cluster.body;
  const std::string& path = cluster.path;
  TRIMARAN_ASSIGN_OR_RETURN(std::string server, GetString(c, "server", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string ca_file, GetString(c, "certificate-authority", path));
  TRIMARAN_ASSIGN_OR_RETURN(cfg.tls.ca_pem, GetBase64Pem(c, "certificate-authority-data", path));
  TRIMARAN_ASSIGN_OR_RETURN(cfg.tls.insecure_skip_verify,
                            GetBool(c, "insecure-skip-tls-verify", path));
  TRIMARAN_ASSIGN_OR_RETURN(cfg.tls.server_name, GetString(c, "tls-server-name", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string proxy_url, GetString(c, "proxy-url", path));

  if (server.empty()) return FieldError(Join(path, "server"), "not set");
  if (!proxy_url.empty()) {
    return FieldError(Join(path, "proxy-url"),
                      "not supported; set HTTPS_PROXY in the environment instead");
  }
  if (!ca_file.empty() && !cfg.tls.ca_pem.empty()) {
    return FieldError(
        path, "certificate-authority and certificate-authority-data are both set; keep one");
  }
  if (cfg.tls.insecure_skip_verify && (!ca_file.empty() || !cfg.tls.ca_pem.empty())) {
    return FieldError(path,
                      "insecure-skip-tls-verify cannot be combined with a certificate authority");
  }
  if (!ca_file.empty()) {
    cfg.tls.ca_file = ResolvePath(base_dir, ca_file);
    TRIMARAN_RETURN_IF_ERROR(CheckFileField(Join(path, "certificate-authority"), cfg.tls.ca_file));
  }
  absl::StatusOr<std::string> normalized = NormalizeServer(server, HasTlsSettings(cfg.tls));
  if (!normalized.ok()) return FieldError(Join(path, "server"), normalized.status().message());
  cfg.server = *std::move(normalized);
  return absl::OkStatus();
}

absl::StatusOr<ExecInteractiveMode> ParseInteractiveMode(const std::string& mode,
                                                         const std::string& api_version,
                                                         absl::string_view field_path) {
  if (mode.empty()) {
    // client-go: required for v1; v1beta1 defaults to IfAvailable.
    if (api_version == kExecApiV1) {
      return FieldError(field_path, absl::StrCat("must be set for ", kExecApiV1,
                                                 " (Never, IfAvailable or Always)"));
    }
    return ExecInteractiveMode::kIfAvailable;
  }
  if (mode == "Never") return ExecInteractiveMode::kNever;
  if (mode == "IfAvailable") return ExecInteractiveMode::kIfAvailable;
  if (mode == "Always") return ExecInteractiveMode::kAlways;
  return FieldError(
      field_path, absl::StrCat("invalid value \"", mode, "\" (want Never, IfAvailable or Always)"));
}

absl::StatusOr<ExecConfig> ParseExec(const YAML::Node& e, const std::string& path,
                                     absl::string_view base_dir) {
  if (!e.IsMap()) return FieldError(path, absl::StrCat("expected a map, got ", Describe(e)));
  ExecConfig exec;
  TRIMARAN_ASSIGN_OR_RETURN(exec.api_version, GetString(e, "apiVersion", path));
  TRIMARAN_ASSIGN_OR_RETURN(exec.command, GetString(e, "command", path));
  TRIMARAN_ASSIGN_OR_RETURN(exec.args, GetStringList(e, "args", path));
  TRIMARAN_ASSIGN_OR_RETURN(exec.install_hint, GetString(e, "installHint", path));
  TRIMARAN_ASSIGN_OR_RETURN(exec.provide_cluster_info, GetBool(e, "provideClusterInfo", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string mode, GetString(e, "interactiveMode", path));

  const std::string api_path = Join(path, "apiVersion");
  if (exec.api_version.empty()) return FieldError(api_path, "not set");
  if (exec.api_version == "client.authentication.k8s.io/v1alpha1") {
    return FieldError(api_path, absl::StrCat(exec.api_version,
                                             " is no longer supported (removed in Kubernetes "
                                             "1.24); use ",
                                             kExecApiV1, " or ", kExecApiV1beta1));
  }
  if (exec.api_version != kExecApiV1 && exec.api_version != kExecApiV1beta1) {
    return FieldError(api_path, absl::StrCat("unsupported \"", exec.api_version, "\" (want ",
                                             kExecApiV1, " or ", kExecApiV1beta1, ")"));
  }
  if (exec.command.empty()) return FieldError(Join(path, "command"), "not set");
  // A command with a '/' is a path (relative to the kubeconfig); otherwise PATH is used.
  if (absl::StrContains(exec.command, "/")) exec.command = ResolvePath(base_dir, exec.command);
  TRIMARAN_ASSIGN_OR_RETURN(
      exec.interactive_mode,
      ParseInteractiveMode(mode, exec.api_version, Join(path, "interactiveMode")));

  const YAML::Node env = e["env"];
  const std::string env_path = Join(path, "env");
  if (!IsUnset(env)) {
    if (!env.IsSequence()) {
      return FieldError(env_path, absl::StrCat("expected a list, got ", Describe(env)));
    }
    for (size_t i = 0; i < env.size(); ++i) {
      const std::string item_path = absl::StrCat(env_path, "[", i, "]");
      if (!env[i].IsMap()) {
        return FieldError(item_path, absl::StrCat("expected a map, got ", Describe(env[i])));
      }
      ExecEnvVar var;
      TRIMARAN_ASSIGN_OR_RETURN(var.name, GetString(env[i], "name", item_path));
      TRIMARAN_ASSIGN_OR_RETURN(var.value, GetString(env[i], "value", item_path));
      if (var.name.empty()) return FieldError(Join(item_path, "name"), "not set");
      exec.env.push_back(std::move(var));
    }
  }
  return exec;
}

absl::Status ParseUser(const NamedEntry& user, absl::string_view base_dir, RestConfig& cfg) {
  const YAML::Node& u = user.body;
  const std::string& path = user.path;

  // Rejected outright: silently ignoring them would change who we authenticate as.
  if (const YAML::Node provider = u["auth-provider"]; !IsUnset(provider)) {
    std::string name;
    if (provider.IsMap()) {
      TRIMARAN_ASSIGN_OR_RETURN(name, GetString(provider, "name", Join(path, "auth-provider")));
    }
    return FieldError(Join(path, "auth-provider"),
                      absl::StrCat("auth provider \"", name,
                                   "\" is not supported; use an exec credential plugin instead "
                                   "(gke-gcloud-auth-plugin, kubelogin, aws eks get-token, ...)"));
  }
  for (const char* key : {"username", "password"}) {
    if (!IsUnset(u[key])) {
      return FieldError(Join(path, key),
                        "basic authentication (username/password) is not supported; use a "
                        "token, a client certificate or an exec plugin");
    }
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (!IsUnset(u[key])) return FieldError(Join(path, key), "impersonation is not supported");
  }

  TRIMARAN_ASSIGN_OR_RETURN(cfg.bearer_token, GetString(u, "token", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string token_file, GetString(u, "tokenFile", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string cert_file, GetString(u, "client-certificate", path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string key_file, GetString(u, "client-key", path));
  TRIMARAN_ASSIGN_OR_RETURN(cfg.tls.client_cert_pem,
                            GetBase64Pem(u, "client-certificate-data", path));
  TRIMARAN_ASSIGN_OR_RETURN(cfg.tls.client_key_pem, GetBase64Pem(u, "client-key-data", path));

  if (!cert_file.empty() && !cfg.tls.client_cert_pem.empty()) {
    return FieldError(path,
                      "client-certificate and client-certificate-data are both set; keep one");
  }
  if (!key_file.empty() && !cfg.tls.client_key_pem.empty()) {
    return FieldError(path, "client-key and client-key-data are both set; keep one");
  }
  const bool has_cert = !cert_file.empty() || !cfg.tls.client_cert_pem.empty();
  const bool has_key = !key_file.empty() || !cfg.tls.client_key_pem.empty();
  if (has_cert != has_key) {
    return FieldError(path, has_cert ? "client certificate given without client-key(-data)"
                                     : "client key given without client-certificate(-data)");
  }
  if (!cert_file.empty()) {
    cfg.tls.client_cert_file = ResolvePath(base_dir, cert_file);
    TRIMARAN_RETURN_IF_ERROR(
        CheckFileField(Join(path, "client-certificate"), cfg.tls.client_cert_file));
  }
  if (!key_file.empty()) {
    cfg.tls.client_key_file = ResolvePath(base_dir, key_file);
    TRIMARAN_RETURN_IF_ERROR(CheckFileField(Join(path, "client-key"), cfg.tls.client_key_file));
  }
  if (!token_file.empty()) {
    cfg.bearer_token_file = ResolvePath(base_dir, token_file);
    TRIMARAN_RETURN_IF_ERROR(CheckFileField(Join(path, "tokenFile"), cfg.bearer_token_file));
  }
  if (const YAML::Node exec = u["exec"]; !IsUnset(exec)) {
    TRIMARAN_ASSIGN_OR_RETURN(cfg.exec, ParseExec(exec, Join(path, "exec"), base_dir));
  }
  return absl::OkStatus();
}

// `display_path` is the file name for RestConfig::source ("" for text).
absl::StatusOr<RestConfig> ParseKubeconfigYaml(absl::string_view yaml_text,
                                               absl::string_view base_dir,
                                               absl::string_view context_override,
                                               absl::string_view display_path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid YAML: ", e.what()));
  }
  if (IsUnset(root)) return absl::InvalidArgumentError("the kubeconfig is empty");
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a map at the top level, got ", Describe(root)));
  }

  TRIMARAN_ASSIGN_OR_RETURN(std::string current, GetString(root, "current-context", ""));
  const std::string context_name =
      context_override.empty() ? current : std::string(context_override);
  if (context_name.empty()) {
    TRIMARAN_ASSIGN_OR_RETURN(std::vector<std::string> names, EntryNames(root, "contexts"));
    return absl::InvalidArgumentError(
        absl::StrCat("no context selected: current-context is not set and no context was given "
                     "(available contexts: ",
                     ListNames(names), ")"));
  }
  absl::StatusOr<NamedEntry> context =
      FindEntry(root, "contexts", "context", "context", context_name);
  if (!context.ok()) {
    if (absl::IsNotFound(context.status())) {
      return absl::InvalidArgumentError(context.status().message());
    }
    return context.status();
  }
  TRIMARAN_ASSIGN_OR_RETURN(std::string cluster_name,
                            GetString(context->body, "cluster", context->path));
  TRIMARAN_ASSIGN_OR_RETURN(std::string user_name, GetString(context->body, "user", context->path));
  if (cluster_name.empty()) return FieldError(Join(context->path, "cluster"), "not set");
  if (user_name.empty()) return FieldError(Join(context->path, "user"), "not set");

  absl::StatusOr<NamedEntry> cluster =
      FindEntry(root, "clusters", "cluster", "cluster", cluster_name);
  if (!cluster.ok()) return FieldError(Join(context->path, "cluster"), cluster.status().message());
  absl::StatusOr<NamedEntry> user = FindEntry(root, "users", "user", "user", user_name);
  if (!user.ok()) return FieldError(Join(context->path, "user"), user.status().message());

  RestConfig cfg;
  TRIMARAN_ASSIGN_OR_RETURN(cfg.context_namespace,
                            GetString(context->body, "namespace", context->path));
  TRIMARAN_RETURN_IF_ERROR(ParseUser(*user, base_dir, cfg));
  TRIMARAN_RETURN_IF_ERROR(ParseCluster(*cluster, base_dir, cfg));
  cfg.source = display_path.empty()
                   ? absl::StrCat("kubeconfig (context ", context_name, ")")
                   : absl::StrCat("kubeconfig ", display_path, " (context ", context_name, ")");
  return cfg;
}

absl::StatusOr<RestConfig> ParseKubeconfigGuarded(absl::string_view yaml_text,
                                                  absl::string_view base_dir,
                                                  absl::string_view context_override,
                                                  absl::string_view display_path) {
  // yaml-cpp throws; nothing here should, but no exception may leave this module.
  try {
    return ParseKubeconfigYaml(yaml_text, base_dir, context_override, display_path);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid kubeconfig: ", e.what()));
  }
}

absl::Status ApplyMasterOverride(const std::string& master, RestConfig& cfg) {
  if (master.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> server = NormalizeServer(master, HasTlsSettings(cfg.tls));
  if (!server.ok()) return Annotate(server.status(), "--master");
  cfg.server = *std::move(server);
  absl::StrAppend(&cfg.source, cfg.source.empty() ? "" : ", ", "server from --master");
  return absl::OkStatus();
}

absl::StatusOr<RestConfig> Finish(absl::StatusOr<RestConfig> cfg, const LoadOptions& options) {
  if (!cfg.ok()) return cfg;
  TRIMARAN_RETURN_IF_ERROR(ApplyMasterOverride(options.master_override, *cfg));
  Log(Component::kKube)
      .info("using Kubernetes API config source=\"{}\" server={}", cfg->source, cfg->server);
  return cfg;
}

}  // namespace

std::optional<std::string> GetProcessEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

absl::StatusOr<RestConfig> LoadInClusterConfig(const InClusterOptions& options) {
  const EnvLookup getenv = OrProcessEnv(options.getenv);
  std::optional<std::string> host = NonEmptyEnv(getenv, "KUBERNETES_SERVICE_HOST");
  std::optional<std::string> port = NonEmptyEnv(getenv, "KUBERNETES_SERVICE_PORT");
  if (!host.has_value()) {
    return absl::FailedPreconditionError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST is unset");
  }
  if (!port.has_value()) {
    return absl::FailedPreconditionError(
        "not running in a cluster: KUBERNETES_SERVICE_PORT is unset");
  }
  RestConfig cfg;
  const bool ipv6 = absl::StrContains(*host, ":");
  cfg.server = absl::StrCat("https://", ipv6 ? "[" : "", *host, ipv6 ? "]" : "", ":", *port);
  if (absl::Status s = CheckReadable(options.token_file); !s.ok()) {
    return Annotate(s,
                    "in-cluster config: reading the service account token (is "
                    "automountServiceAccountToken disabled?)");
  }
  if (absl::Status s = CheckReadable(options.ca_file); !s.ok()) {
    return Annotate(s, "in-cluster config: reading the service account CA");
  }
  cfg.bearer_token_file = options.token_file;
  cfg.tls.ca_file = options.ca_file;
  cfg.source = "in-cluster";
  return cfg;
}

absl::StatusOr<RestConfig> ParseKubeconfig(absl::string_view yaml_text, absl::string_view base_dir,
                                           absl::string_view context_override) {
  return ParseKubeconfigGuarded(yaml_text, base_dir, context_override, "");
}

absl::StatusOr<RestConfig> LoadKubeconfig(absl::string_view path,
                                          absl::string_view context_override) {
  const std::string context = absl::StrCat("kubeconfig ", path);
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    // The message already names the file.
    return absl::Status(text.status().code(), absl::StrCat("kubeconfig ", text.status().message()));
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(std::string(path), ec);
  const std::string base_dir = ec ? std::string() : absolute.parent_path().string();
  absl::StatusOr<RestConfig> cfg = ParseKubeconfigGuarded(*text, base_dir, context_override, path);
  if (!cfg.ok()) return Annotate(cfg.status(), context);
  return cfg;
}

absl::StatusOr<RestConfig> LoadRestConfig(const LoadOptions& options) {
  const EnvLookup getenv = OrProcessEnv(options.getenv);

  // 1. --kubeconfig
  if (!options.kubeconfig_path.empty()) {
    return Finish(LoadKubeconfig(options.kubeconfig_path, options.context), options);
  }
  // What was looked for, in order, for the error when nothing is found.
  std::vector<std::string> tried = {"--kubeconfig not given"};

  // 2. $KUBECONFIG: the first listed file that exists (no merging; see the header).
  if (std::optional<std::string> list = NonEmptyEnv(getenv, "KUBECONFIG"); list.has_value()) {
    for (absl::string_view file : absl::StrSplit(*list, ':', absl::SkipEmpty())) {
      if (PathExists(file)) return Finish(LoadKubeconfig(file, options.context), options);
    }
    return absl::NotFoundError(
        absl::StrCat("KUBECONFIG=", *list, ": none of the listed files exists"));
  }
  tried.push_back("$KUBECONFIG unset");

  // 3. In-cluster. "Not in a cluster" moves on; a pod whose service account files are
  // missing is reported if nothing else is found.
  std::optional<absl::Status> in_cluster_error;
  std::string in_cluster_note;
  if (!options.context.empty()) {
    in_cluster_note = "in-cluster config skipped because --context was given";
  } else {
    InClusterOptions in_cluster = options.in_cluster;
    if (!in_cluster.getenv) in_cluster.getenv = getenv;
    absl::StatusOr<RestConfig> cfg = LoadInClusterConfig(in_cluster);
    if (cfg.ok()) return Finish(std::move(cfg), options);
    if (absl::IsFailedPrecondition(cfg.status())) {
      in_cluster_note = std::string(cfg.status().message());
    } else {
      in_cluster_error = cfg.status();
    }
  }

  // 4. ~/.kube/config
  if (std::optional<std::string> home = NonEmptyEnv(getenv, "HOME"); home.has_value()) {
    const std::string path = absl::StrCat(*home, "/.kube/config");
    if (PathExists(path)) return Finish(LoadKubeconfig(path, options.context), options);
    tried.push_back(absl::StrCat(path, " does not exist"));
  } else {
    tried.push_back("~/.kube/config not looked for (HOME is unset)");
  }

  // 5. --master alone: that URL without credentials (client-go's BuildConfigFromFlags).
  if (!options.master_override.empty()) {
    RestConfig cfg;
    absl::StatusOr<std::string> server = NormalizeServer(options.master_override, false);
    if (!server.ok()) return Annotate(server.status(), "--master");
    cfg.server = *std::move(server);
    cfg.source = "--master without a kubeconfig (no credentials)";
    Log(Component::kKube)
        .info("using Kubernetes API config source=\"{}\" server={}", cfg.source, cfg.server);
    return cfg;
  }

  if (in_cluster_error.has_value()) {
    return Annotate(*in_cluster_error,
                    absl::StrCat("no kubeconfig found (", absl::StrJoin(tried, ", "), ")"));
  }
  if (!in_cluster_note.empty()) tried.insert(tried.begin() + 2, in_cluster_note);
  return absl::NotFoundError(
      absl::StrCat("no Kubernetes API configuration found (", absl::StrJoin(tried, "; "),
                   "); pass --kubeconfig, set KUBECONFIG, or run in a pod with a service account"));
}

}  // namespace trimaran::kube
