/* Conversions into every element type (GM_CTYPES) with defined results
 * for every input, shared by the host (C), the emulated device (C++) and
 * CUDA: the array standard's rules (docs/API.md "Element types").
 *   gm_sat_T(double x): float -> T.  Integers saturate (NaN -> 0, out of
 *     range -> the nearest bound), as CUDA's cvt.sat and Rust's `as`: a
 *     plain C cast of an out-of-range double is undefined behaviour.
 *     bool is x != 0 (NaN -> true, NumPy's astype(bool)).
 *   gm_wrap_T(long long v): integer -> T.  Integers wrap (two's
 *     complement, NumPy's astype between integers); through unsigned long
 *     long, so no signed overflow: GCC and nvcc define the narrowing to a
 *     signed type as modulo.  bool is v != 0; floats round.
 * (The typerules branch's kernels/int_ops.h holds the integer element
 * functions; these two families are the casts mats need today.) */
#ifndef GM_KERNELS_SAT_CAST_H
#define GM_KERNELS_SAT_CAST_H

#include "../src/core/ctype_list.h"
#include "hd.h"

#define GM_SAT_DEFINE_INT_(T, LO, HI)                       \
  GM_HD T gm_sat_##T(double x) {                            \
    if (!(x == x)) return (T)0;                             \
    if (x <= (double)(LO)) return (T)(LO);                  \
    if (x >= (double)(HI)) return (T)(HI);                  \
    return (T)x;                                            \
  }                                                         \
  GM_HD T gm_wrap_##T(long long v) { return (T)(unsigned long long)v; }

GM_SAT_DEFINE_INT_(int8_t, INT8_MIN, INT8_MAX)
GM_SAT_DEFINE_INT_(int16_t, INT16_MIN, INT16_MAX)
GM_SAT_DEFINE_INT_(int32_t, INT32_MIN, INT32_MAX)
GM_SAT_DEFINE_INT_(int64_t, INT64_MIN, INT64_MAX)
GM_SAT_DEFINE_INT_(uint8_t, 0, UINT8_MAX)
GM_SAT_DEFINE_INT_(uint16_t, 0, UINT16_MAX)
GM_SAT_DEFINE_INT_(uint32_t, 0, UINT32_MAX)
GM_SAT_DEFINE_INT_(uint64_t, 0, UINT64_MAX)
#undef GM_SAT_DEFINE_INT_

/* bool's names through a macro: in C before C23 `bool` expands to _Bool
 * as the rows pass through the X-macros, so their gm_sat_##T is
 * gm_sat__Bool there and gm_sat_bool in C++ */
#define GM_SAT_CAT_(a, b) a##b
#define GM_SAT_CAT(a, b) GM_SAT_CAT_(a, b)
GM_HD bool GM_SAT_CAT(gm_sat_, bool)(double x) { return x != 0; }
GM_HD bool GM_SAT_CAT(gm_wrap_, bool)(long long v) { return v != 0; }
GM_HD float gm_sat_float(double x) { return (float)x; }
GM_HD float gm_wrap_float(long long v) { return (float)v; }
GM_HD double gm_sat_double(double x) { return x; }
GM_HD double gm_wrap_double(long long v) { return (double)v; }

/* C++ (CUDA and the emulated device's kernels): gm_sat_to<T>(x) is
 * gm_sat_T(x), for templates over the element type. */
#ifdef __cplusplus
#ifdef __CUDACC__
#define GM_SAT_HD_ __host__ __device__
#else
#define GM_SAT_HD_
#endif
template <typename T>
GM_SAT_HD_ inline T gm_sat_to(double x);
#define GM_SAT_TO_(T, ...) \
  template <>              \
  GM_SAT_HD_ inline T gm_sat_to<T>(double x) { return gm_sat_##T(x); }
GM_CTYPES(GM_SAT_TO_)
#undef GM_SAT_TO_
#endif

#endif
