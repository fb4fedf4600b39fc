/* NCCL collectives for gpumat.dist (see nccl.h).  Compiled only with the
 * CUDA backend and NCCL; like src/device/cuda it includes CUDA headers.
 *
 * Communicators are non-blocking (ncclConfig_t.blocking = 0): every call
 * returns at once, possibly with ncclInProgress, and wait_comm polls
 * ncclCommGetAsyncError until the call is through, an asynchronous error
 * shows (a peer that failed, a network error), or GPUMAT_NCCL_TIMEOUT
 * seconds (default 300) pass.  A blocking communicator would wait forever
 * in ncclCommInitRank for a rank that never comes, and its asynchronous
 * errors would go unseen.  On an error or a timeout the communicator is
 * aborted and dropped: the next device collective makes a new one.  A
 * call that was enqueued is then waited for on the device as well (an
 * event polled with the same timeout, wait_done): a peer that dies after
 * the enqueue would otherwise leave the collective's kernel spinning and
 * hang the next stream synchronization.  The host thus waits for each
 * collective, as MPI's blocking collectives do. */
#include "nccl.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/mem/runtime.h"
#include "../device/cuda/libs.h"

/* One communicator per device id (devices live until the process ends). */
#define MAX_DEVICES 64
static ncclComm_t comms[MAX_DEVICES];

static gm_status nccl_fail(const char *fn, ncclResult_t r) {
  gm_set_lib_error_info(fn, (int)r);
  return gm_fail(GM_ENCCL, "%s failed: %s", fn, gm_nccl.ncclGetErrorString(r));
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double timeout_s(void) {
  const char *e = getenv("GPUMAT_NCCL_TIMEOUT");
  double t = e && *e ? strtod(e, NULL) : 300.0;
  return t > 0 ? t : 300.0;
}

static void drop(int id) {
  if (comms[id]) (void)gm_nccl.ncclCommAbort(comms[id]);
  comms[id] = NULL;
}

/* Waits until the last call on comms[id] (which returned r) is through. */
static gm_status wait_comm(int id, const char *fn, ncclResult_t r) {
  double deadline = now() + timeout_s();
  while (r == ncclInProgress) {
    if (now() > deadline) {
      drop(id);
      gm_set_lib_error_info(fn, (int)ncclInProgress);
      return gm_fail(GM_ENCCL, "%s did not complete within %g s (GPUMAT_NCCL_TIMEOUT): a rank did not take part",
                     fn, timeout_s());
    }
    struct timespec pause = {0, 100000}; /* 0.1 ms */
    nanosleep(&pause, NULL);
    ncclResult_t q = gm_nccl.ncclCommGetAsyncError(comms[id], &r);
    if (q != ncclSuccess) r = q;
  }
  if (r == ncclSuccess) (void)gm_nccl.ncclCommGetAsyncError(comms[id], &r);
  if (r != ncclSuccess) {
    drop(id);
    return nccl_fail(fn, r);
  }
  return GM_OK;
}

/* Polls ev (recorded after a collective) until the device has run the
 * collective, NCCL reports an asynchronous error (a peer that died), or
 * the timeout passes; then the communicator is aborted, which ends the
 * collective's kernel, so no later stream synchronization hangs
 * (wait_comm covers only the enqueue). */
static gm_status poll_event(int id, const char *fn, cudaEvent_t ev) {
  double deadline = now() + timeout_s();
  for (;;) {
    cudaError_t q = cudaEventQuery(ev);
    if (q == cudaSuccess) return GM_OK;
    if (q != cudaErrorNotReady) {
      (void)cudaGetLastError();
      gm_set_lib_error_info("cudaEventQuery", (int)q);
      return gm_fail(GM_ECUDA, "%s: cudaEventQuery failed: %s", fn, cudaGetErrorString(q));
    }
    ncclResult_t r = ncclSuccess, a = gm_nccl.ncclCommGetAsyncError(comms[id], &r);
    if (a != ncclSuccess) r = a;
    if (r != ncclSuccess && r != ncclInProgress) {
      drop(id);
      return nccl_fail(fn, r);
    }
    if (now() > deadline) {
      drop(id);
      gm_set_lib_error_info(fn, (int)ncclInProgress);
      return gm_fail(GM_ENCCL, "%s did not finish on the device within %g s (GPUMAT_NCCL_TIMEOUT): a peer "
                     "died or did not take part; the communicator was aborted", fn, timeout_s());
    }
    struct timespec pause = {0, 100000}; /* 0.1 ms */
    nanosleep(&pause, NULL);
  }
}

/* Waits, bounded, for what d's compute stream holds so far (the collective
 * just enqueued).  The event is created with d current (an event belongs
 * to the device current at its creation); the thread's device is restored. */
static gm_status wait_done(gm_device *d, cudaStream_t s, const char *fn) {
  int prev = -1;
  cudaEvent_t ev = NULL;
  cudaError_t ce = cudaGetDevice(&prev);
  if (ce == cudaSuccess && prev != d->id) ce = cudaSetDevice(d->id);
  if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (ce == cudaSuccess && (ce = cudaEventRecord(ev, s)) != cudaSuccess) (void)cudaEventDestroy(ev);
  if (prev >= 0 && prev != d->id) (void)cudaSetDevice(prev);
  if (ce != cudaSuccess) {
    (void)cudaGetLastError();
    gm_set_lib_error_info("cudaEventRecord", (int)ce);
    return gm_fail(GM_ECUDA, "%s: recording its completion event failed: %s", fn, cudaGetErrorString(ce));
  }
  gm_status st = poll_event(d->id, fn, ev);
  (void)cudaEventDestroy(ev);
  return st;
}

/* A collective: enqueued (wait_comm), then waited for on the device
 * (wait_done), both under GPUMAT_NCCL_TIMEOUT. */
#define NCCL_RUN(d, fn, args)                       \
  do {                                              \
    GM_TRY(wait_comm((d)->id, #fn, gm_nccl.fn args));       \
    GM_TRY(wait_done(d, stream_of(d), #fn));        \
  } while (0)

bool gm_nccl_built(void) { return true; }
bool gm_nccl_usable(const gm_device *d) { return d && strcmp(d->ops->name, "cuda") == 0; }

static gm_status get_comm(gm_device *d, ncclComm_t *out) {
  int id = d->id;
  if (id < 0 || id >= MAX_DEVICES) return gm_fail(GM_ERANGE, "device id %d out of range", id);
  GM_TRY(gm_nccl_load()); /* opened at the first communicator (libs.h); every call below needs one */
  if (!comms[id]) {
    ncclUniqueId uid;
    memset(&uid, 0, sizeof uid);
    if (gm_dist_rank() == 0) {
      ncclResult_t r = gm_nccl.ncclGetUniqueId(&uid);
      if (r != ncclSuccess) return nccl_fail("ncclGetUniqueId", r);
    }
    GM_TRY(gm_dist_bcast_bytes(&uid, sizeof uid, 0));
    cudaError_t ce = cudaSetDevice(id);
    if (ce != cudaSuccess) {
      gm_set_lib_error_info("cudaSetDevice", (int)ce);
      return gm_fail(GM_ECUDA, "cudaSetDevice failed: %s", cudaGetErrorString(ce));
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = gm_nccl.ncclCommInitRankConfig(&comms[id], gm_dist_size(), uid, gm_dist_rank(), &config);
    if (r != ncclSuccess && r != ncclInProgress) {
      comms[id] = NULL;
      return nccl_fail("ncclCommInitRankConfig", r);
    }
    GM_TRY(wait_comm(id, "ncclCommInitRankConfig", r));
  }
  *out = comms[id];
  return GM_OK;
}

/* The device's compute stream, through the device interface (only CUDA
 * devices get here: gm_nccl_usable). */
static cudaStream_t stream_of(gm_device *d) { return (cudaStream_t)d->ops->native_stream(d); }
static ncclDataType_t dtype(gm_ctype t) {
  /* moves only (reductions of half mats run on float32 copies,
   * collective.c): bfloat16's bits go as float16's */
  if (gm_ctype_is_half(t)) return ncclFloat16;
#define X(T, E, name, kw, p, P, ET, m, descr, sx, digits, mpi, nccl, ...) \
  case GM_##E:                                                            \
    return nccl;
  GM_CTYPE_SWITCH(t, X, return ncclNumTypes) /* NCCL rejects it: ncclInvalidArgument */
#undef X
}
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
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclAllReduce, (buf, buf, n, dtype(t), red(op, average), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_bcast(gm_device *d, void *buf, size_t n, gm_ctype t, int root) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclBroadcast, (buf, buf, n, dtype(t), root, c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_allgather(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclAllGather, (send, recv, n, dtype(t), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_reduce_scatter(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t,
                                 gm_dist_op op) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclReduceScatter, (send, recv, n, dtype(t), red(op, false), c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_send(gm_device *d, const void *buf, size_t n, gm_ctype t, int dest) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclSend, (buf, n, dtype(t), dest, c, stream_of(d)));
  return GM_OK;
}

gm_status gm_nccl_recv(gm_device *d, void *buf, size_t n, gm_ctype t, int src) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  if (n) NCCL_RUN(d, ncclRecv, (buf, n, dtype(t), src, c, stream_of(d)));
  return GM_OK;
}

/* One group: NCCL then progresses the send and the receive together, so
 * an exchange where every rank sends first does not deadlock. */
gm_status gm_nccl_sendrecv(gm_device *d, const void *send, size_t n, int dest, void *recv, size_t rn, int src,
                           gm_ctype t) {
  ncclComm_t c = NULL;
  GM_TRY(get_comm(d, &c));
  ncclResult_t r = gm_nccl.ncclGroupStart();
  if (r != ncclSuccess) return nccl_fail("ncclGroupStart", r);
  ncclResult_t rs = n ? gm_nccl.ncclSend(send, n, dtype(t), dest, c, stream_of(d)) : ncclSuccess;
  ncclResult_t rr = rn ? gm_nccl.ncclRecv(recv, rn, dtype(t), src, c, stream_of(d)) : ncclSuccess;
  r = gm_nccl.ncclGroupEnd(); /* always closes the group, even after a failed call inside it */
  if (rs != ncclSuccess && rs != ncclInProgress) r = rs;
  else if (rr != ncclSuccess && rr != ncclInProgress) r = rr;
  GM_TRY(wait_comm(d->id, "ncclGroupEnd", r));
  return wait_done(d, stream_of(d), "ncclSend/ncclRecv");
}

void gm_nccl_finalize(void) {
  for (int i = 0; i < MAX_DEVICES; i++)
    if (comms[i]) {
      /* finalize flushes pending work; bounded like every other wait */
      ncclResult_t r = gm_nccl.ncclCommFinalize(comms[i]);
      if (r == ncclSuccess || r == ncclInProgress) (void)wait_comm(i, "ncclCommFinalize", r);
      if (comms[i]) (void)gm_nccl.ncclCommDestroy(comms[i]);
      comms[i] = NULL;
    }
}
