/* The axis-reduction area's backend sub-table (gm_backend.reduce_axis):
 * m:sum(axis), m:mean(axis), m:prod(axis), m:max(axis), m:min(axis),
 * m:var(axis), m:std(axis), m:argmax(axis), m:argmin(axis),
 * gm.logsumexp and gm.softmax, with the ops and accumulators of
 * kernels/reduce_axis.h (GM_AX_*), shared by every backend.
 *
 * The entry takes ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space at the first visible
 * element of contiguous arrays: x is (outer, len, inner) row-major and is
 * reduced over len into y, outer * inner elements (x's shape for softmax),
 * of x's ctype, or int64 for argmax/argmin (1-based indices).  Bool and
 * integer x take sum, prod (y int64, uint64 for unsigned x; wrapping),
 * max, min and argmax/argmin only (the core copies them to double for the
 * others).  outer * inner > 0 and len > 0. */
#ifndef GM_CORE_REDUCE_AXIS_OPS_H
#define GM_CORE_REDUCE_AXIS_OPS_H

#include <stddef.h>

#include "../../../kernels/reduce_axis.h"
#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_reduce_axis_ops {
  /* y := op of x over len; ddof 1 for the unbiased var/std, else 0 */
  gm_status (*axis)(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t len, size_t inner,
                    const void *x, void *y);
  /* The same on a strided x (optional; NULL: the core stages such views
   * through a contiguous copy): element (o, k, c) of x lies at
   * o * so + k * sl + c, y is contiguous as above; never softmax. */
  gm_status (*axis_strided)(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t so, size_t len,
                            size_t sl, size_t inner, const void *x, void *y);
} gm_reduce_axis_ops;

/* The host implementation (src/host/reduce_axis.c). */
extern const gm_reduce_axis_ops gm_host_reduce_axis_ops;

#endif
