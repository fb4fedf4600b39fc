/* Reductions along an axis and their whole-mat forms (m:sum(axis),
 * m:argmax(), gm.softmax(m, axis), ...): validation and dispatch.  The
 * place is chosen like any op's (gm_exec_choose over x and the result),
 * x is acquired as input, the result as output, and the place's
 * gm_reduce_axis_ops runs the kernel family of kernels/reduce_axis.h.
 *
 * Non-contiguous operands (strided views) are staged through contiguous
 * temporaries by gm_acquire (core/exec/stage.h).
 * Every real ctype: bool and integer mats reduce exactly (core/
 * reduce_axis_ops.h), their mean/var/std/logsumexp through a double copy,
 * any/all/count_nonzero of any x through a bool copy (x != 0); softmax
 * takes float mats only.
 * Empty axes: sum 0, prod 1, mean/var/std NaN, logsumexp -inf, any false,
 * all true, count_nonzero 0; max, min,
 * argmax and argmin of an empty axis are a GM_EINVAL error naming the
 * function. */
#ifndef GM_CORE_REDUCE_AXIS_H
#define GM_CORE_REDUCE_AXIS_H

#include "../model/mat.h"
#include "reduce_axis_ops.h"

/* Lua/API name of an op ("sum", "argmax", "softmax", ...). */
const char *gm_reduce_axis_name(int op);
/* Dims of the result of op along 0-based axis of x: the axis dropped, or
 * kept with length 1 when keepdims (softmax: x's dims).  Returns the rank. */
int gm_reduce_axis_dims(const gm_mat *x, int axis, int op, bool keepdims, size_t *dims);
/* ctype of the result (NumPy's): int64 for argmax/argmin (1-based) and
 * count_nonzero, bool for any/all; for bool and integer x int64 sums and
 * products (uint64 for unsigned x, wrapping), double for mean, var, std
 * and logsumexp; else x's. */
gm_ctype gm_reduce_axis_ctype(const gm_mat *x, int op);
/* The same for an x of ctype t. */
gm_ctype gm_reduce_ctype_of(gm_ctype t, int op);
/* *out := a new mat of x's dims and cuda_enabled holding x converted to t
 * (gm_mat_astype): the reductions' copies, and the dtype option's. */
gm_status gm_reduce_converted(gm_mat *x, gm_ctype t, gm_mat **out);
/* Whether a and b are the same view (storage, displacement, dims,
 * strides): softmax may write into its input only so. */
bool gm_reduce_axis_same_view(const gm_mat *a, const gm_mat *b);
/* y := op of x along 0-based axis.  y has the result's ctype and size
 * (the caller checks its dims); it must not share storage with x, except
 * that softmax may write into x itself.  ddof: 1 for the unbiased var/std. */
gm_status gm_reduce_axis(gm_mat *x, int axis, int op, int ddof, gm_mat *y);
/* Whether gm_reduce_axis reads the non-contiguous x along `axis` (0-based)
 * where it lies, without a contiguous copy: x is one strided run of
 * unit-stride inner blocks, the place's backend has the strided entry and
 * y (NULL: not known yet) does not share x's storage. */
bool gm_reduce_axis_walks(gm_mat *x, gm_mat *y, int axis);
/* *out := op over all of x's elements (argmax/argmin: the 0-based
 * row-major index + 1); not for softmax. */
gm_status gm_reduce_whole(gm_mat *x, int op, int ddof, double *out);
/* The same as the result's exact value (integer results as integers). */
gm_status gm_reduce_whole_value(gm_mat *x, int op, int ddof, gm_value *out);

/* ---- the arguments as users write them (gm.sum(m, axis, {keepdims,
 * out}) ...); messages are the ones users see, the caller adds the
 * function's name and the argument position *bad ---- */

/* A 1-based axis (negative counts from the end, -1 the last) as 0-based. */
gm_status gm_reduce_axis_arg(int64_t a, int rank, int *axis);
/* The result of op along 0-based axis: *rank and dims, checked against
 * out when given (its dims, ctype and storage: *bad 3); an empty axis of
 * max/min/argmax/argmin is refused (*bad 2). */
gm_status gm_reduce_axis_result(const gm_mat *x, int axis, int op, bool keepdims, const gm_mat *out, int *rank,
                                size_t *dims, int *bad);
/* *v := op over all of m's elements (no axis); an empty mat is refused
 * for mean and the extremes (*bad 1). */
gm_status gm_reduce_all(gm_mat *m, int op, int ddof, double *v, int *bad);
/* gm_reduce_all as an exact value: bool and integer mats, arg and logical
 * ops through gm_reduce_whole_value (integers, bool as 0/1), float mats'
 * other ops as gm_reduce_all's double. */
gm_status gm_reduce_all_value(gm_mat *m, int op, int ddof, gm_value *v, int *bad);

#endif
