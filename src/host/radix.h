/* The host's radix sort of lines (src/host/radix.c, kernels/radix.h),
 * which src/host/scan.c runs for the sorting ops of lines of
 * gm_sort_radix_min() elements or more, and the selection of topk and
 * kthvalue (src/host/select.c, kernels/select.h). */
#ifndef GM_HOST_RADIX_H
#define GM_HOST_RADIX_H

#include <stddef.h>
#include <stdint.h>

#include "../core/model/ctype.h"
#include "../core/model/status.h"

/* The lines of x (outer, len, inner) sorted for op (GM_LINES_ARGSORT with
 * flag descending, MODE or UNIQUE: kernels/scan.h) into y (x's type, or
 * NULL) and yi (int64, 1-based, or NULL for the values only: the sort of
 * core/ops/scan.h's gm_sort_axis), both (outer, gm_lines_out_len, inner);
 * chunk: a long line's chunk (gm_sort_radix_chunk()). */
typedef struct gm_host_radix_args {
  gm_ctype t;
  int op, flag;
  size_t outer, len, inner, chunk;
  const void *x;
  void *y;
  int64_t *yi;
} gm_host_radix_args;

gm_status gm_host_radix(const gm_host_radix_args *a);

/* gm_scan_ops' select on the host (src/host/select.c): long lines in
 * chunks over the cores, many lines one per caller. */
gm_status gm_host_select(void *ctx, gm_ctype t, int desc, size_t k, size_t outer, size_t len, size_t inner,
                         const void *x, void *y, int64_t *yi);

#endif
