/* The strided N-d elementwise engine's shared part: the operand
 * description (dims, per-operand element strides, 0 on broadcast axes),
 * its index math, and the element functions of the broadcasting binary
 * ops.  The host loops (src/host/strided_ew.c) and the CUDA kernels
 * (kernels/strided_ew.cu, also run by the emulated device) use these same
 * functions, so the host specs test the arithmetic the GPU runs.
 *
 * NaN rules (the same on every backend): arithmetic propagates NaN;
 * cmax/cmin propagate a NaN from either side (NumPy's maximum/minimum);
 * comparisons with a NaN are false (ne true), as in C, and give bool. */
#ifndef GM_KERNELS_STRIDED_EW_H
#define GM_KERNELS_STRIDED_EW_H

#include <math.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"
#include "int_ops.h"
#include "op_table.h"

/* At most this many axes (the library's GM_MAX_RANK, checked in
 * src/core/ops/strided.c) and operands (the output first, then up to three
 * inputs: where's cond, a, b). */
#define GM_STRIDED_MAX_DIMS 8
#define GM_STRIDED_MAX_OPS 4

/* Operands over one iteration space of ndim axes (row-major: the last
 * axis varies fastest).  strides[k][d] is operand k's step in elements
 * along axis d; 0 repeats the element (broadcast).  An input whose
 * pointer is NULL is the number scalar[k] (a Lua number operand). */
typedef struct gm_strided {
  int ndim, nops;
  int64_t dims[GM_STRIDED_MAX_DIMS];
  int64_t strides[GM_STRIDED_MAX_OPS][GM_STRIDED_MAX_DIMS];
  double scalar[GM_STRIDED_MAX_OPS];
} gm_strided;

/* Element count of the iteration space. */
GM_HD int64_t gm_strided_count(const gm_strided *s) {
  int64_t n = 1;
  for (int d = 0; d < s->ndim; d++) n *= s->dims[d];
  return n;
}

/* Element offsets of every operand at row-major position i. */
GM_HD void gm_strided_ew_offsets(const gm_strided *s, int64_t i, int64_t off[GM_STRIDED_MAX_OPS]) {
  for (int k = 0; k < GM_STRIDED_MAX_OPS; k++) off[k] = 0;
  for (int d = s->ndim - 1; d >= 0; d--) {
    int64_t n = s->dims[d], q = i / n, r = i - q * n;
    for (int k = 0; k < s->nops; k++) off[k] += r * s->strides[k][d];
    i = q;
  }
}

/* The binary ops and comparisons are the BINARY and COMPARE rows of
 * kernels/op_table.h (gm_bcast_op, GM_BCAST_OPS, GM_BINARY_OPS_OF): the
 * arithmetic ones write the inputs' ctype, the comparisons bool from
 * inputs of any ctype; the kinds column says which ctypes each runs on,
 * and the element functions gm_bc_<name>_<T> below exist for those. */

/* Whether op is a comparison (a COMPARE row: bool out). */
GM_HD int gm_bc_is_cmp(int op) {
  switch (op) {
#define GM_BC_CMP_CASE_(f, E, ...) case GM_BC_##E:
    GM_BCAST_CMP_OPS(GM_BC_CMP_CASE_)
#undef GM_BC_CMP_CASE_
    return 1;
    default:
      return 0;
  }
}

/* GM_BC_DEFINE(T, suffix of the C math functions).  pow with exponent 0.5
 * (x ^ 0.5, NumPy's x ** 0.5) is a square root, with pow's answers where
 * sqrt's differ (the standard's special cases): +0 for -0 (the + 0) and
 * +inf for -inf.  The host loops of a number exponent read it once per
 * row, so GCC unswitches on it: sqrt vectorizes where the C library's pow
 * ran 5 ns an element (22x sqrt's time on 1M floats). */
#define GM_BC_DEFINE(T, S)                                                           \
  GM_HD T gm_bc_add_##T(T a, T b) { return a + b; }                                  \
  GM_HD T gm_bc_sub_##T(T a, T b) { return a - b; }                                  \
  GM_HD T gm_bc_cmul_##T(T a, T b) { return a * b; }                                 \
  GM_HD T gm_bc_cdiv_##T(T a, T b) { return a / b; }                                 \
  GM_HD T gm_bc_pow_##T(T a, T b) {                                                  \
    if (b == (T)0.5) return a == -(T)INFINITY ? (T)INFINITY : sqrt##S(a) + (T)0;     \
    return pow##S(a, b);                                                             \
  }                                                                                  \
  GM_HD T gm_bc_cmax_##T(T a, T b) { return (a != a || a > b) ? a : b; }            \
  GM_HD T gm_bc_cmin_##T(T a, T b) { return (a != a || a < b) ? a : b; }

/* Float // and % (GM_BC_FLOORDIV, GM_BC_REMAINDER on float mats): Lua's
 * own, floor(a / b) and fmod moved to b's sign when the signs differ,
 * so m // 2 and m % 2 give what the Lua numbers would.  The
 * float-only BINARY rows (atan2 ... logaddexp).  logaddexp is NumPy's npy_logaddexp:
 * equal sides give a + log 2 (so inf with inf stays inf, no inf - inf),
 * else the larger side plus log1p(exp(-|a - b|)); a NaN side gives NaN. */
#define GM_BC_FLOAT_DEFINE(T, S)                                                     \
  GM_HD T gm_bc_ifloordiv_##T(T a, T b) { return floor##S(a / b); }                  \
  GM_HD T gm_bc_iremainder_##T(T a, T b) {                                           \
    T m = fmod##S(a, b);                                                             \
    if ((m > 0) ? b < 0 : (m < 0 && b > 0)) m += b;                                  \
    return m;                                                                        \
  }                                                                                  \
  GM_HD T gm_bc_atan2_##T(T a, T b) { return atan2##S(a, b); }                       \
  GM_HD T gm_bc_hypot_##T(T a, T b) { return hypot##S(a, b); }                       \
  GM_HD T gm_bc_copysign_##T(T a, T b) { return copysign##S(a, b); }                 \
  GM_HD T gm_bc_nextafter_##T(T a, T b) { return nextafter##S(a, b); }               \
  GM_HD T gm_bc_logaddexp_##T(T a, T b) {                                            \
    if (a == b) return a + (T)0.693147180559945309417232121458176568;                \
    T d = a - b;                                                                     \
    if (d > 0) return a + log1p##S(exp##S(-d));                                      \
    if (d <= 0) return b + log1p##S(exp##S(d));                                      \
    return d;                                                                        \
  }

/* one row per ctype: (c type, ..., C math suffix as the 8th column) */
#define GM_BC_DEFINE_ROW_(T, E, name, kw, blas, cublas, etype, S, ...) GM_BC_DEFINE(T, S) GM_BC_FLOAT_DEFINE(T, S)
GM_FLOAT_CTYPES(GM_BC_DEFINE_ROW_)

/* Comparisons (bool results) and where (a bool cond) on every ctype: the
 * core promotes both inputs to one ctype first (docs/API.md "Promotion"). */
#define GM_BC_DEFINE_CMP_(T, ...)                                  \
  GM_HD bool gm_bc_gt_##T(T a, T b) { return a > b; }              \
  GM_HD bool gm_bc_ge_##T(T a, T b) { return a >= b; }             \
  GM_HD bool gm_bc_lt_##T(T a, T b) { return a < b; }              \
  GM_HD bool gm_bc_le_##T(T a, T b) { return a <= b; }             \
  GM_HD bool gm_bc_eq_##T(T a, T b) { return a == b; }             \
  GM_HD bool gm_bc_ne_##T(T a, T b) { return a != b; }             \
  GM_HD T gm_bc_where_##T(bool c, T a, T b) { return c ? a : b; }
GM_REAL_CTYPES(GM_BC_DEFINE_CMP_)

/* Complex: the BINARY and COMPARE rows with kind C (complex_ops.h's
 * arithmetic; == and != compare both parts, NaN unequal) and where. */
#define GM_BC_DEFINE_CX_(T, ...)                                                   \
  GM_HD T gm_bc_add_##T(T a, T b) { return gm_cxadd_##T(a, b); }                  \
  GM_HD T gm_bc_sub_##T(T a, T b) { return gm_cxsub_##T(a, b); }                  \
  GM_HD T gm_bc_cmul_##T(T a, T b) { return gm_cxmul_##T(a, b); }                 \
  GM_HD T gm_bc_cdiv_##T(T a, T b) { return gm_cxdiv_##T(a, b); }                 \
  GM_HD bool gm_bc_eq_##T(T a, T b) { return gm_cxeq_##T(a, b); }                 \
  GM_HD bool gm_bc_ne_##T(T a, T b) { return !gm_cxeq_##T(a, b); }                \
  GM_HD T gm_bc_where_##T(bool c, T a, T b) { return c ? a : b; }
GM_COMPLEX_CTYPES(GM_BC_DEFINE_CX_)

/* the 16-bit floats: where only moves elements (the core computes their
 * arithmetic and comparisons on float32 copies) */
#define GM_BC_DEFINE_HALF_(T, ...) \
  GM_HD T gm_bc_where_##T(bool c, T a, T b) { return c ? a : b; }
GM_HALF_CTYPES(GM_BC_DEFINE_HALF_)

/* Integer add, sub and cmul: two's complement wrapping, computed in
 * unsigned 64-bit arithmetic, defined for every operand (no signed
 * overflow); the narrowing back is modulo (GCC, nvcc).  pow: int_ops.h's
 * (wrapping; a negative exponent gives 1/a^-b truncated).  cmax, cmin. */
#define GM_BC_DEFINE_INT_(T, ...)                                                                   \
  GM_HD T gm_bc_add_##T(T a, T b) { return (T)((unsigned long long)a + (unsigned long long)b); }  \
  GM_HD T gm_bc_sub_##T(T a, T b) { return (T)((unsigned long long)a - (unsigned long long)b); }  \
  GM_HD T gm_bc_cmul_##T(T a, T b) { return (T)((unsigned long long)a * (unsigned long long)b); } \
  GM_HD T gm_bc_pow_##T(T a, T b) { return gm_ipow_##T(a, b); }                                   \
  GM_HD T gm_bc_cmax_##T(T a, T b) { return a > b ? a : b; }                                      \
  GM_HD T gm_bc_cmin_##T(T a, T b) { return a < b ? a : b; }
GM_INTEGER_CTYPES(GM_BC_DEFINE_INT_)

/* gm_bc_<f>_T of // % & | ~ << >> on integers: int_ops.h's gm_<f>_T
 * under the engine's naming (the host loops paste gm_bc_<f>_T). */
#define GM_BC_INT_ONLY_(T, f) \
  GM_HD T gm_bc_##f##_##T(T a, T b) { return gm_##f##_##T(a, b); }
#define GM_BC_INT_ONLY_ROW_(T, ...)                                                             \
  GM_BC_INT_ONLY_(T, ifloordiv) GM_BC_INT_ONLY_(T, iremainder) GM_BC_INT_ONLY_(T, iand)         \
  GM_BC_INT_ONLY_(T, ior) GM_BC_INT_ONLY_(T, ixor) GM_BC_INT_ONLY_(T, ishl) GM_BC_INT_ONLY_(T, ishr)
GM_INTEGER_CTYPES(GM_BC_INT_ONLY_ROW_)

/* bool mats take & | ~ (logical on bool, as NumPy's bitwise ops on bool);
 * through the row, so that C's names (bool is the macro _Bool there)
 * match the other generated ones */
#define GM_BC_DEFINE_BOOL_(T, ...)                                 \
  GM_HD T gm_bc_iand_##T(T a, T b) { return a && b; }              \
  GM_HD T gm_bc_ior_##T(T a, T b) { return a || b; }               \
  GM_HD T gm_bc_ixor_##T(T a, T b) { return a != b; }
GM_BOOL_CTYPES(GM_BC_DEFINE_BOOL_)

#endif
