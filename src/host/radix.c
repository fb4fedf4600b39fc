/* The host's radix sort of lines (kernels/radix.h), the sorts' engine
 * from gm_sort_radix_min() elements on (src/host/scan.c dispatches): a few
 * long lines one after the other, each pass's histograms and scatters on
 * chunks of the line over the cores (gm_par_for) and the counts' scan
 * between them; many lines each sorted whole by one caller, the lines
 * over the cores. */
#include <stdlib.h>

#include "../core/exec/par.h"
#include "../core/mem/hostpool.h"
#include "../core/ops/scan.h"
#include "../../kernels/radix.h"
#include "radix.h"

/* One pass of one long line (or its tail: finish). */
typedef struct radix_job {
  gm_ctype t;
  int desc, op;
  unsigned shift;
  size_t chunk, len, st, inner;
  const void *src;
  const int64_t *si;
  void *dv, *y;
  int64_t *di, *yi;
  size_t *cnt, *tot;
} radix_job;

static void hist_chunks(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t c = begin; c < end; c++)                                                                        \
      gm_radix_chunk_hist_##E(j->desc, j->shift, c, j->chunk, j->len, j->st, (const T *)j->src, j->cnt);      \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

static void scatter_chunks(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t c = begin; c < end; c++)                                                                        \
      gm_radix_chunk_scatter_##E(j->desc, j->shift, c, j->chunk, j->len, j->st, (const T *)j->src, j->si,       \
                                 (T *)j->dv, j->di, j->cnt, j->tot);                                            \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* The sorted run src/si's elements [begin, end) written out (argsort's
 * copy; mode and unique take the whole line, begin 0). */
static void finish_range(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    gm_radix_finish_##E(j->op, end - begin, j->inner, (const T *)j->src + begin, j->si ? j->si + begin : NULL,  \
                        j->y ? (T *)j->y + begin * j->inner : NULL, j->yi ? j->yi + begin * j->inner : NULL);   \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* Sorts the long line j->src (stride j->st) into w (values: 2 len of
 * es bytes) and wi (2 len, or NULL); j->src/si end at the sorted run. */
static void sort_long(radix_job *j, size_t es, char *w, int64_t *wi) {
  const size_t n = j->len, nch = gm_radix_chunks(n, j->chunk);
  const void *x = j->src;
  size_t o = 0;
  for (unsigned p = 0; p < es; p++) {
    j->shift = 8 * p;
    gm_par_for(nch, 1, (double)j->chunk, hist_chunks, j);
    for (size_t d = 0; d < GM_RADIX_DIGITS; d++) gm_radix_digit_scan(d, nch, j->cnt, j->tot);
    if (gm_radix_trivial(j->tot, n)) continue;
    gm_radix_exclusive(j->tot, GM_RADIX_DIGITS);
    j->dv = w + o * es;
    j->di = wi ? wi + o : NULL;
    gm_par_for(nch, 1, 2.0 * (double)j->chunk, scatter_chunks, j);
    j->src = j->dv, j->si = j->di, j->st = 1, o = n - o;
  }
  if (j->src != x) return;
  for (size_t k = 0; k < n; k++) { /* every key equal: the line as it is */
    memcpy(w + k * es, (const char *)x + k * j->st * es, es);
    if (wi) wi[k] = (int64_t)k;
  }
  j->src = w, j->si = wi;
}

/* Scratch from the host pool (mem/hostpool.h): a long line's two
 * buffers are as large as the line, and fresh malloc'd pages are faulted
 * in one by one on every sort (about 2 ms per 4 MB); the pool keeps them
 * faulted in for the next call.  NULL on failure. */
typedef struct scratch {
  void *p;
  size_t size;
} scratch;

static void *scratch_get(scratch *s, size_t bytes) {
  if (gm_host_scratch(bytes ? bytes : 1, &s->p, &s->size) != GM_OK) s->p = NULL;
  return s->p;
}

static void scratch_put(scratch *s) {
  if (s->p) gm_host_scratch_free(s->p, s->size);
}

/* A few long lines, one after the other, each over the cores. */
static gm_status few_long(const gm_host_radix_args *a, size_t es) {
  const size_t n = a->len, nch = gm_radix_chunks(n, a->chunk);
  scratch sw = {0}, swi = {0}, scnt = {0};
  char *w = scratch_get(&sw, 2 * n * es);
  int64_t *wi = a->yi ? scratch_get(&swi, 2 * n * sizeof *wi) : NULL;
  size_t *cnt = scratch_get(&scnt, (nch + 1) * GM_RADIX_DIGITS * sizeof *cnt);
  gm_status st = GM_OK;
  if (!w || !cnt || (a->yi && !wi)) st = gm_fail(GM_ENOMEM, "sort: out of host memory for the radix scratch");
  for (size_t i = 0; st == GM_OK && i < a->outer * a->inner; i++) {
    size_t s = gm_scan_line_start(i, n, a->inner), os = gm_scan_line_start(i, gm_lines_out_len(a->op, n), a->inner);
    radix_job j = {a->t, a->op == GM_LINES_ARGSORT && a->flag, a->op, 0, a->chunk, n, a->inner, a->inner,
                   (const char *)a->x + s * es, NULL, NULL, a->y ? (char *)a->y + os * es : NULL, NULL,
                   a->yi ? a->yi + os : NULL, cnt, cnt + nch * GM_RADIX_DIGITS};
    sort_long(&j, es, w, wi);
    if (a->op == GM_LINES_ARGSORT) gm_par_for(n, 1, 2.0, finish_range, &j);
    else finish_range(&j, 0, n);
  }
  scratch_put(&sw);
  scratch_put(&swi);
  scratch_put(&scnt);
  return st;
}

/* Many lines: a chunk of lines per thread, each line sorted whole. */
typedef struct lines_job {
  const gm_host_radix_args *a;
  size_t es;
  int failed;
} lines_job;

static void lines_chunk(void *arg, size_t begin, size_t end) {
  lines_job *lj = arg;
  const gm_host_radix_args *a = lj->a;
  const size_t n = a->len, on = gm_lines_out_len(a->op, n);
  scratch sw = {0};
  int64_t *wi = scratch_get(&sw, 2 * n * (lj->es + sizeof(int64_t))); /* indices first: the strictest alignment */
  if (!wi) {
    __atomic_store_n(&lj->failed, 1, __ATOMIC_RELAXED);
    return;
  }
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t i = begin; i < end; i++) {                                                                      \
      size_t s = gm_scan_line_start(i, n, a->inner), o = gm_scan_line_start(i, on, a->inner);                   \
      gm_radix_lines_line_##E(a->op, a->flag, n, a->inner, (const T *)a->x + s, a->y ? (T *)a->y + o : NULL,    \
                              a->yi ? a->yi + o : NULL, (T *)(void *)(wi + 2 * n), wi);                         \
    }                                                                                                           \
    break;
  switch (a->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
  scratch_put(&sw);
}

gm_status gm_host_radix(const gm_host_radix_args *a) {
  const size_t es = gm_ctype_size(a->t), lines = a->outer * a->inner;
  if (lines <= GM_RADIX_FEW_LINES && a->len > a->chunk) return few_long(a, es);
  lines_job lj = {a, es, 0};
  gm_par_for(lines, 1, 4.0 * (double)a->len + 1, lines_chunk, &lj);
  return lj.failed ? gm_fail(GM_ENOMEM, "sort: out of host memory for the radix scratch") : GM_OK;
}
