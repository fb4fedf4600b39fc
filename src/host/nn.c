/* Host loops of the NN area: the gather-style element functions of
 * kernels/nn.h over every output (or gradient) element, split across the
 * cores by rows.  Each element is written by exactly one call, so the
 * parallel split needs no synchronization. */
#include "../core/ops/nn_ops.h"

#include "../core/exec/par.h"

typedef struct nn_job {
  const gm_nn_geom *g;
  const void *x, *w, *y, *yd;
  void *out;
} nn_job;

#define NN_LOOPS(T, ...)                                                                        \
  /* rows r = b * yh + oy of y */                                                               \
  static void conv_rows_##T(void *arg, size_t r0, size_t r1) {                                  \
    const nn_job *j = arg;                                                                      \
    const gm_nn_geom *g = j->g;                                                                 \
    for (size_t r = r0; r < r1; r++) {                                                          \
      int64_t b = (int64_t)r / g->yh, oy = (int64_t)r % g->yh;                                  \
      T *yr = (T *)j->out + (int64_t)r * g->yw;                                                 \
      for (int64_t ox = 0; ox < g->yw; ox++) yr[ox] += gm_conv2d_at_##T(j->x, j->w, g, b, oy, ox); \
    }                                                                                           \
  }                                                                                             \
  static void pool_rows_##T(void *arg, size_t r0, size_t r1) {                                  \
    const nn_job *j = arg;                                                                      \
    const gm_nn_geom *g = j->g;                                                                 \
    for (size_t r = r0; r < r1; r++) {                                                          \
      int64_t b = (int64_t)r / g->yh, oy = (int64_t)r % g->yh;                                  \
      T *yr = (T *)j->out + (int64_t)r * g->yw;                                                 \
      for (int64_t ox = 0; ox < g->yw; ox++) yr[ox] = gm_max_pool_at_##T(j->x, g, b, oy, ox);   \
    }                                                                                           \
  }                                                                                             \
  /* rows r = b * xh + i of xd */                                                               \
  static void conv_dx_rows_##T(void *arg, size_t r0, size_t r1) {                               \
    const nn_job *j = arg;                                                                      \
    const gm_nn_geom *g = j->g;                                                                 \
    for (size_t r = r0; r < r1; r++) {                                                          \
      int64_t b = (int64_t)r / g->xh, i = (int64_t)r % g->xh;                                   \
      T *xr = (T *)j->out + (int64_t)r * g->xw;                                                 \
      for (int64_t c = 0; c < g->xw; c++) xr[c] += gm_conv2d_dx_at_##T(j->w, j->yd, g, b, i, c); \
    }                                                                                           \
  }                                                                                             \
  static void pool_dx_rows_##T(void *arg, size_t r0, size_t r1) {                               \
    const nn_job *j = arg;                                                                      \
    const gm_nn_geom *g = j->g;                                                                 \
    for (size_t r = r0; r < r1; r++) {                                                          \
      int64_t b = (int64_t)r / g->xh, i = (int64_t)r % g->xh;                                   \
      T *xr = (T *)j->out + (int64_t)r * g->xw;                                                 \
      for (int64_t c = 0; c < g->xw; c++)                                                       \
        xr[c] += gm_max_pool_dx_at_##T(j->x, j->y, j->yd, g, b, i, c);                          \
    }                                                                                           \
  }                                                                                             \
  /* elements k = k0 * kw + k1 of wd, summed over the batch */                                  \
  static void conv_dw_elems_##T(void *arg, size_t e0, size_t e1) {                              \
    const nn_job *j = arg;                                                                      \
    const gm_nn_geom *g = j->g;                                                                 \
    for (size_t e = e0; e < e1; e++) {                                                          \
      int64_t k0 = (int64_t)e / g->kw, k1 = (int64_t)e % g->kw;                                 \
      T s = 0;                                                                                  \
      for (int64_t b = 0; b < g->batch; b++) s += gm_conv2d_dw_at_##T(j->x, j->yd, g, b, k0, k1); \
      ((T *)j->out)[e] += s;                                                                    \
    }                                                                                           \
  }

GM_FLOAT_CTYPES(NN_LOOPS)

/* The loops by ctype. */
typedef void (*nn_loop)(void *, size_t, size_t);
static const nn_loop conv_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(conv_rows)};
static const nn_loop conv_dx_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(conv_dx_rows)};
static const nn_loop conv_dw_elems[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(conv_dw_elems)};
static const nn_loop pool_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(pool_rows)};
static const nn_loop pool_dx_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(pool_dx_rows)};

/* Work estimates for the parallel threshold: kernel elements per output. */
static double kcost(const gm_nn_geom *g, double per_row) { return per_row * (double)(g->kh * g->kw); }

static gm_status host_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, const void *w,
                               void *y) {
  (void)ctx;
  nn_job j = {.g = g, .x = x, .w = w, .out = y};
  gm_par_for((size_t)(g->batch * g->yh), 1, kcost(g, (double)g->yw), conv_rows[t], &j);
  return GM_OK;
}

static gm_status host_derive_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                      const void *w, void *wd, const void *yd) {
  (void)ctx;
  nn_job j = {.g = g, .x = x, .w = w, .yd = yd, .out = xd};
  gm_par_for((size_t)(g->batch * g->xh), 1, kcost(g, (double)g->xw),
             conv_dx_rows[t], &j);
  j.out = wd;
  gm_par_for((size_t)(g->kh * g->kw), 1, (double)(g->batch * g->yh * g->yw),
             conv_dw_elems[t], &j);
  return GM_OK;
}

static gm_status host_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *y) {
  (void)ctx;
  nn_job j = {.g = g, .x = x, .out = y};
  gm_par_for((size_t)(g->batch * g->yh), 1, kcost(g, (double)g->yw), pool_rows[t], &j);
  return GM_OK;
}

static gm_status host_derive_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                      const void *y, const void *yd) {
  (void)ctx;
  nn_job j = {.g = g, .x = x, .y = y, .yd = yd, .out = xd};
  gm_par_for((size_t)(g->batch * g->xh), 1, kcost(g, (double)g->xw),
             pool_dx_rows[t], &j);
  return GM_OK;
}

const gm_nn_ops gm_host_nn_ops = {
    .convolve = host_convolve,
    .derive_convolve = host_derive_convolve,
    .max_pool = host_max_pool,
    .derive_max_pool = host_derive_max_pool,
};
