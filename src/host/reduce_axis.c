/* Host loops of the reductions along an axis (core/reduce_axis_ops.h),
 * on the accumulators of kernels/reduce_axis.h that the device kernels
 * use too.
 *
 * x is (outer, len, inner), reduced over len.  Work is split over the
 * cores (gm_par_for) into tasks that each own whole outputs, so results do
 * not depend on the thread count:
 *   rows (inner == 1): a task is a row, folded front to back;
 *   columns (inner > 1): a task is a tile of up to TILE adjacent columns
 *     of one outer index; the rows of the (len, inner) slab are streamed
 *     through the tile's accumulators, so reads stay sequential.
 * Sums (sum, mean) take vectorized paths: double lanes along a row,
 * a double accumulator per column of a tile.  The other ops are the
 * accumulator's step, specialized per op (always_inline + a constant op)
 * so the op switch leaves the inner loop. */
#include "../core/reduce_axis_ops.h"

#include "../core/par.h"
#include "simd.h"

#define TILE 256
#define SUM_LANES 16
#define AX_INLINE static inline __attribute__((always_inline))

typedef struct ax_job {
  gm_ctype t;
  int op, ddof;
  size_t outer, len, inner, tiles;
  const void *x;
  void *y;
} ax_job;

static int is_sum(int op) { return op == GM_AX_SUM || op == GM_AX_MEAN; }

/* f(OP, args...) with OP a constant for each op that folds by steps. */
#define AX_SPECIALIZE(f, ...)                                      \
  switch (op) {                                                    \
    case GM_AX_SUM: f(GM_AX_SUM, __VA_ARGS__); break;              \
    case GM_AX_MEAN: f(GM_AX_MEAN, __VA_ARGS__); break;            \
    case GM_AX_PROD: f(GM_AX_PROD, __VA_ARGS__); break;            \
    case GM_AX_VAR: f(GM_AX_VAR, __VA_ARGS__); break;              \
    case GM_AX_STD: f(GM_AX_STD, __VA_ARGS__); break;              \
    case GM_AX_MAX: f(GM_AX_MAX, __VA_ARGS__); break;              \
    case GM_AX_MIN: f(GM_AX_MIN, __VA_ARGS__); break;              \
    case GM_AX_ARGMAX: f(GM_AX_ARGMAX, __VA_ARGS__); break;        \
    case GM_AX_ARGMIN: f(GM_AX_ARGMIN, __VA_ARGS__); break;        \
    default: f(GM_AX_LOGSUMEXP, __VA_ARGS__); break; /* softmax */ \
  }

/* Output k := v (double for argmax/argmin, else x's ctype). */
static void put(const ax_job *j, size_t k, double v) {
  if (gm_ax_is_arg(j->op) || j->t == GM_DOUBLE)
    ((double *)j->y)[k] = v;
  else
    ((float *)j->y)[k] = (float)v;
}

#define AX_LOOPS(T)                                                                        \
  GM_SIMD_CLONES static double row_sum_##T(const T *x, size_t n) {                         \
    double acc[SUM_LANES] = {0};                                                           \
    size_t i = 0;                                                                          \
    for (; i + SUM_LANES <= n; i += SUM_LANES)                                             \
      for (size_t k = 0; k < SUM_LANES; k++) acc[k] += (double)x[i + k];                   \
    for (; i < n; i++) acc[0] += (double)x[i];                                             \
    double s = 0;                                                                          \
    for (size_t k = 0; k < SUM_LANES; k++) s += acc[k];                                    \
    return s;                                                                              \
  }                                                                                        \
  /* s[c] += x[k * inner + c] for k < len, c < w */                                        \
  GM_SIMD_CLONES static void col_sum_##T(const T *x, size_t len, size_t inner, size_t w,    \
                                         double *s) {                                      \
    for (size_t k = 0; k < len; k++) {                                                     \
      const T *r = x + k * inner;                                                          \
      for (size_t c = 0; c < w; c++) s[c] += (double)r[c];                                 \
    }                                                                                      \
  }                                                                                        \
  AX_INLINE void row_steps_##T(int op, const T *x, size_t n, gm_axacc *c) {                \
    for (size_t k = 0; k < n; k++) gm_ax_step(op, c, (double)x[k], (long long)k);          \
  }                                                                                        \
  AX_INLINE void col_steps_##T(int op, const T *x, size_t len, size_t inner, size_t w,     \
                               gm_axacc *acc) {                                            \
    for (size_t k = 0; k < len; k++) {                                                     \
      const T *r = x + k * inner;                                                          \
      for (size_t c = 0; c < w; c++) gm_ax_step(op, &acc[c], (double)r[c], (long long)k);  \
    }                                                                                      \
  }                                                                                        \
  static void row_##T(const ax_job *j, size_t row) {                                       \
    const int op = j->op;                                                                  \
    const T *x = (const T *)j->x + row * j->len;                                           \
    gm_axacc c = gm_ax_init(op);                                                           \
    if (is_sum(op))                                                                        \
      c.a = row_sum_##T(x, j->len);                                                        \
    else                                                                                   \
      AX_SPECIALIZE(row_steps_##T, x, j->len, &c)                                          \
    if (op != GM_AX_SOFTMAX) {                                                             \
      put(j, row, gm_ax_result(op, c, (long long)j->len, j->ddof));                        \
      return;                                                                              \
    }                                                                                      \
    T *y = (T *)j->y + row * j->len;                                                       \
    for (size_t k = 0; k < j->len; k++) y[k] = (T)gm_ax_softmax(c, (double)x[k]);          \
  }                                                                                        \
  static void tile_##T(const ax_job *j, size_t task) {                                     \
    const int op = j->op;                                                                  \
    const size_t o = task / j->tiles, c0 = task % j->tiles * TILE;                         \
    const size_t w = j->inner - c0 < TILE ? j->inner - c0 : TILE;                          \
    const T *x = (const T *)j->x + o * j->len * j->inner + c0;                             \
    gm_axacc acc[TILE];                                                                    \
    for (size_t c = 0; c < w; c++) acc[c] = gm_ax_init(op);                                \
    if (is_sum(op)) {                                                                      \
      double s[TILE] = {0};                                                                \
      col_sum_##T(x, j->len, j->inner, w, s);                                              \
      for (size_t c = 0; c < w; c++) acc[c].a = s[c];                                      \
    } else {                                                                               \
      AX_SPECIALIZE(col_steps_##T, x, j->len, j->inner, w, acc)                            \
    }                                                                                      \
    if (op != GM_AX_SOFTMAX) {                                                             \
      for (size_t c = 0; c < w; c++)                                                       \
        put(j, o * j->inner + c0 + c, gm_ax_result(op, acc[c], (long long)j->len, j->ddof)); \
      return;                                                                              \
    }                                                                                      \
    T *y = (T *)j->y + o * j->len * j->inner + c0;                                         \
    for (size_t k = 0; k < j->len; k++)                                                    \
      for (size_t c = 0; c < w; c++)                                                       \
        y[k * j->inner + c] = (T)gm_ax_softmax(acc[c], (double)x[k * j->inner + c]);      \
  }

AX_LOOPS(float)
AX_LOOPS(double)

static void run_tasks(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  for (size_t k = b; k < e; k++) {
    if (j->inner == 1)
      j->t == GM_FLOAT ? row_float(j, k) : row_double(j, k);
    else
      j->t == GM_FLOAT ? tile_float(j, k) : tile_double(j, k);
  }
}

static gm_status host_axis(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t len, size_t inner,
                           const void *x, void *y) {
  (void)ctx;
  if (t != GM_FLOAT && t != GM_DOUBLE) return gm_fail(GM_EINVAL, "reduce_axis: bad ctype");
  ax_job j = {t, op, ddof, outer, len, inner, (inner + TILE - 1) / TILE, x, y};
  size_t tasks = inner == 1 ? outer : outer * j.tiles;
  double cost = (double)len * (double)(inner == 1 ? 1 : inner < TILE ? inner : TILE);
  gm_par_for(tasks, 1, is_sum(op) ? cost : 4 * cost, run_tasks, &j);
  return GM_OK;
}

const gm_reduce_axis_ops gm_host_reduce_axis_ops = {.axis = host_axis};
