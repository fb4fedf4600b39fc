/* The elementwise sub-table on CUDA: kernels/elementwise.cu launched on
 * the device's compute stream. */
#include "ew_nn.h"
#include "impl.h"

static void *stream_of(void *ctx) { return gm_cuda_impl(ctx)->stream; }

gm_status gm_cuda_ew_launch_status(int err, const char *kernel) {
  if (err == 0) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch (review #1) */
  gm_set_lib_error_info(kernel, err);
  return gm_fail(GM_ECUDA, "%s: %s", kernel, cudaGetErrorString((cudaError_t)err));
}

static gm_status cu_unary(void *ctx, gm_ctype t, gm_unary_op op, size_t n, void *x) {
  return gm_cuda_ew_launch_status(gm_cuda_ew_unary((int)t, (int)op, n, x, stream_of(ctx)), "unary kernel");
}

static gm_status cu_expt(void *ctx, gm_ctype t, size_t n, double power, void *x) {
  return gm_cuda_ew_launch_status(gm_cuda_ew_scalar((int)t, 0, n, power, x, stream_of(ctx)), "expt kernel");
}

static gm_status cu_add_scalar(void *ctx, gm_ctype t, size_t n, double alpha, void *x) {
  return gm_cuda_ew_launch_status(gm_cuda_ew_scalar((int)t, 1, n, alpha, x, stream_of(ctx)), "add_scalar kernel");
}

static gm_status cu_clamp(void *ctx, gm_ctype t, gm_clamp_kind kind, size_t n, double alpha, void *x) {
  int k = kind == GM_CLAMP_MIN ? 2 : 3;
  return gm_cuda_ew_launch_status(gm_cuda_ew_scalar((int)t, k, n, alpha, x, stream_of(ctx)), "clamp kernel");
}

static gm_status cu_geem(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, const void *b, double beta,
                         void *c) {
  return gm_cuda_ew_launch_status(gm_cuda_ew_geem((int)t, n, alpha, a, b, beta, c, stream_of(ctx)), "geem kernel");
}

static gm_status cu_geerv(void *ctx, gm_ctype t, size_t rows, size_t cols, double alpha, const void *a,
                          const void *x, double beta, void *b) {
  int err = gm_cuda_ew_geerv((int)t, rows, cols, alpha, a, x, beta, b, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "geerv kernel");
}

static gm_status cu_lt(void *ctx, gm_ctype t, size_t n, const void *x, void *y) {
  return gm_cuda_ew_launch_status(gm_cuda_ew_lt((int)t, n, x, y, stream_of(ctx)), "lt kernel");
}

static gm_status cu_add_sign(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, double beta, void *b) {
  int err = gm_cuda_ew_add_sign((int)t, n, alpha, a, beta, b, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "add_sign kernel");
}

static gm_status cu_sum(void *ctx, gm_ctype t, size_t rows, size_t cols, int axis, double alpha, const void *x,
                        double beta, void *y) {
  int err = gm_cuda_ew_sum((int)t, axis, rows, cols, alpha, x, beta, y, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "sum kernel");
}

static gm_status cu_scale(void *ctx, gm_ctype t, gm_scale_kind kind, size_t rows, size_t cols, const void *scales,
                          const void *a, void *result) {
  int err = gm_cuda_ew_scale((int)t, kind == GM_SCALE_ROWS ? 0 : 1, rows, cols, scales, a, result, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "scale kernel");
}

const gm_elementwise_ops gm_cuda_elementwise_ops = {
    .unary = cu_unary,
    .expt = cu_expt,
    .add_scalar = cu_add_scalar,
    .geem = cu_geem,
    .geerv = cu_geerv,
    .lt = cu_lt,
    .clamp = cu_clamp,
    .add_sign = cu_add_sign,
    .sum = cu_sum,
    .scale = cu_scale,
};
