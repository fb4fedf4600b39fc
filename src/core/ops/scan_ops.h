/* The scan area's backend sub-table (gm_backend.scan): cumulative sums
 * and products and the stable sort along an axis, with the per-line
 * functions of kernels/scan.h shared by every backend.
 *
 * Entries take ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space at the first element of
 * contiguous arrays: x is (outer, len, inner) row-major; y is (outer, len
 * + initial, inner) for scan (initial: a leading identity element), x's
 * dims for sort.  Float ctypes only (and uint64 for scan: bool and
 * integer mats, widened by the core); outer * inner > 0. */
#ifndef GM_CORE_SCAN_OPS_H
#define GM_CORE_SCAN_OPS_H

#include <stddef.h>

#include "../../../kernels/scan.h"
#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_scan_ops {
  /* y := running op (GM_SCAN_SUM, GM_SCAN_PROD) of x along len; chunk 0:
   * one caller per line, else the chunked passes of kernels/scan.h over
   * chunks of that many elements (the core's choice, gm_scan_chunk) */
  gm_status (*scan)(void *ctx, gm_ctype t, int op, int initial, size_t outer, size_t len, size_t inner, size_t chunk,
                    const void *x, void *y);
  /* y := x's lines sorted (stable; desc: descending; NaN as GM_SORT_BEFORE) */
  gm_status (*sort)(void *ctx, gm_ctype t, int desc, size_t outer, size_t len, size_t inner, const void *x,
                    void *y);
  /* The index-carrying engine, every ctype: op GM_LINES_* of kernels/scan.h
   * on each line of x into y (x's type; NULL for argsort's indices only)
   * and yi (int64, 1-based), both (outer, gm_lines_out_len(op, len),
   * inner); unique: yi holds 3 len + 1 (scan.h). */
  gm_status (*lines)(void *ctx, gm_ctype t, int op, int flag, size_t outer, size_t len, size_t inner, const void *x,
                     void *y, int64_t *yi);
  /* out[i] := v[i] searched in sorted s[0, n) (through sorter, 1-based
   * positions in 1..n, when not NULL), mode GM_SEARCH_*; m elements */
  gm_status (*search)(void *ctx, gm_ctype t, int mode, size_t n, const void *s, const int64_t *sorter, size_t m,
                      const void *v, void *out);
  /* y, yi (outer, k, inner) := the first k (1 <= k <= min(len,
   * GM_SELECT_MAX_K)) of each line's stable sort (desc: descending) and
   * their 1-based positions, without sorting the lines (kernels/select.h);
   * NULL: not on this backend */
  gm_status (*select)(void *ctx, gm_ctype t, int desc, size_t k, size_t outer, size_t len, size_t inner,
                      const void *x, void *y, int64_t *yi);
} gm_scan_ops;

/* The host implementation (src/host/scan.c). */
extern const gm_scan_ops gm_host_scan_ops;

#endif
