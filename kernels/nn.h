/* Index helpers and element functions of the NN ops (MGL-MAT §12:
 * convolve!, derive-convolve!, max-pool!, derive-max-pool!) for two
 * spatial dimensions, shared by the host loops (src/host/nn.c) and the
 * CUDA kernels (kernels/nn.cu).
 *
 * Geometry (all 0-based here): the anchor of the kernel (w, or the pool
 * window) is placed over x at p = start + o * stride for output index o;
 * kernel element k then covers x index p + k - anchor, and elements that
 * fall outside x count as 0 (convolution) or are skipped (pooling).
 *
 * Every output element and every gradient element is computed by ONE
 * call that gathers what it needs (no scatter), so a CUDA thread per
 * element owns its result: the derivatives are race-free without atomics
 * except the per-batch partial sums of dW. */
#ifndef GM_KERNELS_NN_H
#define GM_KERNELS_NN_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

typedef struct gm_nn_geom {
  int64_t batch;           /* B (1 when not batched) */
  int64_t xh, xw;          /* spatial dims of x */
  int64_t yh, yw;          /* spatial dims of y */
  int64_t kh, kw;          /* dims of w or of the pool window */
  int64_t start0, start1;  /* 0-based */
  int64_t stride0, stride1;/* >= 1 */
  int64_t anchor0, anchor1;/* 0-based, inside the kernel */
} gm_nn_geom;

/* Number of application points along a dimension of size dim. */
GM_HD int64_t gm_nn_points(int64_t dim, int64_t start, int64_t stride) {
  return start < dim ? 1 + (dim - 1 - start) / stride : 0;
}

/* Floor division for any sign of a, b > 0. */
GM_HD int64_t gm_nn_floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Output indices o in [*lo, *hi) with lo_off <= o * stride <= hi_off and
 * 0 <= o < n. */
GM_HD void gm_nn_span(int64_t lo_off, int64_t hi_off, int64_t stride, int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = -gm_nn_floordiv(-lo_off, stride); /* ceil */
  int64_t b = gm_nn_floordiv(hi_off, stride) + 1;
  *lo = a < 0 ? 0 : a;
  *hi = b > n ? n : b;
  if (*hi < *lo) *hi = *lo;
}

/* Kernel indices k in [*lo, *hi) that put p + k - anchor inside [0, dim). */
GM_HD void gm_nn_kernel_range(int64_t p, int64_t anchor, int64_t kdim, int64_t dim, int64_t *lo, int64_t *hi) {
  int64_t a = anchor - p, b = dim + anchor - p;
  *lo = a < 0 ? 0 : a;
  *hi = b > kdim ? kdim : b;
  if (*hi < *lo) *hi = *lo;
}

/* Outputs o (along one dim) whose window covers x index i. */
GM_HD void gm_nn_cover(int64_t i, int64_t start, int64_t stride, int64_t anchor, int64_t kdim, int64_t n,
                       int64_t *lo, int64_t *hi) {
  gm_nn_span(i + anchor - (kdim - 1) - start, i + anchor - start, stride, n, lo, hi);
}

#define GM_NN_DEFINE(T, ...)                                                                     \
  /* conv(x, w) at output (b, oy, ox) */                                                         \
  GM_HD T gm_conv2d_at_##T(const T *x, const T *w, const gm_nn_geom *g, int64_t b, int64_t oy,   \
                           int64_t ox) {                                                         \
    int64_t p0 = g->start0 + oy * g->stride0, p1 = g->start1 + ox * g->stride1;                  \
    int64_t k0lo, k0hi, k1lo, k1hi;                                                              \
    gm_nn_kernel_range(p0, g->anchor0, g->kh, g->xh, &k0lo, &k0hi);                              \
    gm_nn_kernel_range(p1, g->anchor1, g->kw, g->xw, &k1lo, &k1hi);                              \
    const T *xb = x + b * g->xh * g->xw;                                                         \
    T s = 0;                                                                                     \
    for (int64_t k0 = k0lo; k0 < k0hi; k0++) {                                                   \
      const T *xr = xb + (p0 + k0 - g->anchor0) * g->xw + (p1 - g->anchor1);                     \
      const T *wr = w + k0 * g->kw;                                                              \
      for (int64_t k1 = k1lo; k1 < k1hi; k1++) s += wr[k1] * xr[k1];                             \
    }                                                                                            \
    return s;                                                                                    \
  }                                                                                              \
  /* dF/dx at x element (b, i, j): sum of yd * w over the outputs covering it */                 \
  GM_HD T gm_conv2d_dx_at_##T(const T *w, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, \
                              int64_t j) {                                                       \
    int64_t o0lo, o0hi, o1lo, o1hi;                                                              \
    gm_nn_cover(i, g->start0, g->stride0, g->anchor0, g->kh, g->yh, &o0lo, &o0hi);               \
    gm_nn_cover(j, g->start1, g->stride1, g->anchor1, g->kw, g->yw, &o1lo, &o1hi);               \
    const T *ydb = yd + b * g->yh * g->yw;                                                       \
    T s = 0;                                                                                     \
    for (int64_t o0 = o0lo; o0 < o0hi; o0++) {                                                   \
      int64_t k0 = i - (g->start0 + o0 * g->stride0) + g->anchor0;                               \
      for (int64_t o1 = o1lo; o1 < o1hi; o1++) {                                                 \
        int64_t k1 = j - (g->start1 + o1 * g->stride1) + g->anchor1;                             \
        s += ydb[o0 * g->yw + o1] * w[k0 * g->kw + k1];                                          \
      }                                                                                          \
    }                                                                                            \
    return s;                                                                                    \
  }                                                                                              \
  /* dF/dw at w element (k0, k1), batch item b only */                                           \
  GM_HD T gm_conv2d_dw_at_##T(const T *x, const T *yd, const gm_nn_geom *g, int64_t b, int64_t k0, \
                              int64_t k1) {                                                      \
    int64_t o0lo, o0hi, o1lo, o1hi;                                                              \
    gm_nn_span(g->anchor0 - k0 - g->start0, g->xh - 1 + g->anchor0 - k0 - g->start0,             \
               g->stride0, g->yh, &o0lo, &o0hi);                                                 \
    gm_nn_span(g->anchor1 - k1 - g->start1, g->xw - 1 + g->anchor1 - k1 - g->start1, g->stride1, \
               g->yw, &o1lo, &o1hi);                                                             \
    const T *xb = x + b * g->xh * g->xw;                                                         \
    const T *ydb = yd + b * g->yh * g->yw;                                                       \
    T s = 0;                                                                                     \
    for (int64_t o0 = o0lo; o0 < o0hi; o0++) {                                                   \
      int64_t i = g->start0 + o0 * g->stride0 + k0 - g->anchor0;                                 \
      for (int64_t o1 = o1lo; o1 < o1hi; o1++) {                                                 \
        int64_t j = g->start1 + o1 * g->stride1 + k1 - g->anchor1;                               \
        s += ydb[o0 * g->yw + o1] * xb[i * g->xw + j];                                           \
      }                                                                                          \
    }                                                                                            \
    return s;                                                                                    \
  }                                                                                              \
  /* max over the window at output (b, oy, ox); 0 for an empty window; a  \
   * NaN in the window gives NaN */                                                              \
  GM_HD T gm_max_pool_at_##T(const T *x, const gm_nn_geom *g, int64_t b, int64_t oy, int64_t ox) { \
    int64_t p0 = g->start0 + oy * g->stride0, p1 = g->start1 + ox * g->stride1;                  \
    int64_t k0lo, k0hi, k1lo, k1hi;                                                              \
    gm_nn_kernel_range(p0, g->anchor0, g->kh, g->xh, &k0lo, &k0hi);                              \
    gm_nn_kernel_range(p1, g->anchor1, g->kw, g->xw, &k1lo, &k1hi);                              \
    if (k0lo == k0hi || k1lo == k1hi) return 0;                                                  \
    const T *xb = x + b * g->xh * g->xw;                                                         \
    T m = xb[(p0 + k0lo - g->anchor0) * g->xw + (p1 + k1lo - g->anchor1)];                       \
    for (int64_t k0 = k0lo; k0 < k0hi; k0++) {                                                   \
      const T *xr = xb + (p0 + k0 - g->anchor0) * g->xw + (p1 - g->anchor1);                     \
      for (int64_t k1 = k1lo; k1 < k1hi; k1++) {                                                 \
        T e = xr[k1];                                                                            \
        m = (e > m || e != e) && m == m ? e : m;                                                 \
      }                                                                                          \
    }                                                                                            \
    return m;                                                                                    \
  }                                                                                              \
  /* dF/dx at x element (b, i, j) of max pooling: the yd of every covering \
   * window whose maximum equals x there (ties all receive it) */                                \
  GM_HD T gm_max_pool_dx_at_##T(const T *x, const T *y, const T *yd, const gm_nn_geom *g, int64_t b, \
                                int64_t i, int64_t j) {                                          \
    int64_t o0lo, o0hi, o1lo, o1hi;                                                              \
    gm_nn_cover(i, g->start0, g->stride0, g->anchor0, g->kh, g->yh, &o0lo, &o0hi);               \
    gm_nn_cover(j, g->start1, g->stride1, g->anchor1, g->kw, g->yw, &o1lo, &o1hi);               \
    T xe = x[(b * g->xh + i) * g->xw + j];                                                       \
    int64_t yb = b * g->yh * g->yw;                                                              \
    T s = 0;                                                                                     \
    for (int64_t o0 = o0lo; o0 < o0hi; o0++)                                                     \
      for (int64_t o1 = o1lo; o1 < o1hi; o1++)                                                   \
        if (y[yb + o0 * g->yw + o1] == xe) s += yd[yb + o0 * g->yw + o1];                        \
    return s;                                                                                    \
  }

GM_FLOAT_CTYPES(GM_NN_DEFINE)

#endif
