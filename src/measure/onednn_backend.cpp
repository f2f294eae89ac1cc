// oneDNN's matmul primitive through dlopen (the header gives the types; nothing is linked), for
// fp32 and bf16 (AVX512_BF16 or AMX where the CPU has them), plain row-major layouts as a
// framework hands them over.
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.h>

#include <array>

#include "dynamic_library.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

// The functions we call, typed from the header.
struct DnnlApi {
  decltype(&dnnl_engine_create) engine_create{nullptr};
  decltype(&dnnl_stream_create) stream_create{nullptr};
  decltype(&dnnl_stream_wait) stream_wait{nullptr};
  decltype(&dnnl_memory_desc_init_by_tag) md_init{nullptr};
  decltype(&dnnl_matmul_desc_init) matmul_init{nullptr};
  decltype(&dnnl_primitive_desc_create) pd_create{nullptr};
  decltype(&dnnl_primitive_desc_destroy) pd_destroy{nullptr};
  decltype(&dnnl_primitive_desc_query) pd_query{nullptr};
  decltype(&dnnl_primitive_create) primitive_create{nullptr};
  decltype(&dnnl_primitive_destroy) primitive_destroy{nullptr};
  decltype(&dnnl_primitive_execute) execute{nullptr};
  decltype(&dnnl_memory_create) memory_create{nullptr};
  decltype(&dnnl_memory_destroy) memory_destroy{nullptr};
  decltype(&dnnl_version) version{nullptr};
  decltype(&dnnl_get_effective_cpu_isa) effective_isa{nullptr};
  decltype(&dnnl_stream_destroy) stream_destroy{nullptr};
  decltype(&dnnl_engine_destroy) engine_destroy{nullptr};

  [[nodiscard]] bool complete() const {
    return engine_create && stream_create && stream_wait && md_init && matmul_init && pd_create &&
           pd_destroy && pd_query && primitive_create && primitive_destroy && execute &&
           memory_create && memory_destroy && version && effective_isa && stream_destroy &&
           engine_destroy;
  }
};

std::string isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_all:
      return "all";
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx512_mic:
      return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
  }
  return fmt::format("isa 0x{:x}", static_cast<unsigned>(isa));
}

// omp_get_max_threads() of the OpenMP runtime oneDNN brought in (Debian builds it with OpenMP).
int openmp_threads() {
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (gomp == nullptr) return 0;
  using Fn = int (*)();
  const auto fn = reinterpret_cast<Fn>(dlsym(gomp, "omp_get_max_threads"));
  const int n = fn != nullptr ? fn() : 0;
  dlclose(gomp);  // only drops the reference NOLOAD added; oneDNN keeps the runtime loaded
  return n;
}

void check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success) {
    throw Error(
        fmt::format("onednn: {} failed (dnnl_status_t {})", what, static_cast<int>(status)));
  }
}

class DnnlKernel final : public GemmKernel {
 public:
  DnnlKernel(const DnnlApi& api, dnnl_engine_t engine, dnnl_stream_t stream, GemmOperands& o)
      : api_(api), stream_(stream) {
    const GemmShape& s = o.shape();
    const dnnl_data_type_t in = o.dtype() == DType::kBf16 ? dnnl_bf16 : dnnl_f32;
    const dnnl_dims_t a_dims{s.m, s.k};
    const dnnl_dims_t b_dims{s.k, s.n};
    const dnnl_dims_t c_dims{s.m, s.n};
    dnnl_memory_desc_t a_md;
    dnnl_memory_desc_t b_md;
    dnnl_memory_desc_t c_md;
    check(api_.md_init(&a_md, 2, a_dims, in, dnnl_ab), "memory_desc_init(A)");
    check(api_.md_init(&b_md, 2, b_dims, in, dnnl_ab), "memory_desc_init(B)");
    check(api_.md_init(&c_md, 2, c_dims, dnnl_f32, dnnl_ab), "memory_desc_init(C)");
    dnnl_matmul_desc_t desc;
    check(api_.matmul_init(&desc, &a_md, &b_md, nullptr, &c_md), "matmul_desc_init");
    check(api_.pd_create(&pd_, &desc, nullptr, engine, nullptr), "primitive_desc_create");
    const char* impl = nullptr;
    if (api_.pd_query(pd_, dnnl_query_impl_info_str, 0, static_cast<void*>(&impl)) ==
            dnnl_success &&
        impl != nullptr) {
      impl_ = impl;
    }
    check(api_.primitive_create(&primitive_, pd_), "primitive_create");
    check(api_.memory_create(&a_, &a_md, engine, const_cast<void*>(o.a())), "memory_create(A)");
    check(api_.memory_create(&b_, &b_md, engine, const_cast<void*>(o.b())), "memory_create(B)");
    check(api_.memory_create(&c_, &c_md, engine, o.c()), "memory_create(C)");
  }
  ~DnnlKernel() override {
    if (c_ != nullptr) api_.memory_destroy(c_);
    if (b_ != nullptr) api_.memory_destroy(b_);
    if (a_ != nullptr) api_.memory_destroy(a_);
    if (primitive_ != nullptr) api_.primitive_destroy(primitive_);
    if (pd_ != nullptr) api_.pd_destroy(pd_);
  }
  DnnlKernel(const DnnlKernel&) = delete;
  DnnlKernel& operator=(const DnnlKernel&) = delete;

  void run() override {
    const std::array<dnnl_exec_arg_t, 3> args{
        {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}}};
    check(api_.execute(primitive_, stream_, static_cast<int>(args.size()), args.data()),
          "primitive_execute");
    check(api_.stream_wait(stream_), "stream_wait");
  }
  [[nodiscard]] std::string implementation() const override { return impl_; }

 private:
  const DnnlApi& api_;
  dnnl_stream_t stream_;
  dnnl_primitive_desc_t pd_{nullptr};
  dnnl_primitive_t primitive_{nullptr};
  dnnl_memory_t a_{nullptr};
  dnnl_memory_t b_{nullptr};
  dnnl_memory_t c_{nullptr};
  std::string impl_;
};

class DnnlBackend final : public GemmBackend {
 public:
  explicit DnnlBackend(const std::string& library) : lib_(library) {
    info_.name = "onednn";
    if (!lib_.ok()) {
      info_.status = Status::kSkipped;
      info_.reason = fmt::format("cannot load {}: {}", library, lib_.error());
      return;
    }
    api_.engine_create = lib_.function<decltype(api_.engine_create)>("dnnl_engine_create");
    api_.stream_create = lib_.function<decltype(api_.stream_create)>("dnnl_stream_create");
    api_.stream_wait = lib_.function<decltype(api_.stream_wait)>("dnnl_stream_wait");
    api_.md_init = lib_.function<decltype(api_.md_init)>("dnnl_memory_desc_init_by_tag");
    api_.matmul_init = lib_.function<decltype(api_.matmul_init)>("dnnl_matmul_desc_init");
    api_.pd_create = lib_.function<decltype(api_.pd_create)>("dnnl_primitive_desc_create");
    api_.pd_destroy = lib_.function<decltype(api_.pd_destroy)>("dnnl_primitive_desc_destroy");
    api_.pd_query = lib_.function<decltype(api_.pd_query)>("dnnl_primitive_desc_query");
    api_.primitive_create = lib_.function<decltype(api_.primitive_create)>("dnnl_primitive_create");
    api_.primitive_destroy =
        lib_.function<decltype(api_.primitive_destroy)>("dnnl_primitive_destroy");
    api_.execute = lib_.function<decltype(api_.execute)>("dnnl_primitive_execute");
    api_.memory_create = lib_.function<decltype(api_.memory_create)>("dnnl_memory_create");
    api_.memory_destroy = lib_.function<decltype(api_.memory_destroy)>("dnnl_memory_destroy");
    api_.version = lib_.function<decltype(api_.version)>("dnnl_version");
    api_.effective_isa = lib_.function<decltype(api_.effective_isa)>("dnnl_get_effective_cpu_isa");
    api_.stream_destroy = lib_.function<decltype(api_.stream_destroy)>("dnnl_stream_destroy");
    api_.engine_destroy = lib_.function<decltype(api_.engine_destroy)>("dnnl_engine_destroy");
    if (!api_.complete()) {
      info_.status = Status::kSkipped;
      info_.reason =
          fmt::format("{} lacks the oneDNN 2.x C API (dnnl_matmul_desc_init, ...)", library);
      return;
    }
    if (api_.engine_create(&engine_, dnnl_cpu, 0) != dnnl_success ||
        api_.stream_create(&stream_, engine_, dnnl_stream_default_flags) != dnnl_success) {
      info_.status = Status::kFailed;
      info_.reason = "cannot create a CPU engine and stream";
      return;
    }
    info_.status = Status::kOk;
    info_.library = lib_.path_of("dnnl_version");
    const dnnl_version_t* v = api_.version();
    info_.version = fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
    isa_ = api_.effective_isa();
    info_.kernel = isa_name(isa_);
    info_.threads = openmp_threads();
  }

  ~DnnlBackend() override {
    if (stream_ != nullptr) api_.stream_destroy(stream_);
    if (engine_ != nullptr) api_.engine_destroy(engine_);
  }
  DnnlBackend(const DnnlBackend&) = delete;
  DnnlBackend& operator=(const DnnlBackend&) = delete;

  [[nodiscard]] const BackendInfo& info() const override { return info_; }

  [[nodiscard]] std::optional<std::string> unsupported(DType dtype) const override {
    if (info_.status != Status::kOk) return info_.reason;
    if (dtype == DType::kFp32) return std::nullopt;
    if (dtype == DType::kBf16) {
      // oneDNN's CPU bf16 matmul needs at least AVX-512 (emulated below avx512_core_bf16).
      if (isa_ == dnnl_cpu_isa_avx512_core || isa_ == dnnl_cpu_isa_avx512_core_vnni ||
          isa_ == dnnl_cpu_isa_avx512_core_bf16 || isa_ == dnnl_cpu_isa_avx512_core_amx) {
        return std::nullopt;
      }
      return fmt::format("oneDNN has no optimised bf16 matmul below AVX-512 (ISA here: {})",
                         info_.kernel);
    }
    return fmt::format("oneDNN's CPU matmul has no {} path", enum_name(dtype));
  }

  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    if (auto why = unsupported(operands.dtype())) throw Error(fmt::format("onednn: {}", *why));
    return std::make_unique<DnnlKernel>(api_, engine_, stream_, operands);
  }

 private:
  detail::DynamicLibrary lib_;
  BackendInfo info_;
  DnnlApi api_;
  dnnl_engine_t engine_{nullptr};
  dnnl_stream_t stream_{nullptr};
  dnnl_cpu_isa_t isa_{dnnl_cpu_isa_all};
};

}  // namespace

std::unique_ptr<GemmBackend> make_onednn_backend(const std::string& library) {
  return std::make_unique<DnnlBackend>(library);
}

}  // namespace tb::measure
