#include "common/http/token_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace trimaran::http {

absl::StatusOr<std::string> TokenFile::Get() const {
  const std::optional<FileIdentity> now = StatFileIdentity(path_);
  if (!now.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("token file \"", path_, "\": cannot stat (missing?)"));
  }
  absl::MutexLock lock(&mu_);
  if (identity_ == now) return token_;
  identity_.reset();
  token_.clear();
  if (now->size > static_cast<int64_t>(kMaxTokenFileBytes)) {
    return absl::FailedPreconditionError(absl::StrCat("token file \"", path_, "\": ", now->size,
                                                      " bytes, more than a token (max ",
                                                      kMaxTokenFileBytes, ")"));
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat("token file \"", path_, "\": cannot read"));
  }
  std::ostringstream content;
  content << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(content.str()));
  if (token.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("token file \"", path_, "\": empty"));
  }
  identity_ = now;
  token_ = token;
  return token;
}

}  // namespace trimaran::http
