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
  target_compile_options(trainbudget_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(trainbudget_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
target_link_libraries(trainbudget_warnings INTERFACE trainbudget_sanitizers)
