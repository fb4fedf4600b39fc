/* Selection of the first k of a line's stable sort without sorting the
 * line (topk, kthvalue for small k: core/ops/select.c), shared by the host
 * (src/host/select.c) and the devices (kernels/radix.cu).  An element
 * ranks by (its radix key, kernels/radix.h, with the order's complement;
 * its position): the stable sort's order exactly, NaN and -0.0 included.
 * A caller keeps the k least of a chunk of the line in a bounded max-heap
 * (most elements only compare with its top); the chunks' heaps are then
 * merged by one caller into the line's k, sorted. */
#ifndef GM_KERNELS_SELECT_H
#define GM_KERNELS_SELECT_H

#include "radix.h"

#define GM_SELECT_MAX_K 1024 /* larger k: the line is sorted (ordering.lua) */

typedef struct gm_sel_item {
  uint64_t key;
  int64_t pos;
} gm_sel_item;

GM_HD int gm_sel_less(gm_sel_item a, gm_sel_item b) { return a.key < b.key || (a.key == b.key && a.pos < b.pos); }

/* h[0, n) a max-heap but for h[i]: moved down to its place. */
GM_HD void gm_sel_sift_down(gm_sel_item *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < n && gm_sel_less(h[m], h[l])) m = l;
    if (l + 1 < n && gm_sel_less(h[m], h[l + 1])) m = l + 1;
    if (m == i) return;
    gm_sel_item t = h[i];
    h[i] = h[m], h[m] = t, i = m;
  }
}

/* it offered to the heap h of n (at most k) least items; returns its new n. */
GM_HD size_t gm_sel_offer(gm_sel_item *h, size_t n, size_t k, gm_sel_item it) {
  if (n == k) {
    if (k == 0 || !gm_sel_less(it, h[0])) return n;
    h[0] = it;
    gm_sel_sift_down(h, n, 0);
    return n;
  }
  size_t i = n++;
  while (i > 0 && gm_sel_less(h[(i - 1) / 2], it)) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
  h[i] = it;
  return n;
}

/* The heap h of n items sorted ascending in place (heapsort). */
GM_HD void gm_sel_sort(gm_sel_item *h, size_t n) {
  for (size_t e = n; e > 1; e--) {
    gm_sel_item t = h[0];
    h[0] = h[e - 1], h[e - 1] = t;
    gm_sel_sift_down(h, e - 1, 0);
  }
}

/* Chunk c of a line: the k least of its elements as a heap at h + c k,
 * its size in cnt[c]; then one caller merges the chunks' heaps into
 * h[0, k') sorted (k' = min(k, len)). */
GM_HD void gm_sel_merge(size_t k, size_t nch, gm_sel_item *h, const size_t *cnt) {
  size_t n = cnt[0];
  for (size_t c = 1; c < nch; c++)
    for (size_t i = 0; i < cnt[c]; i++) n = gm_sel_offer(h, n, k, h[c * k + i]);
  gm_sel_sort(h, n);
}

#define GM_SELECT_FNS_(T, E, ...)                                                                           \
  GM_HD void gm_sel_chunk_##E(int desc, size_t k, size_t c, size_t chunk, size_t len, size_t st, const T *x, \
                              gm_sel_item *h, size_t *cnt) {                                                 \
    size_t n = 0, lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;                                  \
    gm_sel_item *hc = h + c * k;                                                                             \
    for (size_t i = lo; i < hi; i++) {                                                                       \
      gm_sel_item it = {gm_radix_key_##E(x[i * st], desc), (int64_t)i};                                      \
      if (n < k || (k > 0 && gm_sel_less(it, hc[0]))) n = gm_sel_offer(hc, n, k, it);                                   \
    }                                                                                                        \
    cnt[c] = n;                                                                                              \
  }                                                                                                          \
  /* the sorted h[0, k) written out: values of x (stride st) and 1-based                \
   * positions at stride inner */                                                                            \
  GM_HD void gm_sel_out_##E(size_t k, const gm_sel_item *h, size_t st, const T *x, size_t inner, T *y,        \
                            int64_t *yi) {                                                                   \
    for (size_t j = 0; j < k; j++) {                                                                         \
      y[j * inner] = x[(size_t)h[j].pos * st];                                                               \
      yi[j * inner] = h[j].pos + 1;                                                                          \
    }                                                                                                        \
  }                                                                                                          \
  /* A whole line by one caller (many lines) through the heap h[0, k). */                                    \
  GM_HD void gm_sel_line_##E(int desc, size_t k, size_t len, size_t inner, const T *x, T *y, int64_t *yi,      \
                             gm_sel_item *h) {                                                               \
    size_t cnt = 0;                                                                                          \
    gm_sel_chunk_##E(desc, k, 0, len, len, inner, x, h, &cnt);                                               \
    gm_sel_sort(h, cnt);                                                                                     \
    gm_sel_out_##E(cnt, h, inner, x, inner, y, yi);                                                          \
  }
GM_REAL_CTYPES(GM_SELECT_FNS_)
#undef GM_SELECT_FNS_

#endif
