#include "scan.h"

#include "elementwise.h"
#include "half.h"
#include "../exec/exec.h"
#include "../../../kernels/radix.h"

/* Process-wide, read by every call: only the specs set it. */
static size_t chunk_override;

void gm_set_chunk_override(size_t chunk) { __atomic_store_n(&chunk_override, chunk, __ATOMIC_RELAXED); }
size_t gm_chunk_override(void) { return __atomic_load_n(&chunk_override, __ATOMIC_RELAXED); }

/* A function of the shape alone, never of the place or the thread count:
 * every backend regroups a line's sum the same way (kernels/scan.h). */
size_t gm_scan_chunk(size_t lines, size_t len) {
  size_t o = gm_chunk_override();
  if (o > 0) return len > o ? o : 0;
  return lines < GM_SCAN_FEW_LINES && len >= 4 * (size_t)GM_SCAN_CHUNK ? GM_SCAN_CHUNK : 0;
}

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
  size_t chunk = gm_scan_chunk(c->sh[0] * c->sh[2], c->sh[1]);
  gm_status st = c->what == 0 ? ops->scan(e.dev, t, c->op, c->initial, c->sh[0], c->sh[1], c->sh[2], chunk, o[0].ptr,
                                          o[1].ptr)
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

/* float16/bfloat16 mats (the entry points below): the op runs on x's
 * float32 copy (exact) and its values come back rounded to x's type once
 * (half.c): sorting, selecting and searching compare the very values of
 * x, so their results are exact; the scans accumulate in float32. */
static gm_status half_one(gm_mat *x, int axis, int op, int flag, gm_mat **out,
                          gm_status (*fn)(gm_mat *, int, int, int, gm_mat **)) {
  gm_mat *f = NULL;
  *out = NULL;
  GM_TRY(gm_half_float_copy(x, &f));
  gm_status st = fn(f, axis, op, flag, out);
  gm_mat_free(f);
  return gm_half_result(st, x->ctype, out);
}

static gm_status scan4(gm_mat *x, int axis, int op, int initial, gm_mat **out) {
  return gm_scan_axis(x, axis, op, initial, out);
}

gm_status gm_scan_axis(gm_mat *x, int axis, int op, bool initial, gm_mat **out) {
  if (gm_ctype_is_half(x->ctype)) return half_one(x, axis, op, initial, out, scan4);
  static const char *const names[] = {"cumulative_sum", "cumulative_prod", "cumulative_logsumexp"};
  if (op != GM_SCAN_SUM && op != GM_SCAN_PROD && op != GM_SCAN_LOGSUMEXP)
    return gm_fail(GM_EINVAL, "scan: unknown op %d", op);
  const char *fn = names[op];
  scan_call c = {0, op, initial, {0}};
  if (is_float(x->ctype)) return call(fn, x, axis, &c, out);
  if (op == GM_SCAN_LOGSUMEXP) /* the Lua side converts bool and integer mats to float64 first */
    return gm_fail(GM_EUNSUPPORTED, "%s: %s mats are not supported (float32 and float64)", fn, gm_ctype_name(x->ctype));
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

static gm_status sort4(gm_mat *x, int axis, int descending, int unused, gm_mat **out) {
  (void)unused;
  return gm_sort_axis(x, axis, descending, out);
}

gm_status gm_sort_axis(gm_mat *x, int axis, bool descending, gm_mat **out) {
  if (gm_ctype_is_half(x->ctype)) return half_one(x, axis, descending, 0, out, sort4);
  scan_call c = {1, descending, 0, {0}};
  return call("sort", x, axis, &c, out);
}

/* ---- the index-carrying engine (every ctype) ---- */

/* outer, len and inner of x along 0-based axis, any ctype. */
static gm_status axis_shape(const char *fn, const gm_mat *x, int axis, size_t sh[3]) {
  if (axis < 0 || axis >= x->rank) return gm_fail(GM_EINVAL, "%s: axis %d is out of range 1..%d", fn, axis + 1, x->rank);
  sh[0] = sh[2] = 1;
  sh[1] = x->dims[axis];
  for (int a = 0; a < axis; a++) sh[0] *= x->dims[a];
  for (int a = axis + 1; a < x->rank; a++) sh[2] *= x->dims[a];
  return GM_OK;
}

/* A new mat of ctype t like x (place) with axis `axis` of length len. */
static gm_status new_typed(const gm_mat *x, gm_ctype t, int axis, size_t len, gm_mat **out) {
  size_t dims[GM_MAX_RANK];
  for (int a = 0; a < x->rank; a++) dims[a] = a == axis ? len : x->dims[a];
  gm_mat_options mo = {.ctype = (int)t, .cuda_enabled = x->cuda_enabled};
  return gm_mat_new(x->rank, dims, &mo, out);
}

static gm_status run_lines(const char *fn, gm_mat *x, gm_mat *y, gm_mat *yi, int op, int flag, const size_t sh[3]) {
  gm_mat *all[3] = {x, yi, y};
  int n = y ? 3 : 2;
  gm_exec e = gm_exec_choose(all, n);
  const gm_scan_ops *ops = e.be->scan;
  if (!ops || !ops->lines) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", fn, e.be->name);
  gm_operand o[3] = {{x, GM_INPUT, NULL}, {yi, GM_OUTPUT, NULL}, {y, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, o, n));
  gm_status st = ops->lines(e.dev, x->ctype, op, flag, sh[0], sh[1], sh[2], o[0].ptr, y ? o[2].ptr : NULL, o[1].ptr);
  return gm_finish(&e, o, n, st);
}

static const char *lines_name(int op, int flag) {
  switch (op) {
    case GM_LINES_ARGSORT: return "argsort";
    case GM_LINES_CUMEXT: return flag ? "cummax" : "cummin";
    case GM_LINES_MODE: return "mode";
    default: return "unique";
  }
}

/* The int64 result of op: x's dims with axis `on` long, or for the
 * unique ops a 1-d mat of 3 len + 1 (first positions, counts, inverse,
 * the count). */
static gm_status new_index(const gm_mat *x, int op, int axis, size_t len, gm_mat **out) {
  if (op < GM_LINES_UNIQUE) return new_typed(x, GM_INT64, axis, gm_lines_out_len(op, len), out);
  size_t n = 3 * len + 1;
  gm_mat_options mo = {.ctype = GM_INT64, .cuda_enabled = x->cuda_enabled};
  GM_TRY(gm_mat_new(1, &n, &mo, out));
  return len == 0 ? gm_fill_(0.0, *out, n) : GM_OK;
}

static gm_status check_lines(const char *fn, const gm_mat *x, int axis, int op, size_t sh[3]) {
  if (op < GM_LINES_ARGSORT || op > GM_LINES_UNIQUE_ROWS) return gm_fail(GM_EINVAL, "lines: unknown op %d", op);
  GM_TRY(axis_shape(fn, x, axis, sh));
  if (op == GM_LINES_UNIQUE && x->rank != 1) return gm_fail(GM_EINVAL, "%s: the mat must be 1-d", fn);
  if (op == GM_LINES_UNIQUE_ROWS && (x->rank != 2 || axis != 0 || (sh[1] > 0 && sh[2] == 0)))
    return gm_fail(GM_EINVAL, "%s: rows of a 2-d mat with at least one column expected", fn);
  if (op == GM_LINES_MODE && sh[1] == 0) return gm_fail(GM_EINVAL, "%s: axis %d is empty", fn, axis + 1);
  return GM_OK;
}

/* gm_lines_axis of a half mat (half_one's way): the values back in x's
 * type, the indices as they are. */
static gm_status lines_half(gm_mat *x, int axis, int op, int flag, bool values, gm_mat **y, gm_mat **yi) {
  gm_mat *f = NULL, *v = NULL;
  GM_TRY(gm_half_float_copy(x, &f));
  gm_status st = gm_lines_axis(f, axis, op, flag, values, y ? &v : NULL, yi);
  gm_mat_free(f);
  if (st != GM_OK) return st;
  if ((st = gm_half_result(st, x->ctype, &v)) != GM_OK) {
    gm_mat_free(*yi);
    *yi = NULL;
    return st;
  }
  if (y) *y = v;
  return GM_OK;
}

gm_status gm_lines_axis(gm_mat *x, int axis, int op, int flag, bool values, gm_mat **y, gm_mat **yi) {
  if (gm_ctype_is_half(x->ctype)) return lines_half(x, axis, op, flag, values, y, yi);
  const char *fn = lines_name(op, flag);
  size_t sh[3] = {0, 0, 0};
  GM_TRY(check_lines(fn, x, axis, op, sh));
  gm_mat *v = NULL, *ix = NULL;
  gm_status st = values || op != GM_LINES_ARGSORT ? new_typed(x, x->ctype, axis, gm_lines_out_len(op, sh[1]), &v) : GM_OK;
  if (st == GM_OK) st = new_index(x, op, axis, sh[1], &ix);
  if (st == GM_OK && sh[0] * sh[1] * sh[2] > 0) st = run_lines(fn, x, v, ix, op, flag, sh);
  if (st != GM_OK) {
    gm_mat_free(v);
    gm_mat_free(ix);
    return st;
  }
  if (y) *y = v;
  else gm_mat_free(v);
  *yi = ix;
  return GM_OK;
}

static gm_status run_search(gm_mat *s, gm_mat *sorter, gm_mat *v, gm_mat *out, int mode) {
  gm_mat *all[4] = {s, v, out, sorter};
  int n = sorter ? 4 : 3;
  gm_exec e = gm_exec_choose(all, n);
  const gm_scan_ops *ops = e.be->scan;
  const char *fn = mode <= GM_SEARCH_RIGHT ? "searchsorted" : "isin";
  if (!ops || !ops->search) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", fn, e.be->name);
  gm_operand o[4] = {{s, GM_INPUT, NULL}, {v, GM_INPUT, NULL}, {out, GM_OUTPUT, NULL}, {sorter, GM_INPUT, NULL}};
  GM_TRY(gm_acquire(&e, o, n));
  gm_status st = ops->search(e.dev, s->ctype, mode, s->size, o[0].ptr, sorter ? o[3].ptr : NULL, v->size, o[1].ptr,
                             o[2].ptr);
  return gm_finish(&e, o, n, st);
}

gm_status gm_search_sorted(gm_mat *s, gm_mat *sorter, gm_mat *v, int mode, gm_mat **out) {
  const char *fn = mode <= GM_SEARCH_RIGHT ? "searchsorted" : "isin";
  if (mode < GM_SEARCH_LEFT || mode > GM_SEARCH_NOTIN) return gm_fail(GM_EINVAL, "search: unknown mode %d", mode);
  if (s->rank != 1) return gm_fail(GM_EINVAL, "%s: the sorted mat must be 1-d", fn);
  GM_TRY(gm_check_same_ctype(fn, s, v));
  if (gm_ctype_is_half(s->ctype)) { /* on float32 copies of both (exact: the same order) */
    gm_mat *fs = NULL, *fv = NULL;
    gm_status st = gm_half_float_copy(s, &fs);
    if (st == GM_OK) st = gm_half_float_copy(v, &fv);
    if (st == GM_OK) st = gm_search_sorted(fs, sorter, fv, mode, out);
    gm_mat_free(fs);
    gm_mat_free(fv);
    return st;
  }
  if (sorter && (sorter->ctype != GM_INT64 || sorter->rank != 1 || sorter->size != s->size))
    return gm_fail(GM_EINVAL, "%s: sorter must be an int64 mat of %zu elements", fn, s->size);
  gm_mat_options mo = {.ctype = mode <= GM_SEARCH_RIGHT ? GM_INT64 : GM_BOOL, .cuda_enabled = v->cuda_enabled};
  gm_mat *y = NULL;
  GM_TRY(gm_mat_new(v->rank, v->dims, &mo, &y));
  gm_status st = v->size > 0 ? run_search(s, sorter, v, y, mode) : GM_OK;
  if (st != GM_OK) {
    gm_mat_free(y);
    return st;
  }
  *out = y;
  return GM_OK;
}

static size_t radix_min = GM_RADIX_MIN_LEN, radix_chunk = GM_RADIX_CHUNK;

size_t gm_sort_radix_min(void) { return __atomic_load_n(&radix_min, __ATOMIC_RELAXED); }
size_t gm_sort_radix_chunk(void) { return __atomic_load_n(&radix_chunk, __ATOMIC_RELAXED); }
void gm_sort_radix_set(size_t min_len, size_t chunk) {
  __atomic_store_n(&radix_min, min_len ? min_len : GM_RADIX_MIN_LEN, __ATOMIC_RELAXED);
  __atomic_store_n(&radix_chunk, chunk ? chunk : GM_RADIX_CHUNK, __ATOMIC_RELAXED);
}
