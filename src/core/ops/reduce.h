/* Whole-mat reductions (m:sum(), m:mean(), m:min(), m:max()): validation
 * and dispatch.  The place is chosen like any op's (gm_exec_choose: the
 * device inside with_cuda for cuda-enabled mats), x is acquired as input
 * and the place's gm_reduce_ops computes the number.  Empty mats: the sum
 * is 0; min and max are a GM_EINVAL error ("min: the mat is empty"). */
#ifndef GM_CORE_REDUCE_H
#define GM_CORE_REDUCE_H

#include "../model/mat.h"
#include "reduce_ops.h"

/* Lua/API name of a reduction ("sum", "min", "max"). */
const char *gm_reduce_name(gm_reduce_op op);
/* *out := the reduction of x's visible elements. */
gm_status gm_reduce(gm_mat *x, gm_reduce_op op, double *out);

#endif
