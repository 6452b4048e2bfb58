# Compiler warnings applied to every Trimaran target (not to third-party code).
set(TRIMARAN_WARNING_FLAGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter
    -Wno-missing-field-initializers)  # designated initializers may omit fields
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Clang checks lock discipline statically: ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED,
  # ABSL_LOCKS_EXCLUDED and friends (docs/architecture.md, "Sanitizers"). The -beta checks
  # stay off. tools/check-clang.sh builds with clang and -Werror.
  list(APPEND TRIMARAN_WARNING_FLAGS -Wthread-safety)
endif()
if(TRIMARAN_WERROR)
  list(APPEND TRIMARAN_WARNING_FLAGS -Werror)
endif()
