/* NCCL collectives for gpumat.dist (see nccl.h).  Compiled only with the
 * CUDA backend and NCCL; like src/device/cuda it includes CUDA headers. */
#include "nccl.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <string.h>

#include "../core/mem/runtime.h"

/* One communicator per device id (devices live until the process ends). */
#define MAX_DEVICES 64
static ncclComm_t comms[MAX_DEVICES];

static gm_status nccl_fail(const char *fn, ncclResult_t r) {
  gm_set_lib_error_info(fn, (int)r);
  return gm_fail(GM_ENCCL, "%s failed: %s", fn, ncclGetErrorString(r));
}
#define NCCL_TRY(fn, args)                                  \
  do {                                                      \
    ncclResult_t r_ = fn args;                              \
    if (r_ != ncclSuccess) return nccl_fail(#fn, r_);       \
  } while (0)

bool gm_nccl_usable(const gm_device *d) { return d && strcmp(d->ops->name, "cuda") == 0; }

static gm_status get_comm(gm_device *d, ncclComm_t *out) {
  if (d->id < 0 || d->id >= MAX_DEVICES) return gm_fail(GM_ERANGE, "device id %d out of range", d->id);
  if (!comms[d->id]) {
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (gm_dist_rank() == 0) NCCL_TRY(ncclGetUniqueId, (&id));
    GM_TRY(gm_dist_bcast_bytes(&id, sizeof id, 0));
    cudaError_t ce = cudaSetDevice(d->id);
    if (ce != cudaSuccess) {
      gm_set_lib_error_info("cudaSetDevice", (int)ce);
      return gm_fail(GM_ECUDA, "cudaSetDevice failed: %s", cudaGetErrorString(ce));
    }
    NCCL_TRY(ncclCommInitRank, (&comms[d->id], gm_dist_size(), id, gm_dist_rank()));
  }
  *out = comms[d->id];
  return GM_OK;
}

/* The device's compute stream, through the device interface (only CUDA
 * devices get here: gm_nccl_usable). */
static cudaStream_t stream_of(gm_device *d) { return (cudaStream_t)d->ops->native_stream(d); }
static ncclDataType_t dtype(gm_ctype t) { return t == GM_DOUBLE ? ncclDouble : ncclFloat; }
static ncclRedOp_t red(gm_dist_op op, bool average) {
  if (average) return ncclAvg;
  switch (op) {
    case GM_DIST_MAX: return ncclMax;
    case GM_DIST_MIN: return ncclMin;
    case GM_DIST_PROD: return ncclProd;
    default: return ncclSum;
  }
}

gm_status gm_nccl_allreduce(gm_device *d, void *buf, size_t n, gm_ctype t, gm_dist_op op, bool average) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclAllReduce, (buf, buf, n, dtype(t), red(op, average), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_bcast(gm_device *d, void *buf, size_t n, gm_ctype t, int root) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclBroadcast, (buf, buf, n, dtype(t), root, c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_allgather(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclAllGather, (send, recv, n, dtype(t), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_reduce_scatter(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t,
                                 gm_dist_op op) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclReduceScatter, (send, recv, n, dtype(t), red(op, false), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_send(gm_device *d, const void *buf, size_t n, gm_ctype t, int dest) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclSend, (buf, n, dtype(t), dest, c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_recv(gm_device *d, void *buf, size_t n, gm_ctype t, int src) {
  ncclComm_t c;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_TRY(ncclRecv, (buf, n, dtype(t), src, c, stream_of(d)));
  return GM_OK;
}

void gm_nccl_finalize(void) {
  for (int i = 0; i < MAX_DEVICES; i++)
    if (comms[i]) {
      ncclCommDestroy(comms[i]);
      comms[i] = NULL;
    }
}
