// A shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL), its symbols looked up in its own
// handle. OpenBLAS and BLIS export the same BLAS/CBLAS names (cblas_sgemm, sgemm_), so neither
// may be linked into the executable: each is loaded privately and called through its handle.
#pragma once

#include <dlfcn.h>

#include <string>

namespace tb::measure::detail {

class DynamicLibrary {
 public:
  // Opens `soname`; on failure ok() is false and error() holds dlerror()'s text.
  explicit DynamicLibrary(const std::string& soname) : soname_(soname) {
    handle_ = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = why != nullptr ? why : "dlopen failed";
    }
  }
  // Never dlclose(): OpenBLAS's and OpenMP's worker threads outlive the last call, and unmapping
  // their code under them crashes the process at exit. The handle lives until the process ends.
  ~DynamicLibrary() = default;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  [[nodiscard]] bool ok() const { return handle_ != nullptr; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] const std::string& soname() const { return soname_; }

  // The symbol as a function pointer of type Fn; nullptr when absent.
  template <class Fn>
  [[nodiscard]] Fn function(const char* name) const {
    if (handle_ == nullptr) return nullptr;
    void* address = dlsym(handle_, name);
    // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
    return reinterpret_cast<Fn>(address);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  }

  // The file the library was loaded from (dladdr on `symbol`), else the soname.
  [[nodiscard]] std::string path_of(const char* symbol) const {
    if (handle_ == nullptr) return soname_;
    void* address = dlsym(handle_, symbol);
    Dl_info info{};
    if (address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr) {
      return info.dli_fname;
    }
    return soname_;
  }

 private:
  std::string soname_;
  void* handle_{nullptr};
  std::string error_;
};

}  // namespace tb::measure::detail
