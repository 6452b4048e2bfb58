#include "common/stats/text_format.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace trimaran::stats {
namespace {

bool IsLetterOrUnderscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool IsValidMetricName(absl::string_view name) {
  if (name.empty()) return false;
  if (!IsLetterOrUnderscore(name[0]) && name[0] != ':') return false;
  for (char c : name.substr(1)) {
    if (!IsLetterOrUnderscore(c) && !IsDigit(c) && c != ':') return false;
  }
  return true;
}

bool IsValidLabelName(absl::string_view name) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!IsLetterOrUnderscore(c) && !IsDigit(c)) return false;
  }
  return true;
}

void AppendValue(double value, std::string& out) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (value == 0) {  // Also -0, which Go writes as "0" too.
    out += '0';
    return;
  }
  // The shortest round-trip digits, in scientific form: "-d[.ddd]e±XX".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  if (ec != std::errc()) {  // Cannot happen with 64 bytes; keep the output parseable.
    out += "NaN";
    return;
  }
  std::string_view sci(buf, end - buf);
  const size_t e_pos = sci.find('e');
  std::string_view exponent_text = sci.substr(e_pos + 1);
  if (exponent_text.front() == '+') exponent_text.remove_prefix(1);
  int exponent = 0;
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  // Go's %g with shortest precision switches to the exponent form when the exponent is
  // below -4 or at least 6 (so 123456 stays, 1e+06 does not). Both print the exponent
  // with a sign and at least two digits, exactly as to_chars does.
  if (exponent < -4 || exponent >= 6) {
    out.append(sci);
    return;
  }
  std::string_view mantissa = sci.substr(0, e_pos);
  if (mantissa[0] == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
    return;
  }
  const size_t int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out += digits;
    out.append(int_digits - digits.size(), '0');
  } else {
    out.append(digits, 0, int_digits);
    out += '.';
    out.append(digits, int_digits);
  }
}

std::string FormatValue(double value) {
  std::string out;
  AppendValue(value, out);
  return out;
}

void AppendEscapedLabelValue(absl::string_view value, std::string& out) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void AppendEscapedHelp(absl::string_view help, std::string& out) {
  for (char c : help) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace trimaran::stats
