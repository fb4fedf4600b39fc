/* Validation and dispatch of the reductions along an axis. */
#include "reduce_axis.h"
#include "../model/view.h"

#include "../exec/exec.h"
#include "half.h"
#include "op_table.h"
#include "reduce.h"
#include "../exec/stage.h"

static const char *const names[GM_AX_N_OPS] = {
#define X(name, E, lua, ...) [GM_AX_##E] = lua,
    GM_REDUCE_OPS(X)
#undef X
};

const char *gm_reduce_axis_name(int op) { return op >= 0 && op < GM_AX_N_OPS ? names[op] : "unknown"; }

int gm_reduce_axis_dims(const gm_mat *x, int axis, int op, bool keepdims, size_t *dims) {
  int rank = 0;
  for (int a = 0; a < x->rank; a++) {
    if (a != axis || op == GM_AX_SOFTMAX)
      dims[rank++] = x->dims[a];
    else if (keepdims)
      dims[rank++] = 1;
  }
  return rank;
}

/* the result column of the op's row (kernels/op_table.h): NumPy's
 * result types; mean, var, std, logsumexp of bool and integers are
 * float64 (NumPy's default float) */
gm_ctype gm_reduce_ctype_of(gm_ctype t, int op) {
  const gm_op_row *r = gm_op_row_of(GM_OPF_REDUCE, op);
  return r ? gm_op_result_ctype(r->result, t) : t;
}

gm_ctype gm_reduce_axis_ctype(const gm_mat *x, int op) { return gm_reduce_ctype_of(x->ctype, op); }

gm_status gm_reduce_converted(gm_mat *x, gm_ctype t, gm_mat **out) {
  gm_mat_options mo = {.ctype = (int)t, .cuda_enabled = x->cuda_enabled};
  GM_TRY(gm_mat_new(x->rank, x->dims, &mo, out));
  gm_status st = gm_mat_astype(x, *out);
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

/* mean/var/std/logsumexp of a bool or integer x as those of its double
 * copy; any/all/count_nonzero as max/min/sum of x != 0 (a bool copy
 * unless x is bool). */
static gm_status reduce_copy(gm_mat *x, int axis, int op, int ddof, gm_mat *y) {
  bool logical = gm_ax_is_logical(op);
  gm_mat *c = x;
  if (!logical || x->ctype != GM_BOOL) GM_TRY(gm_reduce_converted(x, logical ? GM_BOOL : GM_DOUBLE, &c));
  int cop = op == GM_AX_ANY ? GM_AX_MAX : op == GM_AX_ALL ? GM_AX_MIN : op == GM_AX_COUNT_NONZERO ? GM_AX_SUM : op;
  gm_status st = gm_reduce_axis(c, axis, cop, ddof, y);
  if (c != x) gm_mat_free(c);
  return st;
}

bool gm_reduce_axis_same_view(const gm_mat *a, const gm_mat *b) {
  if (a == b) return true;
  if (a->vec != b->vec || a->displacement != b->displacement || a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k] || a->strides[k] != b->strides[k]) return false;
  return true;
}

/* The value every output of an empty axis gets. */
static double empty_value(int op, int ddof) { return gm_ax_result(op, gm_ax_init(op), 0, ddof); }

static gm_status check_call(const gm_mat *x, int axis, int op, const gm_mat *y) {
  const char *name = gm_reduce_axis_name(op);
  if (op < 0 || op >= GM_AX_N_OPS) return gm_fail(GM_EINVAL, "reduce_axis: unknown op %d", op);
  if (axis < 0 || axis >= x->rank)
    return gm_fail(GM_EINVAL, "%s: axis %d is out of range 1..%d", name, axis + 1, x->rank);
  if (x->dims[axis] == 0 && gm_ax_is_extreme(op))
    return gm_fail(GM_EINVAL, "%s: axis %d is empty", name, axis + 1);
  if (!gm_op_takes_ctype(gm_op_row_of(GM_OPF_REDUCE, op), x->ctype))
    return gm_fail(GM_EINVAL, "%s: takes float32/float64 mats, not %s", name, gm_ctype_dtype(x->ctype));
  gm_ctype want = gm_reduce_axis_ctype(x, op);
  if (y->ctype != want)
    return gm_fail(GM_EINVAL, "%s: out has ctype %s, the result is %s", name, gm_ctype_name(y->ctype),
                   gm_ctype_name(want));
  size_t n = op == GM_AX_SOFTMAX ? x->size : x->size / (x->dims[axis] ? x->dims[axis] : 1);
  if (x->dims[axis] == 0) {
    n = 1;
    for (int a = 0; a < x->rank; a++) n *= a == axis ? 1 : x->dims[a];
  }
  if (y->size != n) return gm_fail(GM_EINVAL, "%s: out has %zu elements, the result has %zu", name, y->size, n);
  bool in_place = op == GM_AX_SOFTMAX && gm_reduce_axis_same_view(x, y);
  if (!in_place && gm_mats_overlap(x, y)) return gm_fail(GM_EINVAL, "%s: out shares storage with the input", name);
  return GM_OK;
}

static const gm_reduce_axis_ops *axis_ops(const gm_exec *e, const char *name, gm_status *st) {
  const gm_reduce_axis_ops *ops = e->be->reduce_axis;
  *st = ops && ops->axis ? GM_OK : gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", name, e->be->name);
  return ops;
}

/* Every output of an empty axis gets the op's empty value. */
static gm_status fill_empty(gm_mat *y, int op, int ddof) {
  gm_mat *all[1] = {y};
  gm_exec e = gm_exec_choose(all, 1);
  gm_operand o = {y, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &o, 1));
  gm_status st = e.be->fill(e.dev, y->ctype, y->size, empty_value(op, ddof), o.ptr, 1);
  return gm_finish(&e, &o, 1, st);
}

/* A non-contiguous x as (outer, len, inner) with element strides (so, sl,
 * 1): the axes after `axis` one unit-stride row-major run, the axes before
 * it one run of stride so (size-1 axes go anywhere).  False for other
 * views (a transposed inner block, gaps between inner rows). */
static bool strided_shape(const gm_mat *x, int axis, size_t sh[3], size_t st[2]) {
  size_t inner = 1, outer = 1, so = 0;
  for (int a = 0; a < x->rank; a++)
    if (x->strides[a] < 0) return false; /* a backward axis: staged (the walks step forwards) */
  for (int a = x->rank - 1; a > axis; a--) {
    if (x->dims[a] == 1) continue;
    if (x->strides[a] != (int64_t)inner) return false;
    inner *= x->dims[a];
  }
  for (int a = axis - 1; a >= 0; a--) {
    if (x->dims[a] == 1) continue;
    if (outer == 1) so = (size_t)x->strides[a];
    else if (x->strides[a] != (int64_t)(so * outer)) return false;
    outer *= x->dims[a];
  }
  sh[0] = outer, sh[1] = x->dims[axis], sh[2] = inner;
  st[0] = so, st[1] = (size_t)x->strides[axis];
  return true;
}

bool gm_reduce_axis_walks(gm_mat *x, gm_mat *y, int axis) {
  size_t sh[3], str[2];
  if (axis < 0 || axis >= x->rank || gm_mat_is_contiguous(x) || (y && x->vec == y->vec)) return false;
  if (!strided_shape(x, axis, sh, str)) return false;
  gm_mat *all[2] = {x, y ? y : x};
  gm_exec e = gm_exec_choose(all, 2);
  return e.be->reduce_axis && e.be->reduce_axis->axis_strided;
}

/* x read where it lies (gm_acquire_in_place) by the backend's strided
 * entry, instead of through a contiguous copy of x.  False (nothing done)
 * when the backend has no such entry, x's shape does not fit or y shares
 * x's storage (y could be written before x is read); else *st is the op's
 * status. */
static bool reduce_strided(gm_mat *x, int axis, int op, int ddof, gm_mat *y, gm_status *st) {
  size_t sh[3], str[2];
  if (op == GM_AX_SOFTMAX || !gm_reduce_axis_walks(x, y, axis)) return false;
  strided_shape(x, axis, sh, str);
  gm_mat *all[2] = {x, y};
  gm_exec e = gm_exec_choose(all, 2);
  const gm_reduce_axis_ops *ops = e.be->reduce_axis;
  gm_operand o[2] = {{x, GM_INPUT, NULL}, {y, GM_OUTPUT, NULL}};
  *st = gm_acquire_in_place(&e, o, 2);
  if (*st != GM_OK) return true;
  gm_status s = ops->axis_strided(e.dev, x->ctype, op, ddof, sh[0], str[0], sh[1], str[1], sh[2], o[0].ptr, o[1].ptr);
  *st = gm_finish_in_place(&e, o, 2, s);
  return true;
}

/* A reduction of a 16-bit float x: of its float32 copy (accumulating in
 * float32 as the float32 loops do), a half result rounded into y once. */
static gm_status reduce_half(gm_mat *x, int axis, int op, int ddof, gm_mat *y) {
  gm_mat *c, *f = NULL;
  GM_TRY(gm_half_float_copy(x, &c));
  gm_status st = gm_ctype_is_half(y->ctype) ? gm_half_float_like(y, &f) : GM_OK;
  if (st == GM_OK) st = gm_reduce_axis(c, axis, op, ddof, f ? f : y);
  gm_mat_free(c);
  return f ? gm_half_store(st, f, y) : st;
}

gm_status gm_reduce_axis(gm_mat *x, int axis, int op, int ddof, gm_mat *y) {
  GM_TRY(check_call(x, axis, op, y));
  if (gm_ctype_is_half(x->ctype)) return reduce_half(x, axis, op, ddof, y);
  bool exact = op == GM_AX_SUM || op == GM_AX_PROD || gm_ax_is_extreme(op);
  if (x->size && (gm_ax_is_logical(op) || (!gm_ctype_is_float(x->ctype) && !exact)))
    return reduce_copy(x, axis, op, ddof, y);
  gm_mat *base;
  int base_axis;
  if (!gm_mat_is_contiguous(x) && op != GM_AX_SOFTMAX && x->size && gm_view_permuted_block(x, axis, false, &base, &base_axis)) {
    gm_status st = gm_reduce_axis(base, base_axis, op, ddof, y);
    gm_mat_free(base);
    return st;
  }
  if (y->size == 0) return GM_OK;
  size_t outer = 1, inner = 1, len = x->dims[axis];
  for (int a = 0; a < axis; a++) outer *= x->dims[a];
  for (int a = axis + 1; a < x->rank; a++) inner *= x->dims[a];
  if (len == 0) return fill_empty(y, op, ddof);
  gm_status sst;
  if (!gm_mat_is_contiguous(x) && reduce_strided(x, axis, op, ddof, y, &sst)) return sst;
  gm_mat *all[2] = {x, y};
  gm_exec e = gm_exec_choose(all, 2);
  gm_status st;
  const gm_reduce_axis_ops *ops = axis_ops(&e, gm_reduce_axis_name(op), &st);
  GM_TRY(st);
  gm_operand o[2] = {{x, GM_INPUT, NULL}, {y, GM_OUTPUT, NULL}};
  int n = 2;
  if (gm_reduce_axis_same_view(x, y)) { /* softmax in place */
    o[0].dir = GM_IO;
    n = 1;
  }
  GM_TRY(gm_acquire(&e, o, n));
  st = ops->axis(e.dev, x->ctype, op, ddof, outer, len, inner, o[0].ptr, n == 1 ? o[0].ptr : o[1].ptr);
  return gm_finish(&e, o, n, st);
}

gm_status gm_reduce_whole(gm_mat *x, int op, int ddof, double *out) {
  gm_value v;
  GM_TRY(gm_reduce_whole_value(x, op, ddof, &v));
  *out = !v.is_int ? v.d : v.is_unsigned ? (double)(unsigned long long)v.i : (double)v.i;
  return GM_OK;
}

gm_status gm_reduce_whole_value(gm_mat *x, int op, int ddof, gm_value *out) {
  const char *name = gm_reduce_axis_name(op);
  if (op < 0 || op >= GM_AX_N_OPS || op == GM_AX_SOFTMAX)
    return gm_fail(GM_EINVAL, "reduce_whole: unknown op %d", op);
  if (x->size == 0) {
    if (gm_ax_is_extreme(op)) return gm_fail(GM_EINVAL, "%s: the mat is empty", name);
    gm_ctype t = gm_reduce_axis_ctype(x, op);
    double e = empty_value(op, ddof);
    bool is_int = !gm_ctype_is_float(t); /* (mean's NaN has no integer value) */
    *out = (gm_value){is_int, gm_ctype_kind(t) == GM_KIND_UINT, is_int ? (long long)e : 0, e, false, 0};
    return GM_OK;
  }
  /* x seen as one axis of all its elements (a non-contiguous view through
   * a contiguous copy), into a one-element mat on the same place */
  gm_mat_options mo = {.ctype = (int)gm_reduce_axis_ctype(x, op), .cuda_enabled = x->cuda_enabled};
  gm_mat *flat, *y, *copy = NULL, *base = NULL;
  int base_axis;
  /* the elements of a permuted contiguous block in storage order: the
   * same multiset, so every op but the arg ones (row-major positions of
   * the view) reduces the block as it lies */
  if (!gm_mat_is_contiguous(x) && !gm_ax_is_arg(op) && gm_view_permuted_block(x, 0, true, &base, &base_axis)) x = base;
  if (!gm_mat_is_contiguous(x)) {
    GM_TRY(gm_mat_contiguous_copy(x, &copy));
    x = copy;
  }
  gm_status vst = gm_mat_view(x, 1, &x->size, x->displacement, &flat);
  if (vst != GM_OK) {
    gm_mat_free(copy);
    gm_mat_free(base);
    return vst;
  }
  size_t one = 1;
  gm_status st = gm_mat_new(1, &one, &mo, &y);
  if (st == GM_OK) {
    st = gm_reduce_axis(flat, 0, op, ddof, y);
    if (st == GM_OK) st = gm_mat_get_value(y, 0, out);
    gm_mat_free(y);
  }
  gm_mat_free(flat);
  gm_mat_free(copy);
  gm_mat_free(base);
  return st;
}

gm_status gm_reduce_axis_arg(int64_t a, int rank, int *axis) {
  int64_t r = a < 0 ? a + rank + 1 : a;
  if (r < 1 || r > rank)
    return gm_fail(GM_EINVAL, "axis %lld is out of range 1..%d (or -%d..-1)", (long long)a, rank, rank);
  *axis = (int)r - 1;
  return GM_OK;
}

/* out as the result of op: dims, ctype, and no storage shared with x
 * (softmax may write into x itself). */
static gm_status check_out(const gm_mat *x, int op, int rank, const size_t *dims, const gm_mat *out) {
  gm_ctype t = gm_reduce_axis_ctype(x, op);
  bool same = out->rank == rank;
  for (int k = 0; same && k < rank; k++) same = out->dims[k] == dims[k];
  if (!same) { /* formatted only on failure (snprintf costs a small call's time) */
    char want[96], got[96];
    gm_dims_text(rank, dims, want, sizeof want);
    gm_dims_text(out->rank, out->dims, got, sizeof got);
    return gm_fail(GM_EINVAL, "out has dims %s, the result has %s", got, want);
  }
  if (out->ctype != t)
    return gm_fail(GM_EINVAL, "out has ctype %s, the result is %s", gm_ctype_name(out->ctype), gm_ctype_name(t));
  bool in_place = op == GM_AX_SOFTMAX && gm_reduce_axis_same_view(x, out);
  if (!in_place && gm_mats_overlap(x, out)) return gm_fail(GM_EINVAL, "out shares storage with the input");
  return GM_OK;
}

gm_status gm_reduce_axis_result(const gm_mat *x, int axis, int op, bool keepdims, const gm_mat *out, int *rank,
                                size_t *dims, int *bad) {
  if (x->dims[axis] == 0 && gm_ax_is_extreme(op)) {
    *bad = 2;
    return gm_fail(GM_EINVAL, "axis %d is empty", axis + 1);
  }
  *rank = gm_reduce_axis_dims(x, axis, op, keepdims, dims);
  gm_status st = out ? check_out(x, op, *rank, dims, out) : GM_OK;
  if (st != GM_OK) *bad = 3;
  return st;
}

/* sum, max and min through the whole-mat reduction (core/ops/reduce.h), mean
 * as its sum over the count; the others as one axis of all elements. */
gm_status gm_reduce_all(gm_mat *m, int op, int ddof, double *v, int *bad) {
  if (m->size == 0 && (gm_ax_is_extreme(op) || op == GM_AX_MEAN)) {
    *bad = 1;
    return gm_fail(GM_EINVAL, "the mat is empty");
  }
  if (gm_ctype_is_float(m->ctype) && (op == GM_AX_SUM || op == GM_AX_MAX || op == GM_AX_MIN)) {
    gm_reduce_op r = op == GM_AX_SUM ? GM_REDUCE_SUM : op == GM_AX_MAX ? GM_REDUCE_MAX : GM_REDUCE_MIN;
    return gm_reduce(m, r, v);
  }
  if (op != GM_AX_MEAN || !gm_ctype_is_float(m->ctype)) return gm_reduce_whole(m, op, ddof, v);
  GM_TRY(gm_reduce(m, GM_REDUCE_SUM, v));
  *v /= (double)m->size;
  return GM_OK;
}

gm_status gm_reduce_all_value(gm_mat *m, int op, int ddof, gm_value *v, int *bad) {
  if (!gm_ctype_is_float(m->ctype) || gm_ax_is_logical(op) || gm_ax_is_arg(op)) {
    if (m->size == 0 && (gm_ax_is_extreme(op) || op == GM_AX_MEAN)) {
      *bad = 1;
      return gm_fail(GM_EINVAL, "the mat is empty");
    }
    return gm_reduce_whole_value(m, op, ddof, v);
  }
  *v = (gm_value){false, false, 0, 0, false, 0};
  return gm_reduce_all(m, op, ddof, &v->d, bad);
}
