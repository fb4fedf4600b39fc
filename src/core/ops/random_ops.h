/* Backend entry points of the random area (a sub-table of gm_backend).
 *
 * Streams are Philox4x32-10 (kernels/random.h): a gm_random_state is a key
 * (the seed) and the index of the next unused counter block.  The core
 * reserves the blocks a fill needs from the state (advancing it) and hands
 * the backend the start of the reservation, so the values are a pure
 * function of (start, n, ctype, parameters) and the backend never touches
 * the state.  The host computes element i from block start->counter +
 * i / GM_RANDOM_PER_BLOCK_<T> as kernels/random.h describes; a device that
 * runs the same element functions reproduces the host's values.  A device
 * may instead draw from its own generator (the CUDA backend uses the
 * context's cuRAND states and ignores start) as long as it keeps the
 * ranges: uniform samples in [0, limit), never limit itself. */
#ifndef GM_CORE_RANDOM_OPS_H
#define GM_CORE_RANDOM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_random_state {
  uint64_t key;     /* the seed */
  uint64_t counter; /* next unused Philox block */
} gm_random_state;

typedef struct gm_random_ops {
  /* x[i] uniform in [0, limit) for i < n (contiguous).  limit is already
   * rounded to t and positive; no sample equals it. */
  gm_status (*uniform)(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                       double limit, void *x);
  /* x[i] = mean + stddev * N(0, 1) for i < n (contiguous). */
  gm_status (*gaussian)(void *ctx, const gm_random_state *start, gm_ctype t, size_t n,
                        double mean, double stddev, void *x);
} gm_random_ops;

/* The host implementation (src/host/random.c). */
extern const gm_random_ops gm_host_random_ops;

#endif
