# Owned by the apiserver connection config (kube/rest_config.*, kube/credentials.*):
# where the apiserver is (in-cluster, kubeconfig) and how we authenticate to it
# (static token, rotating token file, exec credential plugins).
trimaran_cc_library(
  NAME kube_rest_config
  HDRS rest_config.h credentials.h
  SRCS rest_config.cc credentials.cc
  DEPS trimaran::common_http trimaran::common_read_file trimaran::common_subprocess trimaran::common_clock
       trimaran::common_status trimaran::common_logging trimaran::common_json_parse yaml-cpp
       absl::status
       absl::statusor absl::strings absl::time absl::synchronization absl::flat_hash_set)
# RapidJSON (ExecCredential) is header-only; Debian's config only sets the include dir.
target_include_directories(trimaran_kube_rest_config PRIVATE ${RAPIDJSON_INCLUDE_DIRS})

trimaran_cc_test(
  NAME kube_rest_config_test
  SRCS rest_config_test.cc credentials_test.cc
  DEPS trimaran::kube_rest_config trimaran::common_testing absl::strings absl::time)
