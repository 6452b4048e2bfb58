#pragma once
// JSON codec of the scheduler extender protocol (spec kube-scheduler.md §7.2–§7.3).
//
// The extender v1 structs have no JSON tags, so kube-scheduler writes Go field names
// ("Pod", "NodeNames", "FailedNodes", "Host", "Score", ...) and its decoder matches keys
// case-insensitively. This codec writes the capitalized names and reads any casing.
// Embedded Pod and Node objects are ordinary Kubernetes JSON (kube/api/json_codec.h).
//
// Both directions are here for every message: the extender decodes requests and encodes
// answers; the tests and the benchmark driver play kube-scheduler with the other half.
//
// Errors: InvalidArgument naming the field ("ExtenderArgs.Pod.spec...: ...") for bad
// JSON, a wrong JSON type, or an embedded object that does not decode.
//
// Thread-safety: stateless functions; safe for concurrent use.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/extender/extender_types.h"

namespace trimaran::sched::extender {

absl::StatusOr<ExtenderArgs> DecodeExtenderArgs(std::string_view json);
// With `nodes` set, writes each node's `json` when it is non-empty, else encodes `node`.
std::string EncodeExtenderArgs(const ExtenderArgs& args);

absl::StatusOr<ExtenderFilterResult> DecodeExtenderFilterResult(std::string_view json);
std::string EncodeExtenderFilterResult(const ExtenderFilterResult& result);

absl::StatusOr<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view json);
std::string EncodeHostPriorityList(const std::vector<HostPriority>& list);

absl::StatusOr<ExtenderBindingArgs> DecodeExtenderBindingArgs(std::string_view json);
std::string EncodeExtenderBindingArgs(const ExtenderBindingArgs& args);

absl::StatusOr<ExtenderBindingResult> DecodeExtenderBindingResult(std::string_view json);
std::string EncodeExtenderBindingResult(const ExtenderBindingResult& result);

}  // namespace trimaran::sched::extender
