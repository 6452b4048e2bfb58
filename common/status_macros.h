#pragma once
// Status propagation helpers. Debian 12's Abseil (20220623) predates
// ABSL_RETURN_IF_ERROR / ABSL_ASSIGN_OR_RETURN, so Trimaran carries its own.
//
//   TRIMARAN_RETURN_IF_ERROR(DoThing());
//   TRIMARAN_ASSIGN_OR_RETURN(Pod pod, DecodePod(json));
//   return Annotate(status, "binding pod default/web-1");
//
// Thread-safety: stateless macros and pure functions; safe anywhere.

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trimaran {

// Returns `status` with `context` prepended to its message ("context: message"), same
// code. An OK status is returned unchanged.
inline absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

}  // namespace trimaran

#define TRIMARAN_STATUS_MACROS_CONCAT_INNER_(x, y) x##y
#define TRIMARAN_STATUS_MACROS_CONCAT_(x, y) TRIMARAN_STATUS_MACROS_CONCAT_INNER_(x, y)

// Evaluates `expr` (an absl::Status); returns it from the calling function if not OK.
#define TRIMARAN_RETURN_IF_ERROR(expr)                                       \
  do {                                                                       \
    ::absl::Status trimaran_status_ = (expr);                                \
    if (ABSL_PREDICT_FALSE(!trimaran_status_.ok())) return trimaran_status_; \
  } while (0)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, otherwise
// moves the value into `lhs` (which may be a declaration such as `auto x`).
#define TRIMARAN_ASSIGN_OR_RETURN(lhs, rexpr)                                                   \
  TRIMARAN_ASSIGN_OR_RETURN_IMPL_(TRIMARAN_STATUS_MACROS_CONCAT_(trimaran_statusor_, __LINE__), \
                                  lhs, rexpr)

#define TRIMARAN_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr)       \
  auto statusor = (rexpr);                                          \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) return statusor.status(); \
  lhs = std::move(statusor).value()
