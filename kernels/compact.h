/* Stream compaction (masked_select, m[mask] reads, nonzero, argwhere):
 * the per-chunk pieces shared by the host loops (src/host/index.c) and
 * the device kernels (kernels/index.cu, which the emulated device runs
 * too).  A flat, contiguous m of n elements is cut into chunks of
 * `chunk` elements (kernels/scan.h's gm_scan_nchunks/gm_scan_chunk_end):
 * pass 1 counts each chunk's nonzero elements (gm_compact_count_E, one
 * caller per chunk), pass 2 turns the counts into each chunk's first
 * output position (gm_compact_offsets: an exclusive scan, one caller),
 * pass 3 has each chunk write its selected elements from there in order
 * (gm_compact_values_U: bool masks, by element size; gm_compact_coords_E:
 * the 1-based coordinates of nonzero/argwhere).  Every output element has
 * one writer and the order is row-major, whatever the chunking.  Nonzero
 * means != 0, so NaN counts (NumPy's rule). */
#ifndef GM_KERNELS_COMPACT_H
#define GM_KERNELS_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"
#include "scan.h"

#define GM_COMPACT_MAX_RANK 8 /* the library's GM_MAX_RANK */

/* Where coordinates go: m's dims, and which: axis < 0 writes every
 * axis, c[k rank + d] (argwhere's n x rank); axis a >= 0 only axis a,
 * c[k] (one of nonzero's per-axis mats). */
typedef struct gm_compact_dims {
  int rank, axis;
  size_t dims[GM_COMPACT_MAX_RANK];
} gm_compact_dims;

/* Pass 2: counts c[0, nc) := the first output position of each chunk;
 * c[nc] := the total. */
GM_HD void gm_compact_offsets(size_t nc, int64_t *c) {
  int64_t acc = 0;
  for (size_t k = 0; k < nc; k++) {
    int64_t t = c[k];
    c[k] = acc;
    acc += t;
  }
  c[nc] = acc;
}

/* 1-based coordinates of flat position i written as selected element k. */
GM_HD void gm_compact_put_coords(const gm_compact_dims *d, size_t i, size_t k, int64_t *c) {
  for (int a = d->rank - 1; a >= 0; a--) {
    int64_t v = (int64_t)(i % d->dims[a]) + 1;
    if (d->axis < 0) c[k * (size_t)d->rank + (size_t)a] = v;
    else if (a == d->axis) c[k] = v;
    i /= d->dims[a];
  }
}

#define GM_COMPACT_FNS_(T, E, ...)                                                                   \
  /* Pass 1: nonzero elements of m[a, b) (branch-free: vectorizes) */                                \
  GM_HD int64_t gm_compact_count_##E(size_t a, size_t b, const T *m) {                              \
    int64_t n = 0;                                                                                   \
    for (size_t k = a; k < b; k++) n += m[k] != 0;                                                   \
    return n;                                                                                        \
  }                                                                                                  \
  /* Pass 3 of nonzero/argwhere: coordinates of m[a, b)'s nonzeros from o */                         \
  GM_HD void gm_compact_coords_##E(size_t a, size_t b, const T *m, int64_t o, const gm_compact_dims *d, \
                                   int64_t *c) {                                                     \
    for (size_t k = a; k < b; k++)                                                                   \
      if (m[k] != 0) gm_compact_put_coords(d, k, (size_t)o++, c);                                    \
  }
GM_REAL_CTYPES(GM_COMPACT_FNS_)
#undef GM_COMPACT_FNS_

/* Pass 3 of a bool mask: x[k] for the true m[k] of [a, b) to y[o, hi)
 * in order, moved as U of the element's size.  The store does not wait
 * for the mask (no branch to mispredict on a random mask): while p < hi a
 * selected element is still ahead in the chunk and overwrites y[p], so
 * the chunk writes only its own range. */
#define GM_COMPACT_VALUES_(U)                                                                        \
  GM_HD void gm_compact_values_##U(size_t a, size_t b, const bool *m, int64_t o, int64_t hi, const U *x, \
                                   U *y) {                                                           \
    size_t p = (size_t)o, end = (size_t)hi;                                                          \
    for (size_t k = a; k < b && p < end; k++) {                                                      \
      y[p] = x[k];                                                                                   \
      p += m[k];                                                                                     \
    }                                                                                                \
  }
GM_COMPACT_VALUES_(uint8_t)
GM_COMPACT_VALUES_(uint16_t)
GM_COMPACT_VALUES_(uint32_t)
GM_COMPACT_VALUES_(uint64_t)
/* 16-byte elements (complex128) move as the struct: no wider integer */
GM_COMPACT_VALUES_(gm_complex128)
#undef GM_COMPACT_VALUES_

#endif
