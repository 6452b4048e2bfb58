# TRIMARAN_SANITIZE=address  -> AddressSanitizer + UndefinedBehaviorSanitizer
# TRIMARAN_SANITIZE=thread   -> ThreadSanitizer (Filter/Score run in parallel)
# TRIMARAN_FUZZ=ON           -> the libFuzzer targets (fuzz/): clang only, implies
#                               TRIMARAN_SANITIZE=address and adds libFuzzer's coverage
#                               instrumentation (-fsanitize=fuzzer-no-link) to every
#                               target; the fuzzers link the libFuzzer driver
#                               (trimaran_cc_fuzzer). tools/check-fuzz.sh builds them.
if(TRIMARAN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TRIMARAN_FUZZ=ON needs clang (libFuzzer), got ${CMAKE_CXX_COMPILER_ID}; "
                        "configure with CXX=clang++-14 (tools/check-fuzz.sh does)")
  endif()
  if(TRIMARAN_SANITIZE STREQUAL "")
    set(TRIMARAN_SANITIZE address)
  elseif(NOT TRIMARAN_SANITIZE STREQUAL "address")
    message(FATAL_ERROR "TRIMARAN_FUZZ=ON runs under ASan + UBSan; TRIMARAN_SANITIZE must be '' "
                        "or 'address', got '${TRIMARAN_SANITIZE}'")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(TRIMARAN_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Third-party findings we cannot fix (each explained in the file).
    add_compile_options(-fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitizer_ignorelist.txt)
  endif()
elseif(TRIMARAN_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT TRIMARAN_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TRIMARAN_SANITIZE must be '', 'address' or 'thread', got '${TRIMARAN_SANITIZE}'")
endif()
