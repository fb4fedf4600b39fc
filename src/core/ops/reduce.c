/* Validation and dispatch of the whole-mat reductions. */
#include "reduce.h"
#include "../model/view.h"

#include "../exec/exec.h"
#include "half.h"
#include "reduce_axis.h"

const char *gm_reduce_name(gm_reduce_op op) {
  switch (op) {
    case GM_REDUCE_SUM: return "sum";
    case GM_REDUCE_MIN: return "min";
    case GM_REDUCE_MAX: return "max";
  }
  return "unknown";
}

/* A view whose rows (last axis) the axis reduction walks in place
 * (gm_reduce_axis_walks: a column block, every other row): each row's
 * result into a small contiguous mat (1/row-length of x), then those
 * reduced, instead of a contiguous copy of all of x. */
static gm_status reduce_by_rows(gm_mat *x, gm_reduce_op op, double *out) {
  int last = x->rank - 1;
  gm_mat_options mo = {.ctype = (int)x->ctype, .cuda_enabled = x->cuda_enabled};
  gm_mat *rows;
  size_t one = 1; /* a 1-d x: one row, one result */
  GM_TRY(last ? gm_mat_new(last, x->dims, &mo, &rows) : gm_mat_new(1, &one, &mo, &rows));
  int ax = op == GM_REDUCE_SUM ? GM_AX_SUM : op == GM_REDUCE_MIN ? GM_AX_MIN : GM_AX_MAX;
  gm_status st = gm_reduce_axis(x, last, ax, 0, rows);
  if (st == GM_OK) st = gm_reduce(rows, op, out);
  gm_mat_free(rows);
  return st;
}

/* of a 16-bit float x: its float32 copy's, rounded to x's type (a sum;
 * the extremes are exact) */
static gm_status reduce_half(gm_mat *x, gm_reduce_op op, double *out) {
  gm_mat *c;
  GM_TRY(gm_half_float_copy(x, &c));
  gm_status st = gm_reduce(c, op, out);
  gm_mat_free(c);
  if (st == GM_OK) *out = gm_ctype_coerce(x->ctype, *out);
  return st;
}

gm_status gm_reduce(gm_mat *x, gm_reduce_op op, double *out) {
  const char *name = gm_reduce_name(op);
  if (gm_ctype_is_half(x->ctype) && x->size) return reduce_half(x, op, out);
  GM_TRY(gm_check_float_mats(name, &x, 1));
  if (op != GM_REDUCE_SUM && op != GM_REDUCE_MIN && op != GM_REDUCE_MAX)
    return gm_fail(GM_EINVAL, "reduce: unknown op %d", (int)op);
  if (x->size == 0) {
    if (op != GM_REDUCE_SUM) return gm_fail(GM_EINVAL, "%s: the mat is empty", name);
    *out = 0;
    return GM_OK;
  }
  gm_mat *base;
  int base_axis;
  if (!gm_mat_is_contiguous(x) && gm_view_permuted_block(x, 0, true, &base, &base_axis)) {
    /* the same elements in storage order: no staging copy */
    gm_status st = gm_reduce(base, op, out);
    gm_mat_free(base);
    return st;
  }
  if (gm_reduce_axis_walks(x, NULL, x->rank - 1)) return reduce_by_rows(x, op, out);
  gm_mat *all[1] = {x};
  gm_exec e = gm_exec_choose(all, 1);
  const gm_reduce_ops *ops = e.be->reduce;
  if (!ops || !ops->reduce)
    return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", name, e.be->name);
  gm_operand o = {x, GM_INPUT, NULL};
  gm_lane lane;
  GM_TRY(gm_acquire_lane(&e, &o, 1, x->size, false, &lane));
  gm_status st = ops->reduce(e.dev, x->ctype, op, x->size, o.ptr, out);
  return gm_finish_lane(&e, &o, 1, false, &lane, st);
}
