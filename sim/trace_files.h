#pragma once
// A trace on disk (docs/simulator.md): where a trace directory keeps its pods and node
// groups, reading them, and writing what `trimaranctl simulate gen` and `import` produce;
// for `import`, the files of a public trace found among the paths given.
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::string pods, FindPodsFile("runs/spark"));
//   TRIMARAN_ASSIGN_OR_RETURN(ClusterSpec cluster,
//                             LoadClusterSpec(FindNodeGroupsFile("runs/spark", "")));
//
// Errors name the path: "PATH: cannot open file", "PATH: read error",
// "PATH: cannot write", "DIR: <the filesystem's reason>".
//
// Thread-safety: reentrant (each call reads or writes only the files it names).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/import_alibaba_v2018.h"
#include "sim/import_openb.h"
#include "sim/trace.h"

namespace trimaran::sim {

// The whole text of `path`.
absl::StatusOr<std::string> ReadTraceFile(const std::string& path);

// --trace: a pods file, or a directory holding pods.csv or pods.jsonl (InvalidArgument
// when it holds neither).
absl::StatusOr<std::string> FindPodsFile(const std::string& trace);

// The node groups file: `given` when set, else the trace directory's node-groups.yaml
// when there is one, else "" (the built-in default).
std::string FindNodeGroupsFile(const std::string& trace, const std::string& given);

// The node groups of `path` (ParseClusterYaml); DefaultClusterSpec() when `path` is "".
absl::StatusOr<ClusterSpec> LoadClusterSpec(const std::string& path);

// A pods file read whole and parsed (ParsePods: sorted by creation_time).
absl::StatusOr<std::vector<TracePod>> LoadPodsFile(const std::string& path);

// The paths written, "" for a file not written.
struct WrittenTrace {
  std::string pods;
  std::string node_groups;
};

// `gen`'s output: DIR/pods.csv and DIR/node-groups.yaml (m5.2xlarge, m5.4xlarge and
// r5.2xlarge groups at us-east-1 on-demand prices, CA defaults). DIR is created.
absl::StatusOr<WrittenTrace> WriteGeneratedTrace(const std::string& dir,
                                                 const std::vector<TracePod>& pods);

// Creates DIR (and its parents) if missing.
absl::Status CreateTraceDir(const std::string& dir);

// Writes `text` to `path`.
absl::Status WriteTextFile(const std::string& path, const std::string& text);

// Writes `text` to DIR/NAME; returns that path.
absl::StatusOr<std::string> WriteTraceFile(const std::string& dir, const std::string& name,
                                           const std::string& text);

// `import --format alibaba-v2018`: the tables among `inputs` (files, or directories
// standing for the .csv files in them, sorted), by table-name prefix. `any` is set when
// at least one table was found. A file given by name must be one of the tables; two
// files of one table are an error.
absl::StatusOr<AlibabaV2018Input> FindAlibabaV2018Files(const std::vector<std::string>& inputs,
                                                        bool& any);

// `import --format openb`: the pod list (*pod_list*; one per directory) and the node
// list (*node_list*) among `inputs`.
absl::StatusOr<OpenbInput> FindOpenbFiles(const std::vector<std::string>& inputs);

}  // namespace trimaran::sim
