/* Host random fills: loops over the Philox block functions of
 * kernels/random.h (the element code a GPU kernel runs too). */
#include <math.h>

#include "../../kernels/random.h"
#include "../core/ops/random_ops.h"

/* Samples in the Philox block that starts at element i of n. */
static size_t block_count(size_t n, size_t i, size_t per_block) { return n - i < per_block ? n - i : per_block; }

static gm_status host_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                              double limit, void *x) {
  (void)ctx;
#define X(T, E, name, kw, p, P, ET, m, ...)                                                                \
  case GM_##E: {                                                                                        \
    const T lim = (T)limit, below = nextafter##m(lim, (T)0);                                            \
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_##E)                                             \
      gm_uniform_block_##T(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_##E, lim, below,         \
                           (T *)x + i, block_count(n, i, GM_RANDOM_PER_BLOCK_##E));                     \
    return GM_OK;                                                                                       \
  }
  GM_FLOAT_CTYPE_SWITCH(t, X, return gm_fail(GM_EINVAL, "uniform_random_: bad ctype"))
#undef X
}

static gm_status host_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                               double mean, double stddev, void *x) {
  (void)ctx;
#define X(T, E, ...)                                                                                    \
  case GM_##E:                                                                                          \
    for (size_t i = 0; i < n; i += GM_RANDOM_PER_BLOCK_##E)                                             \
      gm_gaussian_block_##T(start->key, start->counter + i / GM_RANDOM_PER_BLOCK_##E, mean, stddev,      \
                            (T *)x + i, block_count(n, i, GM_RANDOM_PER_BLOCK_##E));                    \
    return GM_OK;
  GM_FLOAT_CTYPE_SWITCH(t, X, return gm_fail(GM_EINVAL, "gaussian_random_: bad ctype"))
#undef X
}

const gm_random_ops gm_host_random_ops = {
    .uniform = host_uniform,
    .gaussian = host_gaussian,
};
