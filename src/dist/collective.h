/* Collectives on mats (gpumat.dist): one entry point that picks the place
 * of the call, acquires the operands' facets, runs NCCL (the cuda facet of
 * a real GPU, in a build with NCCL) or MPI (the host facet; the emulated
 * device goes through its host copies) and releases.  The Lua binding
 * (src/lua/l_dist.c) only checks arguments and pushes results.
 *
 * Core rules: no lua.h; returns a gm_status and never raises.  A failed
 * call leaves the operands' facets as gm_acquire/gm_release do. */
#ifndef GM_DIST_COLLECTIVE_H
#define GM_DIST_COLLECTIVE_H

#include <stdbool.h>

#include "../core/model/mat.h"
#include "comm.h"

typedef enum gm_dist_kind {
  GM_DIST_ALLREDUCE,      /* m io */
  GM_DIST_BROADCAST,      /* m input on peer (the root), output elsewhere */
  GM_DIST_ALLGATHER,      /* m input, out (size() * m->size) output */
  GM_DIST_REDUCE_SCATTER, /* m input (size() * out->size), out output */
  GM_DIST_SEND,           /* m input, to peer */
  GM_DIST_RECV,           /* m output, from peer */
  GM_DIST_SENDRECV        /* m input to peer, out output from peer2, as one exchange */
} gm_dist_kind;

typedef struct gm_dist_call {
  gm_dist_kind kind;
  const char *fn; /* the public name, for cross-rank check messages */
  gm_mat *m, *out;
  gm_dist_op op;
  bool average; /* allreduce: divide the sum by size() */
  int peer, peer2, tag;
} gm_dist_call;

/* Cross-rank agreement checks before every collective (one small
 * allreduce each): see docs/DISTRIBUTED.md, check mode. */
void gm_dist_set_checking(bool on);
gm_status gm_dist_mats(const gm_dist_call *c);

#endif
