/* Building the strided engine's iteration space (kernels/strided_ew.h) from
 * mats: NumPy's broadcasting rule for the result dims, each operand's
 * element strides aligned at the last axis (0 where it stretches), and
 * coalescing, as NumPy's nditer and PyTorch's TensorIterator do: size-1
 * axes are dropped and neighbouring axes merge when every operand steps
 * through them as through one axis, so a contiguous op is one flat loop
 * and a row broadcast is rows x one contiguous row. */
#ifndef GM_CORE_STRIDED_H
#define GM_CORE_STRIDED_H

#include "../model/mat.h"
#include "strided_ew_ops.h"

/* Result dims of broadcasting (rank_a, da) with (rank_b, db); GM_EINVAL
 * "cannot broadcast 2x3 with 3x2" when they do not. */
gm_status gm_broadcast_dims(int rank_a, const size_t *da, int rank_b, const size_t *db, int *rank,
                            size_t dims[GM_MAX_RANK]);

/* Writes "2x3" (rank 0: "scalar") into buf. */
void gm_format_dims(int rank, const size_t *dims, char *buf, size_t size);

/* Starts s over the result dims with no operands. */
void gm_strided_init(gm_strided *s, int rank, const size_t *dims);
/* Adds operand k: mat m (its strides aligned at the last axis, 0 on
 * stretched axes; m's dims must broadcast to s's) or, m NULL, the
 * number v (stride 0 everywhere). */
void gm_strided_operand(gm_strided *s, int k, const gm_mat *m, double v);
/* Drops size-1 axes and merges neighbours (at least one axis stays). */
void gm_strided_coalesce(gm_strided *s);

#endif
