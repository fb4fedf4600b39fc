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

#include "../src/core/model/ctype_list.h"
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

/* ---- The index-carrying engine (every ctype of GM_CTYPES) ----
 * argsort, cummax/cummin, mode and unique, one caller per line as above:
 * gm_lines_line_E(op, flag, len, inner, x, y, yi, wv, wi) with y (values
 * in x's type) and yi (int64) at the line's first output element, wv/wi
 * a scratch of 2 len values and 2 len indices.  Indices written are
 * 1-based (the Lua API's).  Float rows order as GM_SORT_BEFORE; integer
 * and bool rows by < alone (no NaN: the self-comparison would not even
 * compile warning-free). */
#define GM_LINES_ARGSORT 0 /* flag: descending; y may be NULL (indices only) */
#define GM_LINES_CUMEXT 1  /* flag: 1 cummax, 0 cummin (Torch's rule, NaN sticks) */
#define GM_LINES_MODE 2    /* the axis' output length is 1 */
#define GM_LINES_UNIQUE 3  /* one line (outer = inner = 1); yi holds 3 len + 1 */
#define GM_LINES_UNIQUE_ROWS 4 /* unique rows of a contiguous (len, inner) x: one caller; y (len, inner) */

/* searchsorted's sides and isin's (invert) modes */
#define GM_SEARCH_LEFT 0
#define GM_SEARCH_RIGHT 1
#define GM_SEARCH_ISIN 2 /* out is bool: v found (== decides: NaN never is) */
#define GM_SEARCH_NOTIN 3

#define GM_ORD_BEFORE_FLOAT(a, b, desc) GM_SORT_BEFORE(a, b, desc)
#define GM_ORD_BEFORE_EXACT(a, b, desc) ((desc) ? (a) > (b) : (a) < (b))
#define GM_ORD_ISNAN_FLOAT(a) ((a) != (a))
#define GM_ORD_ISNAN_EXACT(a) 0

/* The output length along the axis of op for an input of len. */
GM_HD size_t gm_lines_out_len(int op, size_t len) { return op == GM_LINES_MODE ? 1 : len; }
/* The number of callers (lines) of op: unique rows has one. */
GM_HD size_t gm_lines_count(int op, size_t outer, size_t inner) {
  return op == GM_LINES_UNIQUE_ROWS ? 1 : outer * inner;
}

#define GM_ORD_FNS_(T, E, BEFORE, ISNAN)                                                                  \
  GM_HD void gm_ord_merge_##E(int desc, const T *sv, const int64_t *si, T *dv, int64_t *di, size_t lo, size_t mid, \
                              size_t hi) {                                                                \
    size_t i = lo, j = mid, k = lo;                                                                       \
    while (i < mid && j < hi) {                                                                           \
      size_t s = BEFORE(sv[j], sv[i], desc) ? j++ : i++;                                                  \
      dv[k] = sv[s];                                                                                      \
      di[k++] = si[s];                                                                                    \
    }                                                                                                     \
    for (; i < mid; i++, k++) dv[k] = sv[i], di[k] = si[i];                                               \
    for (; j < hi; j++, k++) dv[k] = sv[j], di[k] = si[j];                                                \
  }                                                                                                       \
  /* Stable merge sort of the line with its 0-based positions; the sorted                                 \
   * run lies at offset (returned) 0 or len of wv and wi. */                                              \
  GM_HD size_t gm_ord_sort_##E(int desc, size_t len, size_t inner, const T *x, T *wv, int64_t *wi) {        \
    T *a = wv, *b = wv + len;                                                                             \
    int64_t *ai = wi, *bi = wi + len;                                                                     \
    for (size_t k = 0; k < len; k++) a[k] = x[k * inner], ai[k] = (int64_t)k;                             \
    for (size_t width = 1; width < len; width *= 2) {                                                     \
      for (size_t lo = 0; lo < len; lo += 2 * width) {                                                    \
        size_t mid = len - lo < width ? len : lo + width;                                                 \
        size_t hi = len - mid < width ? len : mid + width;                                                \
        gm_ord_merge_##E(desc, a, ai, b, bi, lo, mid, hi);                                                \
      }                                                                                                   \
      T *t = a;                                                                                           \
      a = b, b = t;                                                                                       \
      int64_t *ti = ai;                                                                                   \
      ai = bi, bi = ti;                                                                                   \
    }                                                                                                     \
    return a == wv ? 0 : len;                                                                             \
  }                                                                                                       \
  /* Torch's cummax/cummin: a NaN always takes over, nothing takes over                                   \
   * from a NaN but another; ties move the index to the later element. */                                 \
  GM_HD void gm_ord_cumext_##E(int max, size_t len, size_t inner, const T *x, T *y, int64_t *yi) {         \
    T acc = x[0];                                                                                         \
    int64_t idx = 0;                                                                                      \
    for (size_t k = 0; k < len; k++) {                                                                    \
      T v = x[k * inner];                                                                                 \
      if (ISNAN(v) || (!ISNAN(acc) && (max ? v >= acc : v <= acc))) acc = v, idx = (int64_t)k;            \
      y[k * inner] = acc;                                                                                 \
      yi[k * inner] = idx + 1;                                                                            \
    }                                                                                                     \
  }                                                                                                       \
  /* The first longest run of equal sorted values (NaNs count as equal                                    \
   * here, so the smallest mode wins) and its first position. */                                          \
  GM_HD void gm_ord_mode_##E(size_t len, const T *s, const int64_t *si, T *y, int64_t *yi) {              \
    size_t best = 0, best_n = 0;                                                                          \
    for (size_t lo = 0, hi; lo < len; lo = hi) {                                                          \
      for (hi = lo + 1; hi < len && !BEFORE(s[lo], s[hi], 0); hi++) {                                     \
      }                                                                                                   \
      if (hi - lo > best_n) best = lo, best_n = hi - lo;                                                  \
    }                                                                                                     \
    *y = s[best];                                                                                         \
    *yi = si[best] + 1;                                                                                   \
  }                                                                                                       \
  /* The standard's unique_all of a sorted line: values, first positions,                                 \
   * counts and the inverse; NaNs are each distinct (== decides). */                                      \
  GM_HD void gm_ord_unique_##E(size_t len, const T *s, const int64_t *si, T *y, int64_t *yi) {            \
    int64_t u = 0, *first = yi, *count = yi + len, *inverse = yi + 2 * len;                               \
    for (size_t k = 0; k < len; k++) {                                                                    \
      if (k == 0 || !(s[k - 1] == s[k])) {                                                                \
        y[u] = s[k];                                                                                      \
        first[u] = si[k] + 1;                                                                             \
        count[u++] = 0;                                                                                   \
      }                                                                                                   \
      count[u - 1]++;                                                                                     \
      if (si[k] + 1 < first[u - 1]) first[u - 1] = si[k] + 1;                                            \
      inverse[si[k]] = u;                                                                                 \
    }                                                                                                     \
    yi[3 * len] = u;                                                                                      \
  }                                                                                                       \
  /* Rows a, b of k elements: lexicographically before (the sort's order),                                \
   * and equal (==: a row holding NaN equals none). */                                                    \
  GM_HD int gm_ord_row_before_##E(const T *a, const T *b, size_t k) {                                     \
    for (size_t c = 0; c < k; c++) {                                                                      \
      if (BEFORE(a[c], b[c], 0)) return 1;                                                                \
      if (BEFORE(b[c], a[c], 0)) return 0;                                                                \
    }                                                                                                     \
    return 0;                                                                                             \
  }                                                                                                       \
  GM_HD int gm_ord_row_same_##E(const T *a, const T *b, size_t k) {                                       \
    for (size_t c = 0; c < k; c++)                                                                        \
      if (!(a[c] == b[c])) return 0;                                                                      \
    return 1;                                                                                             \
  }                                                                                                       \
  /* Stable merge sort of the n row numbers of x (rows of k) into wi[o, o + n); returns o. */             \
  GM_HD size_t gm_ord_sort_rows_##E(size_t n, size_t k, const T *x, int64_t *wi) {                        \
    int64_t *a = wi, *b = wi + n;                                                                         \
    for (size_t r = 0; r < n; r++) a[r] = (int64_t)r;                                                     \
    for (size_t width = 1; width < n; width *= 2) {                                                       \
      for (size_t lo = 0; lo < n; lo += 2 * width) {                                                      \
        size_t mid = n - lo < width ? n : lo + width, hi = n - mid < width ? n : mid + width;             \
        size_t i = lo, j = mid, o = lo;                                                                   \
        while (i < mid && j < hi) b[o++] = gm_ord_row_before_##E(x + a[j] * k, x + a[i] * k, k) ? a[j++] : a[i++]; \
        while (i < mid) b[o++] = a[i++];                                                                  \
        while (j < hi) b[o++] = a[j++];                                                                   \
      }                                                                                                   \
      int64_t *t = a;                                                                                     \
      a = b, b = t;                                                                                       \
    }                                                                                                     \
    return a == wi ? 0 : n;                                                                               \
  }                                                                                                       \
  /* NumPy's unique(axis) on rows: y the unique rows, yi as unique's. */                                  \
  GM_HD void gm_ord_unique_rows_##E(size_t n, size_t k, const T *x, T *y, int64_t *yi, int64_t *wi) {     \
    const int64_t *s = wi + gm_ord_sort_rows_##E(n, k, x, wi);                                            \
    int64_t u = 0, *first = yi, *count = yi + n, *inverse = yi + 2 * n;                                   \
    for (size_t r = 0; r < n; r++) {                                                                      \
      const T *row = x + s[r] * k;                                                                        \
      if (r == 0 || !gm_ord_row_same_##E(x + s[r - 1] * k, row, k)) {                                    \
        for (size_t c = 0; c < k; c++) y[u * k + c] = row[c];                                             \
        first[u] = s[r] + 1;                                                                              \
        count[u++] = 0;                                                                                   \
      }                                                                                                   \
      count[u - 1]++;                                                                                     \
      inverse[s[r]] = u;                                                                                  \
    }                                                                                                     \
    yi[3 * n] = u;                                                                                        \
  }                                                                                                       \
  GM_HD void gm_lines_line_##E(int op, int flag, size_t len, size_t inner, const T *x, T *y, int64_t *yi,    \
                               T *wv, int64_t *wi) {                                                      \
    if (op == GM_LINES_UNIQUE_ROWS) {                                                                     \
      gm_ord_unique_rows_##E(len, inner, x, y, yi, wi);                                                   \
      return;                                                                                             \
    }                                                                                                     \
    if (op == GM_LINES_CUMEXT) {                                                                          \
      gm_ord_cumext_##E(flag, len, inner, x, y, yi);                                                      \
      return;                                                                                             \
    }                                                                                                     \
    size_t o = gm_ord_sort_##E(op == GM_LINES_ARGSORT && flag, len, inner, x, wv, wi);                    \
    if (op == GM_LINES_MODE) gm_ord_mode_##E(len, wv + o, wi + o, y, yi);                                 \
    if (op == GM_LINES_UNIQUE) gm_ord_unique_##E(len, wv + o, wi + o, y, yi);                             \
    if (op != GM_LINES_ARGSORT) return;                                                                   \
    for (size_t k = 0; k < len; k++) {                                                                    \
      if (y) y[k * inner] = wv[o + k];                                                                    \
      yi[k * inner] = wi[o + k] + 1;                                                                      \
    }                                                                                                     \
  }                                                                                                       \
  /* searchsorted's position (0-based) of v in the sorted s[0, n) (read                                   \
   * through the 1-based sorter when given): left, the first not before v;                                \
   * right, the first v is before. */                                                                     \
  GM_HD size_t gm_search_pos_##E(int right, size_t n, const T *s, const int64_t *sorter, T v) {          \
    size_t lo = 0, hi = n;                                                                                \
    while (lo < hi) {                                                                                     \
      size_t mid = lo + (hi - lo) / 2;                                                                    \
      T e = sorter ? s[sorter[mid] - 1] : s[mid];                                                         \
      if (right ? !BEFORE(v, e, 0) : BEFORE(e, v, 0))                                                     \
        lo = mid + 1;                                                                                     \
      else                                                                                                \
        hi = mid;                                                                                         \
    }                                                                                                     \
    return lo;                                                                                            \
  }                                                                                                       \
  /* Element i of v searched (mode GM_SEARCH_*) into out: int64 1-based                                   \
   * positions, or bool. */                                                                               \
  GM_HD void gm_search_one_##E(int mode, size_t n, const T *s, const int64_t *sorter, const T *v, size_t i, \
                               void *out) {                                                               \
    size_t p = gm_search_pos_##E(mode == GM_SEARCH_RIGHT, n, s, sorter, v[i]);                            \
    if (mode <= GM_SEARCH_RIGHT) {                                                                        \
      ((int64_t *)out)[i] = (int64_t)p + 1;                                                               \
      return;                                                                                             \
    }                                                                                                     \
    bool found = p < n && (sorter ? s[sorter[p] - 1] : s[p]) == v[i];                                     \
    ((bool *)out)[i] = found != (mode == GM_SEARCH_NOTIN);                                                \
  }
#define GM_ORD_ROW_(K, T, E, ...) GM_ORD_FNS_(T, E, GM_ORD_BEFORE_##K, GM_ORD_ISNAN_##K)
GM_FLOAT_CTYPES_WITH(GM_ORD_ROW_, FLOAT)
GM_BOOL_CTYPES_WITH(GM_ORD_ROW_, EXACT)
GM_INTEGER_CTYPES_WITH(GM_ORD_ROW_, EXACT)
#undef GM_ORD_ROW_
#undef GM_ORD_FNS_

#endif
