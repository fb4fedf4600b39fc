/* The random sub-table on CUDA: cuRAND XORWOW generators on the device,
 * one per thread, created and seeded at context entry (with_cuda's
 * random_seed and n_random_states), as MGL's *curand-state*.  The core's
 * `start` reservation is not used: device samples come from the
 * context's generators, so they do not reproduce the host's Philox values
 * (the emulated device runs the host table and does). */
#include <stdint.h>

#include "impl.h"

static gm_status curand_status(int err, const char *what) {
  if (err == 0) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch (review #1) */
  gm_set_lib_error_info(what, err);
  return gm_fail(GM_ECURAND, "%s: %s", what, cudaGetErrorString((cudaError_t)err));
}

gm_status gm_cuda_random_begin(gm_device *d, unsigned long long seed, int n_states) {
  cuda_impl *c = d->impl;
  gm_cuda_random_end(d);
  void *states = NULL;
  GM_TRY(curand_status(gm_curand_alloc_init(&states, n_states, seed, c->stream), "curand_init"));
  c->rng_states = states;
  c->n_rng_states = n_states;
  return GM_OK;
}

void gm_cuda_random_end(gm_device *d) {
  cuda_impl *c = d->impl;
  if (!c->rng_states) return;
  /* release path: errors ignored, as in device.c */
  (void)cudaStreamSynchronize(c->stream);
  gm_curand_free(c->rng_states);
  c->rng_states = NULL;
  c->n_rng_states = 0;
}

static gm_status need_states(cuda_impl *c) {
  if (c->rng_states) return GM_OK;
  return gm_fail(GM_ECURAND, "no curand state: random numbers on the device need a with_cuda context");
}

static gm_status cu_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double limit,
                            void *x) {
  (void)start;
  cuda_impl *c = gm_cuda_impl(ctx);
  GM_TRY(need_states(c));
  return curand_status(gm_curand_uniform((int)t, c->rng_states, c->n_rng_states, n, limit, x, c->stream),
                       "curand uniform");
}

static gm_status cu_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double mean,
                             double stddev, void *x) {
  (void)start;
  cuda_impl *c = gm_cuda_impl(ctx);
  GM_TRY(need_states(c));
  return curand_status(
      gm_curand_gaussian((int)t, c->rng_states, c->n_rng_states, n, mean, stddev, x, c->stream),
      "curand gaussian");
}

const gm_random_ops gm_cuda_random_ops = {
    .uniform = cu_uniform,
    .gaussian = cu_gaussian,
};
