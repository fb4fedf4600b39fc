/* The gather/scatter engine of indexing (core/ops/index.h): offsets go to the
 * place the op runs as int64 mats (moved there as any operand is), the
 * indexed view is acquired in place (its offsets follow its strides, so
 * a view with negative strides is read and written where it lies), and
 * a scatter is grouped by written element on the host first (a stable
 * sort of the destinations), so every backend runs one writer per
 * element with the duplicates in index order. */
#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "../exec/exec.h"
#include "../model/view.h"

/* A new int64 mat of n values (placed like `like`). */
static gm_status int64_mat(const int64_t *v, size_t n, const gm_mat *like, gm_mat **out) {
  return gm_index_int64_mat(v, 1, &n, like, out);
}

gm_status gm_index_int64_mat(const int64_t *v, int rank, const size_t *dims, const gm_mat *like, gm_mat **out) {
  gm_mat_options mo = {.ctype = GM_CTYPE_INT64, .cuda_enabled = like->cuda_enabled};
  GM_TRY(gm_mat_new(rank, dims, &mo, out));
  size_t n = (*out)->size;
  if (n == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {*out, GM_OUTPUT, NULL};
  gm_status st = gm_acquire(&e, &op, 1);
  if (st == GM_OK) { /* the values of a fresh mat: contiguous */
    memcpy(op.ptr, v, n * sizeof *v);
    st = gm_release(&e, &op, 1);
  }
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

gm_status gm_index_gather(gm_mat *x, const int64_t *off, gm_mat *out) {
  if (out->size == 0) return GM_OK;
  gm_mat *o = NULL;
  GM_TRY(int64_mat(off, out->size, x, &o));
  gm_mat *all[3] = {x, o, out};
  gm_exec e = gm_exec_choose(all, 3);
  gm_status st = GM_EUNSUPPORTED;
  if (!e.be->index) st = gm_fail(st, "index: not implemented on the %s backend", e.be->name);
  gm_operand ops[3] = {{x, GM_INPUT, NULL}, {o, GM_INPUT, NULL}, {out, GM_OUTPUT, NULL}};
  if (e.be->index && (st = gm_acquire_in_place(&e, ops, 3)) == GM_OK)
    st = gm_finish_in_place(&e, ops, 3, e.be->index->gather(e.dev, x->ctype, out->size, ops[0].ptr, ops[1].ptr, ops[2].ptr));
  gm_mat_free(o);
  return st;
}

typedef struct dst_item {
  int64_t dst, i;
} dst_item;

static int by_dst(const void *a, const void *b) {
  const dst_item *p = a, *q = b;
  if (p->dst != q->dst) return p->dst < q->dst ? -1 : 1;
  return p->i < q->i ? -1 : p->i > q->i;
}

/* The runs of a grouped scatter (kernels/index.h) in one allocation:
 * g[0..runs) the destinations, then runs + 1 starts, then n positions. */
static gm_status group(size_t n, const int64_t *dst, const int64_t *spos, int64_t **g, size_t *runs) {
  dst_item *items = malloc(n * sizeof *items + 1);
  *g = malloc((3 * n + 1) * sizeof **g);
  if (!items || !*g) {
    free(items);
    free(*g);
    return gm_fail(GM_ENOMEM, "index: out of host memory for %zu indices", n);
  }
  for (size_t i = 0; i < n; i++) items[i] = (dst_item){dst[i], (int64_t)i};
  qsort(items, n, sizeof *items, by_dst);
  size_t r = 0;
  int64_t *start = *g + n, *pos = *g + 2 * n + 1;
  for (size_t k = 0; k < n; k++) {
    if (k == 0 || items[k].dst != items[k - 1].dst) {
      (*g)[r] = items[k].dst;
      start[r++] = (int64_t)k;
    }
    pos[k] = spos[items[k].i];
  }
  start[r] = (int64_t)n;
  free(items);
  *runs = r;
  return GM_OK;
}

/* Runs the grouped scatter g (group's layout) on y's place with the
 * int64 mats m[0..3) of its destinations, starts and positions. */
static gm_status launch_scatter(gm_mat *y, gm_mat *src, gm_mat *const *m, size_t runs, int mode) {
  gm_mat *all[5] = {y, src, m[0], m[1], m[2]};
  gm_exec e = gm_exec_choose(all, 5);
  if (!e.be->index) return gm_fail(GM_EUNSUPPORTED, "index: not implemented on the %s backend", e.be->name);
  gm_operand ops[5] = {{y, GM_IO, NULL}, {src, GM_INPUT, NULL}, {m[0], GM_INPUT, NULL}, {m[1], GM_INPUT, NULL},
                       {m[2], GM_INPUT, NULL}};
  GM_TRY(gm_acquire_in_place(&e, ops, 5));
  gm_status st = e.be->index->scatter(e.dev, y->ctype, mode, runs, ops[2].ptr, ops[3].ptr, ops[4].ptr, ops[1].ptr,
                                      ops[0].ptr);
  return gm_finish_in_place(&e, ops, 5, st);
}

static gm_status run_scatter(gm_mat *y, size_t n, size_t runs, const int64_t *g, gm_mat *src, int mode) {
  gm_mat *m[3] = {NULL, NULL, NULL};
  gm_status st = int64_mat(g, runs, y, &m[0]);
  if (st == GM_OK) st = int64_mat(g + n, runs + 1, y, &m[1]);
  if (st == GM_OK) st = int64_mat(g + 2 * n + 1, n, y, &m[2]);
  if (st == GM_OK) st = launch_scatter(y, src, m, runs, mode);
  for (int i = 0; i < 3; i++) gm_mat_free(m[i]);
  return st;
}

gm_status gm_index_scatter(gm_mat *y, size_t n, const int64_t *dst, gm_mat *src, const int64_t *spos, int mode) {
  if (n == 0) return GM_OK;
  GM_TRY(gm_check_writable("index", y));
  int64_t *g = NULL;
  size_t runs = 0;
  GM_TRY(group(n, dst, spos, &g, &runs));
  gm_status st = run_scatter(y, n, runs, g, src, mode);
  free(g);
  return st;
}
