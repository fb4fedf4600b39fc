/* Element functions of the complex element types (gm_complex64,
 * gm_complex128: ctype_list.h's structs), shared by the host loops, the
 * CUDA kernels (nvcc) and the emulated device (C++), so every backend
 * computes the same bits.  Plain functions on the structs, no C99
 * _Complex or std::complex (which nvcc's device code and C do not
 * share).  The definitions are C99 Annex G's textbook formulas (as CUDA's
 * cuComplex.h and NumPy's npymath use): multiply is the four-product
 * form; divide is Smith's algorithm (scaled by the larger part of the
 * divisor, so |b| near the range's ends does not overflow); sqrt, exp,
 * log, the trigonometric and hyperbolic functions are their principal
 * branches through the real math library.
 *
 * Names: gm_cx<op>_<T> with T the C type (gm_complex64, gm_complex128)
 * so GM_COMPLEX_CTYPES rows paste them; the real part type is R.  The
 * conversions from double/long long (gm_sat_T, gm_wrap_T, as int_ops.h's
 * for the real types) and to double (gm_cxreal_T) are here too. */
#ifndef GM_KERNELS_COMPLEX_OPS_H
#define GM_KERNELS_COMPLEX_OPS_H

#ifndef __CUDACC_RTC__
#include <math.h>
#endif

#include "../src/core/model/ctype_list.h"
#include "hd.h"

/* X(T complex type, R real type, math suffix) */
#define GM_CX_ROWS(X)         \
  X(gm_complex64, float, f)   \
  X(gm_complex128, double, )

#define GM_CX_CAT_(a, b) a##b
#define GM_CX_FN(f, S) GM_CX_CAT_(f, S)

#define GM_CX_DEFINE_BASIC_(T, R, S)                                                        \
  GM_HD T gm_cxmake_##T(R re, R im) {                                                       \
    T z;                                                                                    \
    z.re = re;                                                                              \
    z.im = im;                                                                              \
    return z;                                                                               \
  }                                                                                         \
  GM_HD T gm_sat_##T(double x) { return gm_cxmake_##T((R)x, (R)0); }                        \
  GM_HD T gm_wrap_##T(long long v) { return gm_cxmake_##T((R)v, (R)0); }                    \
  GM_HD double gm_cxreal_##T(T z) { return (double)z.re; }                                  \
  GM_HD T gm_cxadd_##T(T a, T b) { return gm_cxmake_##T(a.re + b.re, a.im + b.im); }        \
  GM_HD T gm_cxsub_##T(T a, T b) { return gm_cxmake_##T(a.re - b.re, a.im - b.im); }        \
  GM_HD T gm_cxmul_##T(T a, T b) {                                                          \
    return gm_cxmake_##T(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);             \
  }                                                                                         \
  GM_HD T gm_cxneg_##T(T a) { return gm_cxmake_##T(-a.re, -a.im); }                         \
  GM_HD T gm_cxconj_##T(T a) { return gm_cxmake_##T(a.re, -a.im); }                        \
  GM_HD bool gm_cxeq_##T(T a, T b) { return a.re == b.re && a.im == b.im; }                 \
  GM_HD bool gm_cxnonzero_##T(T a) { return a.re != 0 || a.im != 0; }                       \
  GM_HD R gm_cxabs_##T(T a) { return GM_CX_FN(hypot, S)(a.re, a.im); }                      \
  GM_HD bool gm_cxisnan_##T(T a) { return isnan(a.re) || isnan(a.im); }                     \
  GM_HD bool gm_cxisinf_##T(T a) { return isinf(a.re) || isinf(a.im); }                     \
  GM_HD bool gm_cxisfinite_##T(T a) { return isfinite(a.re) && isfinite(a.im); }

/* Smith's division: with |d.re| >= |d.im|, r = d.im / d.re and the
 * denominator d.re + d.im * r; the other way round symmetrically.  A zero
 * divisor gives inf/NaN parts as IEEE division by +0 does (NumPy's: the
 * parts divided by |d.re|, so -0 does not flip the infinities' signs). */
#define GM_CX_DEFINE_DIV_(T, R, S)                                                          \
  GM_HD T gm_cxdiv_##T(T a, T b) {                                                          \
    if (GM_CX_FN(fabs, S)(b.re) >= GM_CX_FN(fabs, S)(b.im)) {                               \
      if (b.re == 0 && b.im == 0)                                                           \
        return gm_cxmake_##T(a.re / GM_CX_FN(fabs, S)(b.re), a.im / GM_CX_FN(fabs, S)(b.re)); \
      R r = b.im / b.re, den = b.re + b.im * r;                                             \
      return gm_cxmake_##T((a.re + a.im * r) / den, (a.im - a.re * r) / den);               \
    }                                                                                       \
    R r = b.re / b.im, den = b.im + b.re * r;                                               \
    return gm_cxmake_##T((a.re * r + a.im) / den, (a.im * r - a.re) / den);                 \
  }                                                                                         \
  GM_HD T gm_cxinv_##T(T a) { return gm_cxdiv_##T(gm_cxmake_##T((R)1, (R)0), a); }

/* exp(x+iy) = e^x (cos y + i sin y); log z = log|z| + i arg z; sqrt by
 * the half-angle formulas without cancellation (t = sqrt((|x| + |z|)/2)). */
#define GM_CX_DEFINE_TRANSC_(T, R, S)                                                       \
  GM_HD T gm_cxexp_##T(T a) {                                                               \
    R e = GM_CX_FN(exp, S)(a.re);                                                           \
    if (a.im == 0) return gm_cxmake_##T(e, a.im);                                           \
    return gm_cxmake_##T(e * GM_CX_FN(cos, S)(a.im), e * GM_CX_FN(sin, S)(a.im));           \
  }                                                                                         \
  GM_HD T gm_cxlog_##T(T a) {                                                               \
    return gm_cxmake_##T(GM_CX_FN(log, S)(gm_cxabs_##T(a)), GM_CX_FN(atan2, S)(a.im, a.re)); \
  }                                                                                         \
  GM_HD T gm_cxsqrt_##T(T a) {                                                              \
    if (a.re == 0 && a.im == 0) return gm_cxmake_##T((R)0, a.im);                           \
    if (isinf(a.im)) return gm_cxmake_##T((R)INFINITY, a.im);                               \
    R t = GM_CX_FN(sqrt, S)((GM_CX_FN(fabs, S)(a.re) + gm_cxabs_##T(a)) / 2);               \
    if (a.re >= 0) return gm_cxmake_##T(t, a.im / (2 * t));                                 \
    return gm_cxmake_##T(GM_CX_FN(fabs, S)(a.im) / (2 * t), GM_CX_FN(copysign, S)(t, a.im)); \
  }

/* sin(x+iy) = sin x cosh y + i cos x sinh y; cos(x+iy) = cos x cosh y -
 * i sin x sinh y; sinh z = -i sin(iz); cosh z = cos(iz); tanh z = sinh z /
 * cosh z and tan z = -i tanh(iz), but tanh through the overflow-safe
 * form (for |x| large it is +-1 + 0i, as C99's ctanh). */
#define GM_CX_DEFINE_TRIG_(T, R, S)                                                         \
  GM_HD T gm_cxsin_##T(T a) {                                                               \
    return gm_cxmake_##T(GM_CX_FN(sin, S)(a.re) * GM_CX_FN(cosh, S)(a.im),                  \
                         GM_CX_FN(cos, S)(a.re) * GM_CX_FN(sinh, S)(a.im));                 \
  }                                                                                         \
  GM_HD T gm_cxcos_##T(T a) {                                                               \
    return gm_cxmake_##T(GM_CX_FN(cos, S)(a.re) * GM_CX_FN(cosh, S)(a.im),                  \
                         -GM_CX_FN(sin, S)(a.re) * GM_CX_FN(sinh, S)(a.im));                \
  }                                                                                         \
  GM_HD T gm_cxsinh_##T(T a) {                                                              \
    T s = gm_cxsin_##T(gm_cxmake_##T(-a.im, a.re));                                         \
    return gm_cxmake_##T(s.im, -s.re);                                                      \
  }                                                                                         \
  GM_HD T gm_cxcosh_##T(T a) { return gm_cxcos_##T(gm_cxmake_##T(-a.im, a.re)); }           \
  GM_HD T gm_cxtanh_##T(T a) {                                                              \
    if (GM_CX_FN(fabs, S)(a.re) > 20)                                                       \
      return gm_cxmake_##T(GM_CX_FN(copysign, S)((R)1, a.re),                               \
                           GM_CX_FN(copysign, S)((R)0, GM_CX_FN(sin, S)(2 * a.im)));        \
    R t = GM_CX_FN(tan, S)(a.im), b = 1 + t * t, s = GM_CX_FN(sinh, S)(a.re);               \
    R c = GM_CX_FN(sqrt, S)(1 + s * s), d = 1 + b * s * s;                                  \
    return gm_cxmake_##T(b * c * s / d, t / d);                                             \
  }                                                                                         \
  GM_HD T gm_cxtan_##T(T a) {                                                               \
    T h = gm_cxtanh_##T(gm_cxmake_##T(-a.im, a.re));                                        \
    return gm_cxmake_##T(h.im, -h.re);                                                      \
  }

GM_CX_ROWS(GM_CX_DEFINE_BASIC_)
GM_CX_ROWS(GM_CX_DEFINE_DIV_)
GM_CX_ROWS(GM_CX_DEFINE_TRANSC_)
GM_CX_ROWS(GM_CX_DEFINE_TRIG_)

#endif
