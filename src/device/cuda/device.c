/* The CUDA device: the device contract on the CUDA runtime.  The only
 * place (with kernels/NAME.cu) that includes CUDA headers. */
#include <cuda_runtime.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mem/backends.h"
#include "impl.h"



/* Every CUDA failure turned into a status also clears cudart's per-thread
 * last-error slot (as PyTorch's caching allocator does): a
 * failed cudaMalloc the reclaim cascade recovers from must not make the
 * next launcher's cudaGetLastError() report it.  (A sticky error cannot
 * be cleared; the next call reports it again, which is right.) */
static gm_status cuda_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError();
  gm_set_lib_error_info(what, (int)e);
  if (e == cudaErrorMemoryAllocation)
    return gm_fail(GM_ECUDA_OOM, "%s: %s", what, cudaGetErrorString(e));
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

#define CU_TRY(call, what)                          \
  do {                                              \
    cudaError_t e_ = (call);                        \
    if (e_ != cudaSuccess) return cuda_fail(e_, what); \
  } while (0)

/* The scratch pool keeps up to this much after a synchronization (the
 * default, 0, gives scratch back to the driver at every sync), and gives
 * it back when a cudaMalloc runs out of memory. */
#define SCRATCH_KEEP_BYTES (64ull << 20)

static void scratch_pool_init(cuda_impl *impl, int id) {
  int ok = 0;
  if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, id) != cudaSuccess) ok = 0;
  impl->async_pool = ok != 0;
  cudaMemPool_t pool;
  if (ok && cudaDeviceGetDefaultMemPool(&pool, id) == cudaSuccess) {
    uint64_t keep = SCRATCH_KEEP_BYTES; /* the attribute is a cuuint64_t */
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  (void)cudaGetLastError(); /* an unsupported attribute leaves the default */
}

/* Memory the scratch pool keeps (freed, not in use) back to the driver. */
static void scratch_pool_release(gm_device *d) {
  cuda_impl *impl = d->impl;
  cudaMemPool_t pool;
  if (!impl->async_pool || cudaDeviceGetDefaultMemPool(&pool, d->id) != cudaSuccess) return;
  (void)cudaStreamSynchronize(impl->stream); /* frees queued on the stream complete */
  (void)cudaMemPoolTrimTo(pool, 0);
  (void)cudaGetLastError();
}

static gm_status cu_raw_alloc(gm_device *d, size_t bytes, void **out) {
  int prev;
  CU_TRY(gm_cuda_use(d, &prev), "cudaSetDevice");
  cudaError_t e = cudaMalloc(out, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    scratch_pool_release(d);
    e = cudaMalloc(out, bytes);
  }
  gm_cuda_unuse(d, prev);
  if (e != cudaSuccess) return cuda_fail(e, "cudaMalloc");
  return GM_OK;
}

/* Release paths (raw_free, stream_free, host_unregister, host_free,
 * destroy) have no caller that could act on a failure: their CUDA errors
 * are deliberately ignored ((void)).  A failure there means the context
 * is already broken, and CUDA errors are sticky, so the next checked call
 * (a copy, a launch, synchronize) reports it. */
static void cu_raw_free(gm_device *d, void *p) {
  int prev;
  if (gm_cuda_use(d, &prev) != cudaSuccess) return; /* sticky: reported by the next checked call */
  (void)cudaFree(p);
  gm_cuda_unuse(d, prev);
}

static cudaStream_t stream_of(gm_device *d, gm_stream *s) {
  return s ? (cudaStream_t)s : ((cuda_impl *)d->impl)->stream;
}

static gm_status cu_copy(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s,
                         enum cudaMemcpyKind kind) {
  cudaStream_t st = stream_of(d, s);
  CU_TRY(cudaMemcpyAsync(dst, src, bytes, kind, st), "cudaMemcpyAsync");
  if (!s) CU_TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize");
  return GM_OK;
}

/* An H2D copy without a stream waits for it: the host may rewrite the
 * source as soon as the call returns.  (A batch copy with source access
 * "during the API call", cudaMemcpyBatchAsync, was used for pageable
 * sources to skip the wait; on the first GPU run, an H200 with CUDA 13.0,
 * spec/gpu/review2_gpu_spec.lua's C7 saw a later host write in the
 * copied data, so every such copy waits again.) */
static gm_status cu_h2d(gm_device *d, void *dst, const void *src, size_t n, gm_stream *s) {
  return cu_copy(d, dst, src, n, s, cudaMemcpyHostToDevice);
}
static gm_status cu_d2h(gm_device *d, void *dst, const void *src, size_t n, gm_stream *s) {
  return cu_copy(d, dst, src, n, s, cudaMemcpyDeviceToHost);
}
static gm_status cu_d2d(gm_device *d, void *dst, const void *src, size_t n, gm_stream *s) {
  return cu_copy(d, dst, src, n, s, cudaMemcpyDeviceToDevice);
}

static gm_status cu_stream_new(gm_device *d, gm_stream **out) {
  (void)d;
  cudaStream_t s;
  CU_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  *out = (gm_stream *)s;
  return GM_OK;
}

static void cu_stream_free(gm_device *d, gm_stream *s) {
  (void)d;
  (void)cudaStreamDestroy((cudaStream_t)s);
}

static gm_status cu_stream_sync(gm_device *d, gm_stream *s) {
  CU_TRY(cudaStreamSynchronize(stream_of(d, s)), "cudaStreamSynchronize");
  return GM_OK;
}

/* An event per wait: recorded on s, waited on by waiter, destroyed at
 * once (CUDA keeps it alive until the wait is resolved).  Created with d
 * current, the device of both streams: an event of another device cannot
 * be recorded on d's stream. */
static gm_status cu_stream_wait(gm_device *d, gm_stream *waiter, gm_stream *s) {
  int prev;
  CU_TRY(gm_cuda_use(d, &prev), "cudaSetDevice");
  cudaEvent_t ev;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  gm_cuda_unuse(d, prev);
  if (e != cudaSuccess) return cuda_fail(e, "cudaEventCreate");
  e = cudaEventRecord(ev, stream_of(d, s));
  if (e == cudaSuccess) e = cudaStreamWaitEvent(stream_of(d, waiter), ev, 0);
  (void)cudaEventDestroy(ev);
  if (e != cudaSuccess) return cuda_fail(e, "cudaStreamWaitEvent");
  return GM_OK;
}

static gm_status cu_synchronize(gm_device *d) {
  int prev;
  CU_TRY(gm_cuda_use(d, &prev), "cudaSetDevice");
  cudaError_t e = cudaDeviceSynchronize();
  gm_cuda_unuse(d, prev);
  if (e != cudaSuccess) return cuda_fail(e, "cudaDeviceSynchronize");
  return GM_OK;
}

static gm_status cu_host_register(gm_device *d, void *p, size_t bytes) {
  (void)d;
  CU_TRY(cudaHostRegister(p, bytes, cudaHostRegisterPortable), "cudaHostRegister");
  return GM_OK;
}

static void cu_host_unregister(gm_device *d, void *p) {
  (void)d;
  (void)cudaHostUnregister(p);
}

static gm_status cu_host_alloc(gm_device *d, size_t bytes, void **out) {
  (void)d;
  CU_TRY(cudaHostAlloc(out, bytes, cudaHostAllocPortable), "cudaHostAlloc");
  return GM_OK;
}

static void cu_host_free(gm_device *d, void *p) {
  (void)d;
  (void)cudaFreeHost(p);
}

static void cu_clear_error(gm_device *d) {
  (void)d;
  (void)cudaGetLastError();
}

static void *cu_native_stream(gm_device *d) { return ((cuda_impl *)d->impl)->stream; }

static void cu_destroy(gm_device *d) {
  cuda_impl *impl = d->impl;
  if (impl) {
    if (impl->cublas) (void)gm_cublas.cublasDestroy(impl->cublas);
    if (impl->cusolver) (void)gm_cusolver.cusolverDnDestroy(impl->cusolver);
    (void)cudaStreamDestroy(impl->stream);
    free(impl);
    d->impl = NULL;
  }
}

gm_status gm_cuda_device_info(int device_id, gm_device_info *out) {
  struct cudaDeviceProp p;
  CU_TRY(cudaGetDeviceProperties(&p, device_id), "cudaGetDeviceProperties");
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", p.name);
  out->total_memory = p.totalGlobalMem;
  out->compute_major = p.major;
  out->compute_minor = p.minor;
  out->multiprocessor_count = p.multiProcessorCount;
  out->warp_size = p.warpSize;
  out->max_threads_per_block = p.maxThreadsPerBlock;
  return GM_OK;
}

static gm_status cu_get_info(gm_device *d, gm_device_info *out) { return gm_cuda_device_info(d->id, out); }

/* Nothing per context beyond binding the device: random fills need no
 * generator state (random.c), and random_seed/n_random_states are
 * accepted for MGL compatibility only. */
static gm_status cu_context_begin(gm_device *d, unsigned long long seed, int n_random_states) {
  (void)seed;
  (void)n_random_states;
  CU_TRY(cudaSetDevice(d->id), "cudaSetDevice");
  return GM_OK;
}

static gm_device_ops cuda_ops = {
    .name = "cuda",
    .raw_alloc = cu_raw_alloc,
    .raw_free = cu_raw_free,
    .copy_h2d = cu_h2d,
    .copy_d2h = cu_d2h,
    .copy_d2d = cu_d2d,
    .stream_new = cu_stream_new,
    .stream_free = cu_stream_free,
    .stream_sync = cu_stream_sync,
    .stream_wait = cu_stream_wait,
    .synchronize = cu_synchronize,
    .event_record = gm_cuda_event_record,
    .prefetch = gm_cuda_prefetch,
    .event_sync = gm_cuda_event_sync,
    .event_free = gm_cuda_event_free,
    .host_register = cu_host_register,
    .host_unregister = cu_host_unregister,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .enter = NULL, /* device memory is inaccessible to the host anyway */
    .leave = NULL,
    .get_info = cu_get_info,
    .clear_error = cu_clear_error,
    .native_stream = cu_native_stream,
    .check_error = NULL, /* the launchers return cudaGetLastError() */
    .kernels = NULL,
    .context_begin = cu_context_begin,
    .context_end = NULL,
    .destroy = cu_destroy,
    .alloc_pitched = gm_cuda_alloc_pitched,
    .host_alloc_flags = gm_cuda_host_alloc_flags,
    .host_device_pointer = gm_cuda_host_device_pointer,
    .managed_alloc = gm_cuda_managed_alloc,
    .managed_free = gm_cuda_managed_free,
    .copy_2d = gm_cuda_copy_2d,
    .rtk_load = gm_cuda_rtk_load,
    .rtk_launch = gm_cuda_rtk_launch,
};

bool gm_cuda_runtime_available(int device_id, char *reason, size_t n) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(reason, n, "%s", cudaGetErrorString(e));
    return false;
  }
  if (device_id < 0 || device_id >= count) {
    snprintf(reason, n, "no cuda device with id %d (%d devices)", device_id, count);
    return false;
  }
  return true;
}

int gm_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

gm_status gm_cuda_device_init(gm_device *d) {
  char reason[256];
  if (!gm_cuda_runtime_available(d->id, reason, sizeof reason))
    return gm_fail(GM_ECUDA, "cuda is not available: %s", reason);
  /* the device's handles need them: opened with the first device (libs.h) */
  GM_TRY(gm_cublas_load());
  GM_TRY(gm_cusolver_load());
  cuda_impl *impl = calloc(1, sizeof *impl);
  if (!impl) return gm_fail(GM_ENOMEM, "out of host memory");
  cudaError_t e = cudaSetDevice(d->id);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    free(impl);
    return cuda_fail(e, "cuda device init");
  }
  scratch_pool_init(impl, d->id);
  cublasStatus_t bs = gm_cublas.cublasCreate(&impl->cublas);
  if (bs == CUBLAS_STATUS_SUCCESS) bs = gm_cublas.cublasSetStream(impl->cublas, impl->stream);
  /* alpha/beta and reduction results are host pointers (blas.c) */
  if (bs == CUBLAS_STATUS_SUCCESS) bs = gm_cublas.cublasSetPointerMode(impl->cublas, CUBLAS_POINTER_MODE_HOST);
  if (bs != CUBLAS_STATUS_SUCCESS) {
    if (impl->cublas) (void)gm_cublas.cublasDestroy(impl->cublas);
    (void)cudaStreamDestroy(impl->stream);
    free(impl);
    gm_set_lib_error_info("cublasCreate", (int)bs);
    return gm_fail(GM_ECUBLAS, "cublasCreate failed: %s", gm_cublas.cublasGetStatusString(bs));
  }
  cusolverStatus_t ss = gm_cusolver.cusolverDnCreate(&impl->cusolver);
  if (ss == CUSOLVER_STATUS_SUCCESS) ss = gm_cusolver.cusolverDnSetStream(impl->cusolver, impl->stream);
  if (ss != CUSOLVER_STATUS_SUCCESS) {
    if (impl->cusolver) (void)gm_cusolver.cusolverDnDestroy(impl->cusolver);
    (void)gm_cublas.cublasDestroy(impl->cublas);
    (void)cudaStreamDestroy(impl->stream);
    free(impl);
    gm_set_lib_error_info("cusolverDnCreate", (int)ss);
    return gm_fail(GM_ECUDA, "cusolverDnCreate failed (status %d)", (int)ss);
  }
  cuda_ops.kernels = gm_cuda_kernels();
  d->impl = impl;
  d->ops = &cuda_ops;
  return GM_OK;
}
