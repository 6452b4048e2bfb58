#include "common/stats/counter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/stats/text_format.h"

namespace trimaran::stats {

void Counter::Add(double delta) {
  if (!(delta >= 0)) {  // Negative or NaN.
    AddNegative(delta);
    return;
  }
  fractional_.fetch_add(delta, std::memory_order_relaxed);
}

void Counter::AddNegative(double delta) {
  TRIMARAN_BUG(absl::StrCat("counter decremented by ", FormatValue(delta), "; ignored"));
}

}  // namespace trimaran::stats
