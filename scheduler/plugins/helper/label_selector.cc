#include "scheduler/plugins/helper/label_selector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins::helper {

Selector Selector::Everything() {
  Selector s;
  s.nothing_ = false;
  s.everything_ = true;
  return s;
}

absl::StatusOr<Selector> Selector::Compile(const kube::LabelSelector& selector) {
  Selector s;
  s.nothing_ = false;
  for (const auto& [key, value] : selector.match_labels) {
    s.requirements_.push_back({key, Op::kEquals, {value}});
  }
  for (const kube::LabelSelectorRequirement& r : selector.match_expressions) {
    Requirement req{r.key, Op::kIn, r.values};
    switch (r.op) {
      case kube::LabelSelectorOperator::kIn:
      case kube::LabelSelectorOperator::kNotIn:
        req.op = r.op == kube::LabelSelectorOperator::kIn ? Op::kIn : Op::kNotIn;
        if (r.values.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "key ", r.key, ": for 'in', 'notin' operators, values set can't be empty"));
        }
        break;
      case kube::LabelSelectorOperator::kExists:
      case kube::LabelSelectorOperator::kDoesNotExist:
        req.op = r.op == kube::LabelSelectorOperator::kExists ? Op::kExists : Op::kDoesNotExist;
        if (!r.values.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "key ", r.key, ": values set must be empty for exists and does not exist"));
        }
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("key ", r.key, ": not a valid label selector operator"));
    }
    std::sort(req.values.begin(), req.values.end());
    s.requirements_.push_back(std::move(req));
  }
  s.everything_ = s.requirements_.empty();
  return s;
}

absl::StatusOr<Selector> Selector::FromOptional(
    const std::optional<kube::LabelSelector>& selector) {
  if (!selector.has_value()) return Nothing();
  return Compile(*selector);
}

Selector Selector::WithEquals(const std::string& key, const std::string& value) const {
  Selector s = *this;
  if (s.nothing_) return s;
  s.requirements_.push_back({key, Op::kEquals, {value}});
  s.everything_ = false;
  return s;
}

Selector Selector::WithNotEquals(const std::string& key, const std::string& value) const {
  Selector s = *this;
  if (s.nothing_) return s;
  s.requirements_.push_back({key, Op::kNotIn, {value}});
  s.everything_ = false;
  return s;
}

bool Selector::Matches(const kube::Labels& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    switch (r.op) {
      case Op::kEquals:
        if (!has || it->second != r.values[0]) return false;
        break;
      case Op::kIn:
        if (!has || !std::binary_search(r.values.begin(), r.values.end(), it->second)) {
          return false;
        }
        break;
      case Op::kNotIn:
        if (has && std::binary_search(r.values.begin(), r.values.end(), it->second)) {
          return false;
        }
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace trimaran::sched::plugins::helper
