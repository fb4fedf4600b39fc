/* Broadcasting elementwise ops (gm.add, gm.sub, gm.cmul, gm.cdiv, gm.pow,
 * gm.cmax, gm.cmin, the comparisons gm.gt ... gm.ne, gm.where):
 * validation and dispatch to the strided engine (core/strided.h, the
 * backends' gm_strided_ops).
 *
 * Operands are mats or numbers; the mats' dims broadcast (NumPy's rule)
 * to exactly out's dims.  Mats may be strided views: the engine walks
 * their strides (no staging copy).  out may be one of the input mats (or
 * a view of exactly its elements); an input that otherwise shares
 * storage with out is copied first (threads would read elements others
 * already wrote).  Validation comes first: a failing op
 * changes nothing.  The op runs where the mats live (gm_exec_choose). */
#ifndef GM_CORE_BROADCAST_H
#define GM_CORE_BROADCAST_H

#include "strided.h"

/* An operand: the mat m, or when m is NULL the number v. */
typedef struct gm_bc_arg {
  gm_mat *m;
  double v;
} gm_bc_arg;

/* Public name of op ("add", "gt", ...). */
const char *gm_bcast_name(gm_bcast_op op);

/* Result dims of the operands (numbers have rank 0); GM_EINVAL "cannot
 * broadcast AxB with CxD". */
gm_status gm_bc_result_dims(const gm_bc_arg *args, int n, int *rank, size_t dims[GM_MAX_RANK]);

/* The mats' common ctype *t and whether they are all cuda-enabled; the
 * numbers take the mats' ctype.  GM_EINVAL "mixed ctypes T and U" (*bad:
 * the 0-based operand) or, without a mat, "mat expected, got number (one
 * operand must be a mat)" (*bad: the last operand). */
gm_status gm_bc_common(const gm_bc_arg *args, int n, gm_ctype *t, bool *cuda, int *bad);

/* out := op(a, b) elementwise with broadcasting. */
gm_status gm_broadcast_binary(gm_bcast_op op, gm_bc_arg a, gm_bc_arg b, gm_mat *out);
/* out := cond != 0 ? a : b elementwise with broadcasting. */
gm_status gm_broadcast_where(gm_bc_arg cond, gm_bc_arg a, gm_bc_arg b, gm_mat *out);

#endif
