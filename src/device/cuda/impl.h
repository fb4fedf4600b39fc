/* State of one CUDA device, shared by the files of src/device/cuda. */
#ifndef GM_DEVICE_CUDA_IMPL_H
#define GM_DEVICE_CUDA_IMPL_H

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuda_runtime.h>
#include <stdbool.h>

#include "libs.h"

#include "../../core/ops/blas_ops.h"
#include "../../core/mem/runtime.h"

typedef struct cuda_impl {
  cudaStream_t stream; /* the compute stream (ops and synchronous copies) */
  cublasHandle_t cublas; /* bound to stream */
  cusolverDnHandle_t cusolver; /* bound to stream (solver.c) */
  bool async_pool; /* cudaMallocAsync available (cudaDevAttrMemoryPoolsSupported) */
} cuda_impl;

static inline cuda_impl *gm_cuda_impl(void *ctx) { return ((gm_device *)ctx)->impl; }

/* Calls that need device d current (allocations, frees, device sync) make
 * it current for themselves only: the pool frees cached blocks of every
 * device (gm.collect, the reclaim cascade), and the thread's current
 * device must stay the one its context launches on.  gm_cuda_use saves
 * the current device in *prev; gm_cuda_unuse restores it. */
static inline cudaError_t gm_cuda_use(const gm_device *d, int *prev) {
  cudaError_t e = cudaGetDevice(prev);
  if (e != cudaSuccess) return e;
  return *prev == d->id ? cudaSuccess : cudaSetDevice(d->id);
}

static inline void gm_cuda_unuse(const gm_device *d, int prev) {
  if (prev != d->id) (void)cudaSetDevice(prev);
}

/* cuBLAS op table (blas.c). */
extern const gm_blas_ops gm_cuda_blas_ops;

/* invert/logdet through cuSOLVER (solver.c). */
gm_status gm_cuda_invert(void *ctx, gm_ctype t, int n, void *a, int lda);
struct gm_linalg_job;
gm_status gm_cuda_linalg(void *ctx, const struct gm_linalg_job *job, int *infos);
gm_status gm_cuda_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign);

/* gm.fft through cuFFT (fft.c). */
extern const struct gm_fft_ops gm_cuda_fft_ops;

/* Memory spaces of buffers and staging mats (memory.c). */
gm_status gm_cuda_alloc_pitched(gm_device *d, size_t width, size_t height, void **out, size_t *pitch);
gm_status gm_cuda_host_alloc_flags(gm_device *d, size_t bytes, unsigned flags, void **out);
gm_status gm_cuda_host_device_pointer(gm_device *d, void *host, void **dev);
gm_status gm_cuda_managed_alloc(gm_device *d, size_t bytes, void **out);
void gm_cuda_managed_free(gm_device *d, void *p);
gm_status gm_cuda_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height);
/* Stream-ordered scratch on d's compute stream, with one trim of the
 * pool's cache and a retry when the device is full (memory.c). */
gm_status gm_cuda_scratch_alloc_on(gm_device *d, size_t bytes, void **out);
void gm_cuda_scratch_free_on(gm_device *d, void *p);

/* Events on the compute stream (events.c). */
gm_status gm_cuda_event_record(gm_device *d, void **ev);
gm_status gm_cuda_event_sync(gm_device *d, void *ev);
void gm_cuda_event_free(gm_device *d, void *ev);
void gm_cuda_prefetch(gm_device *d, const void *p, size_t bytes);

/* Run-time kernels (rtk.c): load NVRTC's PTX on d, launch on its stream. */
gm_status gm_cuda_rtk_load(gm_device *d, const char *ptx, const char *name, void **kernel);
gm_status gm_cuda_rtk_launch(gm_device *d, void *kernel, void **args, const unsigned *geom);

#endif
