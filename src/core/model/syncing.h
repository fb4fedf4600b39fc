/* with_syncing_cuda_facets (MGL-MAT §18.3.1) as a state machine: start
 * copies on the device's copy stream from page-locked host memory, let
 * the body run, then wait for the copies and drop the device facets of
 * the to_cuda_host vecs.  In safe mode every listed vec is locked: any
 * facet access to it in between is an error (the copy may still be in
 * flight on a real GPU).
 *
 * to_cuda vecs get an up-to-date cuda facet, to_cuda_host vecs an
 * up-to-date cuda_host facet (their cuda facet destroyed at the end).  A
 * vec may appear any number of times in one list, never in both. */
#ifndef GM_CORE_SYNCING_H
#define GM_CORE_SYNCING_H

#include <stdbool.h>
#include <stddef.h>

#include "vec.h"

struct gm_device;

/* Caller-owned storage (a Lua userdata, a C local). */
typedef struct gm_syncing {
  struct gm_device *dev; /* NULL: not active (no device, nothing listed, or ended) */
  bool safe;
  size_t n_ensure, n_destroy;
  gm_vec **vecs; /* ensures first, then destroys; each referenced */
} gm_syncing;

/* 1-based index into to_host of the first vec that is also in to_cuda,
 * 0 when the lists are disjoint. */
size_t gm_syncing_find_shared(gm_vec *const *to_cuda, size_t n_cuda, gm_vec *const *to_host, size_t n_host);
/* Starts the copies on the current context's device; without one, or with
 * both lists empty, s stays inactive and the body simply runs.  The lists
 * must be disjoint (GM_EINVAL otherwise).  On failure everything started
 * is undone (copies waited for, vecs unlocked and released): s is
 * inactive. */
gm_status gm_syncing_begin(gm_syncing *s, bool safe, gm_vec *const *to_cuda, size_t n_cuda,
                           gm_vec *const *to_host, size_t n_host);
/* After the body: waits for the copies, unlocks, destroys the cuda facets
 * of the to_cuda_host vecs and releases every vec.  No-op when inactive.
 * Every step runs even if one fails; the first failure is returned. */
gm_status gm_syncing_end(gm_syncing *s);
/* gm_syncing_end for a finalizer (an abandoned body): waits for the copies
 * (releasing first could free or reuse buffers a DMA still uses), unlocks
 * and releases, with no facet destroyed and no error reported. */
void gm_syncing_abandon(gm_syncing *s);

#endif
