/* The indexing area's backend sub-table (gm_backend.index): the
 * gather/scatter engine every indexing form runs on (core/ops/index.h), with
 * the per-item functions of kernels/index.h shared by every backend.
 *
 * Entries take ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space; x and y point at a
 * view's first element and offsets (int64, checked by the core) count
 * elements from there; dst/start/spos describe a grouped scatter
 * (kernels/index.h): runs > 0, start has runs + 1 entries. */
#ifndef GM_CORE_INDEX_OPS_H
#define GM_CORE_INDEX_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "../../../kernels/compact.h"
#include "../../../kernels/index.h"
#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_index_ops {
  /* y[i] := x[off[i]] for i < n (y contiguous) */
  gm_status (*gather)(void *ctx, gm_ctype t, size_t n, const void *x, const int64_t *off, void *y);
  /* y[dst[r]] := the run r of src combined by mode (GM_INDEX_*) */
  gm_status (*scatter)(void *ctx, gm_ctype t, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                       const int64_t *spos, const void *src, void *y);
  /* Stream compaction (kernels/compact.h) of m (ctype mt, n > 0 elements,
   * contiguous) in chunks of `chunk`: with neither y nor c, *count := how
   * many elements are nonzero; else, in row-major order, y := x's
   * elements (esize bytes each) where the bool m is true (when y), c :=
   * the coordinates of the nonzero elements laid out by d (when c). */
  gm_status (*compact)(void *ctx, gm_ctype mt, size_t n, size_t chunk, const void *m, size_t esize, const void *x,
                       void *y, const gm_compact_dims *d, int64_t *c, size_t *count);
  /* Its inverse: x's elements (esize bytes each, n > 0, contiguous) where
   * the bool m is true take src's leading elements in row-major order (src
   * holds at least as many as m selects). */
  gm_status (*expand)(void *ctx, size_t n, size_t chunk, const void *m, size_t esize, const void *src, void *x);
} gm_index_ops;

/* The host implementation (src/host/index.c). */
extern const gm_index_ops gm_host_index_ops;

#endif
