/* Memory spaces of buffers and staging mats on the CUDA runtime: pitched
 * blocks (cudaMallocPitch), page-locked blocks with cudaHostAlloc's flags
 * and their device mapping, managed memory, 2-d copies between any two
 * spaces (cudaMemcpy2D with unified addressing). */
#include <cuda_runtime.h>

#include "impl.h"

static gm_status mem_fail(cudaError_t e, const char *what) {
  gm_set_lib_error_info(what, (int)e);
  if (e == cudaErrorMemoryAllocation) return gm_fail(GM_ECUDA_OOM, "%s: %s", what, cudaGetErrorString(e));
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

#define MEM_TRY(call, what)                           \
  do {                                                \
    cudaError_t e_ = (call);                          \
    if (e_ != cudaSuccess) return mem_fail(e_, what); \
  } while (0)

gm_status gm_cuda_alloc_pitched(gm_device *d, size_t width, size_t height, void **out, size_t *pitch) {
  MEM_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  MEM_TRY(cudaMallocPitch(out, pitch, width, height), "cudaMallocPitch");
  return GM_OK;
}

gm_status gm_cuda_host_alloc_flags(gm_device *d, size_t bytes, unsigned flags, void **out) {
  unsigned f = cudaHostAllocDefault;
  if (flags & GM_PINNED_PORTABLE) f |= cudaHostAllocPortable;
  if (flags & GM_PINNED_MAPPED) f |= cudaHostAllocMapped;
  if (flags & GM_PINNED_WRITE_COMBINE) f |= cudaHostAllocWriteCombined;
  MEM_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  MEM_TRY(cudaHostAlloc(out, bytes, f), "cudaHostAlloc");
  return GM_OK;
}

gm_status gm_cuda_host_device_pointer(gm_device *d, void *host, void **dev) {
  MEM_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  MEM_TRY(cudaHostGetDevicePointer(dev, host, 0), "cudaHostGetDevicePointer");
  return GM_OK;
}

gm_status gm_cuda_managed_alloc(gm_device *d, size_t bytes, void **out) {
  MEM_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  MEM_TRY(cudaMallocManaged(out, bytes, cudaMemAttachGlobal), "cudaMallocManaged");
  return GM_OK;
}

/* Release path: errors are sticky and reported by the next checked call. */
void gm_cuda_managed_free(gm_device *d, void *p) {
  (void)cudaSetDevice(d->id);
  (void)cudaFree(p);
}

/* Synchronous: ops run on the compute stream, so wait for it first (a
 * kernel may still write the source). */
gm_status gm_cuda_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height) {
  cuda_impl *impl = d->impl;
  MEM_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  MEM_TRY(cudaStreamSynchronize(impl->stream), "cudaStreamSynchronize");
  MEM_TRY(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault), "cudaMemcpy2D");
  return GM_OK;
}
