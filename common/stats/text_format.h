#pragma once
// The Prometheus text exposition format, version 0.0.4: its content type, its name
// rules, its escaping and its number format. The Registry writes whole expositions;
// these pieces are public so that other writers (and tests) agree with it.
//
// Numbers are written as the Prometheus Go client writes them (strconv 'g', shortest):
// `0`, `1`, `0.25`, `123456`, `1e+06`, `1.5e-05`, `+Inf`, `-Inf`, `NaN`.
//
// Thread-safety: stateless functions; safe anywhere.

#include <string>

#include "absl/strings/string_view.h"

namespace trimaran::stats {

// The Content-Type header of a text exposition (what /metrics must send).
inline constexpr char kPrometheusTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// True when `name` matches Prometheus' metric name regex [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidMetricName(absl::string_view name);

// True when `name` matches Prometheus' label name regex [a-zA-Z_][a-zA-Z0-9_]*. Names
// starting with "__" match but are reserved for Prometheus itself; the Registry rejects
// them separately.
bool IsValidLabelName(absl::string_view name);

// Appends `value` in the Go client's format (see the file comment). -0 is written "0".
void AppendValue(double value, std::string& out);
std::string FormatValue(double value);

// Appends a label value with backslash, double quote and newline escaped (`\\`, `\"`,
// `\n`). The value should be UTF-8; bytes are copied as they are.
void AppendEscapedLabelValue(absl::string_view value, std::string& out);

// Appends HELP text with backslash and newline escaped (`\\`, `\n`); quotes stay.
void AppendEscapedHelp(absl::string_view help, std::string& out);

}  // namespace trimaran::stats
