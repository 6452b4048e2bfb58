# Target helpers modelled on absl_cc_library and leveldb_test().
#
#   trimaran_cc_library(NAME foo HDRS a.h SRCS a.cc DEPS trimaran::bar absl::status)
#     -> target trimaran_foo, alias trimaran::foo (header-only when SRCS is empty); with
#        TESTONLY (fakes, fixtures) only when TRIMARAN_BUILD_TESTS is ON
#   trimaran_cc_test(NAME foo_test SRCS foo_test.cc DEPS trimaran::foo [LABELS unit])
#     -> gtest executable registered per test case with ctest (gtest_discover_tests)
#   trimaran_cc_benchmark(NAME foo_benchmark SRCS foo_benchmark.cc DEPS ... [SMOKE_ARGS ...])
#     -> Google Benchmark executable; ctest runs it once briefly as <name>.smoke (with
#        SMOKE_ARGS instead of the default minimal run when given)
#   trimaran_cc_binary(NAME trimaran-scheduler OUTPUT_NAME ... SRCS main.cc DEPS ...)
#   trimaran_test_uses_binaries(e2e_foo_test trimaran_scheduler load_watcher [DEFINES ...])
#     -> the test's *_BIN paths of the real programs, built before it
#   trimaran_cc_fuzzer(NAME foo_fuzzer SRCS foo_fuzzer.cc DEPS ...)
#     -> libFuzzer executable in <build>/fuzz (only with TRIMARAN_FUZZ=ON; fuzz/README.md)
#   trimaran_fuzzers_target()
#     -> target fuzzers: every trimaran_cc_fuzzer (tools/check-fuzz.sh builds only this)
#   trimaran_unit_tests_target()
#     -> target unit_tests: every test executable labelled unit (call once, after all
#        subdirectories; tools/check-clang.sh builds only this)
#
# The DEPS lists are the dependency rule of docs/architecture.md: a target can only
# include what it links.

function(trimaran_cc_library)
  cmake_parse_arguments(T "TESTONLY" "NAME" "HDRS;SRCS;DEPS" ${ARGN})
  # Test fixtures and fakes exist only when the tests are built (they link GoogleTest).
  if(T_TESTONLY AND NOT TRIMARAN_BUILD_TESTS)
    return()
  endif()
  set(_target trimaran_${T_NAME})
  if(T_SRCS)
    add_library(${_target} STATIC ${T_SRCS} ${T_HDRS})
    target_include_directories(${_target} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${_target} PUBLIC ${T_DEPS})
    target_compile_options(${_target} PRIVATE ${TRIMARAN_WARNING_FLAGS})
  else()
    add_library(${_target} INTERFACE ${T_HDRS})
    target_include_directories(${_target} INTERFACE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${_target} INTERFACE ${T_DEPS})
  endif()
  add_library(trimaran::${T_NAME} ALIAS ${_target})
endfunction()

function(trimaran_cc_test)
  if(NOT TRIMARAN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_options(${T_NAME} PRIVATE ${TRIMARAN_WARNING_FLAGS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  if("unit" IN_LIST T_LABELS)
    set_property(GLOBAL APPEND PROPERTY TRIMARAN_UNIT_TEST_TARGETS ${T_NAME})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  # e2e tests start real control planes and measure real time: run them one at a time.
  set(_serial FALSE)
  # The fault-injection suite (label fault) is e2e too. One label per test: discovered
  # tests take a single LABELS value.
  if("e2e" IN_LIST T_LABELS OR "fault" IN_LIST T_LABELS)
    set(_serial TRUE)
  endif()
  gtest_discover_tests(${T_NAME}
    PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} RUN_SERIAL ${_serial}
    DISCOVERY_TIMEOUT 60)
endfunction()

# A test (an e2e or deploy trimaran_cc_test) that runs the real programs: it knows each
# program's path and builds after it.
#   trimaran_test_uses_binaries(e2e_foo_test trimaran_scheduler load_watcher
#                               [DEFINES NAME="value" ...])
#     -> TRIMARAN_SCHEDULER_BIN, TRIMARAN_LOAD_WATCHER_BIN or TRIMARANCTL_BIN (for
#        trimaran_scheduler, load_watcher, trimaranctl), plus DEFINES, as the test's
#        compile definitions; nothing when tests are not built.
function(trimaran_test_uses_binaries test)
  if(NOT TARGET ${test})
    return()
  endif()
  cmake_parse_arguments(T "" "" "DEFINES" ${ARGN})
  set(_definitions ${T_DEFINES})
  foreach(_binary ${T_UNPARSED_ARGUMENTS})
    if(_binary STREQUAL "trimaran_scheduler")
      set(_macro TRIMARAN_SCHEDULER_BIN)
    elseif(_binary STREQUAL "load_watcher")
      set(_macro TRIMARAN_LOAD_WATCHER_BIN)
    elseif(_binary STREQUAL "trimaranctl")
      set(_macro TRIMARANCTL_BIN)
    else()
      message(FATAL_ERROR "trimaran_test_uses_binaries: unknown program ${_binary}")
    endif()
    list(APPEND _definitions "${_macro}=\"$<TARGET_FILE:${_binary}>\"")
  endforeach()
  target_compile_definitions(${test} PRIVATE ${_definitions})
  if(T_UNPARSED_ARGUMENTS)
    add_dependencies(${test} ${T_UNPARSED_ARGUMENTS})
  endif()
endfunction()

# The compatibility subset on the floor of the tested Kubernetes range: runs test binary
# TARGET (an e2e trimaran_cc_test) once more with TRIMARAN_K8S_MINOR=MINOR (default 1.32),
# whose harness then starts that minor's control plane, limited to the gtest FILTER.
#   trimaran_k8s_compat_test(TARGET e2e_kube_client_test FILTER "*Informer*" TIMEOUT 600)
function(trimaran_k8s_compat_test)
  if(NOT TRIMARAN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "TARGET;FILTER;MINOR;TIMEOUT" "" ${ARGN})
  if(NOT T_MINOR)
    set(T_MINOR 1.32)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_test(NAME ${T_TARGET}.k8s-${T_MINOR}
    COMMAND ${T_TARGET} --gtest_filter=${T_FILTER})
  set_tests_properties(${T_TARGET}.k8s-${T_MINOR} PROPERTIES LABELS compat TIMEOUT ${T_TIMEOUT}
    RUN_SERIAL TRUE ENVIRONMENT "TRIMARAN_K8S_MINOR=${T_MINOR}")
endfunction()

function(trimaran_cc_benchmark)
  if(NOT TRIMARAN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME" "SRCS;DEPS;SMOKE_ARGS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS} benchmark::benchmark benchmark::benchmark_main)
  target_compile_options(${T_NAME} PRIVATE ${TRIMARAN_WARNING_FLAGS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  # Each benchmark also runs once, briefly, under ctest so that it cannot rot: every
  # benchmark at a minimal time, or what SMOKE_ARGS says (e.g. only the small sizes).
  if(NOT T_SMOKE_ARGS)
    set(T_SMOKE_ARGS --benchmark_min_time=0.001 --benchmark_filter=.)
  endif()
  add_test(NAME ${T_NAME}.smoke COMMAND ${T_NAME} ${T_SMOKE_ARGS})
  set_tests_properties(${T_NAME}.smoke PROPERTIES LABELS "benchmark-smoke" TIMEOUT 300)
endfunction()

function(trimaran_cc_binary)
  cmake_parse_arguments(T "" "NAME;OUTPUT_NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS})
  target_compile_options(${T_NAME} PRIVATE ${TRIMARAN_WARNING_FLAGS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  if(T_OUTPUT_NAME)
    set_target_properties(${T_NAME} PROPERTIES OUTPUT_NAME ${T_OUTPUT_NAME})
  endif()
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  install(TARGETS ${T_NAME} RUNTIME DESTINATION bin)
endfunction()

# trimaran_proto_library(NAME loadwatcher_proto PROTOS proto/x.proto GRPC)
function(trimaran_proto_library)
  cmake_parse_arguments(T "GRPC" "NAME" "PROTOS" ${ARGN})
  set(_srcs "")
  set(_out ${PROJECT_BINARY_DIR}/generated)
  foreach(_proto ${T_PROTOS})
    get_filename_component(_abs ${_proto} ABSOLUTE)
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_abs})
    string(REGEX REPLACE "\\.proto$" "" _stem ${_rel})
    set(_gen ${_out}/${_stem}.pb.cc ${_out}/${_stem}.pb.h)
    set(_args --cpp_out=${_out})
    if(T_GRPC)
      list(APPEND _gen ${_out}/${_stem}.grpc.pb.cc ${_out}/${_stem}.grpc.pb.h)
      list(APPEND _args --grpc_out=${_out} --plugin=protoc-gen-grpc=${TRIMARAN_GRPC_CPP_PLUGIN})
    endif()
    add_custom_command(
      OUTPUT ${_gen}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_out}
      COMMAND protobuf::protoc -I ${PROJECT_SOURCE_DIR} ${_args} ${_abs}
      DEPENDS ${_abs} protobuf::protoc
      COMMENT "protoc ${_rel}")
    list(APPEND _srcs ${_gen})
  endforeach()
  add_library(trimaran_${T_NAME} STATIC ${_srcs})
  target_include_directories(trimaran_${T_NAME} PUBLIC ${_out})
  target_link_libraries(trimaran_${T_NAME} PUBLIC protobuf::libprotobuf)
  if(T_GRPC)
    target_link_libraries(trimaran_${T_NAME} PUBLIC gRPC::grpc++)
  endif()
  add_library(trimaran::${T_NAME} ALIAS trimaran_${T_NAME})
endfunction()

function(trimaran_unit_tests_target)
  get_property(_tests GLOBAL PROPERTY TRIMARAN_UNIT_TEST_TARGETS)
  add_custom_target(unit_tests)
  if(_tests)
    add_dependencies(unit_tests ${_tests})
  endif()
endfunction()

function(trimaran_cc_fuzzer)
  if(NOT TRIMARAN_FUZZ)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS})
  target_compile_options(${T_NAME} PRIVATE ${TRIMARAN_WARNING_FLAGS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  # The libFuzzer driver (main) on top of the fuzzer-no-link instrumentation that
  # TrimaranSanitizers.cmake gives every target of a TRIMARAN_FUZZ build.
  target_link_options(${T_NAME} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  set_property(GLOBAL APPEND PROPERTY TRIMARAN_FUZZ_TARGETS ${T_NAME})
endfunction()

function(trimaran_fuzzers_target)
  get_property(_fuzzers GLOBAL PROPERTY TRIMARAN_FUZZ_TARGETS)
  add_custom_target(fuzzers)
  if(_fuzzers)
    add_dependencies(fuzzers ${_fuzzers})
  endif()
endfunction()
