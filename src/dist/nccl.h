/* NCCL collectives on device pointers of a real CUDA device (nccl.c,
 * compiled only with the CUDA backend and NCCL).  One communicator per
 * device, made on first use from an ncclUniqueId that rank 0 broadcasts
 * over MPI (comm.h), so every rank must reach its first device collective
 * together, as for any collective.  Operations are enqueued on the
 * device's compute stream (no host copy, no synchronisation: later ops
 * and copies on that stream are ordered after them).  Each call waits
 * (bounded, GPUMAT_NCCL_TIMEOUT) for NCCL to accept it and checks the
 * communicator's asynchronous error.  No CUDA types
 * here: the binding includes this header. */
#ifndef GM_DIST_NCCL_H
#define GM_DIST_NCCL_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/mem/runtime.h"
#include "comm.h"

/* true when this build has NCCL and d is a CUDA device */
bool gm_nccl_usable(const gm_device *d);
/* true when this build has NCCL (dist.nccl) */
bool gm_nccl_built(void);
gm_status gm_nccl_allreduce(gm_device *d, void *buf, size_t n, gm_ctype t, gm_dist_op op, bool average);
gm_status gm_nccl_bcast(gm_device *d, void *buf, size_t n, gm_ctype t, int root);
gm_status gm_nccl_allgather(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t);
gm_status gm_nccl_reduce_scatter(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t,
                                 gm_dist_op op);
gm_status gm_nccl_send(gm_device *d, const void *buf, size_t n, gm_ctype t, int dest);
gm_status gm_nccl_recv(gm_device *d, void *buf, size_t n, gm_ctype t, int src);
/* send n elements to dest and receive rn from src in one NCCL group */
gm_status gm_nccl_sendrecv(gm_device *d, const void *send, size_t n, int dest, void *recv, size_t rn, int src,
                           gm_ctype t);
/* Destroys the communicators (before MPI_Finalize). */
void gm_nccl_finalize(void);

#endif
