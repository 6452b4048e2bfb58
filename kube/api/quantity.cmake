# Owned by the Quantity implementation (kube/api/quantity.*).
trimaran_cc_library(
  NAME kube_quantity
  HDRS quantity.h
  SRCS quantity.cc
  DEPS absl::status absl::statusor absl::strings)

trimaran_cc_test(
  NAME kube_quantity_test
  SRCS quantity_test.cc
  DEPS trimaran::kube_quantity trimaran::common_testing)

trimaran_cc_benchmark(
  NAME kube_quantity_benchmark
  SRCS quantity_benchmark.cc
  DEPS trimaran::kube_quantity)
