# Warnings as an INTERFACE target every project target links.
add_library(trainbudget_warnings INTERFACE)
add_library(trainbudget::warnings ALIAS trainbudget_warnings)
target_compile_options(trainbudget_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough)
if(TRAINBUDGET_WARNINGS_AS_ERRORS)
  target_compile_options(trainbudget_warnings INTERFACE -Werror)
endif()

add_library(trainbudget_sanitizers INTERFACE)
if(TRAINBUDGET_SANITIZE)
  # float-cast-overflow is not part of "undefined" (a double out of an integer's range cast to it).
  set(_tb_sanitizers address undefined float-cast-overflow)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # clang only: implicit conversions that change a value, which are not UB and GCC cannot see.
    list(APPEND _tb_sanitizers implicit-integer-truncation implicit-integer-sign-change)
    set(_tb_sanitize_ignore "-fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitizer_ignorelist.txt")
  endif()
  list(JOIN _tb_sanitizers "," _tb_sanitize_list)
  # -fno-sanitize-recover=all: every report aborts, so it fails the test that triggered it.
  target_compile_options(trainbudget_sanitizers INTERFACE
    -fsanitize=${_tb_sanitize_list} -fno-omit-frame-pointer -fno-sanitize-recover=all
    ${_tb_sanitize_ignore})
  target_link_options(trainbudget_sanitizers INTERFACE -fsanitize=${_tb_sanitize_list})
endif()
target_link_libraries(trainbudget_warnings INTERFACE trainbudget_sanitizers)
