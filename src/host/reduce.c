/* Host loops of the reduce area (core/ops/reduce_ops.h).
 *
 * The array is cut into fixed blocks of BLOCK elements whose partial
 * results are combined in block order, so the value does not depend on
 * how many threads gm_par_for uses.  Sums are gm_lane_sum (simd.h):
 * double accumulators in independent lanes.  Min and max count NaNs
 * alongside, and any NaN makes the result NaN. */
#include "../core/ops/reduce_ops.h"

#include <math.h>
#include <stdint.h>
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

/* min or max of n >= 1 elements, NaN if any is NaN.  The sequential
 * loop keeps the first of ties (-0 before +0 and the reverse); the lane
 * loop, 64 bytes of independent chains in GCC's vector types (one chain was a maxss per
 * element: 1M floats took 3.8x numpy's time), gives the same value but
 * for a zero's sign, so a zero result is computed again sequentially. */
#define REDUCE_LOOPS_(T, IT)                                                     \
  GM_LANE_SUM(T)                                                                 \
  static double extreme_seq_##T(const T *x, size_t n, int is_min) {              \
    T best = x[0];                                                               \
    size_t nans = 0;                                                             \
    for (size_t i = 0; i < n; i++) {                                             \
      best = (is_min ? x[i] < best : x[i] > best) ? x[i] : best;                 \
      nans += x[i] != x[i];                                                      \
    }                                                                            \
    return nans ? (double)NAN : (double)best;                                    \
  }                                                                              \
  GM_SIMD_CLONES static void extreme_lanes_##T(const T *restrict x, size_t n, int is_min, T *restrict lane) { \
    enum { W = 32 / sizeof(T) };                                                 \
    typedef T vt __attribute__((vector_size(32)));                               \
    typedef T vu __attribute__((vector_size(32), aligned(sizeof(T)))); /* loads */ \
    typedef IT vi __attribute__((vector_size(32)));                              \
    vt b0 = *(const vu *)x, b1 = *(const vu *)(x + W);                           \
    /* NaN first (it stays), then strictly better: compares and bit selects */  \
    /* of GCC's vector types (plain C selects did not vectorize) */              \
    for (size_t i = 2 * W; i + 2 * W <= n; i += 2 * W) {                         \
      vt v0 = *(const vu *)(x + i), v1 = *(const vu *)(x + i + W);               \
      vi t0 = (is_min ? v0 < b0 : v0 > b0) | ((v0 != v0) & (b0 == b0));          \
      vi t1 = (is_min ? v1 < b1 : v1 > b1) | ((v1 != v1) & (b1 == b1));          \
      b0 = (vt)(((vi)v0 & t0) | ((vi)b0 & ~t0));                                 \
      b1 = (vt)(((vi)v1 & t1) | ((vi)b1 & ~t1));                                 \
    }                                                                            \
    *(vu *)lane = b0;                                                            \
    *(vu *)(lane + W) = b1;                                                      \
  }                                                                              \
  static double extreme_##T(const T *x, size_t n, int is_min) {                  \
    enum { LANES = 64 / sizeof(T) };                                             \
    if (n < 4 * LANES) return extreme_seq_##T(x, n, is_min);                     \
    T lane[LANES];                                                               \
    extreme_lanes_##T(x, n, is_min, lane);                                       \
    size_t done = n / LANES * LANES;                                             \
    T best = lane[0];                                                            \
    int nan = 0;                                                                 \
    for (size_t l = 0; l < LANES; l++) {                                         \
      nan |= lane[l] != lane[l];                                                 \
      best = (is_min ? lane[l] < best : lane[l] > best) ? lane[l] : best;        \
    }                                                                            \
    for (size_t i = done; i < n; i++) {                                          \
      nan |= x[i] != x[i];                                                       \
      best = (is_min ? x[i] < best : x[i] > best) ? x[i] : best;                 \
    }                                                                            \
    if (nan) return (double)NAN;                                                 \
    if (best == 0) return extreme_seq_##T(x, n, is_min);                         \
    return (double)best;                                                         \
  }                                                                              \
  static double block_##T(const reduce_job *j, size_t b) {                       \
    const T *x = (const T *)j->x + b * BLOCK;                                    \
    size_t n = j->n - b * BLOCK < BLOCK ? j->n - b * BLOCK : BLOCK;              \
    if (j->op == GM_REDUCE_SUM) return gm_lane_sum_##T(x, n);                            \
    return extreme_##T(x, n, j->op == GM_REDUCE_MIN);                            \
  }

REDUCE_LOOPS_(float, int32_t)
REDUCE_LOOPS_(double, int64_t)

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
