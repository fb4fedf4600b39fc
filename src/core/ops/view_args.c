#include "view_args.h"

#include <stdio.h>

#include "blas.h"
#include "elementwise.h"
#include "../exec/stage.h"

/* Records pos as the bad argument of a failed check. */
static gm_status bad_at(int *bad, int pos, gm_status st) {
  *bad = pos;
  return st;
}

gm_status gm_view_narrow_args(const gm_mat *m, int64_t axis, int64_t first, int64_t n, gm_mat **out, int *bad) {
  if (axis < 1 || axis > m->rank)
    return bad_at(bad, 2, gm_fail(GM_EINVAL, "axis %lld is out of range 1..%d of a %s mat", (long long)axis, m->rank, GM_DIMS_OF(m)));
  size_t d = m->dims[axis - 1];
  if (first < 1 || (size_t)first > d + 1)
    return bad_at(bad, 3, gm_fail(GM_EINVAL, "first %lld is out of range 1..%zu on axis %lld of a %s mat",
                                  (long long)first, d, (long long)axis, GM_DIMS_OF(m)));
  if (n < 0 || (size_t)n > d - (size_t)(first - 1))
    return bad_at(bad, 4, gm_fail(GM_EINVAL, "n %lld is out of range 0..%zu (from %lld on axis %lld of a %s mat)",
                                  (long long)n, d - (size_t)(first - 1), (long long)first, (long long)axis, GM_DIMS_OF(m)));
  return gm_view_narrow(m, (int)axis - 1, (size_t)(first - 1), (size_t)n, out);
}

gm_status gm_view_select_args(const gm_mat *m, int64_t axis, int64_t i, gm_mat **out, int *bad) {
  if (axis < 1 || axis > m->rank)
    return bad_at(bad, 2, gm_fail(GM_EINVAL, "axis %lld is out of range 1..%d of a %s mat", (long long)axis, m->rank, GM_DIMS_OF(m)));
  int64_t d = (int64_t)m->dims[axis - 1];
  int64_t j = i < 0 ? d + i + 1 : i;
  if (j < 1 || j > d)
    return bad_at(bad, 3, gm_fail(GM_EINVAL, "index %lld is out of range 1..%lld on axis %lld of a %s mat",
                                  (long long)i, (long long)d, (long long)axis, GM_DIMS_OF(m)));
  return gm_view_select(m, (int)axis - 1, (size_t)(j - 1), out);
}

gm_status gm_view_t_args(const gm_mat *m, gm_mat **out, int *bad) {
  if (m->rank != 2) return bad_at(bad, 1, gm_fail(GM_EINVAL, "mat must be 2-dimensional, got rank %d", m->rank));
  int perm[2] = {1, 0};
  return gm_view_permute(m, 2, perm, out);
}

/* Entries outside 1..GM_MAX_RANK are refused before any arithmetic on
 * them (mininteger - 1 would overflow). */
gm_status gm_view_permute_args(int rank, int n, const int64_t *axes, int *perm) {
  if (n != rank) return gm_fail(GM_EINVAL, "expected %d axes (a permutation of 1..%d), got %d", rank, rank, n);
  bool seen[GM_MAX_RANK] = {false};
  for (int i = 0; i < n; i++) {
    if (axes[i] < 1 || axes[i] > GM_MAX_RANK)
      return gm_fail(GM_EINVAL, "the axis at position %d is out of range: axes must be a permutation of 1..%d", i + 1,
                     rank);
    int p = (int)axes[i] - 1;
    if (p >= rank || seen[p])
      return gm_fail(GM_EINVAL, "axis %d at position %d: axes must be a permutation of 1..%d", p + 1, i + 1, rank);
    seen[p] = true;
    perm[i] = p;
  }
  return GM_OK;
}

gm_status gm_dims_list_add(gm_dims_list *l, int64_t v) {
  int i = l->rank + 1; /* the entry's 1-based position in the list */
  if (l->rank >= GM_MAX_RANK) return gm_fail(GM_EINVAL, "rank %d exceeds %d", i, GM_MAX_RANK);
  if (v == -1 && (l->many_minus || l->infer < 0)) {
    if (!l->many_minus) l->infer = l->rank;
    l->dims[l->rank++] = SIZE_MAX;
    return GM_OK;
  }
  if (v == -1) return gm_fail(GM_EINVAL, "only one dimension can be -1");
  if (v < 0) return gm_fail(GM_EINVAL, "dimension %d must be non-negative, got %lld", i, (long long)v);
  l->dims[l->rank++] = (size_t)v;
  return GM_OK;
}

/* The product of the other dims saturates: an overflowing product cannot
 * divide size either, and the message shows no wrapped value. */
gm_status gm_dims_infer(int rank, size_t *dims, int infer, size_t size) {
  if (infer < 0) return GM_OK;
  size_t p = 1;
  for (int i = 0; i < rank; i++)
    if (i != infer) p = dims[i] && p > SIZE_MAX / dims[i] ? SIZE_MAX : p * dims[i];
  if (p == 0 || size % p != 0)
    return gm_fail(GM_EINVAL, "cannot infer dimension %d: %zu elements do not divide into %zu", infer + 1, size, p);
  dims[infer] = size / p;
  return GM_OK;
}

gm_status gm_expand_dims_resolve(const gm_mat *m, int rank, size_t *dims) {
  for (int i = 0; i < rank; i++) {
    int a = i - (rank - m->rank);
    if (dims[i] != SIZE_MAX) continue;
    if (a < 0) return gm_fail(GM_EINVAL, "dimension %d is -1 but the mat has no axis there", i + 1);
    dims[i] = m->dims[a];
  }
  return GM_OK;
}

/* 1-based position of i on an axis of d elements (negative: from the end). */
static int64_t from_end(int64_t i, size_t d) { return i < 0 ? (int64_t)d + i + 1 : i; }

/* A range whose last is first - 1 (first + 1 walking backwards) is empty
 * (first allowed up to one past the end, or at 0 backwards). */
static gm_status resolve_range(const gm_sub_arg *r, size_t d, int axis, const gm_mat *m, gm_view_sub *s) {
  int64_t a = from_end(r->a, d), b = from_end(r->b, d);
  if (r->step == 0) return gm_fail(GM_EINVAL, "step must not be 0 (axis %d)", axis + 1);
  bool up = r->step > 0;
  bool empty = up ? a > INT64_MIN && b == a - 1 : a < INT64_MAX && b == a + 1; /* no overflow at the ends */
  if (empty && a >= (up ? 1 : 0) && a <= (int64_t)d + (up ? 1 : 0)) {
    *s = (gm_view_sub){false, false, a > 0 ? (size_t)(a - 1) : 0, 0, r->step};
    return GM_OK;
  }
  int64_t lo = up ? a : b, hi = up ? b : a;
  if (lo < 1 || hi < lo || hi > (int64_t)d) {
    char st[40] = "";
    if (r->step != 1) snprintf(st, sizeof st, " (step %lld)", (long long)r->step);
    return gm_fail(GM_EINVAL, "range %lld..%lld%s is out of range 1..%zu on axis %d of a %s mat", (long long)r->a,
                   (long long)r->b, st, d, axis + 1, GM_DIMS_OF(m));
  }
  /* hi - lo < d: no overflow; |step| as unsigned (step may be INT64_MIN) */
  uint64_t step = up ? (uint64_t)r->step : (uint64_t)0 - (uint64_t)r->step;
  *s = (gm_view_sub){false, false, (size_t)(a - 1), (size_t)((uint64_t)(hi - lo) / step + 1), r->step};
  return GM_OK;
}

static gm_status resolve_sub(const gm_sub_arg *r, size_t d, int axis, const gm_mat *m, gm_view_sub *s) {
  if (r->kind == GM_SUB_ALL) {
    *s = (gm_view_sub){false, false, 0, d, 1};
    return GM_OK;
  }
  if (r->kind == GM_SUB_RANGE) return resolve_range(r, d, axis, m, s);
  int64_t a = from_end(r->a, d);
  if (a < 1 || (size_t)a > d)
    return gm_fail(GM_EINVAL, "subscript %lld is out of range 1..%zu on axis %d of a %s mat", (long long)r->a, d,
                   axis + 1, GM_DIMS_OF(m));
  *s = (gm_view_sub){true, false, (size_t)(a - 1), 1, 1};
  return GM_OK;
}

gm_status gm_view_subs_resolve(const gm_mat *m, int n, const gm_sub_arg *args, gm_view_sub *subs, int *n_out) {
  int takes = 0, dots = 0;
  for (int i = 0; i < n; i++) {
    dots += args[i].kind == GM_SUB_ELLIPSIS;
    takes += args[i].kind != GM_SUB_ELLIPSIS && args[i].kind != GM_SUB_NEWAXIS;
  }
  if (dots > 1) return gm_fail(GM_EINVAL, "\"...\" may appear only once among the subscripts");
  if (takes > m->rank) return gm_fail(GM_EINVAL, "too many subscripts (%d) for a %s mat", takes, GM_DIMS_OF(m));
  int k = 0, axis = 0;
  for (int i = 0; i < n; i++) {
    if (args[i].kind == GM_SUB_NEWAXIS) {
      if (k >= GM_MAX_SUBS) return gm_fail(GM_EINVAL, "too many subscripts");
      subs[k++] = (gm_view_sub){false, true, 0, 1, 1};
      continue;
    }
    int span = args[i].kind == GM_SUB_ELLIPSIS ? m->rank - takes : 1;
    for (int j = 0; j < span; j++, axis++) {
      gm_sub_arg all = {GM_SUB_ALL, 0, 0, 1};
      if (k >= GM_MAX_SUBS) return gm_fail(GM_EINVAL, "too many subscripts");
      GM_TRY(resolve_sub(args[i].kind == GM_SUB_ELLIPSIS ? &all : &args[i], m->dims[axis], axis, m, &subs[k++]));
    }
  }
  *n_out = k;
  return GM_OK;
}

/* x stretched to v's dims (same dims, size-1 axes, missing leading axes;
 * leading size-1 axes of x dropped) as a new view in *out. */
static gm_status stretch_to(const gm_mat *x, const gm_mat *v, gm_mat **out) {
  int lead = x->rank - v->rank; /* < 0: missing leading axes, which expand adds */
  bool ok = true;
  for (int i = 0; i < lead; i++) ok = ok && x->dims[i] == 1;
  gm_mat *xv = NULL;
  gm_status st = ok ? GM_OK : GM_EINVAL;
  if (st == GM_OK && lead > 0) st = gm_view_dims(x, v->rank, x->dims + lead, &xv);
  if (st == GM_OK) st = gm_view_expand(xv ? xv : x, v->rank, v->dims, out);
  gm_mat_free(xv);
  if (st == GM_OK) return GM_OK;
  char a[160], b[160];
  gm_dims_text(x->rank, x->dims, a, sizeof a);
  gm_dims_text(v->rank, v->dims, b, sizeof b);
  return gm_fail(GM_EINVAL, "cannot broadcast a %s mat into a %s view", a, b);
}

/* x (a mat) written into v, copied first when it shares v's storage; a
 * stretched view of x only when the dims differ (the view's clone and
 * checks were a third of a small slice assignment). */
static gm_status assign_mat(gm_mat *v, gm_mat *x) {
  if (x->ctype != v->ctype)
    return gm_fail(GM_EINVAL, "mixed ctypes %s (value) and %s (mat)", gm_ctype_name(x->ctype), gm_ctype_name(v->ctype));
  gm_mat *xs = NULL, *copy = NULL;
  gm_status st = gm_mat_same_dims(x, v) ? GM_OK : stretch_to(x, v, &xs);
  gm_mat *src = xs ? xs : x;
  if (st == GM_OK && src->vec == v->vec) st = gm_mat_contiguous_copy(src, &copy);
  if (st == GM_OK) st = gm_copy_(copy ? copy : src, v, v->size, 1, 1);
  gm_mat_free(copy);
  gm_mat_free(xs);
  return st;
}

gm_status gm_view_assign(gm_mat *v, gm_mat *x, double value) {
  gm_status st = gm_check_writable(NULL, v);
  if (st == GM_OK && v->size > 0) st = x ? assign_mat(v, x) : gm_fill_(value, v, v->size);
  return st;
}
