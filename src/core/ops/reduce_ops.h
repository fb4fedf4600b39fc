/* The reduce area's backend sub-table (gm_backend.reduce): whole-array
 * reductions to one number (m:sum(), m:min(), m:max(); m:mean() divides
 * the sum).
 *
 * The entry takes ctx first (NULL on the host, the gm_device on a device)
 * and a raw pointer in that backend's memory space at the first visible
 * element of a contiguous array of n > 0 elements; the result is written
 * to host memory.  Sums accumulate in double whatever the ctype.  NaN
 * rule, the same on every backend: any NaN element makes the result NaN
 * (min and max included, as numpy's np.min/np.max; C's fmin would skip
 * it). */
#ifndef GM_CORE_REDUCE_OPS_H
#define GM_CORE_REDUCE_OPS_H

#include <stddef.h>

#include "../model/ctype.h"
#include "../model/status.h"

typedef enum gm_reduce_op { GM_REDUCE_SUM = 0, GM_REDUCE_MIN, GM_REDUCE_MAX } gm_reduce_op;

typedef struct gm_reduce_ops {
  /* *result := sum / min / max of x[0..n) (n > 0) */
  gm_status (*reduce)(void *ctx, gm_ctype t, gm_reduce_op op, size_t n, const void *x, double *result);
} gm_reduce_ops;

/* The host implementation (src/host/reduce.c); the emulated device uses it
 * on its own memory. */
extern const gm_reduce_ops gm_host_reduce_ops;

#endif
