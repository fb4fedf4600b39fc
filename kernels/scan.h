/* Per-line functions of the scans and the sort along an axis
 * (cumulative_sum, cumulative_prod, sort), shared by the host loops
 * (src/host/scan.c) and the CUDA kernels (kernels/scan.cu, which the
 * emulated device also runs).  A mat is seen as (outer, len, inner)
 * row-major; a line is the len elements of one (outer, inner) pair, at
 * stride inner.  One caller (host thread or CUDA thread) owns a whole
 * line, so every output element has one writer and the results do not
 * depend on the device or the thread count.  Float ctypes
 * (GM_FLOAT_CTYPES: NaN ordering is a floating notion), and uint64 for
 * the scans of bool and integer mats (below). */
#ifndef GM_KERNELS_SCAN_H
#define GM_KERNELS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/ctype_list.h"
#include "hd.h"

#define GM_SCAN_SUM 0
#define GM_SCAN_PROD 1

/* The ordering of sort: ascending puts NaN last (NumPy); descending is
 * its mirror, NaN first (NaN counts as the largest value, as PyTorch's
 * descending sort).  Equal keys (-0.0 and 0.0 too) keep their order. */
#define GM_SORT_BEFORE(a, b, desc) \
  ((desc) ? ((a) > (b) || ((a) != (a) && (b) == (b))) : ((a) < (b) || ((b) != (b) && (a) == (a))))

/* Merges src[lo, mid) and src[mid, hi) into dst[lo, hi): the right run's
 * element goes first only when strictly before (stability). */
#define GM_SCAN_FNS_(T, ...)                                                                        \
  GM_HD void gm_scan_line_##T(int op, int initial, size_t len, size_t inner, const T *x, T *y) {      \
    T acc = op == GM_SCAN_SUM ? (T)0 : (T)1;                                                        \
    size_t j = 0;                                                                                   \
    if (initial) y[j++ * inner] = acc;                                                              \
    for (size_t k = 0; k < len; k++, j++) {                                                         \
      acc = op == GM_SCAN_SUM ? acc + x[k * inner] : acc * x[k * inner];                            \
      y[j * inner] = acc;                                                                           \
    }                                                                                               \
  }                                                                                                 \
  GM_HD void gm_sort_merge_##T(int desc, const T *src, T *dst, size_t lo, size_t mid, size_t hi) {   \
    size_t i = lo, j = mid, k = lo;                                                                 \
    while (i < mid && j < hi) dst[k++] = GM_SORT_BEFORE(src[j], src[i], desc) ? src[j++] : src[i++]; \
    while (i < mid) dst[k++] = src[i++];                                                            \
    while (j < hi) dst[k++] = src[j++];                                                             \
  }                                                                                                 \
  /* Stable bottom-up merge sort of a line into y, through w[0, 2 len). */                          \
  GM_HD void gm_sort_line_##T(int desc, size_t len, size_t inner, const T *x, T *y, T *w) {           \
    T *a = w, *b = w + len;                                                                         \
    for (size_t k = 0; k < len; k++) a[k] = x[k * inner];                                           \
    for (size_t width = 1; width < len; width *= 2) {                                               \
      for (size_t lo = 0; lo < len; lo += 2 * width) {                                              \
        size_t mid = len - lo < width ? len : lo + width;                                           \
        size_t hi = len - mid < width ? len : mid + width;                                          \
        gm_sort_merge_##T(desc, a, b, lo, mid, hi);                                                 \
      }                                                                                             \
      T *t = a;                                                                                     \
      a = b;                                                                                        \
      b = t;                                                                                        \
    }                                                                                               \
    for (size_t k = 0; k < len; k++) y[k * inner] = a[k];                                           \
  }
GM_FLOAT_CTYPES(GM_SCAN_FNS_)
#undef GM_SCAN_FNS_

/* Cumulative sums and products of bool and integer mats: the core widens
 * them to int64 or uint64 (NumPy's result types) and scans the bits as
 * uint64_t here, which wraps modulo 2^64 as NumPy's int64 does, with no
 * signed overflow. */
GM_HD void gm_scan_line_uint64_t(int op, int initial, size_t len, size_t inner, const uint64_t *x, uint64_t *y) {
  uint64_t acc = op == GM_SCAN_SUM ? 0u : 1u;
  size_t j = 0;
  if (initial) y[j++ * inner] = acc;
  for (size_t k = 0; k < len; k++, j++) {
    acc = op == GM_SCAN_SUM ? acc + x[k * inner] : acc * x[k * inner];
    y[j * inner] = acc;
  }
}

/* The line of item i of (outer, inner): its first element's offset in a
 * mat whose axis has n elements. */
GM_HD size_t gm_scan_line_start(size_t i, size_t n, size_t inner) { return i / inner * n * inner + i % inner; }

#endif
