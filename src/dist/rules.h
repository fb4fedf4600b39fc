/* The argument rules of gpumat.dist, apart from reading the values: the
 * state a call needs, op names, rank, peer and tag ranges, the operand
 * rules of each collective and the defaults that init applies.  Any
 * embedding of the collectives (the Lua binding, src/lua/l_dist.c) gets
 * the same rules and messages.
 *
 * Core rules: no lua.h; GM_EINVAL with a message naming the argument's
 * role ("root 3 is out of range [0, 2)"), never raising. */
#ifndef GM_DIST_RULES_H
#define GM_DIST_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "collective.h"

/* GM_ESTATE "gpumat.dist is not initialized ..." or "... was finalized"
 * unless the process group is active. */
gm_status gm_dist_check_active(void);
/* The op called name ("sum", "max", "min", "prod"); name may be the
 * embedding's name of a value's type, for the message. */
gm_status gm_dist_parse_op(const char *name, gm_dist_op *op);
/* A rank in [0, size()); what names it ("root", "dest", "src"). */
gm_status gm_dist_check_rank(long long r, const char *what, int *out);
/* A point-to-point peer: a rank other than the caller's; verb is what
 * the call does with it ("send to", "receive from"). */
gm_status gm_dist_check_peer(long long r, const char *what, const char *verb, int *out);
/* A message tag in [0, tag_ub()]. */
gm_status gm_dist_check_tag(long long t, int *out);
/* The operand rules of c's kind (the options of allreduce, the rank left
 * for allgather's leading axis, the output of reduce_scatter and
 * sendrecv): each kind's failures concern one argument of the call (its
 * options, m or out). */
gm_status gm_dist_check_call(const gm_dist_call *c);
/* The dims of allgather's result: {size(), m's dims...}; returns its
 * rank. */
int gm_dist_gathered_dims(const gm_mat *m, size_t *dims);
/* Whether cross-rank checking is on when init is not told: the
 * environment variable GPUMAT_DIST_CHECK set and not "0". */
bool gm_dist_checking_default(void);
/* One GPU per process on a node: the CUDA device of this process's local
 * rank (mpirun -np K on one node would otherwise put every rank on device
 * 0, which NCCL refuses as a duplicate GPU), or -1 without CUDA
 * devices. */
int gm_dist_default_device(void);

#endif
