#pragma once
// The effective (defaulted) configuration as kubescheduler.config.k8s.io/v1, for
// --write-config-to and /configz. Every field is written, in upstream's order; plugin
// sets are the merged ones (defaults included, unsupported defaults already dropped);
// weights and disabled lists only when set; plugin args as given. The output loads back
// (ParseConfig) to an equal configuration. A v1beta2/v1beta3 input is written as v1 with
// its merged plugin sets (so its meaning is kept); a profile without multiPoint plugins
// gets `multiPoint: {disabled: [{name: "*"}]}`, so that v1's default multiPoint set is
// not merged back in when the output is loaded.
//
// WriteConfigJson is the same document as JSON (for /configz), with every secret
// replaced by kRedacted (RedactSecrets): never a token on an admin endpoint. Scalars
// inside plugin
// args are typed by their YAML form: plain true/false/null/numbers stay unquoted,
// everything else (and every quoted scalar) is a JSON string.
//
// Thread-safety: pure functions.

#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/config/types.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::config {

// Go-style duration text: "15s", "1m30s", "100ms", "0s".
std::string FormatGoDuration(absl::Duration d);

// The configuration as a YAML tree (used by both writers).
YAML::Node ConfigToNode(const SchedulerConfig& config);

std::string WriteConfigYaml(const SchedulerConfig& config);
std::string WriteConfigJson(const SchedulerConfig& config);

inline constexpr char kRedacted[] = "<redacted>";
// Whether a map key names a secret ("token", "password", "secret", "apiKey",
// "credential", "authorization", in any case, anywhere in the key).
bool IsSecretKey(absl::string_view key);
// Replaces, anywhere in `node`, the non-empty scalar value of a secret key and every
// value of a "headers" map by kRedacted.
void RedactSecrets(YAML::Node node);

}  // namespace trimaran::sched::config
