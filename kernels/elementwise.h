/* Element functions of the elementwise ops (one per row of
 * op_table.h), shared by the host loops
 * (src/host/elementwise.c) and the CUDA kernels (kernels/elementwise.cu),
 * so the host specs test the arithmetic the GPU runs.
 *
 * NaN rules (the same on every backend): NaN inputs give NaN outputs for
 * the arithmetic functions; sqrt and log of negatives give NaN; log(0) is
 * -inf; expt of a negative base with a non-integer power is NaN (C and
 * CUDA pow); lt_ gives 0 when either side is NaN; min_/max_ keep a NaN
 * element (the comparison with alpha is false); sign(NaN) is NaN;
 * log1p(-1) is -inf and below -1 NaN; relu(NaN) is NaN.
 *
 * Float exp/log/tanh and double tanh are branch-free polynomials (exp and
 * log with Cephes coefficients, about 1 ulp; tanh about 2) so the host
 * loops vectorize; special values are handled by selects, not branches.
 * The other double functions are the C library's (CUDA's on device). */
#ifndef GM_KERNELS_ELEMENTWISE_H
#define GM_KERNELS_ELEMENTWISE_H

#include <math.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "op_table.h"
#include "bits.h"
#include "hd.h"
#include "int_ops.h"

/* 2^k for -126 <= k <= 127. */
GM_HD float gm_pow2f(int32_t k) { return gm_u2f((uint32_t)(k + 127) << 23); }

/* ---- float exp ---- */

/* x = ni*ln2 + r with |r| <= ln2/2: returns r and sets *ni.  Rounds
 * x*log2(e) to an integer with the 1.5*2^23 trick (no floorf, so loops
 * vectorize on every x86 level); ln2 in two parts, so r is exact to a few
 * ulp.  Shared by gm_expf_reduce and gm_tanhf. */
GM_HD float gm_expf_arg(float x, int32_t *ni) {
  float t = x * 1.44269504088896341f + 12582912.0f;
  float n = t - 12582912.0f;
  *ni = (int32_t)(gm_f2u(t) - 0x4B400000u);
  float r = x - n * 0.693359375f;
  return r + n * 2.12194440e-4f;
}

/* e^x = m * 2^ni for x in gm_expf's clamped range: returns m, the
 * polynomial of the reduced argument, and sets *ni. */
GM_HD float gm_expf_reduce(float x, int32_t *ni) {
  float r = gm_expf_arg(x, ni);
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  return p * r * r + r + 1.0f;
}

GM_HD float gm_expf(float x) {
  /* Clamping keeps the exponent arithmetic in range; NaN fails both
   * comparisons and flows through the arithmetic. */
  float xc = x > 88.7228394f ? 88.7228394f : x;
  xc = xc < -103.972084f ? -103.972084f : xc;
  int32_t ni;
  float y = gm_expf_reduce(xc, &ni);
  /* Scale in two steps so results down to the subnormals stay exact. */
  int32_t n1 = ni / 2;
  y = y * gm_pow2f(n1) * gm_pow2f(ni - n1);
  y = x > 88.7228394f ? INFINITY : y;
  return x < -103.972084f ? 0.0f : y;
}

/* ---- float log ---- */

GM_HD float gm_logf(float x) {
  /* Subnormals are scaled into the normal range first. */
  int sub = x < 1.17549435e-38f;
  float xs = sub ? x * 8388608.0f : x;
  uint32_t u = gm_f2u(xs);
  float e = (float)((int32_t)((u >> 23) & 0xffu) - 126) - (sub ? 23.0f : 0.0f);
  float m = gm_u2f((u & 0x007fffffu) | 0x3f000000u); /* [0.5, 1) */
  int lo = m < 0.707106781186547524f;
  e = lo ? e - 1.0f : e;
  m = lo ? m + m - 1.0f : m - 1.0f;
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float y = p * m * z;
  y = y - e * 2.12194440e-4f;
  y = y - 0.5f * z;
  float r = m + y + e * 0.693359375f;
  /* +inf stays +inf, NaN stays NaN, 0 gives -inf, negatives NaN. */
  float special = x == 0.0f ? -INFINITY : (x < 0.0f ? NAN : x);
  return (x > 0.0f && x < INFINITY) ? r : special;
}

/* ---- float tanh ---- */

/* tanh|x| = e/(e+2), e = expm1(2|x|) = 2^n expm1(r) + (2^n - 1) with
 * 2|x| = n ln2 + r: one reduction, a degree-6 expm1 polynomial (fitted
 * here, relative error 1.4e-8 on |r| <= ln2/2) and a division, with no
 * second polynomial for small |x| (expm1 has no cancellation there); 1.86
 * ulp at most over every float (checked against double tanh), 9 % faster
 * than 1 - 2/(e^{2|x|}+1) beside an odd polynomial below 0.625 (1.33 ulp),
 * and faster than numpy's AVX-512 tanh.  Where v = e/2 < 1, y = v/(1+v) is
 * refined as v - v y, which makes up for the rounding of e + 2 (2.6 ulp
 * without it). |x| is capped at 9, where tanh rounds to 1 (a NaN passes
 * the cap and stays NaN); fabsf, copysignf and the cap's min are one
 * instruction each. */
GM_HD float gm_tanhf(float x) {
  float a = fabsf(x);
  float c = 9.0f < a ? 9.0f : a;
  int32_t ni;
  float r = gm_expf_arg(c + c, &ni);
  float q = 1.385897514410317e-3f;
  q = q * r + 8.366669528186321e-3f;
  q = q * r + 4.166758432984352e-2f;
  q = q * r + 1.6666541993618011e-1f;
  q = q * r + 4.999999701976776e-1f;
  float u = (r * r) * q + r; /* expm1(r) */
  float s = gm_pow2f(ni);
  float e = s * u + (s - 1.0f); /* expm1(2c): n >= 0, so no cancellation but 2^n - 1's */
  float y = e / (e + 2.0f);
  float v = 0.5f * e;
  y = e < 2.0f ? (-v) * y + v : y;
  return copysignf(y, x);
}

/* ---- double tanh ----
 * gm_tanhf's method in double: 2|x| = n ln2 + r (ln2 in fdlibm's two
 * parts), expm1(r) by its Taylor polynomial to r^13 (the first term left
 * out is below 5e-18 of the result on |r| <= ln2/2), e = 2^n expm1(r) +
 * (2^n - 1), tanh = e/(e+2) refined as v - v y where v = e/2 < 1; |x|
 * capped at 19.1, where tanh rounds to 1.  At most 1.99 ulp over 13M
 * log-uniform samples against long double tanhl with FMA, 2.18 without
 * (libmvec's, which the host loops called: 1.18 and 2.16 ulp; 4 ulp
 * documented), 0.79 ns per
 * element on AVX-512 against libmvec's 1.45 and numpy's SVML 1.07. */
GM_HD double gm_tanh(double x) {
  double a = fabs(x);
  double c = 19.1 < a ? 19.1 : a;
  double t = c + c;
  double k = t * 1.4426950408889634 + 6755399441055744.0; /* 1.5 * 2^52: k's last bits are n */
  double n = k - 6755399441055744.0;
  int64_t ni = (int64_t)(gm_d2u(k) - gm_d2u(6755399441055744.0));
  double r = t - n * 6.93147180369123816490e-01;
  r = r - n * 1.90821492927058770002e-10;
  double q = 1.0 / 6227020800.0;
  q = q * r + 1.0 / 479001600.0;
  q = q * r + 1.0 / 39916800.0;
  q = q * r + 1.0 / 3628800.0;
  q = q * r + 1.0 / 362880.0;
  q = q * r + 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  double u = (r * r) * q + r; /* expm1(r) */
  double s = gm_u2d((uint64_t)(ni + 1023) << 52);
  double e = s * u + (s - 1.0);
  double y = e / (e + 2.0);
  double v = 0.5 * e;
  y = e < 2.0 ? (-v) * y + v : y;
  return copysign(y, x);
}

/* ---- per-type element functions ----
 * GM_EW_DEFINE(T, E, ..., S the C math suffix, ...) per GM_FLOAT_CTYPES row;
 * exp, log and tanh are gm_exp<S>, gm_log<S>, gm_tanh<S> (the polynomials
 * above for float and double tanh, the C library for double exp and log). */

GM_HD double gm_exp(double x) { return exp(x); }
GM_HD double gm_log(double x) { return log(x); }

#define GM_EW_DEFINE(T, E, name, kw, p, P, ET, S, ...)                               \
  GM_HD T gm_square_##T(T x) { return x * x; }                                       \
  GM_HD T gm_sqrt_##T(T x) { return sqrt##S(x); }                                    \
  GM_HD T gm_log_##T(T x) { return gm_log##S(x); }                                         \
  GM_HD T gm_exp_##T(T x) { return gm_exp##S(x); }                                         \
  GM_HD T gm_inv_##T(T x) { return (T)1 / x; }                                       \
  GM_HD T gm_logistic_##T(T x) { return (T)1 / ((T)1 + gm_exp##S(-x)); }                   \
  GM_HD T gm_sin_##T(T x) { return sin##S(x); }                                      \
  GM_HD T gm_cos_##T(T x) { return cos##S(x); }                                      \
  GM_HD T gm_tan_##T(T x) { return tan##S(x); }                                      \
  GM_HD T gm_sinh_##T(T x) { return sinh##S(x); }                                    \
  GM_HD T gm_cosh_##T(T x) { return cosh##S(x); }                                    \
  GM_HD T gm_tanh_##T(T x) { return gm_tanh##S(x); }                                       \
  GM_HD T gm_abs_##T(T x) { return fabs##S(x); }                                     \
  GM_HD T gm_floor_##T(T x) { return floor##S(x); }                                  \
  GM_HD T gm_ceil_##T(T x) { return ceil##S(x); }                                    \
  /* halves round to even (the array standard, NumPy): rint in the default \
   * rounding mode, which the library never changes */                               \
  GM_HD T gm_round_##T(T x) { return rint##S(x); }                                   \
  GM_HD T gm_neg_##T(T x) { return -x; }                                             \
  GM_HD T gm_log1p_##T(T x) { return log1p##S(x); }                                  \
  GM_HD T gm_expm1_##T(T x) { return expm1##S(x); }                                  \
  /* NaN fails the comparison and stays NaN */                                       \
  GM_HD T gm_relu_##T(T x) { return x < 0 ? (T)0 : x; }                              \
  GM_HD T gm_acos_##T(T x) { return acos##S(x); }                                    \
  GM_HD T gm_acosh_##T(T x) { return acosh##S(x); }                                  \
  GM_HD T gm_asin_##T(T x) { return asin##S(x); }                                    \
  GM_HD T gm_asinh_##T(T x) { return asinh##S(x); }                                  \
  GM_HD T gm_atan_##T(T x) { return atan##S(x); }                                    \
  GM_HD T gm_atanh_##T(T x) { return atanh##S(x); }                                  \
  GM_HD T gm_log2_##T(T x) { return log2##S(x); }                                    \
  GM_HD T gm_log10_##T(T x) { return log10##S(x); }                                  \
  GM_HD T gm_trunc_##T(T x) { return trunc##S(x); }                                  \
  GM_HD T gm_positive_##T(T x) { return x; }                                         \
  GM_HD T gm_conj_##T(T x) { return x; }                                              \
  /* predicates (bool results): NaN is truthy (NumPy's astype(bool)) */              \
  GM_HD bool gm_pred_isnan_##T(T x) { return x != x; }                               \
  GM_HD bool gm_pred_isinf_##T(T x) { return x == (T)INFINITY || x == -(T)INFINITY; } \
  /* inf - inf and NaN - NaN are NaN, a finite x - x is 0 */                         \
  GM_HD bool gm_pred_isfinite_##T(T x) { return x - x == 0; }                        \
  GM_HD bool gm_pred_signbit_##T(T x) { return copysign##S((T)1, x) < 0; }           \
  GM_HD bool gm_pred_logical_not_##T(T x) { return x == 0; }                         \
  GM_HD bool gm_pred__truth_##T(T x) { return x != 0; }                               \
  GM_HD T gm_expt_##T(T x, T power) { return pow##S(x, power); }                     \
  GM_HD T gm_lt_##T(T x, T y) { return x < y ? (T)1 : (T)0; }                        \
  GM_HD T gm_min_##T(T alpha, T x) { return alpha < x ? alpha : x; }                 \
  GM_HD T gm_max_##T(T alpha, T x) { return x < alpha ? alpha : x; }                 \
  GM_HD T gm_sign_##T(T x) { return x > 0 ? (T)1 : (x < 0 ? (T)-1 : (x == 0 ? (T)0 : x)); } \
  /* beta == 0 means the old value is not read (BLAS rule: NaN there does not leak) */ \
  GM_HD T gm_axpby_##T(T alpha, T v, T beta, T y) {                                   \
    return beta == 0 ? alpha * v : alpha * v + beta * y;                             \
  }                                                                                  \
  /* the GM_SCALAR_OPS rows: x := f(x, alpha) */                                     \
  GM_HD T gm_scalar_expt_##T(T x, T a) { return gm_expt_##T(x, a); }                 \
  GM_HD T gm_scalar_add_##T(T x, T a) { return x + a; }                              \
  GM_HD T gm_scalar_min_##T(T x, T a) { return gm_min_##T(a, x); }                   \
  GM_HD T gm_scalar_max_##T(T x, T a) { return gm_max_##T(a, x); }                   \
  GM_EW_DISPATCH(T)

/* gm_unary_<T>(op, x) and gm_scalar_<T>(op, x, alpha): the element
 * function of a table row chosen at run time (the CUDA kernels; the host
 * loops instantiate one loop per row instead). */
#define GM_EW_UNARY_CASE_(T, name, E, ...) \
  case GM_UN_##E:                          \
    return gm_##name##_##T(x);
#define GM_EW_SCALAR_CASE_(T, name, E, ...) \
  case GM_SC_##E:                           \
    return gm_scalar_##name##_##T(x, a);
/* one unary dispatcher for every kind: ROWS is the kind's view of the
 * unary rows (GM_UNARY_OPS_WITH, GM_UNARY_INT_OPS_WITH,
 * GM_UNARY_COMPLEX_OPS_WITH), called as ROWS(X, T) */
#define GM_EW_UNARY_DISPATCH_(T, ROWS)   \
  GM_HD T gm_unary_##T(int op, T x) {    \
    switch (op) {                        \
      ROWS(GM_EW_UNARY_CASE_, T)         \
      default:                           \
        return x;                        \
    }                                    \
  }
#define GM_EW_DISPATCH(T)                                  \
  GM_EW_UNARY_DISPATCH_(T, GM_UNARY_OPS_WITH)              \
  GM_HD T gm_scalar_##T(int op, T x, T a) {                \
    switch (op) {                                          \
      GM_SCALAR_OPS_WITH(GM_EW_SCALAR_CASE_, T)            \
      default:                                             \
        return x;                                          \
    }                                                      \
  }

GM_FLOAT_CTYPES(GM_EW_DEFINE)

/* ---- integer element types: the GM_UNARY_INT_OPS rows ----
 * abs(MIN) and neg(MIN) wrap to MIN (two's complement, NumPy), square
 * wraps (int_ops.h: no signed overflow); floor, ceil, round, trunc and
 * positive are the identity on integers (the array standard). */
#define GM_EW_INT_COMMON_(T)                                              \
  GM_HD T gm_square_##T(T x) { return gm_imul_##T(x, x); }                \
  GM_HD T gm_neg_##T(T x) { return gm_ineg_##T(x); }                      \
  GM_HD T gm_floor_##T(T x) { return x; }                                 \
  GM_HD T gm_ceil_##T(T x) { return x; }                                  \
  GM_HD T gm_round_##T(T x) { return x; }                                 \
  GM_HD T gm_trunc_##T(T x) { return x; }                                 \
  GM_HD T gm_positive_##T(T x) { return x; }                              \
  GM_HD T gm_conj_##T(T x) { return x; }                                   \
  GM_HD bool gm_pred_isnan_##T(T x) { return (void)x, false; }            \
  GM_HD bool gm_pred_isinf_##T(T x) { return (void)x, false; }            \
  GM_HD bool gm_pred_isfinite_##T(T x) { return (void)x, true; }          \
  GM_HD bool gm_pred_logical_not_##T(T x) { return x == 0; }              \
  GM_HD bool gm_pred__truth_##T(T x) { return x != 0; }                    \
  GM_EW_UNARY_DISPATCH_(T, GM_UNARY_INT_OPS_WITH)
#define GM_EW_SINT_(T, ...)                                                      \
  GM_HD T gm_abs_##T(T x) { return x < 0 ? gm_ineg_##T(x) : x; }                 \
  GM_HD T gm_sign_##T(T x) { return (T)((x > 0) - (x < 0)); }                    \
  GM_HD bool gm_pred_signbit_##T(T x) { return x < 0; }                          \
  GM_EW_INT_COMMON_(T)
#define GM_EW_UINT_(T, ...)                                                      \
  GM_HD T gm_abs_##T(T x) { return x; }                                          \
  GM_HD T gm_sign_##T(T x) { return (T)(x != 0); }                               \
  GM_HD bool gm_pred_signbit_##T(T x) { return (void)x, false; }                 \
  GM_EW_INT_COMMON_(T)
GM_SINT_ROWS(GM_EW_SINT_)
GM_UINT_ROWS(GM_EW_UINT_)

/* bool: the predicates only (false is 0, true 1); through the row so
 * that T is the same token (_Bool in C) as in the dispatch below */
#define GM_EW_BOOL_(T, ...)                                               \
  GM_HD bool gm_pred_isnan_##T(T x) { return (void)x, false; }            \
  GM_HD bool gm_pred_isinf_##T(T x) { return (void)x, false; }            \
  GM_HD bool gm_pred_isfinite_##T(T x) { return (void)x, true; }          \
  GM_HD bool gm_pred_signbit_##T(T x) { return (void)x, false; }          \
  GM_HD bool gm_pred_logical_not_##T(T x) { return !x; }                  \
  GM_HD bool gm_pred__truth_##T(T x) { return x; }
GM_BOOL_CTYPES(GM_EW_BOOL_)

/* gm_predicate_<T>(op, x): the predicate of a GM_PREDICATE_OPS row chosen
 * at run time (the CUDA kernel). */
#define GM_EW_PRED_CASE_(T, name, E, ...) \
  case GM_PRED_##E:                       \
    return gm_pred_##name##_##T(x);
/* ROWS: the kind's view of the predicate rows, as GM_EW_UNARY_DISPATCH_'s */
#define GM_EW_PRED_DISPATCH_OF_(T, ROWS)                 \
  GM_HD bool gm_predicate_##T(int op, T x) {             \
    switch (op) {                                        \
      ROWS(GM_EW_PRED_CASE_, T)                          \
      default:                                           \
        return false;                                    \
    }                                                    \
  }
#define GM_EW_PRED_DISPATCH_(T, ...) GM_EW_PRED_DISPATCH_OF_(T, GM_PREDICATE_OPS_WITH)
GM_REAL_CTYPES(GM_EW_PRED_DISPATCH_)

/* complex: the unary rows with kind C (complex_ops.h's principal
 * branches; square is z * z, inv 1 / z by Smith's division) */
#define GM_EW_CX_UNARY_(T, ...)                                          \
  GM_HD T gm_square_##T(T x) { return gm_cxmul_##T(x, x); }              \
  GM_HD T gm_sqrt_##T(T x) { return gm_cxsqrt_##T(x); }                  \
  GM_HD T gm_log_##T(T x) { return gm_cxlog_##T(x); }                    \
  GM_HD T gm_exp_##T(T x) { return gm_cxexp_##T(x); }                    \
  GM_HD T gm_inv_##T(T x) { return gm_cxinv_##T(x); }                    \
  GM_HD T gm_sin_##T(T x) { return gm_cxsin_##T(x); }                    \
  GM_HD T gm_cos_##T(T x) { return gm_cxcos_##T(x); }                    \
  GM_HD T gm_tan_##T(T x) { return gm_cxtan_##T(x); }                    \
  GM_HD T gm_sinh_##T(T x) { return gm_cxsinh_##T(x); }                  \
  GM_HD T gm_cosh_##T(T x) { return gm_cxcosh_##T(x); }                  \
  GM_HD T gm_tanh_##T(T x) { return gm_cxtanh_##T(x); }                  \
  GM_HD T gm_neg_##T(T x) { return gm_cxneg_##T(x); }                    \
  GM_HD T gm_positive_##T(T x) { return x; }                             \
  GM_HD T gm_conj_##T(T x) { return gm_cxconj_##T(x); }                  \
  GM_EW_UNARY_DISPATCH_(T, GM_UNARY_COMPLEX_OPS_WITH)
GM_COMPLEX_CTYPES(GM_EW_CX_UNARY_)

/* complex: the predicates whose rows have kind C (isnan, isinf and
 * isfinite of either part, NumPy's; truth is x != 0) */
#define GM_EW_CX_PRED_(T, ...)                                                        \
  GM_HD bool gm_pred_isnan_##T(T x) { return gm_cxisnan_##T(x); }                     \
  GM_HD bool gm_pred_isinf_##T(T x) { return gm_cxisinf_##T(x); }                     \
  GM_HD bool gm_pred_isfinite_##T(T x) { return gm_cxisfinite_##T(x); }               \
  GM_HD bool gm_pred_logical_not_##T(T x) { return !gm_cxnonzero_##T(x); }            \
  GM_HD bool gm_pred__truth_##T(T x) { return gm_cxnonzero_##T(x); }                  \
  GM_EW_PRED_DISPATCH_OF_(T, GM_PREDICATE_COMPLEX_OPS_WITH)
GM_COMPLEX_CTYPES(GM_EW_CX_PRED_)

/* the 16-bit floats: the predicates of their float32 value (loaded
 * exactly, so isnan, signbit ... are the stored value's) */
#define GM_EW_HALF_PRED_(T, ...) \
  GM_HD bool gm_predicate_##T(int op, T x) { return gm_predicate_float(op, gm_hload_##T(x)); }
GM_HALF_CTYPES(GM_EW_HALF_PRED_)

#endif
