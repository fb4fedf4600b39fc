/* Host loops of the reduce area (core/ops/reduce_ops.h).
 *
 * The array is cut into fixed blocks of BLOCK elements whose partial
 * results are combined in block order, so the value does not depend on
 * how many threads gm_par_for uses.  Sums are gm_lane_sum (simd.h):
 * double accumulators in independent lanes.  Min and max count NaNs
 * alongside, and any NaN makes the result NaN. */
#include "../core/ops/reduce_ops.h"

#include <math.h>
#include <stdlib.h>

#include "../core/exec/par.h"
#include "simd.h"

#define BLOCK ((size_t)1 << 16)

typedef struct reduce_job {
  gm_ctype t;
  gm_reduce_op op;
  size_t n;
  const void *x;
  double *part; /* one result per block */
} reduce_job;

#define REDUCE_LOOPS(T, ...)                                                     \
  GM_LANE_SUM(T)                                                                 \
  /* min (sign 1) or max (sign -1) of n >= 1 elements; NaN if any is NaN */      \
  GM_SIMD_CLONES static double extreme_##T(const T *x, size_t n, int is_min) {   \
    T best = x[0];                                                               \
    size_t nans = 0;                                                             \
    if (is_min) {                                                                \
      for (size_t i = 0; i < n; i++) {                                           \
        best = x[i] < best ? x[i] : best;                                        \
        nans += x[i] != x[i];                                                    \
      }                                                                          \
    } else {                                                                     \
      for (size_t i = 0; i < n; i++) {                                           \
        best = x[i] > best ? x[i] : best;                                        \
        nans += x[i] != x[i];                                                    \
      }                                                                          \
    }                                                                            \
    return nans ? (double)NAN : (double)best;                                    \
  }                                                                              \
  static double block_##T(const reduce_job *j, size_t b) {                       \
    const T *x = (const T *)j->x + b * BLOCK;                                    \
    size_t n = j->n - b * BLOCK < BLOCK ? j->n - b * BLOCK : BLOCK;              \
    if (j->op == GM_REDUCE_SUM) return gm_lane_sum_##T(x, n);                            \
    return extreme_##T(x, n, j->op == GM_REDUCE_MIN);                            \
  }

GM_FLOAT_CTYPES(REDUCE_LOOPS)

static double (*const block_of[GM_N_CTYPES])(const reduce_job *, size_t) = {GM_FLOAT_CTYPE_TABLE(block)};

static void reduce_blocks(void *arg, size_t b, size_t e) {
  const reduce_job *j = arg;
  for (size_t k = b; k < e; k++) j->part[k] = block_of[j->t](j, k);
}

/* Partial results combined in block order. */
static double combine(gm_reduce_op op, const double *part, size_t n) {
  double r = part[0];
  for (size_t k = 1; k < n; k++) {
    double p = part[k];
    if (op == GM_REDUCE_SUM)
      r += p;
    else if (isnan(r) || isnan(p))
      r = NAN;
    else if (op == GM_REDUCE_MIN ? p < r : p > r)
      r = p;
  }
  return r;
}

static gm_status host_reduce(void *ctx, gm_ctype t, gm_reduce_op op, size_t n, const void *x, double *result) {
  (void)ctx;
  if ((unsigned)t >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "reduce: bad ctype");
  size_t blocks = (n + BLOCK - 1) / BLOCK;
  double one;
  double *part = blocks == 1 ? &one : malloc(blocks * sizeof *part);
  if (!part) return gm_fail(GM_ENOMEM, "%s: out of host memory for %zu partial results",
                            op == GM_REDUCE_SUM ? "sum" : op == GM_REDUCE_MIN ? "min" : "max", blocks);
  reduce_job j = {t, op, n, x, part};
  gm_par_for(blocks, 1, (double)BLOCK, reduce_blocks, &j);
  *result = combine(op, part, blocks);
  if (part != &one) free(part);
  return GM_OK;
}

const gm_reduce_ops gm_host_reduce_ops = {.reduce = host_reduce};
