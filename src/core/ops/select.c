/* topk and kthvalue without sorting the lines (core/ops/scan.h
 * gm_select_axis): validation and dispatch to the place's gm_scan_ops
 * select (kernels/select.h on every backend). */
#include "scan.h"

#include "half.h"
#include "../exec/exec.h"
#include "../../../kernels/select.h"

/* A new mat of ctype t like x (dims, place) with axis `axis` of length k. */
static gm_status new_like(const gm_mat *x, gm_ctype t, int axis, size_t k, gm_mat **out) {
  size_t dims[GM_MAX_RANK];
  for (int a = 0; a < x->rank; a++) dims[a] = a == axis ? k : x->dims[a];
  gm_mat_options mo = {.ctype = (int)t, .cuda_enabled = x->cuda_enabled};
  return gm_mat_new(x->rank, dims, &mo, out);
}

static gm_status run(gm_mat *x, gm_mat *y, gm_mat *yi, int desc, size_t k, const size_t sh[3]) {
  gm_mat *all[3] = {x, yi, y};
  gm_exec e = gm_exec_choose(all, 3);
  const gm_scan_ops *ops = e.be->scan;
  if (!ops || !ops->select) return gm_fail(GM_EUNSUPPORTED, "topk: not implemented on the %s backend", e.be->name);
  gm_operand o[3] = {{x, GM_INPUT, NULL}, {yi, GM_OUTPUT, NULL}, {y, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, o, 3));
  gm_status st = ops->select(e.dev, x->ctype, desc, k, sh[0], sh[1], sh[2], o[0].ptr, o[2].ptr, o[1].ptr);
  return gm_finish(&e, o, 3, st);
}

/* A float16/bfloat16 mat: selected from its float32 copy (exact: the
 * same order), the values rounded back to x's type (exact). */
static gm_status select_half(gm_mat *x, int axis, size_t k, bool descending, gm_mat **y, gm_mat **yi) {
  gm_mat *f = NULL, *v = NULL;
  GM_TRY(gm_half_float_copy(x, &f));
  gm_status st = gm_select_axis(f, axis, k, descending, &v, yi);
  gm_mat_free(f);
  if (st != GM_OK) return st;
  if ((st = gm_half_result(st, x->ctype, &v)) != GM_OK) {
    gm_mat_free(*yi);
    *yi = NULL;
    return st;
  }
  *y = v;
  return GM_OK;
}

gm_status gm_select_axis(gm_mat *x, int axis, size_t k, bool descending, gm_mat **y, gm_mat **yi) {
  if (gm_ctype_is_half(x->ctype)) return select_half(x, axis, k, descending, y, yi);
  if (axis < 0 || axis >= x->rank) return gm_fail(GM_EINVAL, "topk: axis %d is out of range 1..%d", axis + 1, x->rank);
  size_t sh[3] = {1, x->dims[axis], 1};
  for (int a = 0; a < axis; a++) sh[0] *= x->dims[a];
  for (int a = axis + 1; a < x->rank; a++) sh[2] *= x->dims[a];
  if (k < 1 || k > sh[1] || k > GM_SELECT_MAX_K)
    return gm_fail(GM_EINVAL, "topk: k must be in 1..%zu, got %zu", sh[1] < GM_SELECT_MAX_K ? sh[1] : (size_t)GM_SELECT_MAX_K, k);
  gm_mat *v = NULL, *ix = NULL;
  gm_status st = new_like(x, x->ctype, axis, k, &v);
  if (st == GM_OK) st = new_like(x, GM_INT64, axis, k, &ix);
  if (st == GM_OK && sh[0] * sh[2] > 0) st = run(x, v, ix, descending, k, sh);
  if (st != GM_OK) {
    gm_mat_free(v);
    gm_mat_free(ix);
    return st;
  }
  *y = v;
  *yi = ix;
  return GM_OK;
}
