/* Memory spaces of buffers and staging mats on the CUDA runtime: pitched
 * blocks (cudaMallocPitch), page-locked blocks with cudaHostAlloc's flags
 * and their device mapping, managed memory, 2-d copies between any two
 * spaces (cudaMemcpy2DAsync on the compute stream, unified addressing).
 * Each call makes its device current for itself only (impl.h). */
#include <cuda_runtime.h>

#include "impl.h"

/* Also clears cudart's last-error slot: a handled failure must not make
 * the next launcher's cudaGetLastError() report it. */
static gm_status mem_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError();
  gm_set_lib_error_info(what, (int)e);
  if (e == cudaErrorMemoryAllocation) return gm_fail(GM_ECUDA_OOM, "%s: %s", what, cudaGetErrorString(e));
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

#define MEM_TRY(call, what)                           \
  do {                                                \
    cudaError_t e_ = (call);                          \
    if (e_ != cudaSuccess) return mem_fail(e_, what); \
  } while (0)

/* call with device d current, the thread's device restored after */
#define MEM_ON(d, call, what)                              \
  do {                                                     \
    int prev_;                                             \
    MEM_TRY(gm_cuda_use(d, &prev_), "cudaSetDevice");      \
    cudaError_t r_ = (call);                               \
    gm_cuda_unuse(d, prev_);                               \
    if (r_ != cudaSuccess) return mem_fail(r_, what);      \
  } while (0)

gm_status gm_cuda_alloc_pitched(gm_device *d, size_t width, size_t height, void **out, size_t *pitch) {
  MEM_ON(d, cudaMallocPitch(out, pitch, width, height), "cudaMallocPitch");
  return GM_OK;
}

gm_status gm_cuda_host_alloc_flags(gm_device *d, size_t bytes, unsigned flags, void **out) {
  unsigned f = cudaHostAllocDefault;
  if (flags & GM_PINNED_PORTABLE) f |= cudaHostAllocPortable;
  if (flags & GM_PINNED_MAPPED) f |= cudaHostAllocMapped;
  if (flags & GM_PINNED_WRITE_COMBINE) f |= cudaHostAllocWriteCombined;
  MEM_ON(d, cudaHostAlloc(out, bytes, f), "cudaHostAlloc");
  return GM_OK;
}

gm_status gm_cuda_host_device_pointer(gm_device *d, void *host, void **dev) {
  MEM_ON(d, cudaHostGetDevicePointer(dev, host, 0), "cudaHostGetDevicePointer");
  return GM_OK;
}

gm_status gm_cuda_managed_alloc(gm_device *d, size_t bytes, void **out) {
  MEM_ON(d, cudaMallocManaged(out, bytes, cudaMemAttachGlobal), "cudaMallocManaged");
  return GM_OK;
}

/* Release path: errors are sticky and reported by the next checked call. */
void gm_cuda_managed_free(gm_device *d, void *p) {
  int prev;
  if (gm_cuda_use(d, &prev) != cudaSuccess) return;
  (void)cudaFree(p);
  gm_cuda_unuse(d, prev);
}

/* Synchronous for the caller, ordered on the compute stream: after the
 * kernels queued before (which may still write the source) and before
 * later ones (which may read the destination).  cudaMemcpy2D would run
 * on the legacy default stream, which a non-blocking compute stream is
 * not ordered against (a device-to-device cudaMemcpy2D returns at once). */
gm_status gm_cuda_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height) {
  cuda_impl *impl = d->impl;
  MEM_ON(d, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, impl->stream),
         "cudaMemcpy2DAsync");
  MEM_TRY(cudaStreamSynchronize(impl->stream), "cudaStreamSynchronize");
  return GM_OK;
}

/* ---- scratch arrays (sums' partials, reductions, cuSOLVER workspaces) ----
 * Stream-ordered on the compute stream (cudaMallocAsync from the device's
 * default memory pool, whose release threshold device.c raises so that
 * scratch is not returned to the driver at every synchronization).  When
 * the device is full because gpumat's own pool caches the memory, the
 * deferred frees are drained into the cache and the cache goes back to
 * the driver (gm_device_reclaim_for_scratch), and the allocation is tried
 * once more;
 * no GC here: the op's operands are held.  Devices without memory pools:
 * cudaMalloc, and a free that waits for the stream. */

/* cudaMallocAsync takes the stream's device; cudaMalloc the current one. */
static cudaError_t scratch_try(gm_device *d, size_t bytes, void **out) {
  cuda_impl *impl = d->impl;
  if (impl->async_pool) return cudaMallocAsync(out, bytes, impl->stream);
  int prev;
  cudaError_t e = gm_cuda_use(d, &prev);
  if (e != cudaSuccess) return e;
  e = cudaMalloc(out, bytes);
  gm_cuda_unuse(d, prev);
  return e;
}

gm_status gm_cuda_scratch_alloc_on(gm_device *d, size_t bytes, void **out) {
  cudaError_t e = scratch_try(d, bytes, out);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    gm_device_reclaim_for_scratch(d);
    e = scratch_try(d, bytes, out);
  }
  if (e != cudaSuccess) return mem_fail(e, ((cuda_impl *)d->impl)->async_pool ? "cudaMallocAsync" : "cudaMalloc");
  return GM_OK;
}

void gm_cuda_scratch_free_on(gm_device *d, void *p) {
  cuda_impl *impl = d->impl;
  if (impl->async_pool) {
    (void)cudaFreeAsync(p, impl->stream);
  } else {
    int prev;
    (void)cudaStreamSynchronize(impl->stream);
    if (gm_cuda_use(d, &prev) != cudaSuccess) return;
    (void)cudaFree(p);
    gm_cuda_unuse(d, prev);
  }
}
