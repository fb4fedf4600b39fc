/* Host integer and bool matrix products (backend entry imatmul;
 * kernels/imatmul.h has the rules and the element function the device
 * kernel uses).  BLAS has no integer gemm, so this is a blocked loop:
 * the rows of all the stack's products are split over the cores, and a
 * chunk walks column blocks of c, accumulating a block of each of its
 * rows in W (a row of x times the block's panel of y, a loop the compiler
 * vectorizes), so the panel is reused from the cache across the chunk's
 * rows.  The sums are the element function's: the same bits. */
#include "imatmul.h"

#include "../../kernels/imatmul.h"
#include "../core/exec/par.h"

/* columns of c accumulated at once (a block of W stays in L1) */
enum { COLS = 256 };

typedef struct imm_job {
  size_t p, q, r;
  const void *x, *y;
  void *c;
} imm_job;

/* rows [begin, end) of the flattened (batch * p, r) result */
#define GM_IMM_HOST_(N, L, E, W, B)                                                     \
  static void imm_rows_##N(void *arg, size_t begin, size_t end) {                       \
    const imm_job *j = arg;                                                             \
    const L *x = j->x, *y = j->y;                                                       \
    L *c = j->c;                                                                        \
    for (size_t j0 = 0; j0 < j->r; j0 += COLS) {                                        \
      size_t n = j->r - j0 < COLS ? j->r - j0 : COLS;                                   \
      for (size_t i = begin; i < end; i++) {                                            \
        W acc[COLS] = {0};                                                              \
        const L *xi = x + i * j->q, *yb = y + i / j->p * j->q * j->r + j0;              \
        for (size_t l = 0; l < j->q; l++) {                                             \
          W xv = gm_imm_term_##N(xi[l]);                                                \
          const L *yl = yb + l * j->r;                                                  \
          for (size_t k = 0; k < n; k++) acc[k] += xv * gm_imm_term_##N(yl[k]);         \
        }                                                                               \
        for (size_t k = 0; k < n; k++) c[i * j->r + j0 + k] = gm_imm_store_##N(acc[k]); \
      }                                                                                 \
    }                                                                                   \
  }
GM_IMM_ROWS(GM_IMM_HOST_)
#undef GM_IMM_HOST_

gm_status gm_host_imatmul(void *ctx, gm_ctype t, size_t batch, size_t p, size_t q, size_t r, const void *x,
                          const void *y, void *c) {
  (void)ctx;
  imm_job j = {p, q, r, x, y, c};
  void (*rows)(void *, size_t, size_t) = NULL;
  switch (t) {
#define GM_IMM_CASE_(N, L, E, W, B) \
  case GM_##E: rows = imm_rows_##N; break;
    GM_IMM_ROWS(GM_IMM_CASE_)
#undef GM_IMM_CASE_
    default: return gm_fail(GM_EINVAL, "matmul: no integer product for ctype %s", gm_ctype_name(t));
  }
  /* a row costs about q * r multiply-adds */
  gm_par_for(batch * p, 1, (double)(q * r) + 1.0, rows, &j);
  return GM_OK;
}
