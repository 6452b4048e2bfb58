#include "tests/deploy/manifests.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::deploy_testing {

const std::vector<std::string>& Overlays() {
  static const auto* const kOverlays =
      new std::vector<std::string>{"prometheus",   "metrics-server", "single-container",
                                   "request-only", "extender",       "secure-load-watcher"};
  return *kOverlays;
}

std::string DeployPath(absl::string_view relative) {
  return absl::StrCat(TRIMARAN_SOURCE_DIR, "/deploy/", relative);
}

absl::StatusOr<std::string> MakeTempDir(absl::string_view prefix) {
  const char* tmp = getenv("TMPDIR");
  std::string templ =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/", prefix, ".XXXXXX");
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", templ, " failed"));
  }
  return templ;
}

absl::Status WriteFile(const std::string& path, absl::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<RunResult> RunCommand(const std::vector<std::string>& argv, absl::Duration timeout,
                                     const std::vector<std::string>& env) {
  absl::StatusOr<std::string> dir = MakeTempDir("trimaran-run");
  if (!dir.ok()) return dir.status();
  const std::string log = *dir + "/output.log";
  absl::StatusOr<std::unique_ptr<e2e::Subprocess>> proc = e2e::Subprocess::Start(argv, log, env);
  if (!proc.ok()) return proc.status();
  absl::StatusOr<int> code = (*proc)->Wait(timeout);
  RunResult result;
  std::ifstream in(log, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  result.output = ss.str();
  std::remove(log.c_str());
  std::remove(dir->c_str());
  if (!code.ok()) {
    (*proc)->Stop();
    return absl::DeadlineExceededError(absl::StrCat(
        argv[0], " did not finish within ", absl::FormatDuration(timeout), ": ", result.output));
  }
  result.exit_code = *code;
  return result;
}

absl::StatusOr<std::vector<YAML::Node>> Render(const std::string& dir) {
  absl::StatusOr<RunResult> r = RunCommand({"kubectl", "kustomize", dir});
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubectl kustomize ", dir, " exited ", r->exit_code, ": ", r->output));
  }
  try {
    std::vector<YAML::Node> docs;
    for (YAML::Node& doc : YAML::LoadAll(r->output)) {
      if (doc.IsMap()) docs.push_back(doc);
    }
    return docs;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("rendered ", dir, ": ", e.what()));
  }
}

absl::StatusOr<std::string> MakeComponentKustomization(absl::string_view resource,
                                                       absl::string_view component) {
  // kustomize refuses absolute paths: a temporary kustomization reaches deploy/ through a
  // symlink.
  absl::StatusOr<std::string> dir = MakeTempDir("trimaran-component");
  if (!dir.ok()) return dir.status();
  const std::filesystem::path root(*dir);
  std::error_code ec;
  std::filesystem::create_directory_symlink(DeployPath(""), root / "deploy", ec);
  if (ec) return absl::InternalError(absl::StrCat("symlink in ", *dir, ": ", ec.message()));
  absl::Status w = WriteFile((root / "kustomization.yaml").string(),
                             absl::StrCat("resources:\n  - deploy/", resource,
                                          "\ncomponents:\n  - deploy/", component, "\n"));
  if (!w.ok()) return w;
  return *dir;
}

absl::StatusOr<std::vector<YAML::Node>> RenderWithComponent(absl::string_view resource,
                                                            absl::string_view component) {
  absl::StatusOr<std::string> dir = MakeComponentKustomization(resource, component);
  if (!dir.ok()) return dir.status();
  absl::StatusOr<std::vector<YAML::Node>> rendered = Render(*dir);
  std::error_code ignored;
  std::filesystem::remove_all(*dir, ignored);
  return rendered;
}

std::vector<YAML::Node> FindAll(const std::vector<YAML::Node>& docs, absl::string_view kind,
                                absl::string_view name) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& doc : docs) {
    if (doc["kind"].as<std::string>("") != kind) continue;
    if (!name.empty() && doc["metadata"]["name"].as<std::string>("") != name) continue;
    out.push_back(doc);
  }
  return out;
}

YAML::Node FindOne(const std::vector<YAML::Node>& docs, absl::string_view kind,
                   absl::string_view name) {
  // Indices, not Node assignment: assigning to a bound yaml-cpp Node rewrites its target.
  const std::vector<YAML::Node> of_kind = FindAll(docs, kind);
  int found = -1;
  for (size_t i = 0; i < of_kind.size(); ++i) {
    const std::string n = of_kind[i]["metadata"]["name"].as<std::string>("");
    if (n == name || (kind == "ConfigMap" && absl::StartsWith(n, absl::StrCat(name, "-")))) {
      if (found >= 0) return YAML::Node();  // ambiguous
      found = static_cast<int>(i);
    }
  }
  return found >= 0 ? of_kind[found] : YAML::Node();
}

YAML::Node FindContainer(const YAML::Node& deployment, absl::string_view name) {
  for (const YAML::Node& c : deployment["spec"]["template"]["spec"]["containers"]) {
    if (c["name"].as<std::string>("") == name) return c;
  }
  return YAML::Node();
}

std::string ToYamlStream(const std::vector<YAML::Node>& docs) {
  YAML::Emitter out;
  for (const YAML::Node& doc : docs) {
    out << YAML::BeginDoc << doc << YAML::EndDoc;
  }
  return out.c_str();
}

}  // namespace trimaran::deploy_testing
