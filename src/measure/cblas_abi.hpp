// The CBLAS calling convention both dlopened BLAS libraries (OpenBLAS, BLIS) export: LP64
// (32-bit int indices), enums passed as int; row-major 101, no-transpose 111.
#pragma once

namespace tb::measure::cblas {

inline constexpr int kRowMajor = 101;
inline constexpr int kNoTrans = 111;
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*,
                         int, double, double*, int);
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);

}  // namespace tb::measure::cblas
