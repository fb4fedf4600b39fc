/* Host loops of the gather/scatter engine (core/ops/index_ops.h): the
 * per-item functions of kernels/index.h, the ones the device kernels
 * run, split across the cores (gm_par_for).  A scatter's runs write
 * distinct elements, so chunks of runs never write one element twice. */
#include <string.h>

#include "../core/ops/index_ops.h"
#include "../core/exec/par.h"

typedef struct index_job {
  gm_ctype t;
  int mode;
  size_t esize;
  const int64_t *off, *dst, *start, *spos;
  const void *x;
  void *y;
} index_job;

static void gather_chunk(void *arg, size_t begin, size_t end) {
  const index_job *j = arg;
  const char *x = j->x;
  char *y = j->y;
  for (size_t i = begin; i < end; i++) memcpy(y + i * j->esize, x + j->off[i] * (int64_t)j->esize, j->esize);
}

static void scatter_chunk(void *arg, size_t begin, size_t end) {
  const index_job *j = arg;
#define X(T, E, ...)                                                                                 \
  case GM_##E:                                                                                       \
    for (size_t r = begin; r < end; r++)                                                             \
      gm_index_scatter_run_##T(j->mode, r, j->dst, j->start, j->spos, (const T *)j->x, (T *)j->y);   \
    break;
  switch (j->t) {
    GM_CTYPES(X)
    default:
      break;
  }
#undef X
}

static gm_status host_gather(void *ctx, gm_ctype t, size_t n, const void *x, const int64_t *off, void *y) {
  (void)ctx;
  index_job j = {.t = t, .esize = gm_ctype_size(t), .off = off, .x = x, .y = y};
  gm_par_for(n, 1, 1.0, gather_chunk, &j);
  return GM_OK;
}

static gm_status host_scatter(void *ctx, gm_ctype t, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                              const int64_t *spos, const void *src, void *y) {
  (void)ctx;
  index_job j = {.t = t, .mode = mode, .dst = dst, .start = start, .spos = spos, .x = src, .y = y};
  gm_par_for(runs, 1, 2.0, scatter_chunk, &j);
  return GM_OK;
}

const gm_index_ops gm_host_index_ops = {.gather = host_gather, .scatter = host_scatter};
