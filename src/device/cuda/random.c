/* The random sub-table on CUDA: the core's Philox reservation (`start`)
 * expanded on the device by kernels/random.cu with the same block
 * functions as the host (kernels/random.h), on a full grid.  Device
 * samples therefore equal the host's and the emulated device's for the
 * same state (gm.seed, the `state` option), and there is no per-context
 * generator state to create, seed or free (review #6). */
#include <stdint.h>

#include "impl.h"

static gm_status random_status(int err, const char *what) {
  if (err == 0) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch (review #1) */
  gm_set_lib_error_info(what, err);
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString((cudaError_t)err));
}

static gm_status cu_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double limit,
                            void *x) {
  cuda_impl *c = gm_cuda_impl(ctx);
  return random_status(gm_cuda_uniform((int)t, start->key, start->counter, n, limit, x, c->stream),
                       "uniform kernel");
}

static gm_status cu_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double mean,
                             double stddev, void *x) {
  cuda_impl *c = gm_cuda_impl(ctx);
  return random_status(gm_cuda_gaussian((int)t, start->key, start->counter, n, mean, stddev, x, c->stream),
                       "gaussian kernel");
}

const gm_random_ops gm_cuda_random_ops = {
    .uniform = cu_uniform,
    .gaussian = cu_gaussian,
};
