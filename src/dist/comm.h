/* The process group of gpumat.dist: MPI underneath, or a world of one
 * process when the program was not launched by an MPI launcher (mpirun,
 * srun), so a script runs unchanged on a laptop.
 *
 * Core rules: no lua.h, no CUDA headers; every function returns a
 * gm_status (GM_EMPI with the MPI function and error code in
 * gm_last_lib_error_info) and never raises.  Buffers are raw host
 * pointers (the binding acquires them through the facet machinery).
 * Only the thread that called gm_dist_init may call these. */
#ifndef GM_DIST_COMM_H
#define GM_DIST_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/model/ctype.h"
#include "../core/model/status.h"

typedef enum gm_dist_op { GM_DIST_SUM = 0, GM_DIST_MAX, GM_DIST_MIN, GM_DIST_PROD } gm_dist_op;

typedef enum gm_dist_state { GM_DIST_UNINIT = 0, GM_DIST_ACTIVE, GM_DIST_FINALIZED } gm_dist_state;

gm_dist_state gm_dist_get_state(void);
/* Initialises MPI when launched by an MPI launcher (or MPI already is),
 * else makes the world of one.  Idempotent while active. */
gm_status gm_dist_init(void);
gm_status gm_dist_finalize(void);
int gm_dist_rank(void);
int gm_dist_size(void);
/* rank among the processes on this node, and their number (MPI's shared
 * memory split; 0 and 1 in the world of one) */
int gm_dist_local_rank(void);
int gm_dist_local_size(void);
/* true when MPI carries the world (false: the internal world of one) */
bool gm_dist_uses_mpi(void);
gm_status gm_dist_barrier(void);

/* Cross-rank argument check: every rank passes its signature values; fails
 * with GM_EINVAL on every rank when they differ (one small allreduce). */
gm_status gm_dist_check_same(const char *op, const long long *sig, int n);

gm_status gm_dist_allreduce(void *buf, size_t n, gm_ctype t, gm_dist_op op);
gm_status gm_dist_bcast(void *buf, size_t n, gm_ctype t, int root);
/* recv holds size() * n elements */
gm_status gm_dist_allgather(const void *send, void *recv, size_t n, gm_ctype t);
/* send holds size() * n elements, recv n */
gm_status gm_dist_reduce_scatter(const void *send, void *recv, size_t n, gm_ctype t, gm_dist_op op);
gm_status gm_dist_send(const void *buf, size_t n, gm_ctype t, int dest, int tag);
/* send n elements to dest and receive rn from src as one exchange
 * (MPI_Sendrecv: no deadlock when every rank sends first) */
gm_status gm_dist_sendrecv(const void *send, size_t n, int dest, void *recv, size_t rn, int src, gm_ctype t,
                           int tag);
gm_status gm_dist_recv(void *buf, size_t n, gm_ctype t, int src, int tag);
/* bytes broadcast from root (e.g. an ncclUniqueId) */
gm_status gm_dist_bcast_bytes(void *buf, size_t n, int root);
/* largest tag allowed (MPI_TAG_UB) */
int gm_dist_tag_ub(void);

#endif
