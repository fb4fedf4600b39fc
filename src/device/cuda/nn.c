/* The NN sub-table on CUDA: kernels/nn.cu launched on the device's
 * compute stream. */
#include "ew_nn.h"
#include "impl.h"

static void *stream_of(void *ctx) { return gm_cuda_impl(ctx)->stream; }

static gm_status cu_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, const void *w, void *y) {
  return gm_cuda_ew_launch_status(gm_cuda_nn_convolve((int)t, g, x, w, y, stream_of(ctx)), "convolve kernel");
}

static gm_status cu_derive_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                    const void *w, void *wd, const void *yd) {
  int err = gm_cuda_nn_derive_convolve((int)t, g, x, xd, w, wd, yd, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "derive_convolve kernel");
}

static gm_status cu_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *y) {
  return gm_cuda_ew_launch_status(gm_cuda_nn_max_pool((int)t, g, x, y, stream_of(ctx)), "max_pool kernel");
}

static gm_status cu_derive_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                    const void *y, const void *yd) {
  int err = gm_cuda_nn_derive_max_pool((int)t, g, x, xd, y, yd, stream_of(ctx));
  return gm_cuda_ew_launch_status(err, "derive_max_pool kernel");
}

const gm_nn_ops gm_cuda_nn_ops = {
    .convolve = cu_convolve,
    .derive_convolve = cu_derive_convolve,
    .max_pool = cu_max_pool,
    .derive_max_pool = cu_derive_max_pool,
};
