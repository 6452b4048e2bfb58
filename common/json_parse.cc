#include "common/json_parse.h"

namespace trimaran {

absl::Status CheckJsonText(absl::string_view json, const JsonLimits& limits,
                           absl::string_view what) {
  if (limits.max_depth < 1 || limits.max_depth > kMaxJsonMaxDepth) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": JSON depth limit ", limits.max_depth,
                                                   " is outside [1, ", kMaxJsonMaxDepth, "]"));
  }
  if (json.size() > limits.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": JSON text of ", json.size(),
                                                     " bytes is over the limit of ",
                                                     limits.max_bytes, " bytes"));
  }
  if (const size_t nul = json.find('\0'); nul != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not JSON: NUL byte at offset ", nul));
  }
  return absl::OkStatus();
}

absl::Status JsonParseError(absl::string_view what, rapidjson::ParseResult result, bool too_deep,
                            int max_depth) {
  if (too_deep) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": JSON nested deeper than ", max_depth,
                                                   " levels at offset ", result.Offset()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": not JSON: ", rapidjson::GetParseError_En(result.Code()), " at offset ",
                   result.Offset()));
}

}  // namespace trimaran
