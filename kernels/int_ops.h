/* Element functions of the integer and bool element types, shared by the
 * host loops, the CUDA kernels (nvcc) and the emulated device (C++), so
 * every backend computes the same bits.  Every function is defined for
 * every input: no C undefined behaviour (the suite runs under UBSan) and
 * nothing that differs between gpumat's compilers.  The rules are docs/API.md's "Defined
 * everywhere, identical on every device", which are NumPy 2's results:
 *
 *  - add, subtract, multiply, negate wrap (two's complement): computed in
 *    an unsigned type at least as wide as unsigned int (W below), since
 *    int8/int16/uint16 operands would otherwise be promoted to int, where
 *    65535 * 65535 overflows.
 *  - floor_divide and remainder floor as Lua's // and % do (the remainder
 *    has the divisor's sign); by zero both give 0; MIN // -1 gives MIN and
 *    MIN % -1 gives 0 (NumPy's results; C's / and % trap or are UB there).
 *  - << by a negative amount or by at least the width gives 0; >> likewise
 *    gives 0, except for a negative value, where it gives -1 (the sign fill
 *    of an ever longer arithmetic shift).  NumPy 2's npy_lshift/npy_rshift
 *    test `(unsigned)amount < width`, so a negative amount counts as a
 *    huge one: the same results.  >> of a negative value is computed as
 *    ~(~a >> b), so no implementation-defined signed shift is involved.
 *  - pow wraps as repeated multiplication does.  A negative exponent
 *    (NumPy raises "Integers to negative integer powers are not allowed";
 *    an elementwise kernel cannot raise) gives 1/a^-b truncated toward
 *    zero: 1 for a = 1, +-1 for a = -1 (by the exponent's parity), else 0
 *    (0 for a = 0 too).  PyTorch's integer pow kernel gives the same.  A
 *    caller that can see the exponent (a Lua scalar) may raise instead.
 *  - float and double to an integer type saturate: NaN gives 0, values at
 *    or beyond a bound give that bound, others truncate toward zero (CUDA's
 *    cvt.rzi.sat, Rust's `as`).  Bounds are compared in the float type
 *    against 2^(width-1) (signed) or 2^width (unsigned), which are exact.
 *  - to bool: nonzero gives true; a float NaN is nonzero (NumPy).
 *
 * The one thing C leaves to the implementation here is narrowing an
 * out-of-range value to a signed type, (int8_t)(uint32_t)200: GCC, Clang
 * and nvcc reduce modulo 2^bits, and C++20 defines it so (the emulated
 * device's build is C++17, where g++ does the same), which is the
 * wrapping wanted; every other operation is fully defined.
 *
 * Names: gm_i<op>_<T> for the operations and gm_cast_<from>_<to> for the
 * conversions, T the C type (int8_t ... uint64_t) so GM_CTYPES rows paste
 * them; distinct from elementwise.h's gm_<op>_<T>.  The rows below carry
 * per-type constants that ctype_list.h has no column for. */
#ifndef GM_KERNELS_INT_OPS_H
#define GM_KERNELS_INT_OPS_H

#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

/* X(T, U unsigned of the same width, W unsigned working type, bits,
 *   MIN, MAX, HI = 2^(bits-1) as a double literal) */
#define GM_SINT_ROWS(X)                                                      \
  X(int8_t, uint8_t, uint32_t, 8, INT8_MIN, INT8_MAX, 128.0)                 \
  X(int16_t, uint16_t, uint32_t, 16, INT16_MIN, INT16_MAX, 32768.0)          \
  X(int32_t, uint32_t, uint32_t, 32, INT32_MIN, INT32_MAX, 2147483648.0)     \
  X(int64_t, uint64_t, uint64_t, 64, INT64_MIN, INT64_MAX, 9223372036854775808.0)

/* X(T, W, bits, MAX, HI = 2^bits as a double literal) */
#define GM_UINT_ROWS(X)                                            \
  X(uint8_t, uint32_t, 8, UINT8_MAX, 256.0)                        \
  X(uint16_t, uint32_t, 16, UINT16_MAX, 65536.0)                   \
  X(uint32_t, uint32_t, 32, UINT32_MAX, 4294967296.0)              \
  X(uint64_t, uint64_t, 64, UINT64_MAX, 18446744073709551616.0)

/* Both signs: wrapping arithmetic, bitwise operations, << and the
 * non-negative part of pow (in W, where it wraps), to bool. */
#define GM_INT_COMMON_(T, W, bits)                                              \
  GM_HD T gm_iadd_##T(T a, T b) { return (T)((W)a + (W)b); }                    \
  GM_HD T gm_isub_##T(T a, T b) { return (T)((W)a - (W)b); }                    \
  GM_HD T gm_imul_##T(T a, T b) { return (T)((W)a * (W)b); }                    \
  GM_HD T gm_ineg_##T(T a) { return (T)((W)0 - (W)a); }                         \
  GM_HD T gm_iand_##T(T a, T b) { return (T)((W)a & (W)b); }                    \
  GM_HD T gm_ior_##T(T a, T b) { return (T)((W)a | (W)b); }                     \
  GM_HD T gm_ixor_##T(T a, T b) { return (T)((W)a ^ (W)b); }                    \
  GM_HD T gm_iinvert_##T(T a) { return (T)~(W)a; }                              \
  GM_HD T gm_ishl_##T(T a, T b) {                                               \
    return (T)((W)b < (W)(bits) ? (W)a << (W)b : (W)0);                         \
  }                                                                             \
  GM_HD T gm_ipow_nonneg_##T(T a, T b) {                                        \
    W r = 1, x = (W)a, e = (W)b;                                                \
    while (e != 0) {                                                            \
      if (e & 1u) r *= x;                                                       \
      x *= x;                                                                   \
      e >>= 1;                                                                  \
    }                                                                           \
    return (T)r;                                                                \
  }                                                                             \
  GM_HD bool gm_cast_##T##_bool(T a) { return a != 0; }

/* Float and double to T, saturating; LO: at or below it gives MIN. */
#define GM_INT_FROM_FLOAT_(T, MIN, MAX, LO, HI)                                   \
  GM_HD T gm_cast_float_##T(float x) {                                            \
    return x != x ? (T)0 : x <= (float)(LO) ? (T)(MIN) : x >= (float)(HI) ? (T)(MAX) : (T)x; \
  }                                                                               \
  GM_HD T gm_cast_double_##T(double x) {                                          \
    return x != x ? (T)0 : x <= (LO) ? (T)(MIN) : x >= (HI) ? (T)(MAX) : (T)x;    \
  }

/* (W)b < bits also rejects a negative b (it becomes a huge W), as NumPy's
 * unsigned comparison does.  Floor division: C's / truncates, so a
 * quotient with an inexact negative result is one too big. */
#define GM_SINT_DEFINE_(T, U, W, bits, MIN, MAX, HI)                            \
  GM_INT_COMMON_(T, W, bits)                                                    \
  GM_INT_FROM_FLOAT_(T, MIN, MAX, -(HI), HI)                                    \
  GM_HD T gm_ifloordiv_##T(T a, T b) {                                          \
    if (b == 0) return (T)0;                                                    \
    if (b == -1) return gm_ineg_##T(a); /* MIN // -1 wraps to MIN */            \
    T q = (T)(a / b);                                                           \
    return (T)(q * b != a && (a < 0) != (b < 0) ? q - 1 : q);                   \
  }                                                                             \
  GM_HD T gm_iremainder_##T(T a, T b) {                                         \
    if (b == 0 || b == -1) return (T)0;                                         \
    T r = (T)(a % b);                                                           \
    return (T)(r != 0 && (r < 0) != (b < 0) ? r + b : r);                       \
  }                                                                             \
  GM_HD T gm_ishr_##T(T a, T b) {                                               \
    if ((W)b >= (W)(bits)) return a < 0 ? (T)-1 : (T)0;                        \
    return (T)(a < 0 ? ~(~a >> b) : a >> b);                                    \
  }                                                                             \
  GM_HD T gm_ipow_##T(T a, T b) {                                               \
    if (b >= 0) return gm_ipow_nonneg_##T(a, b);                                \
    if (a == 1) return (T)1;                                                    \
    if (a == -1) return b % 2 != 0 ? (T)-1 : (T)1;                              \
    return (T)0;                                                                \
  }

#define GM_UINT_DEFINE_(T, W, bits, MAX, HI)                                   \
  GM_INT_COMMON_(T, W, bits)                                                   \
  GM_INT_FROM_FLOAT_(T, 0, MAX, -1.0, HI)                                      \
  GM_HD T gm_ifloordiv_##T(T a, T b) { return (T)(b == 0 ? 0 : a / b); }       \
  GM_HD T gm_iremainder_##T(T a, T b) { return (T)(b == 0 ? 0 : a % b); }      \
  GM_HD T gm_ishr_##T(T a, T b) { return (T)(b < (bits) ? a >> b : 0); }       \
  GM_HD T gm_ipow_##T(T a, T b) { return gm_ipow_nonneg_##T(a, b); }

GM_SINT_ROWS(GM_SINT_DEFINE_)
GM_UINT_ROWS(GM_UINT_DEFINE_)

/* NaN is nonzero: true, as NumPy's astype(bool). */
GM_HD bool gm_cast_float_bool(float x) { return x != 0.0f; }
GM_HD bool gm_cast_double_bool(double x) { return x != 0.0; }

/* Conversions into every element type (GM_CTYPES) with a defined result
 * for every input, for astype, fills and element writes (ctype_list.h's
 * names, so a GM_CTYPES row pastes gm_sat_##T / gm_wrap_##T):
 *   gm_sat_T(double x): float -> T, saturating as gm_cast_double_T; bool
 *     is x != 0 (NaN -> true).
 *   gm_wrap_T(long long v): integer -> T, wrapping (NumPy's astype
 *     between integers); bool is v != 0; floats round. */
#define GM_SAT_DEFINE_INT_(T, ...)                                    \
  GM_HD T gm_sat_##T(double x) { return gm_cast_double_##T(x); }      \
  GM_HD T gm_wrap_##T(long long v) { return (T)(unsigned long long)v; }
GM_SINT_ROWS(GM_SAT_DEFINE_INT_)
GM_UINT_ROWS(GM_SAT_DEFINE_INT_)
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

/* the complex types' gm_sat_T / gm_wrap_T (imaginary part 0) */
#include "complex_ops.h"
/* and the 16-bit floats' (rounded to nearest even) */
#include "half_ops.h"

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
