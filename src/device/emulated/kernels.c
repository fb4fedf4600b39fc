/* The emulated device's op table: the library's own CUDA kernels
 * (kernels/NAME.cu, compiled at build time for the CPU model of CUDA by
 * cmake/EmulatedKernels.cmake) for fill, elementwise, NN, random and
 * reduce, with the CUDA backend's launch geometry, run on the emulated
 * device's memory inside the core's device call (enter..leave).  BLAS is
 * the host's (cuBLAS is a library, not our kernels) with invert/logdet
 * through cuSOLVER's argument mapping (solver.c). */
#include "../../core/blas_ops.h"
#include "../../core/elementwise_ops.h"
#include "../../core/mem/backends.h"
#include "../../core/random_ops.h"
#include "../../core/reduce_ops.h"
#include "emulated.h"
#include "launchers.h"

/* The launchers' `stream` argument: the device, from which the shim
 * runtime (kernels/cpu/emu/cuda_runtime.h) takes scratch arrays. */
#define DEV(ctx) (ctx)

/* The shim runtime's launches cannot fail to start; a scratch allocation
 * (sums, reductions) can, and leaves the error in the thread's last-error
 * slot, which is cleared here as the CUDA backend clears cudart's (review
 * #1: no stale error for the next launch). */
static gm_status launch_status_of(void *ctx, int err, const char *kernel) {
  if (err == 0) return GM_OK;
  gm_device *d = ctx;
  if (d && d->ops->clear_error) d->ops->clear_error(d);
  if (err == GM_EMU_ERR_OOM)
    return gm_fail(GM_ECUDA_OOM, "emulated %s: out of device memory for scratch space", kernel);
  return gm_fail(GM_ECUDA, "emulated %s: error %d", kernel, err);
}
#define launch_status(err, kernel) launch_status_of(ctx, err, kernel)

static gm_status emu_fill(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx) {
  return launch_status(gm_emu_fill((int)t, n, alpha, x, incx, DEV(ctx)), "fill kernel");
}

/* ---- elementwise (kernels/elementwise.cu) ---- */

static gm_status emu_unary(void *ctx, gm_ctype t, gm_unary_op op, size_t n, void *x) {
  return launch_status(gm_emu_ew_unary((int)t, (int)op, n, x, DEV(ctx)), "unary kernel");
}

static gm_status emu_expt(void *ctx, gm_ctype t, size_t n, double power, void *x) {
  return launch_status(gm_emu_ew_scalar((int)t, 0, n, power, x, DEV(ctx)), "expt kernel");
}

static gm_status emu_add_scalar(void *ctx, gm_ctype t, size_t n, double alpha, void *x) {
  return launch_status(gm_emu_ew_scalar((int)t, 1, n, alpha, x, DEV(ctx)), "add_scalar kernel");
}

static gm_status emu_clamp(void *ctx, gm_ctype t, gm_clamp_kind kind, size_t n, double alpha, void *x) {
  int k = kind == GM_CLAMP_MIN ? 2 : 3;
  return launch_status(gm_emu_ew_scalar((int)t, k, n, alpha, x, DEV(ctx)), "clamp kernel");
}

static gm_status emu_geem(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, const void *b, double beta,
                          void *c) {
  return launch_status(gm_emu_ew_geem((int)t, n, alpha, a, b, beta, c, DEV(ctx)), "geem kernel");
}

static gm_status emu_geerv(void *ctx, gm_ctype t, size_t rows, size_t cols, double alpha, const void *a,
                           const void *x, double beta, void *b) {
  return launch_status(gm_emu_ew_geerv((int)t, rows, cols, alpha, a, x, beta, b, DEV(ctx)), "geerv kernel");
}

static gm_status emu_lt(void *ctx, gm_ctype t, size_t n, const void *x, void *y) {
  return launch_status(gm_emu_ew_lt((int)t, n, x, y, DEV(ctx)), "lt kernel");
}

static gm_status emu_add_sign(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, double beta, void *b) {
  return launch_status(gm_emu_ew_add_sign((int)t, n, alpha, a, beta, b, DEV(ctx)), "add_sign kernel");
}

static gm_status emu_sum(void *ctx, gm_ctype t, size_t rows, size_t cols, int axis, double alpha, const void *x,
                         double beta, void *y) {
  return launch_status(gm_emu_ew_sum((int)t, axis, rows, cols, alpha, x, beta, y, DEV(ctx)), "sum kernel");
}

static gm_status emu_scale(void *ctx, gm_ctype t, gm_scale_kind kind, size_t rows, size_t cols, const void *scales,
                           const void *a, void *result) {
  int k = kind == GM_SCALE_ROWS ? 0 : 1;
  return launch_status(gm_emu_ew_scale((int)t, k, rows, cols, scales, a, result, DEV(ctx)), "scale kernel");
}

static const gm_elementwise_ops emu_elementwise_ops = {
    .unary = emu_unary,
    .expt = emu_expt,
    .add_scalar = emu_add_scalar,
    .geem = emu_geem,
    .geerv = emu_geerv,
    .lt = emu_lt,
    .clamp = emu_clamp,
    .add_sign = emu_add_sign,
    .sum = emu_sum,
    .scale = emu_scale,
};

/* ---- NN (kernels/nn.cu) ---- */

static gm_status emu_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, const void *w, void *y) {
  return launch_status(gm_emu_nn_convolve((int)t, g, x, w, y, DEV(ctx)), "convolve kernel");
}

static gm_status emu_derive_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                     const void *w, void *wd, const void *yd) {
  return launch_status(gm_emu_nn_derive_convolve((int)t, g, x, xd, w, wd, yd, DEV(ctx)), "derive_convolve kernel");
}

static gm_status emu_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *y) {
  return launch_status(gm_emu_nn_max_pool((int)t, g, x, y, DEV(ctx)), "max_pool kernel");
}

static gm_status emu_derive_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                     const void *y, const void *yd) {
  return launch_status(gm_emu_nn_derive_max_pool((int)t, g, x, xd, y, yd, DEV(ctx)), "derive_max_pool kernel");
}

static const gm_nn_ops emu_nn_ops = {
    .convolve = emu_convolve,
    .derive_convolve = emu_derive_convolve,
    .max_pool = emu_max_pool,
    .derive_max_pool = emu_derive_max_pool,
};

/* ---- random (kernels/random.cu: the host's Philox block functions) ---- */

static gm_status emu_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double limit,
                             void *x) {
  return launch_status(gm_emu_uniform((int)t, start->key, start->counter, n, limit, x, DEV(ctx)), "uniform kernel");
}

static gm_status emu_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double mean,
                              double stddev, void *x) {
  int err = gm_emu_gaussian((int)t, start->key, start->counter, n, mean, stddev, x, DEV(ctx));
  return launch_status(err, "gaussian kernel");
}

static const gm_random_ops emu_random_ops = {
    .uniform = emu_uniform,
    .gaussian = emu_gaussian,
};

/* ---- whole-array reductions (kernels/reduce.cu) ---- */

static gm_status emu_reduce(void *ctx, gm_ctype t, gm_reduce_op op, size_t n, const void *x, double *result) {
  return launch_status(gm_emu_reduce((int)t, (int)op, n, x, result, DEV(ctx)), "reduce kernel");
}

static const gm_reduce_ops emu_reduce_ops = {.reduce = emu_reduce};

static gm_backend emulated_kernels;

const gm_backend *gm_emulated_kernels(void) {
  if (emulated_kernels.name) return &emulated_kernels;
  emulated_kernels = gm_host_backend;
  emulated_kernels.name = "emulated";
  emulated_kernels.fill = emu_fill;
  emulated_kernels.blas = gm_emulated_blas_ops(gm_host_backend.blas);
  emulated_kernels.elementwise = &emu_elementwise_ops;
  emulated_kernels.nn = &emu_nn_ops;
  emulated_kernels.random = &emu_random_ops;
  emulated_kernels.reduce = &emu_reduce_ops;
  return &emulated_kernels;
}
