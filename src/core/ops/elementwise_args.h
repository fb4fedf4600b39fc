/* The destructive elementwise ops' arguments as users pass them (gm.geem_,
 * gm.geerv_, gm.sum_, gm.scale_rows_, gm.fill_(alpha, x, {n}) ...): which
 * operands must agree in ctype, size and dims, with the messages users
 * see.  They name the operands as the API does (x, y, a, b, scales), so
 * an application embedding gpumat reports the same errors as Lua code.
 *
 * Each check returns GM_EINVAL with the message; the caller adds the
 * function's name and the argument position.  Where a function has
 * `bad`, *bad is set on an argument error to the 1-based position of the
 * offending argument of gm.NAME(...) and stays 0 otherwise. */
#ifndef GM_CORE_ELEMENTWISE_ARGS_H
#define GM_CORE_ELEMENTWISE_ARGS_H

#include "../model/mat.h"

/* "mixed ctypes: an is T, bn is U" */
gm_status gm_ew_same_ctype(const char *an, const gm_mat *a, const char *bn, const gm_mat *b);
/* one ctype and "bn has N elements but an has M" */
gm_status gm_ew_same_size(const char *an, const gm_mat *a, const char *bn, const gm_mat *b);
/* "name must be 2-dimensional, got rank R" */
gm_status gm_ew_2d(const char *name, const gm_mat *m);
/* The `n` option: at most x's size. */
gm_status gm_ew_count(size_t n, const gm_mat *x);

/* gm.geem_(alpha, a, b, beta, c): a, b and c of one ctype and size. */
gm_status gm_geem_args(const gm_mat *a, const gm_mat *b, const gm_mat *c, int *bad);
/* gm.geerv_(alpha, a, x, beta, b): a 2-d, x one element per column of a,
 * b a's dims. */
gm_status gm_geerv_args(const gm_mat *a, const gm_mat *x, const gm_mat *b, int *bad);
/* gm.sum_(x, y, {axis}): x 2-d, axis 1 or 2 (1-based), y one element per
 * sum. */
gm_status gm_sum_args(const gm_mat *x, const gm_mat *y, int64_t axis, int *bad);
/* gm.scale_rows_(scales, a) / gm.scale_columns_: a 2-d, one scale per row
 * (column). */
gm_status gm_scale_args(const gm_mat *scales, const gm_mat *a, bool rows, int *bad);
/* Their {result} option: a's ctype and dims. */
gm_status gm_scale_result(const gm_mat *a, const gm_mat *result);

#endif
