/* The scan area's backend sub-table (gm_backend.scan): cumulative sums
 * and products and the stable sort along an axis, with the per-line
 * functions of kernels/scan.h shared by every backend.
 *
 * Entries take ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space at the first element of
 * contiguous arrays: x is (outer, len, inner) row-major; y is (outer, len
 * + initial, inner) for scan (initial: a leading identity element), x's
 * dims for sort.  Float ctypes only; outer * inner > 0. */
#ifndef GM_CORE_SCAN_OPS_H
#define GM_CORE_SCAN_OPS_H

#include <stddef.h>

#include "../../kernels/scan.h"
#include "ctype.h"
#include "status.h"

typedef struct gm_scan_ops {
  /* y := running op (GM_SCAN_SUM, GM_SCAN_PROD) of x along len */
  gm_status (*scan)(void *ctx, gm_ctype t, int op, int initial, size_t outer, size_t len, size_t inner,
                    const void *x, void *y);
  /* y := x's lines sorted (stable; desc: descending; NaN as GM_SORT_BEFORE) */
  gm_status (*sort)(void *ctx, gm_ctype t, int desc, size_t outer, size_t len, size_t inner, const void *x,
                    void *y);
} gm_scan_ops;

/* The host implementation (src/host/scan.c). */
extern const gm_scan_ops gm_host_scan_ops;

#endif
