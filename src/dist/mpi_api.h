/* The seam between the core and gpumat/dist_mpi.so, the module that holds
 * gpumat.dist's MPI code (src/dist/comm.c, linked with libmpi): the core
 * never links libmpi, so `require "gpumat"` works on a machine without
 * MPI (the GPU machines have none); src/dist/comm_load.c opens the module for
 * gpumat.dist and calls comm.h's functions through it.
 *
 * GM_DIST_MPI_API lists comm.h's functions: X(return type, name,
 * (parameters), (arguments), value while the module is not loaded). */
#ifndef GM_DIST_MPI_API_H
#define GM_DIST_MPI_API_H

#include "comm.h"

#define GM_DIST_NOT_INIT gm_fail(GM_ESTATE, "gpumat.dist is not initialized (call dist.init() first)")
#define GM_DIST_MPI_API(X)                                                                                  \
  X(gm_dist_state, gm_dist_get_state, (void), (), GM_DIST_UNINIT)                                          \
  X(gm_status, gm_dist_init, (void), (), gm_dist_init_loading())                                           \
  X(gm_status, gm_dist_finalize, (void), (), GM_OK)                                                        \
  X(int, gm_dist_rank, (void), (), 0)                                                                      \
  X(int, gm_dist_size, (void), (), 1)                                                                      \
  X(int, gm_dist_local_rank, (void), (), 0)                                                                \
  X(int, gm_dist_local_size, (void), (), 1)                                                                \
  X(bool, gm_dist_uses_mpi, (void), (), false)                                                             \
  X(gm_status, gm_dist_barrier, (void), (), GM_DIST_NOT_INIT)                                              \
  X(gm_status, gm_dist_check_same, (const char *op, const long long *sig, int n), (op, sig, n),            \
    GM_DIST_NOT_INIT)                                                                                      \
  X(gm_status, gm_dist_allreduce, (void *buf, size_t n, gm_ctype t, gm_dist_op op), (buf, n, t, op),       \
    GM_DIST_NOT_INIT)                                                                                      \
  X(gm_status, gm_dist_bcast, (void *buf, size_t n, gm_ctype t, int root), (buf, n, t, root),              \
    GM_DIST_NOT_INIT)                                                                                      \
  X(gm_status, gm_dist_allgather, (const void *send, void *recv, size_t n, gm_ctype t),                    \
    (send, recv, n, t), GM_DIST_NOT_INIT)                                                                  \
  X(gm_status, gm_dist_reduce_scatter, (const void *send, void *recv, size_t n, gm_ctype t, gm_dist_op op), \
    (send, recv, n, t, op), GM_DIST_NOT_INIT)                                                              \
  X(gm_status, gm_dist_send, (const void *buf, size_t n, gm_ctype t, int dest, int tag),                   \
    (buf, n, t, dest, tag), GM_DIST_NOT_INIT)                                                              \
  X(gm_status, gm_dist_sendrecv,                                                                           \
    (const void *send, size_t n, int dest, void *recv, size_t rn, int src, gm_ctype t, int tag),           \
    (send, n, dest, recv, rn, src, t, tag), GM_DIST_NOT_INIT)                                              \
  X(gm_status, gm_dist_recv, (void *buf, size_t n, gm_ctype t, int src, int tag), (buf, n, t, src, tag),   \
    GM_DIST_NOT_INIT)                                                                                      \
  X(gm_status, gm_dist_bcast_bytes, (void *buf, size_t n, int root), (buf, n, root), GM_DIST_NOT_INIT)     \
  X(int, gm_dist_tag_ub, (void), (), 32767)

/* What the module gets from the core: its error slot.  abi guards against
 * a module from another build. */
#define GM_DIST_MPI_ABI 1
typedef struct gm_dist_mpi_host {
  int abi;
  gm_status (*fail)(gm_status st, const char *message);
  void (*lib_error)(const char *function_name, int status);
} gm_dist_mpi_host;

/* The module's entry point (dlsym name "gm_dist_mpi_bind"): 0 when it
 * accepts host, else the ABI it was built for. */
typedef int (*gm_dist_mpi_bind_fn)(const gm_dist_mpi_host *host);

/* Core side (comm_load.c): opens the module once ($GPUMAT_DIST_MPI, else
 * dist_mpi.so next to the object holding the core, or in gpumat/ beside
 * it); GM_EMPI with the loader's reasons when it cannot. */
gm_status gm_dist_load(void);
/* gm_dist_init before the module is open: opens it, then initialises */
gm_status gm_dist_init_loading(void);

#endif
