/* The strided elementwise engine's backend sub-table (gm_backend.strided).
 *
 * Entries take ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space at each operand's
 * element (0, ..., 0); the gm_strided (kernels/strided.h) gives the
 * iteration space (already coalesced) and every operand's strides in
 * elements, 0 on broadcast axes.  A NULL input pointer is a number
 * operand (gm_strided.scalar).  The output is operand 0; its strides
 * never repeat an element.  The core (core/ops/broadcast.c) has validated
 * everything: entries only compute. */
#ifndef GM_CORE_STRIDED_EW_OPS_H
#define GM_CORE_STRIDED_EW_OPS_H

#include "../../../kernels/strided_ew.h"
#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_strided_ew_ops {
  /* out := op(a, b)  (operands: 0 out, 1 a, 2 b) */
  gm_status (*binary)(void *ctx, gm_ctype t, gm_bcast_op op, const gm_strided *s, void *out, const void *a,
                      const void *b);
  /* out := cond != 0 ? a : b  (operands: 0 out, 1 cond, 2 a, 3 b) */
  gm_status (*where)(void *ctx, gm_ctype t, const gm_strided *s, void *out, const void *cond, const void *a,
                     const void *b);
} gm_strided_ew_ops;

/* The host implementation (src/host/strided.c). */
extern const gm_strided_ew_ops gm_host_strided_ew_ops;

#endif
