# Every dependency is a Debian -dev package found through its CMake config or pkg-config.
# No FetchContent, no vendored copies. Install list: see .ci/install-deps.
find_package(fmt 9 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(tomlplusplus 3 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

if(TRAINBUDGET_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TRAINBUDGET_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
