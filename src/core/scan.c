#include "scan.h"

#include "exec.h"

static bool is_float(gm_ctype t) {
#define X(T, E, ...) t == GM_##E ||
  return GM_FLOAT_CTYPES(X) false;
#undef X
}

/* The checks both ops share; outer, len and inner of x along axis. */
static gm_status check_x(const char *fn, const gm_mat *x, int axis, bool wide_ok, size_t sh[3]) {
  if (!is_float(x->ctype) && !(wide_ok && (x->ctype == GM_INT64 || x->ctype == GM_UINT64)))
    return gm_fail(GM_EUNSUPPORTED, "%s: %s mats are not supported yet (float and double only)", fn,
                   gm_ctype_name(x->ctype));
  if (axis < 0 || axis >= x->rank) return gm_fail(GM_EINVAL, "%s: axis %d is out of range 1..%d", fn, axis + 1, x->rank);
  sh[0] = sh[2] = 1;
  sh[1] = x->dims[axis];
  for (int a = 0; a < axis; a++) sh[0] *= x->dims[a];
  for (int a = axis + 1; a < x->rank; a++) sh[2] *= x->dims[a];
  return GM_OK;
}

/* A new mat like x (ctype, place) with axis `axis` of length len. */
static gm_status new_result(const gm_mat *x, int axis, size_t len, gm_mat **out) {
  size_t dims[GM_MAX_RANK];
  for (int a = 0; a < x->rank; a++) dims[a] = a == axis ? len : x->dims[a];
  gm_mat_options mo = {.ctype = (int)x->ctype, .cuda_enabled = x->cuda_enabled};
  return gm_mat_new(x->rank, dims, &mo, out);
}

/* x and the new y acquired on their place, the backend's entry run with
 * them, y handed back in *out (freed on failure). */
typedef struct scan_call {
  int what; /* 0 scan, 1 sort */
  int op, initial;
  size_t sh[3];
} scan_call;

static gm_status run(const char *fn, gm_mat *x, gm_mat *y, const scan_call *c) {
  gm_mat *all[2] = {x, y};
  gm_exec e = gm_exec_choose(all, 2);
  const gm_scan_ops *ops = e.be->scan;
  if (!ops) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", fn, e.be->name);
  gm_operand o[2] = {{x, GM_INPUT, NULL}, {y, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, o, 2));
  gm_ctype t = x->ctype == GM_INT64 ? GM_UINT64 : x->ctype; /* int64 scans as its bits (kernels/scan.h) */
  gm_status st = c->what == 0 ? ops->scan(e.dev, t, c->op, c->initial, c->sh[0], c->sh[1], c->sh[2], o[0].ptr, o[1].ptr)
                              : ops->sort(e.dev, x->ctype, c->op, c->sh[0], c->sh[1], c->sh[2], o[0].ptr, o[1].ptr);
  return gm_finish(&e, o, 2, st);
}

static gm_status call(const char *fn, gm_mat *x, int axis, const scan_call *c0, gm_mat **out) {
  scan_call c = *c0;
  GM_TRY(check_x(fn, x, axis, c.what == 0, c.sh));
  gm_mat *y = NULL;
  GM_TRY(new_result(x, axis, c.sh[1] + (size_t)c.initial, &y));
  gm_status st = GM_OK;
  if (y->size > 0 && (c.what == 0 || c.sh[1] > 0)) st = run(fn, x, y, &c);
  if (st != GM_OK) {
    gm_mat_free(y);
    return st;
  }
  *out = y;
  return GM_OK;
}

gm_status gm_scan_axis(gm_mat *x, int axis, int op, bool initial, gm_mat **out) {
  const char *fn = op == GM_SCAN_SUM ? "cumulative_sum" : "cumulative_prod";
  if (op != GM_SCAN_SUM && op != GM_SCAN_PROD) return gm_fail(GM_EINVAL, "scan: unknown op %d", op);
  scan_call c = {0, op, initial, {0}};
  if (is_float(x->ctype)) return call(fn, x, axis, &c, out);
  /* bool and integers: NumPy's int64 result (uint64 for unsigned types)
   * from a copy widened to it, unless x already has that type */
  gm_ctype t = gm_ctype_kind(x->ctype) == GM_KIND_UINT ? GM_UINT64 : GM_INT64;
  gm_mat *w = x;
  if (x->ctype != t) {
    gm_mat_options mo = {.ctype = (int)t, .cuda_enabled = x->cuda_enabled};
    GM_TRY(gm_mat_new(x->rank, x->dims, &mo, &w));
    gm_status st = gm_mat_astype(x, w);
    if (st != GM_OK) {
      gm_mat_free(w);
      return st;
    }
  }
  gm_status st = call(fn, w, axis, &c, out);
  if (w != x) gm_mat_free(w);
  return st;
}

gm_status gm_sort_axis(gm_mat *x, int axis, bool descending, gm_mat **out) {
  scan_call c = {1, descending, 0, {0}};
  return call("sort", x, axis, &c, out);
}
