#include "scheduler/framework/status.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched {
namespace {

const std::vector<std::string>& EmptyReasons() {
  static const auto* const kEmpty = new std::vector<std::string>();
  return *kEmpty;
}

}  // namespace

absl::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::vector<std::string> reasons) : code_(code) {
  if (!reasons.empty()) {
    rep_ = std::make_shared<Rep>();
    rep_->reasons = std::move(reasons);
  }
}

Status Status::Error(absl::string_view message) {
  return Status(Code::kError, {std::string(message)});
}
Status Status::Unschedulable(absl::string_view reason) {
  return Status(Code::kUnschedulable, {std::string(reason)});
}
Status Status::Unschedulable(std::vector<std::string> reasons) {
  return Status(Code::kUnschedulable, std::move(reasons));
}
Status Status::UnschedulableAndUnresolvable(absl::string_view reason) {
  return Status(Code::kUnschedulableAndUnresolvable, {std::string(reason)});
}
Status Status::UnschedulableAndUnresolvable(std::vector<std::string> reasons) {
  return Status(Code::kUnschedulableAndUnresolvable, std::move(reasons));
}
Status Status::Pending(absl::string_view reason) {
  return Status(Code::kPending, {std::string(reason)});
}

Status Status::FromAbsl(const absl::Status& status) {
  if (status.ok()) return Status();
  Status s(Code::kError, {std::string(status.message())});
  s.rep_->error = status;
  return s;
}

const std::vector<std::string>& Status::reasons() const {
  return rep_ ? rep_->reasons : EmptyReasons();
}

std::string Status::Message() const { return absl::StrJoin(reasons(), ", "); }

absl::string_view Status::plugin() const {
  return rep_ ? absl::string_view(rep_->plugin) : absl::string_view();
}

Status::Rep& Status::MutableRep() {
  if (!rep_) {
    rep_ = std::make_shared<Rep>();
  } else if (rep_.use_count() > 1) {
    // Holding a reference ourselves, use_count() == 1 means no other object can reach
    // the block, so this check is race-free.
    rep_ = std::make_shared<Rep>(*rep_);
  }
  return *rep_;
}

void Status::SetPlugin(absl::string_view plugin) {
  if (this->plugin() == plugin) return;
  MutableRep().plugin = std::string(plugin);
}

Status Status::WithPlugin(absl::string_view plugin) const& {
  Status copy = *this;
  copy.SetPlugin(plugin);
  return copy;
}

Status Status::WithPlugin(absl::string_view plugin) && {
  SetPlugin(plugin);
  return std::move(*this);
}

void Status::AppendReason(absl::string_view reason) { MutableRep().reasons.emplace_back(reason); }

absl::Status Status::AsAbsl() const {
  switch (code_) {
    case Code::kSuccess:
    case Code::kWait:
    case Code::kSkip:
      return absl::OkStatus();
    case Code::kError:
      if (rep_ && !rep_->error.ok()) return rep_->error;
      return absl::InternalError(plugin().empty() ? Message()
                                                  : absl::StrCat(plugin(), ": ", Message()));
    case Code::kUnschedulable:
    case Code::kUnschedulableAndUnresolvable:
    case Code::kPending:
      break;
  }
  return absl::FailedPreconditionError(plugin().empty() ? Message()
                                                        : absl::StrCat(plugin(), ": ", Message()));
}

std::string Status::ToString() const {
  std::string out(CodeName(code_));
  if (!reasons().empty()) absl::StrAppend(&out, ": ", Message());
  if (!plugin().empty()) absl::StrAppend(&out, " (plugin=", plugin(), ")");
  return out;
}

bool operator==(const Status& a, const Status& b) {
  if (a.code_ != b.code_) return false;
  if (a.rep_ == b.rep_) return true;
  const absl::Status no_error;
  const absl::Status& a_err = a.rep_ ? a.rep_->error : no_error;
  const absl::Status& b_err = b.rep_ ? b.rep_->error : no_error;
  return a.reasons() == b.reasons() && a.plugin() == b.plugin() && a_err == b_err;
}

}  // namespace trimaran::sched
