/* The host's selection of the first k of each line's stable sort
 * (gm_scan_ops' select, kernels/select.h): a few long lines one after the
 * other, the k least of each chunk over the cores (gm_par_for), then the
 * chunks' heaps merged; many lines one per caller, over the cores. */
#include <stdlib.h>

#include "../core/exec/par.h"
#include "../core/ops/scan.h"
#include "../../kernels/select.h"
#include "radix.h"

typedef struct select_job {
  gm_ctype t;
  int desc;
  size_t k, len, inner, chunk;
  const void *x;
  void *y;
  int64_t *yi;
  gm_sel_item *h;
  size_t *cnt;
  int failed;
} select_job;

static void chunks(void *arg, size_t begin, size_t end) {
  const select_job *j = arg;
#define X(T, E, ...)                                                                                       \
  case GM_##E:                                                                                             \
    for (size_t c = begin; c < end; c++)                                                                   \
      gm_sel_chunk_##E(j->desc, j->k, c, j->chunk, j->len, j->inner, (const T *)j->x, j->h, j->cnt);      \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* line i's result from the merged heap j->h */
static void out(const select_job *j, size_t i) {
  size_t s = gm_scan_line_start(i, j->len, j->inner), o = gm_scan_line_start(i, j->k, j->inner);
#define X(T, E, ...)                                                                                         \
  case GM_##E:                                                                                               \
    gm_sel_out_##E(j->k, j->h, j->inner, (const T *)j->x + s, j->inner, (T *)j->y + o, j->yi + o);          \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

static void lines(void *arg, size_t begin, size_t end) {
  select_job *j = arg;
  gm_sel_item *h = malloc(j->k * sizeof *h);
  if (!h) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
#define X(T, E, ...)                                                                                         \
  case GM_##E:                                                                                               \
    for (size_t i = begin; i < end; i++) {                                                                   \
      size_t s = gm_scan_line_start(i, j->len, j->inner), o = gm_scan_line_start(i, j->k, j->inner);         \
      gm_sel_line_##E(j->desc, j->k, j->len, j->inner, (const T *)j->x + s, (T *)j->y + o, j->yi + o, h);    \
    }                                                                                                        \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
  free(h);
}

gm_status gm_host_select(void *ctx, gm_ctype t, int desc, size_t k, size_t outer, size_t len, size_t inner,
                         const void *x, void *y, int64_t *yi) {
  (void)ctx;
  const size_t n_lines = outer * inner, chunk = gm_sort_radix_chunk(), es = gm_ctype_size(t);
  select_job j = {t, desc, k, len, inner, chunk, x, y, yi, NULL, NULL, 0};
  if (n_lines > GM_RADIX_FEW_LINES || len <= chunk) {
    gm_par_for(n_lines, 1, 2.0 * (double)len + 1, lines, &j);
    return j.failed ? gm_fail(GM_ENOMEM, "topk: out of host memory for the selection") : GM_OK;
  }
  const size_t nch = gm_radix_chunks(len, chunk);
  j.h = malloc(nch * k * sizeof *j.h);
  j.cnt = malloc(nch * sizeof *j.cnt);
  gm_status st = j.h && j.cnt ? GM_OK : gm_fail(GM_ENOMEM, "topk: out of host memory for the selection");
  for (size_t i = 0; st == GM_OK && i < n_lines; i++) {
    select_job line = j;
    line.x = (const char *)x + gm_scan_line_start(i, len, inner) * es;
    gm_par_for(nch, 1, (double)chunk, chunks, &line);
    gm_sel_merge(k, nch, j.h, j.cnt);
    out(&j, i);
  }
  free(j.h);
  free(j.cnt);
  return st;
}
