/* Host loops of the scans and the sort along an axis (core/ops/scan_ops.h):
 * the per-line functions of kernels/scan.h, the ones the device kernels
 * run, over the lines split across the cores (gm_par_for); a chunk of
 * lines sorts in one scratch of 2 * len elements.  Long lines (the
 * core's chunk > 0) scan in scan.h's three passes, chunks of every line
 * over the cores, so one line uses them all. */
#include <stdlib.h>

#include "../core/exec/par.h"
#include "../core/ops/scan.h"
#include "../core/ops/scan_ops.h"
#include "../../kernels/radix.h"
#include "radix.h"

typedef struct scan_job {
  gm_ctype t;
  int op, initial;
  size_t len, inner;
  const void *x;
  void *y;
  int failed;    /* a chunk found no memory for its scratch */
  size_t chunk;  /* the chunked scan: elements per chunk, */
  void *c;       /* lines x nc totals, then carries */
} scan_job;

static void scan_chunk(void *arg, size_t begin, size_t end) {
  const scan_job *j = arg;
  size_t n = j->len, m = j->len + (size_t)j->initial;
#define X(T, E, ...)                                                                                   \
  case GM_##E:                                                                                         \
    for (size_t i = begin; i < end; i++)                                                               \
      gm_scan_line_##T(j->op, j->initial, n, j->inner, (const T *)j->x + gm_scan_line_start(i, n, j->inner), \
                       (T *)j->y + gm_scan_line_start(i, m, j->inner));                                \
    break;
  switch (j->t) {
    GM_FLOAT_CTYPES(X)
    X(uint64_t, UINT64, 0) /* bool and integer mats, widened by the core (kernels/scan.h) */
    default:
      break;
  }
#undef X
}

static void sort_chunk(void *arg, size_t begin, size_t end) {
  scan_job *j = arg;
  size_t n = j->len;
  void *w = malloc(2 * n * gm_ctype_size(j->t) + 1);
  if (!w) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
#define X(T, E, ...)                                                                                   \
  case GM_##E:                                                                                         \
    for (size_t i = begin; i < end; i++) {                                                             \
      size_t s = gm_scan_line_start(i, n, j->inner);                                                   \
      gm_sort_line_##T(j->op, n, j->inner, (const T *)j->x + s, (T *)j->y + s, (T *)w);                \
    }                                                                                                  \
    break;
  switch (j->t) {
    GM_FLOAT_CTYPES(X)
    default:
      break;
  }
#undef X
  free(w);
}

/* Items [begin, end) of the chunked scan, item i chunk i % nc of line
 * i / nc: pass 1 (totals into c) or pass 3 (rescan from the carry). */
static void chunks_pass(const scan_job *j, int pass, size_t begin, size_t end) {
  size_t n = j->len, m = n + (size_t)j->initial, nc = gm_scan_nchunks(n, j->chunk), in = j->inner;
#define X(T, E, ...)                                                                                     \
  case GM_##E:                                                                                           \
    for (size_t i = begin; i < end; i++) {                                                               \
      size_t k = i % nc, a = k * j->chunk, b = gm_scan_chunk_end(k, n, j->chunk);                        \
      const T *x = (const T *)j->x + gm_scan_line_start(i / nc, n, in);                                  \
      T *c = (T *)j->c + i;                                                                              \
      if (pass == 1) *c = gm_scan_total_##T(j->op, a, b, in, x);                                         \
      else gm_scan_apply_##T(j->op, *c, a, b, in, x, (T *)j->y + gm_scan_line_start(i / nc, m, in) + (size_t)j->initial * in); \
    }                                                                                                    \
    break;
  switch (j->t) {
    GM_FLOAT_CTYPES(X)
    X(uint64_t, UINT64, 0)
    default:
      break;
  }
#undef X
}

static void totals_chunk(void *arg, size_t begin, size_t end) { chunks_pass(arg, 1, begin, end); }
static void apply_chunk(void *arg, size_t begin, size_t end) { chunks_pass(arg, 3, begin, end); }

/* Pass 2 on lines [begin, end): carries, and the leading identity. */
static void carries_chunk(void *arg, size_t begin, size_t end) {
  const scan_job *j = arg;
  size_t nc = gm_scan_nchunks(j->len, j->chunk);
#define X(T, E, ...)                                                                                    \
  case GM_##E:                                                                                          \
    for (size_t l = begin; l < end; l++) {                                                              \
      gm_scan_carries_##T(j->op, nc, (T *)j->c + l * nc);                                               \
      if (j->initial) ((T *)j->y)[gm_scan_line_start(l, j->len + 1, j->inner)] = j->op == GM_SCAN_SUM ? (T)0 : (T)1; \
    }                                                                                                   \
    break;
  switch (j->t) {
    GM_FLOAT_CTYPES(X)
    X(uint64_t, UINT64, 0)
    default:
      break;
  }
#undef X
}

static gm_status host_scan(void *ctx, gm_ctype t, int op, int initial, size_t outer, size_t len, size_t inner,
                           size_t chunk, const void *x, void *y) {
  (void)ctx;
  scan_job j = {t, op, initial, len, inner, x, y, 0, chunk, NULL};
  size_t lines = outer * inner;
  if (chunk == 0) {
    gm_par_for(lines, 1, (double)len + 1, scan_chunk, &j);
    return GM_OK;
  }
  size_t nc = gm_scan_nchunks(len, chunk);
  j.c = malloc(lines * nc * gm_ctype_size(t) + 1);
  if (!j.c) return gm_fail(GM_ENOMEM, "cumulative_sum: out of host memory for %zu chunk totals", lines * nc);
  gm_par_for(lines * nc, 1, (double)chunk, totals_chunk, &j);
  gm_par_for(lines, 1, (double)nc, carries_chunk, &j);
  gm_par_for(lines * nc, 1, 2.0 * (double)chunk, apply_chunk, &j);
  free(j.c);
  return GM_OK;
}

static gm_status host_sort(void *ctx, gm_ctype t, int desc, size_t outer, size_t len, size_t inner, const void *x,
                           void *y) {
  (void)ctx;
  if (len >= gm_sort_radix_min()) { /* the radix sort (src/host/radix.c), values only */
    gm_host_radix_args a = {t, GM_LINES_ARGSORT, desc, outer, len, inner, gm_sort_radix_chunk(), x, y, NULL};
    return gm_host_radix(&a);
  }
  scan_job j = {t, desc, 0, len, inner, x, y, 0, 0, NULL};
  gm_par_for(outer * inner, 1, 8.0 * (double)len + 1, sort_chunk, &j);
  return j.failed ? gm_fail(GM_ENOMEM, "sort: out of host memory for the merge scratch") : GM_OK;
}

/* ---- the index-carrying engine (kernels/scan.h, every ctype) ---- */

typedef struct lines_job {
  gm_ctype t;
  int op, flag;
  size_t len, inner;
  const void *x;
  void *y;
  int64_t *yi;
  int failed;
} lines_job;

static void lines_chunk(void *arg, size_t begin, size_t end) {
  lines_job *j = arg;
  size_t n = j->len, on = gm_lines_out_len(j->op, n), es = gm_ctype_size(j->t);
  char *w = malloc(2 * n * (es + sizeof(int64_t)) + 1);
  if (!w) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  int64_t *wi = (int64_t *)(void *)w; /* the indices first: their alignment is the strictest */
#define X(T, E, ...)                                                                                          \
  case GM_##E:                                                                                                \
    for (size_t i = begin; i < end; i++) {                                                                    \
      size_t s = gm_scan_line_start(i, n, j->inner), o = gm_scan_line_start(i, on, j->inner);                 \
      gm_lines_line_##E(j->op, j->flag, n, j->inner, (const T *)j->x + s, j->y ? (T *)j->y + o : NULL, j->yi + o, \
                        (T *)(void *)(wi + 2 * n), wi);                                                       \
    }                                                                                                         \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
  free(w);
}

static gm_status host_lines(void *ctx, gm_ctype t, int op, int flag, size_t outer, size_t len, size_t inner,
                            const void *x, void *y, int64_t *yi) {
  (void)ctx;
  if (gm_radix_sorting_op(op) && len >= gm_sort_radix_min()) { /* the radix sort (src/host/radix.c) */
    gm_host_radix_args a = {t, op, flag, outer, len, inner, gm_sort_radix_chunk(), x, y, yi};
    return gm_host_radix(&a);
  }
  lines_job j = {t, op, flag, len, inner, x, y, yi, 0};
  gm_par_for(gm_lines_count(op, outer, inner), 1, 8.0 * (double)len + 1, lines_chunk, &j);
  return j.failed ? gm_fail(GM_ENOMEM, "sort: out of host memory for the merge scratch") : GM_OK;
}

typedef struct search_job {
  gm_ctype t;
  int mode;
  size_t n;
  const void *s, *v;
  const int64_t *sorter;
  void *out;
} search_job;

static void search_chunk(void *arg, size_t begin, size_t end) {
  const search_job *j = arg;
#define X(T, E, ...)                                                                   \
  case GM_##E:                                                                         \
    for (size_t i = begin; i < end; i++)                                               \
      gm_search_one_##E(j->mode, j->n, (const T *)j->s, j->sorter, (const T *)j->v, i, j->out); \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

static gm_status host_search(void *ctx, gm_ctype t, int mode, size_t n, const void *s, const int64_t *sorter,
                             size_t m, const void *v, void *out) {
  (void)ctx;
  search_job j = {t, mode, n, s, v, sorter, out};
  gm_par_for(m, 1, 4.0 * (double)(n + 1), search_chunk, &j);
  return GM_OK;
}

const gm_scan_ops gm_host_scan_ops = {
    .scan = host_scan, .sort = host_sort, .lines = host_lines, .search = host_search, .select = gm_host_select};
