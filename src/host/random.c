/* Host random fills: loops over the Philox block functions of
 * kernels/random.h (the element code a GPU kernel runs too). */
#include <math.h>

#include "../../kernels/random.h"
#include "../core/random_ops.h"

static gm_status host_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                              double limit, void *x) {
  (void)ctx;
  if (t == GM_FLOAT) {
    const float lim = (float)limit, below = nextafterf(lim, 0.0f);
    float *p = x;
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_FLOAT) {
      size_t count = n - i < GM_RANDOM_PER_BLOCK_FLOAT ? n - i : GM_RANDOM_PER_BLOCK_FLOAT;
      gm_uniform_block_float(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_FLOAT, lim, below,
                             p + i, count);
    }
    return GM_OK;
  }
  if (t == GM_DOUBLE) {
    const double below = nextafter(limit, 0.0);
    double *p = x;
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_DOUBLE) {
      size_t count = n - i < GM_RANDOM_PER_BLOCK_DOUBLE ? n - i : GM_RANDOM_PER_BLOCK_DOUBLE;
      gm_uniform_block_double(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_DOUBLE, limit,
                              below, p + i, count);
    }
    return GM_OK;
  }
  return gm_fail(GM_EINVAL, "uniform_random_: bad ctype");
}

static gm_status host_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                               double mean, double stddev, void *x) {
  (void)ctx;
  if (t == GM_FLOAT) {
    float *p = x;
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_FLOAT) {
      size_t count = n - i < GM_RANDOM_PER_BLOCK_FLOAT ? n - i : GM_RANDOM_PER_BLOCK_FLOAT;
      gm_gaussian_block_float(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_FLOAT, mean,
                              stddev, p + i, count);
    }
    return GM_OK;
  }
  if (t == GM_DOUBLE) {
    double *p = x;
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_DOUBLE) {
      size_t count = n - i < GM_RANDOM_PER_BLOCK_DOUBLE ? n - i : GM_RANDOM_PER_BLOCK_DOUBLE;
      gm_gaussian_block_double(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_DOUBLE, mean,
                               stddev, p + i, count);
    }
    return GM_OK;
  }
  return gm_fail(GM_EINVAL, "gaussian_random_: bad ctype");
}

const gm_random_ops gm_host_random_ops = {
    .uniform = host_uniform,
    .gaussian = host_gaussian,
};
