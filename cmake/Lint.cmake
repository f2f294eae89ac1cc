# format-check / format-fix targets over the project's own C++ files (clang-format 14).
find_program(CLANG_FORMAT_EXE NAMES clang-format-14 clang-format)
if(CLANG_FORMAT_EXE)
  set(_tb_format_dirs include src cli tests bench)
  add_custom_target(format-check
    COMMAND find ${_tb_format_dirs} -name "*.cpp" -o -name "*.hpp" | xargs ${CLANG_FORMAT_EXE} --dry-run --Werror
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Checking C++ formatting (clang-format)"
    VERBATIM)
  add_custom_target(format-fix
    COMMAND find ${_tb_format_dirs} -name "*.cpp" -o -name "*.hpp" | xargs ${CLANG_FORMAT_EXE} -i
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Formatting C++ sources (clang-format)"
    VERBATIM)
endif()
