#include "sim/import_alibaba_v2018.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "sim/import_csv.h"

namespace trimaran::sim {
namespace {

// Column layouts, in schema.txt's order.
const CsvLayout& BatchTaskLayout() {
  static const auto* kLayout =
      new CsvLayout{.columns = {"task_name", "instance_num", "job_name", "task_type", "status",
                                "start_time", "end_time", "plan_cpu", "plan_mem"},
                    .numeric = {1, 5, 6, 7, 8}};
  return *kLayout;
}
enum BatchTask {
  kTaskName,
  kInstanceNum,
  kTaskJob,
  kTaskType,
  kTaskStatus,
  kTaskStart,
  kTaskEnd,
  kPlanCpu,
  kPlanMem
};

const CsvLayout& BatchInstanceLayout() {
  static const auto* kLayout =
      new CsvLayout{.columns = {"instance_name", "task_name", "job_name", "task_type", "status",
                                "start_time", "end_time", "machine_id", "seq_no", "total_seq_no",
                                "cpu_avg", "cpu_max", "mem_avg", "mem_max"},
                    .numeric = {5, 6, 8, 9, 10, 11, 12, 13}};
  return *kLayout;
}
enum BatchInstance {
  kInstName,
  kInstTask,
  kInstJob,
  kInstType,
  kInstStatus,
  kInstStart,
  kInstEnd,
  kInstMachine,
  kSeqNo,
  kTotalSeqNo,
  kCpuAvg,
  kCpuMax,
  kMemAvg,
  kMemMax
};

const CsvLayout& ContainerMetaLayout() {
  static const auto* kLayout =
      new CsvLayout{.columns = {"container_id", "machine_id", "time_stamp", "app_du", "status",
                                "cpu_request", "cpu_limit", "mem_size"},
                    .numeric = {2, 5, 6, 7}};
  return *kLayout;
}
enum ContainerMeta {
  kContainerId,
  kContainerMachine,
  kContainerTime,
  kAppDu,
  kContainerStatus,
  kCpuRequest,
  kCpuLimit,
  kContainerMem
};

// schema.txt lists 11 columns, trace_2018.md 12 in another order after the fifth: only the
// first five are read, and extra cells are accepted.
const CsvLayout& ContainerUsageLayout() {
  static const auto* kLayout =
      new CsvLayout{.columns = {"container_id", "machine_id", "time_stamp", "cpu_util_percent",
                                "mem_util_percent", "cpi", "mem_gps", "mpki", "net_in", "net_out",
                                "disk_io_percent"},
                    .numeric = {2, 3, 4},
                    .min_cells = 5,
                    .allow_extra = true};
  return *kLayout;
}
enum ContainerUsage { kUsageContainer, kUsageMachine, kUsageTime, kCpuUtil, kMemUtil };

const CsvLayout& MachineMetaLayout() {
  static const auto* kLayout =
      new CsvLayout{.columns = {"machine_id", "time_stamp", "failure_domain_1", "failure_domain_2",
                                "cpu_num", "mem_size", "status"},
                    .numeric = {1, 4, 5}};
  return *kLayout;
}
enum MachineMeta {
  kMachineId,
  kMachineTime,
  kFailureDomain1,
  kFailureDomain2,
  kCpuNum,
  kMachineMem,
  kMachineStatus
};

// A normalised value is valid in [0, 100]; the trace marks invalid ones -1 or 101.
bool ValidNormalised(double v) { return v >= 0 && v <= 100; }

int64_t Round(double v) { return static_cast<int64_t>(std::llround(v)); }

absl::StatusOr<CsvTable> Read(const TraceFile& f, const CsvLayout& layout, ImportedTrace& out) {
  TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, ReadCsv(f.text, f.name, layout));
  if (t.header_line > 0) out.headers.push_back(absl::StrCat(f.name, ":", t.header_line));
  return t;
}

struct Task {
  double plan_cpu = 0;
  double plan_mem = 0;
  bool valid = false;
};

struct Machine {
  double time = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  bool valid = false;
};

absl::Status ImportMachines(const TraceFile& f, const AlibabaV2018Options& o,
                            std::map<std::string, Machine>& machines, ImportedTrace& out) {
  const CsvLayout& l = MachineMetaLayout();
  TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, Read(f, l, out));
  for (const CsvRow& row : t.rows) {
    if (row.cells[kMachineId].empty()) return CellError(t, row, "machine_id", "required");
    TRIMARAN_ASSIGN_OR_RETURN(double time, CellNumber(t, row, kMachineTime, l));
    TRIMARAN_ASSIGN_OR_RETURN(int64_t cpus, CellInt(t, row, kCpuNum, l));
    TRIMARAN_ASSIGN_OR_RETURN(double mem, CellNumber(t, row, kMachineMem, l));
    auto [it, inserted] = machines.try_emplace(row.cells[kMachineId]);
    if (!inserted && it->second.time <= time) continue;  // the earliest row describes it
    it->second.time = time;
    it->second.valid = cpus > 0 && ValidNormalised(mem) && mem > 0;
    it->second.cpu_milli = cpus * 1000;
    it->second.memory_mib = Round(mem / 100 * o.ref_mem_mib);
  }
  std::vector<RecordedNode> nodes;
  for (const auto& [id, m] : machines) {
    if (!m.valid) {
      ++out.skipped["machine_meta: invalid cpu_num or mem_size (-1, 101, 0)"];
      continue;
    }
    nodes.push_back(RecordedNode{.name = id, .cpu_milli = m.cpu_milli, .memory_mib = m.memory_mib});
  }
  out.cluster = GroupRecordedNodes(nodes, o.nodes);
  return absl::OkStatus();
}

absl::Status ImportBatch(const AlibabaV2018Input& in, const AlibabaV2018Options& o,
                         std::set<std::string>& names, ImportedTrace& out) {
  const CsvLayout& tl = BatchTaskLayout();
  TRIMARAN_ASSIGN_OR_RETURN(CsvTable tasks_table, Read(in.batch_task, tl, out));
  // (job, task) → requests; job → DAG index → task name.
  std::map<std::pair<std::string, std::string>, Task> tasks;
  std::map<std::string, std::map<int, std::string>> dag_names;
  for (const CsvRow& row : tasks_table.rows) {
    const std::string& job = row.cells[kTaskJob];
    const std::string& name = row.cells[kTaskName];
    if (job.empty() || name.empty()) {
      return CellError(tasks_table, row, job.empty() ? "job_name" : "task_name", "required");
    }
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> cpu,
                              CellOptNumber(tasks_table, row, kPlanCpu, tl));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> mem,
                              CellOptNumber(tasks_table, row, kPlanMem, tl));
    Task task;
    task.valid = cpu.has_value() && *cpu > 0 && mem.has_value() && ValidNormalised(*mem);
    task.plan_cpu = cpu.value_or(0);
    task.plan_mem = mem.value_or(0);
    if (!tasks.emplace(std::make_pair(job, name), task).second) {
      return CellError(tasks_table, row, "task_name",
                       absl::StrCat("duplicate task \"", name, "\" in job \"", job, "\""));
    }
    if (std::optional<TaskDag> dag = ParseTaskDag(name)) dag_names[job][dag->index] = name;
  }

  const CsvLayout& il = BatchInstanceLayout();
  TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, Read(in.batch_instance, il, out));
  for (const CsvRow& row : t.rows) {
    const std::vector<std::string>& c = row.cells;
    for (int i : {kInstName, kInstTask, kInstJob}) {
      if (c[i].empty()) return CellError(t, row, il.columns[i], "required");
    }
    // Parse every number first, so a malformed row is an error whatever its status.
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> start, CellOptNumber(t, row, kInstStart, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> end, CellOptNumber(t, row, kInstEnd, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> seq, CellOptNumber(t, row, kSeqNo, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> cpu_avg, CellOptNumber(t, row, kCpuAvg, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> cpu_max, CellOptNumber(t, row, kCpuMax, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> mem_avg, CellOptNumber(t, row, kMemAvg, il));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> mem_max, CellOptNumber(t, row, kMemMax, il));
    (void)mem_max;  // validated; the format has no max-memory column
    if (c[kInstStatus] != "Terminated") {
      ++out.skipped["batch_instance: status not Terminated"];
      continue;
    }
    if (!start.has_value() || !end.has_value() || *start <= 0 || *end <= 0) {
      ++out.skipped["batch_instance: start_time or end_time 0 or empty (outside the 8-day span)"];
      continue;
    }
    if (*end < *start) {
      ++out.skipped["batch_instance: end_time before start_time"];
      continue;
    }
    auto task = tasks.find({c[kInstJob], c[kInstTask]});
    if (task == tasks.end()) {
      ++out.skipped["batch_instance: task not in batch_task"];
      continue;
    }
    if (!task->second.valid) {
      ++out.skipped["batch_instance: task's plan_cpu or plan_mem invalid (empty, -1, 101)"];
      continue;
    }
    TracePod pod;
    pod.line = row.line;
    pod.name = SafeCell(absl::StrCat(c[kInstJob], ".", c[kInstTask], ".", c[kInstName]));
    if (names.contains(pod.name) && seq.has_value()) {
      absl::StrAppend(&pod.name, ".", Round(*seq));  // a retry: another sequence number
    }
    if (!names.insert(pod.name).second) {
      ++out.skipped["batch_instance: duplicate instance (same job, task, name, seq_no)"];
      continue;
    }
    pod.creation_time = *start;
    pod.duration = *end - *start;
    pod.cpu_milli = Round(task->second.plan_cpu * 10);
    pod.memory_mib = Round(task->second.plan_mem / 100 * o.ref_mem_mib);
    pod.group = SafeCell(c[kInstJob]);
    pod.role = SafeCell(c[kInstTask]);
    pod.qos = "BE";
    pod.orig_node = SafeCell(c[kInstMachine]);
    pod.scheduled_time = *start;
    if (cpu_avg.has_value()) {
      if (*cpu_avg >= 0) {
        pod.cpu_use_milli = Round(*cpu_avg * 10);
      } else {
        ++out.adjusted["batch_instance: cpu_avg invalid, usage left to the request"];
      }
    }
    if (cpu_max.has_value() && *cpu_max >= 0) pod.cpu_use_max_milli = Round(*cpu_max * 10);
    if (mem_avg.has_value()) {
      if (ValidNormalised(*mem_avg)) {
        pod.memory_use_mib = Round(*mem_avg / 100 * o.ref_mem_mib);
      } else {
        ++out.adjusted["batch_instance: mem_avg invalid (-1, 101), usage left to the request"];
      }
    }
    if (std::optional<TaskDag> dag = ParseTaskDag(c[kInstTask])) {
      const std::map<int, std::string>& job_tasks = dag_names[c[kInstJob]];
      for (int d : dag->depends_on) {
        auto dep = job_tasks.find(d);
        if (dep == job_tasks.end()) {
          ++out.adjusted["batch_instance: DAG dependency not in batch_task, edge dropped"];
          continue;
        }
        pod.depends_on.push_back(SafeCell(absl::StrCat(c[kInstJob], "/", dep->second)));
      }
    }
    out.pods.push_back(std::move(pod));
  }
  return absl::OkStatus();
}

absl::Status ImportContainers(const AlibabaV2018Input& in, const AlibabaV2018Options& o,
                              const std::map<std::string, Machine>& machines,
                              std::set<std::string>& names, ImportedTrace& out) {
  const CsvLayout& l = ContainerMetaLayout();
  TRIMARAN_ASSIGN_OR_RETURN(CsvTable t, Read(in.container_meta, l, out));
  struct Container {
    TracePod pod;
    bool valid = false;
  };
  std::map<std::string, Container> containers;
  for (const CsvRow& row : t.rows) {
    const std::vector<std::string>& c = row.cells;
    if (c[kContainerId].empty()) return CellError(t, row, "container_id", "required");
    TRIMARAN_ASSIGN_OR_RETURN(double time, CellNumber(t, row, kContainerTime, l));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> cpu, CellOptNumber(t, row, kCpuRequest, l));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> limit, CellOptNumber(t, row, kCpuLimit, l));
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> mem, CellOptNumber(t, row, kContainerMem, l));
    if (time < 0) return CellError(t, row, "time_stamp", "negative");
    auto [it, inserted] = containers.try_emplace(c[kContainerId]);
    if (!inserted && it->second.pod.creation_time <= time) continue;  // the earliest row
    TracePod& pod = it->second.pod;
    pod = TracePod();
    pod.line = row.line;
    pod.name = SafeCell(c[kContainerId]);
    pod.creation_time = time;
    it->second.valid =
        cpu.has_value() && *cpu > 0 && mem.has_value() && ValidNormalised(*mem) && *mem > 0;
    pod.cpu_milli = Round(cpu.value_or(0) * 10);
    if (limit.has_value() && *limit >= 0) pod.cpu_limit_milli = Round(*limit * 10);
    pod.memory_mib = Round(mem.value_or(0) / 100 * o.ref_mem_mib);
    pod.group = SafeCell(c[kAppDu]);
    pod.role = "service";
    pod.qos = "LS";
    pod.orig_node = SafeCell(c[kContainerMachine]);
  }
  for (auto it = containers.begin(); it != containers.end();) {
    if (!it->second.valid || names.contains(it->second.pod.name)) {
      ++out.skipped[it->second.valid
                        ? "container_meta: name already used by a batch pod"
                        : "container_meta: cpu_request or mem_size invalid (empty, 0, -1, 101)"];
      it = containers.erase(it);
    } else {
      ++it;
    }
  }

  if (in.container_usage.present()) {
    const CsvLayout& ul = ContainerUsageLayout();
    TRIMARAN_ASSIGN_OR_RETURN(CsvTable u, Read(in.container_usage, ul, out));
    for (const CsvRow& row : u.rows) {
      TRIMARAN_ASSIGN_OR_RETURN(double time, CellNumber(u, row, kUsageTime, ul));
      TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> cpu, CellOptNumber(u, row, kCpuUtil, ul));
      TRIMARAN_ASSIGN_OR_RETURN(std::optional<double> mem, CellOptNumber(u, row, kMemUtil, ul));
      auto it = containers.find(row.cells[kUsageContainer]);
      if (it == containers.end()) {
        ++out.skipped["container_usage: container not imported from container_meta"];
        continue;
      }
      if (!cpu.has_value() || !mem.has_value() || !ValidNormalised(*cpu) ||
          !ValidNormalised(*mem)) {
        ++out.skipped["container_usage: cpu or mem util empty or invalid (-1, 101)"];
        continue;
      }
      TracePod& pod = it->second.pod;
      if (time < pod.creation_time) {
        ++out.skipped["container_usage: point before the container's first time_stamp"];
        continue;
      }
      int64_t cpu_base = pod.cpu_milli;
      int64_t mem_base = pod.memory_mib;
      if (o.util_base == AlibabaV2018Options::UtilBase::kMachine) {
        auto m = machines.find(row.cells[kUsageMachine]);
        if (m == machines.end() || !m->second.valid) {
          ++out.skipped["container_usage: machine not in machine_meta (util base machine)"];
          continue;
        }
        cpu_base = m->second.cpu_milli;
        mem_base = m->second.memory_mib;
      }
      pod.usage.push_back(UsagePoint{time - pod.creation_time, Round(*cpu / 100 * cpu_base),
                                     Round(*mem / 100 * mem_base)});
    }
  }
  for (auto& [id, c] : containers) {
    std::stable_sort(c.pod.usage.begin(), c.pod.usage.end(),
                     [](const UsagePoint& a, const UsagePoint& b) { return a.t < b.t; });
    names.insert(c.pod.name);
    out.pods.push_back(std::move(c.pod));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<TaskDag> ParseTaskDag(absl::string_view task_name) {
  size_t i = 0;
  while (i < task_name.size() && absl::ascii_isalpha(task_name[i])) ++i;
  if (i == 0 || i == task_name.size()) return std::nullopt;
  TaskDag dag;
  bool first = true;
  for (absl::string_view part : absl::StrSplit(task_name.substr(i), '_')) {
    int n = 0;
    if (part.empty() || !std::all_of(part.begin(), part.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(part, &n)) {
      return std::nullopt;
    }
    if (first) {
      dag.index = n;
      first = false;
    } else {
      dag.depends_on.push_back(n);
    }
  }
  return dag;
}

absl::StatusOr<ImportedTrace> ImportAlibabaV2018(const AlibabaV2018Input& input,
                                                 const AlibabaV2018Options& options) {
  if (options.ref_mem_mib <= 0) return absl::InvalidArgumentError("ref_mem_mib: must be positive");
  if (input.batch_instance.present() != input.batch_task.present()) {
    return absl::InvalidArgumentError(
        "batch_instance and batch_task go together (the instances' requests are their task's)");
  }
  if (input.container_usage.present() && !input.container_meta.present()) {
    return absl::InvalidArgumentError("container_usage needs container_meta");
  }
  if (!input.batch_instance.present() && !input.container_meta.present()) {
    return absl::InvalidArgumentError(
        "no pods: give batch_instance + batch_task, or container_meta (or both)");
  }
  if (options.util_base == AlibabaV2018Options::UtilBase::kMachine &&
      input.container_usage.present() && !input.machine_meta.present()) {
    return absl::InvalidArgumentError("util base \"machine\" needs machine_meta");
  }
  ImportedTrace out;
  std::map<std::string, Machine> machines;
  if (input.machine_meta.present()) {
    TRIMARAN_RETURN_IF_ERROR(ImportMachines(input.machine_meta, options, machines, out));
  }
  std::set<std::string> names;
  if (input.batch_instance.present()) {
    TRIMARAN_RETURN_IF_ERROR(ImportBatch(input, options, names, out));
  }
  if (input.container_meta.present()) {
    TRIMARAN_RETURN_IF_ERROR(ImportContainers(input, options, machines, names, out));
  }
  std::stable_sort(out.pods.begin(), out.pods.end(), [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  });
  return out;
}

}  // namespace trimaran::sim
