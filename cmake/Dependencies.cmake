# Every dependency is a Debian -dev package found through its CMake config or pkg-config.
# No FetchContent, no vendored copies. Install list: see .ci/install-deps.
find_package(fmt 9 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(tomlplusplus 3 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
# Training configs in YAML (axolotl, LLaMA-Factory, torchtune, accelerate): Debian's libyaml-cpp-dev.
find_package(yaml-cpp 0.7 REQUIRED)
# Start-up (README, "Speed"): the executable loads no C++ shared library, so the dynamic loader
# has no libstdc++ or fmt symbols to resolve: fmt through its header-only target (src/), yaml-cpp
# from the archive Debian's libyaml-cpp-dev also ships, libstdc++ linked statically (cli/).
# The archive is not position-independent: only an executable that sets the target property
# TRAINBUDGET_STATIC_YAML_CPP takes it (the Python module and the plugin keep the shared one).
find_library(TRAINBUDGET_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a)
add_library(trainbudget_yaml_cpp INTERFACE)
if(TRAINBUDGET_YAML_CPP_ARCHIVE AND NOT TRAINBUDGET_SANITIZE)
  target_link_libraries(trainbudget_yaml_cpp INTERFACE
    "$<IF:$<BOOL:$<TARGET_PROPERTY:TRAINBUDGET_STATIC_YAML_CPP>>,${TRAINBUDGET_YAML_CPP_ARCHIVE},yaml-cpp>")
  target_include_directories(trainbudget_yaml_cpp SYSTEM INTERFACE
    $<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>)
else()
  target_link_libraries(trainbudget_yaml_cpp INTERFACE yaml-cpp)
endif()
# Models from the Hugging Face Hub (io/hub_fetch.cpp): Debian's libcurl4-openssl-dev, its header
# at build time; the library is loaded (libcurl.so.4) only when a fetch needs it.
find_package(CURL 7.85 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

if(TRAINBUDGET_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TRAINBUDGET_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Measurement backends (src/measure). OpenBLAS, BLIS and oneDNN are loaded at run time with
# dlopen (OpenBLAS and BLIS export the same BLAS symbols, so neither may be linked); the build
# needs only oneDNN's header for its types (libdnnl-dev). find_package(dnnl) is avoided because
# Debian's dnnl config also demands the OpenCL development files.
find_path(TRAINBUDGET_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.h REQUIRED)

# Optional cuBLAS backend: OFF by default so the CPU-only CI build stays fast and simple;
# scripts/gpu-check.sh turns it on. AUTO enables it when CMake finds the CUDA toolkit.
set(TRAINBUDGET_WITH_CUDA "OFF" CACHE STRING "Build the cuBLAS backend: ON, OFF or AUTO")
set_property(CACHE TRAINBUDGET_WITH_CUDA PROPERTY STRINGS ON OFF AUTO)
set(TRAINBUDGET_HAVE_CUDA OFF)
if(TRAINBUDGET_WITH_CUDA STREQUAL "ON")
  find_package(CUDAToolkit REQUIRED)
  set(TRAINBUDGET_HAVE_CUDA ON)
elseif(TRAINBUDGET_WITH_CUDA STREQUAL "AUTO")
  find_package(CUDAToolkit QUIET)
  set(TRAINBUDGET_HAVE_CUDA ${CUDAToolkit_FOUND})
endif()
message(STATUS "trainbudget: cuBLAS backend ${TRAINBUDGET_HAVE_CUDA}")

# The fabric measurement's MPI plugin (measure --fabric, docs/fabric.md): built when an MPI is
# found (Debian: libopenmpi-dev), loaded at run time only by that command.
find_package(MPI COMPONENTS C QUIET)
set(TRAINBUDGET_HAVE_MPI ${MPI_C_FOUND})
message(STATUS "trainbudget: MPI fabric plugin ${TRAINBUDGET_HAVE_MPI}")

# The Python module (python/, docs/python.md): Debian's pybind11-dev and python3-dev, for
# Debian's python3 (the one python3-pytest runs) where it exists.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3)
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG QUIET)
set(TRAINBUDGET_HAVE_PYTHON ${pybind11_FOUND})
message(STATUS "trainbudget: Python module ${TRAINBUDGET_HAVE_PYTHON}")
