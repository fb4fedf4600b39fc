/* Destructive elementwise ops (MGL-MAT §12): validation and dispatch.
 *
 * Each function checks ctypes, sizes and shapes (GM_EINVAL with a message
 * naming the op and operand; nothing is touched then), chooses the place
 * with gm_exec_choose, acquires the operands (read-only ones as input,
 * fully overwritten ones as output, the rest io) and calls the place's
 * gm_elementwise_ops.  Only visible elements are read or written.
 * "beta == 0" means the written mat is not read (BLAS rule). */
#ifndef GM_CORE_ELEMENTWISE_H
#define GM_CORE_ELEMENTWISE_H

#include "elementwise_ops.h"
#include "../model/mat.h"

/* x[i] := op(x[i]) for the first n visible elements (n <= size). */
gm_status gm_unary_(gm_unary_op op, gm_mat *x, size_t n);
/* y := op(x) elementwise, a new result in y (y == x works in place).
 * fn names the caller in messages.  x and y: equal dims, y of
 * gm_unary_result_ctype(op, x's ctype); y must not share storage with x
 * unless it is x.  y_checked: the caller made y for the result or
 * checked those rules itself (the Lua binding, with messages naming the
 * option), and the one-pass path does not check them again (2 % of a
 * 1K-element gm.sqrt(x, {out = y})). */
gm_status gm_unary(const char *fn, gm_unary_op op, gm_mat *x, gm_mat *y, bool y_checked);
/* The ctype gm_unary gives for an x of ctype t: t, but a float-only op
 * (not a GM_UNARY_INT_OPS row) of a bool or integer t gives
 * gm_ctype_float_for(t) (NumPy's promotion; x is converted first). */
gm_ctype gm_unary_result_ctype(gm_unary_op op, gm_ctype t);
/* y := op(x) for a GM_PREDICATE_OPS row: y a bool mat with x's dims and
 * its own storage, x of any ctype. */
gm_status gm_predicate(gm_predicate_op op, gm_mat *x, gm_mat *y);
const char *gm_predicate_name(gm_predicate_op op);
/* x := min(max(x, lo), hi) (NaN elements stay NaN; lo > hi gives hi);
 * lo and hi must not be NaN.  gm_clamp writes the result to y as
 * gm_unary does. */
gm_status gm_clamp_(gm_mat *x, double lo, double hi);
gm_status gm_clamp(const char *fn, gm_mat *x, double lo, double hi, gm_mat *y);
/* x[i] := f(x[i], alpha) for every visible element (GM_SCALAR_OPS). */
gm_status gm_scalar_(gm_scalar_op op, double alpha, gm_mat *x);
gm_status gm_expt_(gm_mat *x, double power);
gm_status gm_add_scalar_(double alpha, gm_mat *x);
/* y := x .* y */
gm_status gm_mul_(gm_mat *x, gm_mat *y);
/* c := alpha * a .* b + beta * c (equal sizes) */
gm_status gm_geem_(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c);
/* b := alpha * a .* X + beta * b, X's rows all x; a, b 2-d of equal dims,
 * size(x) = columns */
gm_status gm_geerv_(double alpha, gm_mat *a, gm_mat *x, double beta, gm_mat *b);
/* y := x < y ? 1 : 0 */
gm_status gm_lt_(gm_mat *x, gm_mat *y);
gm_status gm_min_(double alpha, gm_mat *x);
gm_status gm_max_(double alpha, gm_mat *x);
/* b := alpha * sign(a) + beta * b */
gm_status gm_add_sign_(double alpha, gm_mat *a, double beta, gm_mat *b);
/* First n visible elements of x := alpha. */
gm_status gm_fill_(double alpha, gm_mat *x, size_t n);
/* x 2-d; axis 0 sums each column (size(y) = columns), axis 1 each row
 * (size(y) = rows); y := alpha * sums + beta * y. */
gm_status gm_sum_(gm_mat *x, gm_mat *y, int axis, double alpha, double beta);
/* result := diag(scales) * a, or a * diag(scales) (result may be a). */
gm_status gm_scale_rows_(gm_mat *scales, gm_mat *a, gm_mat *result);
gm_status gm_scale_columns_(gm_mat *scales, gm_mat *a, gm_mat *result);

/* One part of a complex mat (part 0 the real parts, 1 the imaginary):
 * r := that part of z (set false), or that part of z := r (set true, the
 * other part kept).  z complex, r of its parts' ctype
 * (gm_ctype_real_of), equal sizes, separate storage; row-major order.  A
 * move of the parts' type with stride 2 on z's side (the backend's
 * strided copy), so every device runs it with the kernel it has: real,
 * imag and abs of complex mats, and complex mats made from parts. */
gm_status gm_complex_part(gm_mat *z, int part, gm_mat *r, bool set);

#endif
