/* The device interface: what the core needs from a GPU-like memory space.
 * It lives in core/mem/ with the rest of the memory manager (device
 * objects, caching pool, deferred-free queue); the backends below it
 * (src/device/cuda, src/device/emulated) include core headers, never the
 * other way round.
 *
 * Two implementations: cuda/ (the CUDA runtime, cuBLAS, cuRAND) and
 * emulated/ (host memory behind the same contract, for testing the device
 * path on machines without a GPU).  Nothing outside src/device/cuda includes
 * CUDA headers.
 *
 * Memory contract:
 *  - device pointers are opaque to host code; only copy functions and the
 *    op entry points (ops->kernels) may touch them.
 *  - gm_device_alloc() goes through the device's caching pool (pool.h);
 *    gm_device_defer_free() only queues the block and is safe from a Lua
 *    finalizer (no device call, no Lua call).  The queue is drained at the
 *    next allocation on the device, by gm_device_collect() and at teardown.
 *  - copies with stream == NULL are synchronous (H2D/D2H: the host waits,
 *    ordered after the compute stream); with a stream they are queued.
 *  - ops on device memory return once queued on the compute stream (CUDA,
 *    and the emulated device, whose streams are worker threads): host code
 *    waits (stream_sync) before touching memory queued work uses. */
#ifndef GM_DEVICE_DEVICE_H
#define GM_DEVICE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "../exec/backend.h"
#include "../model/status.h"

typedef struct gm_device gm_device;
typedef struct gm_stream gm_stream;

/* What gm.device_info reports. */
typedef struct gm_device_info {
  char name[256];
  size_t total_memory;
  int compute_major, compute_minor;
  int multiprocessor_count;
  int warp_size;
  int max_threads_per_block;
} gm_device_info;

typedef struct gm_device_ops {
  const char *name; /* "cuda" or "emulated" */
  /* raw allocation, below the pool */
  gm_status (*raw_alloc)(gm_device *d, size_t bytes, void **out);
  void (*raw_free)(gm_device *d, void *p);
  /* copies; stream NULL = synchronous */
  gm_status (*copy_h2d)(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
  gm_status (*copy_d2h)(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
  gm_status (*copy_d2d)(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
  gm_status (*stream_new)(gm_device *d, gm_stream **out);
  void (*stream_free)(gm_device *d, gm_stream *s);
  gm_status (*stream_sync)(gm_device *d, gm_stream *s);
  /* work queued later on `waiter` (NULL: the compute stream) starts only
   * after everything queued on s so far (an event recorded on s and
   * cudaStreamWaitEvent); the host does not wait */
  gm_status (*stream_wait)(gm_device *d, gm_stream *waiter, gm_stream *s);
  gm_status (*synchronize)(gm_device *d);
  /* An event recorded on the compute stream after the work queued so far
   * (*ev: an opaque handle, NULL when nothing needs waiting for);
   * event_sync blocks the host until it has passed (reporting the
   * stream's errors as stream_sync does); event_free releases it.  May
   * be NULL: the core then synchronizes the compute stream instead. */
  gm_status (*event_record)(gm_device *d, void **ev);
  gm_status (*event_sync)(gm_device *d, void *ev);
  void (*event_free)(gm_device *d, void *ev);
  /* Advisory, may be NULL: migrates managed memory [p, p + bytes) to d
   * ahead of the work queued next on the compute stream (without it the
   * pages move on first touch, one fault at a time). */
  void (*prefetch)(gm_device *d, const void *p, size_t bytes);
  /* page-locked host memory */
  gm_status (*host_register)(gm_device *d, void *p, size_t bytes);
  void (*host_unregister)(gm_device *d, void *p);
  gm_status (*host_alloc)(gm_device *d, size_t bytes, void **out);
  void (*host_free)(gm_device *d, void *p);
  /* bracket a device call (gm_acquire..gm_release); may be NULL.  Calls
   * nest (an op may acquire while another acquisition is active): the
   * backend counts them. */
  void (*enter)(gm_device *d);
  void (*leave)(gm_device *d);
  /* Where host code running inside a device call (after a stream_sync)
   * may touch device memory p: the emulated device's worker alias; NULL
   * (p itself) on CUDA, whose memory the host never touches. */
  void *(*host_address)(gm_device *d, void *p);
  gm_status (*get_info)(gm_device *d, gm_device_info *out);
  /* cudart's per-thread last-error slot: a failed cudaMalloc
   * or cudaHostRegister leaves its error there, and every launcher returns
   * cudaGetLastError(), so a failure the runtime recovers from (reclaim
   * cascade) must be cleared or the next launch reports it.  clear_error
   * is called after every handled allocation/registration failure (may be
   * NULL).  check_error (may be NULL) is the emulated device's model of a
   * launch's cudaGetLastError: gm_acquire calls it at the start of every
   * device call and fails with the stale or sticky error it finds. */
  void (*clear_error)(gm_device *d);
  /* the backend's compute stream (cudaStream_t) for C code that launches
   * its own kernels (gm.cuda_stream); NULL when it has none */
  void *(*native_stream)(gm_device *d);
  gm_status (*check_error)(gm_device *d);
  /* op entry points on device pointers (same table type as the host) */
  const gm_backend *kernels;
  /* per-context state of the op tables (e.g. cuBLAS handle, cuRAND
   * generator): created at context entry, freed at exit; may be NULL */
  gm_status (*context_begin)(gm_device *d, unsigned long long seed, int n_random_states);
  void (*context_end)(gm_device *d);
  void (*destroy)(gm_device *d);
  /* Memory spaces of buffers and staging mats (block.h); NULL when the
   * backend lacks one.  Pitched blocks are freed with raw_free, flagged
   * host blocks with host_free. */
  gm_status (*alloc_pitched)(gm_device *d, size_t width, size_t height, void **out, size_t *pitch);
  gm_status (*host_alloc_flags)(gm_device *d, size_t bytes, unsigned flags, void **out);
  /* the device address of a GM_PINNED_MAPPED host block */
  gm_status (*host_device_pointer)(gm_device *d, void *host, void **dev);
  gm_status (*managed_alloc)(gm_device *d, size_t bytes, void **out);
  void (*managed_free)(gm_device *d, void *p);
  /* height rows of width bytes, between any two memory spaces of this
   * device (host, pinned, device, managed; cudaMemcpy2D with
   * cudaMemcpyDefault); synchronous */
  gm_status (*copy_2d)(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height);
  /* Run-time kernels compiled by NVRTC (gm_nvrtc_compile); NULL where they
   * run on the CPU model instead (emulated).  rtk_load loads PTX or CUBIN
   * on d and returns a kernel handle valid for the life of the process; rtk_launch
   * launches it on the compute stream, args as cudaLaunchKernel takes
   * them (one pointer to each argument's value), geom = grid then block. */
  gm_status (*rtk_load)(gm_device *d, const char *ptx, const char *name, void **kernel);
  gm_status (*rtk_launch)(gm_device *d, void *kernel, void **args, const unsigned *geom);
} gm_device_ops;

/* Flags of host_alloc_flags (cudaHostAlloc's). */
enum { GM_PINNED_PORTABLE = 1, GM_PINNED_MAPPED = 2, GM_PINNED_WRITE_COMBINE = 4 };

/* Returns a human-readable reason when no device is usable. */
bool gm_cuda_runtime_available(int device_id, char *reason, size_t n);
int gm_cuda_device_count(void);
/* NVRTC (needs no device): compiles src (a translation unit defining the
 * extern "C" __global__ function `name`) for compute capability
 * major.minor: CUBIN for sm_XY when cubin, else PTX for compute_XY.  On
 * success *image (malloc'd, *size bytes, NUL-ended) is the code; *log
 * (malloc'd or NULL) is the compiler's log either way; a compile error is
 * GM_EINVAL; an architecture NVRTC cannot make CUBIN for, or a build
 * without the CUDA toolkit, GM_EUNSUPPORTED. */
gm_status gm_nvrtc_compile(const char *src, const char *name, int major, int minor, bool cubin, char **image,
                           size_t *size, char **log);
/* NVRTC's version; false, with the reason as the thread's error, when
 * NVRTC cannot be used (no toolkit in the build, the library missing). */
bool gm_nvrtc_version(int *major, int *minor);
/* The CUDA libraries opened on first use (src/device/cuda/libs.h; none
 * without the toolkit), for the check of every table against the
 * installed toolkit: the i-th one's name, the file it is opened from and
 * the number of its symbols (false past the last); gm_cuda_library_load
 * opens it now and resolves them all. */
typedef struct gm_cuda_library_info {
  const char *name, *file;
  int n_symbols;
} gm_cuda_library_info;
bool gm_cuda_library(int i, gm_cuda_library_info *out);
gm_status gm_cuda_library_load(int i);
/* Properties of CUDA device id without opening a context on it. */
gm_status gm_cuda_device_info(int device_id, gm_device_info *out);

#endif
