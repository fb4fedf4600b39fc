/* Operand and result rules of the out-of-place functions (gm.copy_row,
 * gm.m_mul, gm.m_add, gm.invert, gm.exp(x, {out}), ...) and the
 * operators (a * b): the result mats they make and the shape, size and
 * ctype agreement they require, with the messages users see.  An
 * application embedding gpumat gets the same rules as Lua code.
 *
 * Each check returns GM_EINVAL with the message; the caller adds the
 * function's name and the argument position.  Where a function has
 * `bad`, *bad is set on an argument error to the 1-based position of the
 * offending argument of gm.NAME(a, b, ...) and stays 0 otherwise. */
#ifndef GM_CORE_OPERANDS_H
#define GM_CORE_OPERANDS_H

#include "../model/mat.h"

/* A new mat for a result: initial element 0, so a result that is fully
 * written is never filled first. */
gm_status gm_result_new(int rank, const size_t *dims, gm_ctype t, bool cuda_enabled, gm_sync sync, gm_mat **out);

/* "matrix must be 2-dimensional, has rank R" */
gm_status gm_check_2d(const gm_mat *a);
/* 2-d and "matrix must be square, is RxC" */
gm_status gm_check_square(const gm_mat *a);
/* "mixed ctypes T and U" */
gm_status gm_check_one_ctype(const gm_mat *a, const gm_mat *b);
/* one ctype and "sizes differ: N vs M" */
gm_status gm_check_same_size(const gm_mat *a, const gm_mat *b);
/* A 1-based index (what: "row", "column") into 0..n-1. */
gm_status gm_index_arg(int64_t i, size_t n, const char *what, size_t *out);

/* y as the `out` of an elementwise function of x: x's ctype and dims, no
 * storage shared with x unless it is x. */
gm_status gm_check_out_like(const gm_mat *x, const gm_mat *y);

/* gm.m_mul(a, b, {transpose_a, transpose_b}): dims of op(a) op(b). */
gm_status gm_mmul_dims(const gm_mat *a, const gm_mat *b, bool ta, bool tb, size_t dims[2], int *bad);
/* a * b: a 2-d; b 2-d, or 1-d (a vector: the result is 1-d).  *rank and
 * dims are the result's. */
gm_status gm_matmul_dims(const gm_mat *a, const gm_mat *b, int *rank, size_t dims[2], int *bad);
/* c := a b for gm_matmul_dims' operands (b and c may be 1-d vectors,
 * taken as one-column matrices). */
gm_status gm_matmul(gm_mat *a, gm_mat *b, gm_mat *c);

/* t := the transpose of the 2-d a (t has a's dims swapped). */
gm_status gm_transpose_into(gm_mat *a, gm_mat *t);
/* c := alpha a + beta b over the row-major elements (one size). */
gm_status gm_add_into(double alpha, gm_mat *a, double beta, gm_mat *b, gm_mat *c);

/* b := row i of the 2-d a (column when column), b 1-d of that length. */
gm_status gm_copy_line(gm_mat *a, size_t i, bool column, gm_mat *b);

#endif
