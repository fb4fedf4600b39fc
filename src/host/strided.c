/* Host strided copy: rows of the innermost axis, the outer axes walked
 * with an odometer from each chunk's first row, chunks over the cores. */
#include "strided.h"

#include <stdint.h>
#include <string.h>

#include "../../kernels/strided.h"
#include "../core/exec/par.h"
#include "../core/mem/move.h"

typedef struct copy_job {
  const gm_strided_geom *g;
  size_t esize;
  const char *src;
  char *dst;
} copy_job;

/* One row as unsigned integers of the element's width: the bits move
 * unchanged whatever the element type (every GM_CTYPES row is 1, 2, 4,
 * 8 or 16 bytes: complex128 moves as its struct).  A row that is
 * contiguous on both sides is one move (gm_move_bytes), a reversed source
 * (gm.flip's views) a loop with constant strides that vectorizes; the
 * strides known only at run time made every row a scalar loop, and the
 * column block X[{{}, {2, 501}}] of a 1000 x 1000 float mat copied at
 * 1.7x numpy's time, gm.flip(v):copy() at 3x, concat along axis 2 at 2x. */
#define COPY_ROW_AS(U)                                                                 \
  do {                                                                                 \
    const U *s = (const U *)j->src + so;                                               \
    U *t = (U *)j->dst + d;                                                            \
    if (ss == -1 && ds == 1)                                                           \
      for (size_t i = 0; i < n; i++) t[i] = s[-(int64_t)i];                            \
    else                                                                               \
      for (size_t i = 0; i < n; i++) t[(int64_t)i * ds] = s[(int64_t)i * ss];          \
  } while (0)

static void copy_row(const copy_job *j, int64_t so, int64_t d) {
  const gm_strided_geom *g = j->g;
  int last = g->rank - 1;
  size_t n = g->dims[last];
  int64_t ss = g->src_strides[last], ds = g->dst_strides[last];
  if (ss == 1 && ds == 1) {
    gm_move_bytes(j->dst + d * (int64_t)j->esize, j->src + so * (int64_t)j->esize, n * j->esize);
    return;
  }
  switch (j->esize) {
    case 16: COPY_ROW_AS(gm_complex128); break;
    case 8: COPY_ROW_AS(uint64_t); break;
    case 4: COPY_ROW_AS(uint32_t); break;
    case 2: COPY_ROW_AS(uint16_t); break;
    default: COPY_ROW_AS(uint8_t); break;
  }
}
#undef COPY_ROW_AS

/* Rows [begin, end) of the outer axes. */
static void copy_rows(void *arg, size_t begin, size_t end) {
  const copy_job *j = arg;
  const gm_strided_geom *g = j->g;
  int outer = g->rank - 1;
  size_t idx[GM_STRIDED_MAX_RANK] = {0}, r = begin;
  for (int a = outer - 1; a >= 0; a--) {
    idx[a] = r % g->dims[a];
    r /= g->dims[a];
  }
  for (size_t row = begin; row < end; row++) {
    int64_t so = 0, d = 0;
    for (int a = 0; a < outer; a++) {
      so += (int64_t)idx[a] * g->src_strides[a];
      d += (int64_t)idx[a] * g->dst_strides[a];
    }
    copy_row(j, so, d);
    for (int a = outer - 1; a >= 0; a--) {
      if (++idx[a] < g->dims[a]) break;
      idx[a] = 0;
    }
  }
}

gm_status gm_host_strided_copy(void *ctx, gm_ctype t, const struct gm_strided_geom *g, const void *src, void *dst) {
  (void)ctx;
  if (g->n == 0) return GM_OK;
  copy_job j = {g, gm_ctype_size(t), src, dst};
  size_t rows = g->n / g->dims[g->rank - 1];
  gm_par_for(rows, 1, (double)g->dims[g->rank - 1], copy_rows, &j);
  return GM_OK;
}
