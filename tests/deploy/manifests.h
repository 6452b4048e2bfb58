#pragma once
// Helpers for the tests of the shipped manifests (deploy/): running kubectl (and other
// programs) as subprocesses, rendering a kustomize directory into yaml-cpp documents, and
// finding objects and containers in them.
//
// Thread-safety: free functions; RunCommand() and Render() start subprocesses and may be called
// from any thread. Ownership: returned values are owned by the caller.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::deploy_testing {

// The version every manifest's image tag must carry (project(VERSION) in CMakeLists.txt,
// the same as trimaran::kVersion).
inline constexpr char kProjectVersion[] = TRIMARAN_PROJECT_VERSION;
inline constexpr char kImageName[] = "ghcr.io/trimaran/trimaran";

// The overlays under deploy/overlays/, in documentation order.
const std::vector<std::string>& Overlays();

// <source>/deploy/<relative>, e.g. DeployPath("overlays/prometheus").
std::string DeployPath(absl::string_view relative);

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

// Runs `argv` (argv[0] searched in PATH), extra environment `env` ("K=V"), waits up to
// `timeout` (then kills it and returns DeadlineExceeded). Output is captured through a
// file in a fresh temporary directory.
absl::StatusOr<RunResult> RunCommand(const std::vector<std::string>& argv,
                                     absl::Duration timeout = absl::Seconds(60),
                                     const std::vector<std::string>& env = {});

// `kubectl kustomize <dir>`, parsed into one node per document.
absl::StatusOr<std::vector<YAML::Node>> Render(const std::string& dir);

// A fresh temporary kustomization directory whose kustomization.yaml names `resource`
// (e.g. "overlays/prometheus") and the component `component` (e.g.
// "components/monitoring"), both reached unmodified through a symlink to deploy/. The
// caller removes it.
absl::StatusOr<std::string> MakeComponentKustomization(absl::string_view resource,
                                                       absl::string_view component);

// `resource` (e.g. "overlays/prometheus") with the kustomize component `component`
// (e.g. "components/monitoring") added, rendered through a temporary kustomization
// (removed again).
absl::StatusOr<std::vector<YAML::Node>> RenderWithComponent(absl::string_view resource,
                                                            absl::string_view component);

// Every document of kind `kind` (and name `name` when not empty).
std::vector<YAML::Node> FindAll(const std::vector<YAML::Node>& docs, absl::string_view kind,
                                absl::string_view name = "");
// The single document of kind `kind` whose name equals `name` or, for generated
// ConfigMaps, starts with `name` + "-" (kustomize's hash suffix). Null node if none.
YAML::Node FindOne(const std::vector<YAML::Node>& docs, absl::string_view kind,
                   absl::string_view name);
// The container `name` of a Deployment. Null node if none.
YAML::Node FindContainer(const YAML::Node& deployment, absl::string_view name);

// Emits `docs` as one multi-document YAML stream.
std::string ToYamlStream(const std::vector<YAML::Node>& docs);

// Writes `contents` to `path`.
absl::Status WriteFile(const std::string& path, absl::string_view contents);

// A fresh temporary directory (removed by nobody: tests put it under ctest's tmp).
absl::StatusOr<std::string> MakeTempDir(absl::string_view prefix);

}  // namespace trimaran::deploy_testing
