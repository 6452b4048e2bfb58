#pragma once
// The spelling of an enum value the codec did not recognise.
//
// The apiserver admits strings outside the documented set for most core/v1 enums (a
// taint effect, a pod phase, a condition status from a newer or buggy client), and
// one such object must not stop an informer. The codec decodes such a value to the
// enum's kUnrecognized member; each consumer treats it as upstream treats an unknown
// string (a taint with an unknown effect is ignored by TaintToleration, a toleration
// with an unknown operator tolerates nothing, an unknown node selector operator
// matches no node, an unknown phase is not terminal). The original text is not kept:
// encoding writes this marker instead, which decodes back to kUnrecognized.
//
// Thread-safety: a constant.

#include <string_view>

namespace trimaran::kube {

inline constexpr std::string_view kUnrecognizedEnumValue = "<unrecognized>";

}  // namespace trimaran::kube
