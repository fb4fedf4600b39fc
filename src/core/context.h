/* CUDA contexts (with_cuda): a per-thread stack.  The innermost enabled
 * context's device is where operations on cuda-enabled mats run.  A
 * context also carries the facet barrier that destroys device facets
 * created inside it (MGL's with-cuda*). */
#ifndef GM_CORE_CONTEXT_H
#define GM_CORE_CONTEXT_H

#include <stdbool.h>

#include "barrier.h"

struct gm_device;

typedef struct gm_context {
  struct gm_device *device; /* referenced; NULL when running on the host */
  bool enabled;
  gm_barrier barrier;
  unsigned long long random_seed;
  int n_random_states;
  void *random_state; /* device RNG state (backend-owned) */
  struct gm_context *outer;
} gm_context;

/* Global switch gm.cuda_enabled. */
extern _Atomic bool gm_cuda_enabled;

void gm_context_push(gm_context *c);
/* Pops c (must be innermost); runs its barrier. */
gm_status gm_context_pop(gm_context *c);
gm_context *gm_context_current(void);
/* The device ops should run on, or NULL for the host. */
struct gm_device *gm_current_device(void);

#endif
