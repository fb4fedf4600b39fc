/* Staging of non-contiguous operands (strided views) for ops that work
 * on one block of memory: gm_acquire gathers such an operand into a
 * contiguous temporary on the op's place (input, io) and gm_release
 * scatters the temporary back (output, io), with the place's
 * strided_copy (host loop or kernels/strided.cu).  The view's own facet
 * is watched with the operand's direction for the whole call, so facet
 * semantics (output -> io for views that do not see all storage) hold. */
#ifndef GM_CORE_STAGE_H
#define GM_CORE_STAGE_H

#include "exec.h"

/* o->m is not contiguous: watches it, makes the temporary, gathers;
 * o->ptr is the temporary's memory.  All or nothing. */
gm_status gm_stage_in(const gm_exec *e, gm_operand *o);
/* Scatters (when scatter and o writes), unwatches, frees the temporary. */
gm_status gm_stage_out(const gm_exec *e, gm_operand *o, bool scatter);

/* dst := src for two views of the same dims, in one pass of e's
 * strided_copy through both views' strides, watched in place (no
 * staging: gathering src, copying and scattering into dst took three
 * passes and two temporaries for `X[{{2, 501}, {2, 501}}] = Y[...]`). */
gm_status gm_copy_views(const gm_exec *e, gm_mat *src, gm_mat *dst);

/* A contiguous copy of m on the host or m's place (a new mat like m). */
gm_status gm_mat_contiguous_copy(gm_mat *m, gm_mat **out);

#endif
