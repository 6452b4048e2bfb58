# Compiler warnings applied to every Trimaran target (not to third-party code).
set(TRIMARAN_WARNING_FLAGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter
    -Wno-missing-field-initializers)  # designated initializers may omit fields
if(TRIMARAN_WERROR)
  list(APPEND TRIMARAN_WARNING_FLAGS -Werror)
endif()
