// Fuzzes the decoding of an exec credential plugin's stdout (kube/credentials.h):
// ParseExecCredential directly, for both supported apiVersions, and the whole
// ExecCredentialSource (caching by expirationTimestamp) over a process runner that
// prints the input. A plugin is a third-party program (`aws eks get-token`, ...), so
// its output is untrusted.
//
// Invariants, for every output the parser accepts:
//   - it was accepted for exactly the apiVersion it names (never for both);
//   - it carries a token or a client certificate and key, and never only one of the
//     certificate and key;
//   - ExecCredentialSource::Get returns exactly the parsed credentials, again from its
//     cache while the clock has not reached the expiry;
//   - every rejection is FailedPrecondition (an operator must act: credentials.h).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/manual_clock.h"
#include "fuzz/fuzz_util.h"
#include "kube/credentials.h"
#include "kube/rest_config.h"

namespace trimaran::kube {
namespace {

void CheckSource(absl::string_view output, absl::string_view api_version,
                 const ExecCredentialStatus& parsed) {
  RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.exec = ExecConfig{.api_version = std::string(api_version), .command = "fuzz-plugin"};
  ManualClock clock;
  int runs = 0;
  ExecCredentialOptions options;
  options.runner = [&](const SubprocessSpec&) -> absl::StatusOr<SubprocessResult> {
    ++runs;
    return SubprocessResult{.exit_code = 0, .stdout_text = std::string(output)};
  };
  absl::StatusOr<std::unique_ptr<ExecCredentialSource>> source =
      ExecCredentialSource::Create(config, clock, std::move(options));
  FUZZ_CHECK(source.ok()) << source.status();

  absl::StatusOr<Credentials> got = (*source)->Get();
  FUZZ_CHECK(got.ok() && *got == parsed.credentials) << "Get() disagrees with the parser";
  FUZZ_CHECK(runs == 1) << runs << " runs";
  // Cached until shortly before the expiry; an expiry already past (relative to the
  // clock) makes every Get run the plugin again, and an expired one fails or refetches.
  const bool fresh =
      !parsed.expiration.has_value() || *parsed.expiration - absl::Seconds(30) > clock.Now();
  absl::StatusOr<Credentials> again = (*source)->Get();
  FUZZ_CHECK(again.ok() && *again == parsed.credentials) << "second Get() disagrees";
  if (fresh) FUZZ_CHECK(runs == 1) << "credentials valid until the expiry were not cached";
  (*source)->Invalidate();
  absl::StatusOr<Credentials> after = (*source)->Get();
  FUZZ_CHECK(after.ok() && *after == parsed.credentials) << "Get() after Invalidate disagrees";
  FUZZ_CHECK(runs >= 2) << "Invalidate did not make Get run the plugin again";
}

}  // namespace
}  // namespace trimaran::kube

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::kube;  // NOLINT(build/namespaces): a fuzzer entry point
  const absl::string_view output(reinterpret_cast<const char*>(data), size);
  int accepted = 0;
  for (absl::string_view version : {kExecApiV1, kExecApiV1beta1}) {
    absl::StatusOr<ExecCredentialStatus> parsed = ParseExecCredential(output, version);
    if (!parsed.ok()) {
      FUZZ_CHECK(absl::IsFailedPrecondition(parsed.status())) << parsed.status();
      continue;
    }
    ++accepted;
    const Credentials& c = parsed->credentials;
    FUZZ_CHECK(c.client_cert_pem.empty() == c.client_key_pem.empty())
        << "a certificate without its key or a key without its certificate";
    FUZZ_CHECK(!c.bearer_token.empty() || !c.client_cert_pem.empty()) << "no credentials";
    CheckSource(output, version, *parsed);
  }
  FUZZ_CHECK(accepted <= 1) << "accepted for both apiVersions";
  return 0;
}
