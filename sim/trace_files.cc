#include "sim/trace_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "sim/trace_writer.h"

namespace trimaran::sim {
namespace {

namespace fs = std::filesystem;

// The node groups `gen` writes beside the pods: m5 general purpose and r5 memory
// optimised, us-east-1 on-demand prices (spec §A4), CA defaults.
constexpr char kGenNodeGroups[] =
    R"(# Written by trimaranctl simulate gen. Prices: us-east-1 on demand, Linux (USD/h).
nodeGroups:
  - {name: m5-2xlarge, instanceType: m5.2xlarge, cpuMilli: 8000, memoryMiB: 32768,
     pricePerHour: 0.384, min: 0, max: 500, startupDelay: 180}
  - {name: m5-4xlarge, instanceType: m5.4xlarge, cpuMilli: 16000, memoryMiB: 65536,
     pricePerHour: 0.768, min: 0, max: 500, startupDelay: 180}
  - {name: r5-2xlarge, instanceType: r5.2xlarge, cpuMilli: 8000, memoryMiB: 65536,
     pricePerHour: 0.504, min: 0, max: 500, startupDelay: 180}
autoscaler:
  expander: least-waste
)";

absl::StatusOr<TraceFile> LoadTraceFile(const std::string& path) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadTraceFile(path));
  return TraceFile{path, std::move(text)};
}

// The regular files of `inputs` (a directory stands for the files in it, sorted).
std::vector<std::string> ExpandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const fs::directory_entry& e : fs::directory_iterator(input, ec)) {
      if (e.is_regular_file(ec)) in_dir.push_back(e.path().string());
    }
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

}  // namespace

absl::StatusOr<std::string> ReadTraceFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open file"));
  std::stringstream buffer;
  buffer << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

absl::StatusOr<std::string> FindPodsFile(const std::string& trace) {
  std::error_code ec;
  if (!fs::is_directory(trace, ec)) return trace;
  for (const char* name : {"pods.csv", "pods.jsonl"}) {
    const fs::path p = fs::path(trace) / name;
    if (fs::exists(p, ec)) return p.string();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(trace, ": directory holds neither pods.csv nor pods.jsonl"));
}

std::string FindNodeGroupsFile(const std::string& trace, const std::string& given) {
  if (!given.empty() || !fs::is_directory(trace)) return given;
  const std::string candidate = (fs::path(trace) / "node-groups.yaml").string();
  return fs::exists(candidate) ? candidate : given;
}

absl::StatusOr<ClusterSpec> LoadClusterSpec(const std::string& path) {
  if (path.empty()) return DefaultClusterSpec();
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadTraceFile(path));
  return ParseClusterYaml(text, path);
}

absl::StatusOr<std::vector<TracePod>> LoadPodsFile(const std::string& path) {
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadTraceFile(path));
  return ParsePods(text, path);
}

absl::StatusOr<WrittenTrace> WriteGeneratedTrace(const std::string& dir,
                                                 const std::vector<TracePod>& pods) {
  TRIMARAN_RETURN_IF_ERROR(CreateTraceDir(dir));
  WrittenTrace written;
  written.pods = (fs::path(dir) / "pods.csv").string();
  written.node_groups = (fs::path(dir) / "node-groups.yaml").string();
  std::ofstream pods_file(written.pods, std::ios::binary);
  pods_file << FormatPodsCsv(pods);
  std::ofstream groups_file(written.node_groups, std::ios::binary);
  groups_file << kGenNodeGroups;
  if (!pods_file || !groups_file) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": cannot write"));
  }
  return written;
}

absl::Status CreateTraceDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(dir, ": ", ec.message()));
  return absl::OkStatus();
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> WriteTraceFile(const std::string& dir, const std::string& name,
                                           const std::string& text) {
  const std::string path = (fs::path(dir) / name).string();
  TRIMARAN_RETURN_IF_ERROR(WriteTextFile(path, text));
  return path;
}

absl::StatusOr<AlibabaV2018Input> FindAlibabaV2018Files(const std::vector<std::string>& inputs,
                                                        bool& any) {
  AlibabaV2018Input in;
  const std::vector<std::pair<const char*, TraceFile*>> tables = {
      {"batch_task", &in.batch_task},
      {"batch_instance", &in.batch_instance},
      {"container_meta", &in.container_meta},
      {"container_usage", &in.container_usage},
      {"machine_meta", &in.machine_meta}};
  for (const std::string& file : ExpandInputs(inputs)) {
    const std::string base = fs::path(file).filename().string();
    const bool given = std::find(inputs.begin(), inputs.end(), file) != inputs.end();
    // In a directory, only the .csv files (not the downloaded .tar.gz beside them).
    if (!given && !absl::EndsWith(base, ".csv")) continue;
    bool matched = false;
    for (const auto& [table, slot] : tables) {
      if (!absl::StartsWith(base, table)) continue;
      matched = true;
      if (slot->present()) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ": a second ", table, " file (first: ", slot->name, ")"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(*slot, LoadTraceFile(file));
      any = true;
    }
    // Other files (machine_usage, READMEs) are not read; a file given by name must match.
    if (!matched && given) {
      return absl::InvalidArgumentError(absl::StrCat(
          file,
          ": not a table the importer reads (batch_task, batch_instance, container_meta, "
          "container_usage, machine_meta)"));
    }
  }
  return in;
}

absl::StatusOr<OpenbInput> FindOpenbFiles(const std::vector<std::string>& inputs) {
  OpenbInput in;
  for (const std::string& file : ExpandInputs(inputs)) {
    const std::string base = fs::path(file).filename().string();
    const bool given = std::find(inputs.begin(), inputs.end(), file) != inputs.end();
    if (!given && !absl::EndsWith(base, ".csv")) continue;
    if (absl::StrContains(base, "pod_list")) {
      if (!given && !in.pod_lists.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("several pod lists in the input directory (",
                                                       in.pod_lists[0].name, ", ", file,
                                                       "): give the one to import as a file"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(TraceFile f, LoadTraceFile(file));
      in.pod_lists.push_back(std::move(f));
    } else if (absl::StrContains(base, "node_list")) {
      if (in.node_list.present()) {
        return absl::InvalidArgumentError(absl::StrCat("several node lists (", in.node_list.name,
                                                       ", ", file,
                                                       "): give the one to import as a file"));
      }
      TRIMARAN_ASSIGN_OR_RETURN(in.node_list, LoadTraceFile(file));
    } else if (given) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ": neither a pod list (*pod_list*) nor a node list (*node_list*)"));
    }
  }
  return in;
}

}  // namespace trimaran::sim
