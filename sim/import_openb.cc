#include "sim/import_openb.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "sim/import_csv.h"

namespace trimaran::sim {
namespace {

const CsvLayout& PodLayout() {
  static const auto* kLayout = new CsvLayout{
      .columns = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
                  "pod_phase", "creation_time", "deletion_time", "scheduled_time"},
      .numeric = {1, 2, 3, 4, 8, 9, 10}};
  return *kLayout;
}
enum Pod {
  kName,
  kCpu,
  kMem,
  kNumGpu,
  kGpuMilli,
  kGpuSpec,
  kQos,
  kPhase,
  kCreation,
  kDeletion,
  kScheduled
};

const CsvLayout& NodeLayout() {
  static const auto* kLayout = new CsvLayout{
      .columns = {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, .numeric = {1, 2, 3}};
  return *kLayout;
}
enum Node { kSn, kNodeCpu, kNodeMem, kGpu, kModel };

absl::StatusOr<int64_t> NonNegativeInt(const CsvTable& t, const CsvRow& row, int i,
                                       const CsvLayout& l) {
  TRIMARAN_ASSIGN_OR_RETURN(int64_t v, CellInt(t, row, i, l));
  if (v < 0) return CellError(t, row, l.columns[i], absl::StrCat("negative: ", v));
  return v;
}

absl::StatusOr<std::optional<double>> OptTime(const CsvTable& t, const CsvRow& row, int i,
                                              const CsvLayout& l) {
  TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> v, CellOptNumber(t, row, i, l));
  if (v.has_value() && *v < 0) {
    return CellError(t, row, l.columns[i], absl::StrCat("negative: ", row.cells[i]));
  }
  return v;
}

}  // namespace

absl::StatusOr<ImportedTrace> ImportOpenb(const OpenbInput& input, const OpenbOptions& options) {
  if (input.pod_lists.empty()) return absl::InvalidArgumentError("no openb_pod_list file");
  ImportedTrace out;
  std::set<std::string> names;
  const CsvLayout& l = PodLayout();
  for (const TraceFile& f : input.pod_lists) {
    TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, ReadCsv(f.text, f.name, l));
    if (t.header_line > 0) out.headers.push_back(absl::StrCat(f.name, ":", t.header_line));
    for (const CsvRow& row : t.rows) {
      const std::vector<std::string>& c = row.cells;
      if (c[kName].empty()) return CellError(t, row, "name", "required");
      TracePod pod;
      pod.line = row.line;
      pod.name = SafeCell(c[kName]);
      TRIMARAN_ASSIGN_OR_RETURN(pod.cpu_milli, NonNegativeInt(t, row, kCpu, l));
      TRIMARAN_ASSIGN_OR_RETURN(pod.memory_mib, NonNegativeInt(t, row, kMem, l));
      if (!c[kNumGpu].empty()) {
        TRIMARAN_ASSIGN_OR_RETURN(pod.num_gpu, NonNegativeInt(t, row, kNumGpu, l));
      }
      if (!c[kGpuMilli].empty()) {
        TRIMARAN_ASSIGN_OR_RETURN(pod.gpu_milli, NonNegativeInt(t, row, kGpuMilli, l));
      }
      pod.gpu_spec = SafeCell(c[kGpuSpec]);
      pod.qos = SafeCell(c[kQos]);
      if (!c[kPhase].empty()) pod.labels["pod_phase"] = SafeCell(c[kPhase]);
      TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> creation, OptTime(t, row, kCreation, l));
      if (!creation.has_value()) return CellError(t, row, "creation_time", "required");
      TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> deletion, OptTime(t, row, kDeletion, l));
      TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> scheduled, OptTime(t, row, kScheduled, l));
      pod.creation_time = *creation;
      if (deletion.has_value() && *deletion == 0 && *creation > 0) {
        deletion.reset();
        ++out.adjusted["pod_list: deletion_time 0, pod runs to the end"];
      }
      if (scheduled.has_value() && *scheduled == 0 && *creation > 0) scheduled.reset();
      if (deletion.has_value() && *deletion < *creation) {
        ++out.skipped["pod_list: deletion_time before creation_time"];
        continue;
      }
      if (!scheduled.has_value()) {
        if (options.skip_unscheduled) {
          ++out.skipped["pod_list: never scheduled (--skip-unscheduled)"];
          continue;
        }
        ++out.adjusted["pod_list: never scheduled in the recording, kept as demand"];
      }
      pod.scheduled_time = scheduled;
      if (deletion.has_value()) {
        if (options.end == OpenbOptions::EndMode::kFromBind && scheduled.has_value() &&
            *deletion >= *scheduled) {
          pod.duration = *deletion - *scheduled;
        } else {
          pod.deletion_time = deletion;
        }
      }
      if (!names.insert(pod.name).second) {
        ++out.skipped["pod_list: duplicate pod name"];
        continue;
      }
      out.pods.push_back(std::move(pod));
    }
  }
  std::stable_sort(out.pods.begin(), out.pods.end(), [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  });

  if (input.node_list.present()) {
    const CsvLayout& nl = NodeLayout();
    TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, ReadCsv(input.node_list.text, input.node_list.name, nl));
    if (t.header_line > 0) {
      out.headers.push_back(absl::StrCat(input.node_list.name, ":", t.header_line));
    }
    std::vector<RecordedNode> nodes;
    std::set<std::string> sns;
    for (const CsvRow& row : t.rows) {
      if (row.cells[kSn].empty()) return CellError(t, row, "sn", "required");
      RecordedNode n;
      n.name = row.cells[kSn];
      TRIMARAN_ASSIGN_OR_RETURN(n.cpu_milli, NonNegativeInt(t, row, kNodeCpu, nl));
      TRIMARAN_ASSIGN_OR_RETURN(n.memory_mib, NonNegativeInt(t, row, kNodeMem, nl));
      int64_t gpus = 0;
      if (!row.cells[kGpu].empty()) {
        TRIMARAN_ASSIGN_OR_RETURN(gpus, NonNegativeInt(t, row, kGpu, nl));
      }
      if (n.cpu_milli == 0 || n.memory_mib == 0) {
        ++out.skipped["node_list: cpu_milli or memory_mib 0"];
        continue;
      }
      if (!sns.insert(n.name).second) {
        ++out.skipped["node_list: duplicate sn"];
        continue;
      }
      const std::string model = SafeCell(row.cells[kModel]);
      if (gpus > 0) {
        n.labels["trimaran.io/gpu-count"] = absl::StrCat(gpus);
        n.name_suffix = absl::StrCat(gpus, "x", model.empty() ? "gpu" : model);
        if (!model.empty()) n.labels["trimaran.io/gpu-model"] = model;
      }
      nodes.push_back(std::move(n));
    }
    out.cluster = GroupRecordedNodes(nodes, options.nodes);
  }
  return out;
}

}  // namespace trimaran::sim
