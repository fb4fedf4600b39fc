/* Broadcasting elementwise ops (gm.add, gm.sub, gm.cmul, gm.cdiv, gm.pow,
 * gm.cmax, gm.cmin, the comparisons gm.gt ... gm.ne, gm.where):
 * validation and dispatch to the strided engine (core/ops/strided.h, the
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

/* Kinds of ops, by enum range (ops appended after GM_BC_SHR are in none):
 * the comparisons (bool results), the integer-only ones (// % & | ~ << >>),
 * the bitwise ones (& | ~ << >>: whole numbers only). */
#define GM_BC_IS_CMP(op) gm_bc_is_cmp(op)
#define GM_BC_IS_INT_ONLY(op) ((op) >= GM_BC_FLOORDIV && (op) <= GM_BC_SHR)
#define GM_BC_IS_BITWISE(op) ((op) >= GM_BC_BAND && (op) <= GM_BC_SHR)

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

/* Whether the mats are all cuda-enabled; without a mat GM_EINVAL "mat
 * expected, got number (one operand must be a mat)" (*bad: the last
 * operand). */
gm_status gm_bc_common(const gm_bc_arg *args, int n, bool *cuda, int *bad);

/* Promotion: the caller (src/lua/l_broadcast.c, from lua/gpumat/dtypes.lua's
 * table) picks t, the ctype the op computes in; an input mat of another
 * ctype is converted to t first (a conversion pass on the host into a
 * temporary, then the same-ctype loop or kernel), numbers convert to t as
 * astype does. */

/* Whether op (a gm_bcast_op, or -1 for where) computes in ctype t: the
 * refusal names the op and the ctype ("floor_divide: integer mats only,
 * got a double mat ...", "pow: argument 1 is an int32 mat; this function
 * takes float32/float64 mats ..."). */
gm_status gm_bc_check_kind(int op, gm_ctype t);

/* out := op(a, b) elementwise with broadcasting, computed in ctype t; out
 * is t, or bool for the comparisons (GM_BC_GT ... GM_BC_NE). */
gm_status gm_broadcast_binary(gm_bcast_op op, gm_ctype t, gm_bc_arg a, gm_bc_arg b, gm_mat *out);
/* gm_broadcast_binary for a caller that checked the kind (gm_bc_check_kind)
 * and, when out_fits, made out itself or checked it against
 * gm_bc_result_dims's dims and the result's ctype (the Lua binding's
 * `x + y` and {out = m}): those checks are not run twice (5 % of a
 * 1K-element op). */
gm_status gm_broadcast_binary_checked(gm_bcast_op op, gm_ctype t, gm_bc_arg a, gm_bc_arg b, gm_mat *out,
                                      bool out_fits);
/* out := cond ? a : b elementwise with broadcasting; out is t, a and b
 * are converted to t, a cond of another ctype than bool to bool (nonzero,
 * NaN included, is true). */
gm_status gm_broadcast_where(gm_ctype t, gm_bc_arg cond, gm_bc_arg a, gm_bc_arg b, gm_mat *out);

#endif
