/* Events on the compute stream for host waits on one op (the core's
 * pending device work on mapped and managed vecs, vec.c): recorded after
 * the op, synchronized before the host touches the memory, so the host
 * waits for that op and what came before it, not for later work. */
#include <cuda_runtime.h>

#include "impl.h"

static gm_status event_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* no stale error for the next launch */
  gm_set_lib_error_info(what, (int)e);
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* The event is created with d current: an event belongs to the device
 * current at its creation, and recording it on d's stream while another
 * device is current fails with an invalid resource handle. */
gm_status gm_cuda_event_record(gm_device *d, void **ev) {
  cuda_impl *impl = d->impl;
  int prev;
  cudaError_t err = gm_cuda_use(d, &prev);
  if (err != cudaSuccess) return event_fail(err, "cudaSetDevice");
  cudaEvent_t e;
  err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (err == cudaSuccess) {
    err = cudaEventRecord(e, impl->stream);
    if (err != cudaSuccess) {
      (void)cudaEventDestroy(e);
      gm_cuda_unuse(d, prev);
      return event_fail(err, "cudaEventRecord");
    }
  }
  gm_cuda_unuse(d, prev);
  if (err != cudaSuccess) return event_fail(err, "cudaEventCreate");
  *ev = e;
  return GM_OK;
}

gm_status gm_cuda_event_sync(gm_device *d, void *ev) {
  (void)d;
  cudaError_t err = cudaEventSynchronize((cudaEvent_t)ev);
  return err == cudaSuccess ? GM_OK : event_fail(err, "cudaEventSynchronize");
}

void gm_cuda_event_free(gm_device *d, void *ev) {
  (void)d;
  (void)cudaEventDestroy((cudaEvent_t)ev);
}

/* Managed memory to d, ordered on the compute stream; a device without
 * concurrent managed access refuses, which only costs the speed-up.
 * The call is spelled three ways: CUDA 13 takes a location and flags,
 * 12.2-12.9 name that form cudaMemPrefetchAsync_v2, and older runtimes
 * take a device number (tools/cuda-compat checks each branch compiles). */
void gm_cuda_prefetch(gm_device *d, const void *p, size_t bytes) {
  cuda_impl *impl = d->impl;
#if CUDART_VERSION >= 13000
  struct cudaMemLocation loc = {cudaMemLocationTypeDevice, d->id};
  cudaError_t e = cudaMemPrefetchAsync(p, bytes, loc, 0, impl->stream);
#elif CUDART_VERSION >= 12020
  struct cudaMemLocation loc = {cudaMemLocationTypeDevice, d->id};
  cudaError_t e = cudaMemPrefetchAsync_v2(p, bytes, loc, 0, impl->stream);
#else
  cudaError_t e = cudaMemPrefetchAsync(p, bytes, d->id, impl->stream);
#endif
  if (e != cudaSuccess) (void)cudaGetLastError();
}
