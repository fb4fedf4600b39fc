/* Host loops of the gather/scatter engine (core/ops/index_ops.h): the
 * per-item functions of kernels/index.h, the ones the device kernels
 * run, split across the cores (gm_par_for).  A scatter's runs write
 * distinct elements, so chunks of runs never write one element twice.
 * Stream compaction: kernels/compact.h's passes, chunks over the cores. */
#include <stdlib.h>
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

/* By element size: typed moves, not a memcpy call per element. */
static void gather_chunk(void *arg, size_t begin, size_t end) {
  const index_job *j = arg;
#define G(U)                                                                       \
  case sizeof(U):                                                                  \
    for (size_t i = begin; i < end; i++) ((U *)j->y)[i] = ((const U *)j->x)[j->off[i]]; \
    return;
  switch (j->esize) {
    /* 16 bytes (complex128): the struct */
    G(uint8_t) G(uint16_t) G(uint32_t) G(uint64_t) G(gm_complex128) default : break;
  }
#undef G
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
    GM_REAL_CTYPES(X)
    GM_COMPLEX_CTYPES(X)
    GM_HALF_CTYPES(X)
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

typedef struct compact_job {
  gm_ctype mt;
  size_t n, chunk, esize;
  const void *m, *x;
  void *y;
  const gm_compact_dims *d;
  int64_t *c, *cnt; /* coordinates; per-chunk counts, then offsets */
} compact_job;

static void count_chunks(void *arg, size_t begin, size_t end) {
  const compact_job *j = arg;
#define X(T, E, ...)                                                                                          \
  case GM_##E:                                                                                                \
    for (size_t k = begin; k < end; k++)                                                                      \
      j->cnt[k] = gm_compact_count_##E(k * j->chunk, gm_scan_chunk_end(k, j->n, j->chunk), (const T *)j->m); \
    break;
  switch (j->mt) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* The element units a bool mask's values move as, by size (compact.h's
 * gm_compact_values_U and gm_compact_expand_U; complex128 as the struct). */
#define UNITS(X) X(uint8_t) X(uint16_t) X(uint32_t) X(uint64_t) X(gm_complex128)

/* Pass 3 of chunk k: the values (bool m), the coordinates, or both. */
static void write_chunk(const compact_job *j, size_t k) {
  size_t a = k * j->chunk, b = gm_scan_chunk_end(k, j->n, j->chunk);
  int64_t o = j->cnt[k], hi = j->cnt[k + 1];
#define V(U)                                                                                         \
  case sizeof(U):                                                                                    \
    gm_compact_values_##U(a, b, (const bool *)j->m, o, hi, (const U *)j->x, (U *)j->y);               \
    break;
  if (j->y) switch (j->esize) {
      UNITS(V)
      default:
        break;
    }
#undef V
#define X(T, E, ...)                                                   \
  case GM_##E:                                                         \
    gm_compact_coords_##E(a, b, (const T *)j->m, o, j->d, j->c);       \
    break;
  if (j->c) switch (j->mt) {
      GM_REAL_CTYPES(X)
      default:
        break;
    }
#undef X
}

static void write_chunks(void *arg, size_t begin, size_t end) {
  for (size_t k = begin; k < end; k++) write_chunk(arg, k);
}

/* The passes both directions share: j's chunks counted and their
 * offsets, then `pass` over the chunks (NULL: only the total, to *count). */
static gm_status counted_pass(compact_job *j, const char *fn, void (*pass)(void *, size_t, size_t), size_t *count) {
  size_t nc = gm_scan_nchunks(j->n, j->chunk);
  j->cnt = malloc((nc + 1) * sizeof(int64_t));
  if (!j->cnt) return gm_fail(GM_ENOMEM, "%s: out of host memory for %zu chunk counts", fn, nc);
  gm_par_for(nc, 1, (double)j->chunk, count_chunks, j);
  gm_compact_offsets(nc, j->cnt);
  if (pass) gm_par_for(nc, 1, 2.0 * (double)j->chunk, pass, j);
  else *count = (size_t)j->cnt[nc];
  free(j->cnt);
  return GM_OK;
}

static gm_status host_compact(void *ctx, gm_ctype mt, size_t n, size_t chunk, const void *m, size_t esize,
                              const void *x, void *y, const gm_compact_dims *d, int64_t *c, size_t *count) {
  (void)ctx;
  compact_job j = {mt, n, chunk, esize, m, x, y, d, c, NULL};
  return counted_pass(&j, "compaction", y || c ? write_chunks : NULL, count);
}

/* The inverse (masked_scatter_): counts and offsets of the bool m as
 * above, then each chunk writes src's values from its offset (compact_job's
 * x is src, y is the mat written). */
static void expand_chunks(void *arg, size_t begin, size_t end) {
  const compact_job *j = arg;
  for (size_t k = begin; k < end; k++) {
    size_t a = k * j->chunk, b = gm_scan_chunk_end(k, j->n, j->chunk);
    int64_t o = j->cnt[k], hi = j->cnt[k + 1];
#define V(U)                                                                                   \
  case sizeof(U):                                                                              \
    gm_compact_expand_##U(a, b, (const bool *)j->m, o, hi, (const U *)j->x, (U *)j->y);         \
    break;
    switch (j->esize) {
      UNITS(V)
      default:
        break;
    }
#undef V
  }
}

static gm_status host_expand(void *ctx, size_t n, size_t chunk, const void *m, size_t esize, const void *src,
                             void *x) {
  (void)ctx;
  compact_job j = {GM_BOOL, n, chunk, esize, m, src, x, NULL, NULL, NULL};
  return counted_pass(&j, "masked_scatter_", expand_chunks, NULL);
}

const gm_index_ops gm_host_index_ops = {
    .gather = host_gather, .scatter = host_scatter, .compact = host_compact, .expand = host_expand};
