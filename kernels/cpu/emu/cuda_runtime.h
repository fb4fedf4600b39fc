// The part of the CUDA runtime API that kernels/*.cu call, for their
// build-time compilation for the emulated device (kernels/cpu/emu_kernels.h;
// this directory is on the include path of those objects only, so
// `#include <cuda_runtime.h>` in a .cu finds this file there).  Device
// memory is host memory: scratch allocations are malloc, copies memcpy,
// launches synchronous, so streams have nothing to order.
#ifndef GPUMAT_EMU_CUDA_RUNTIME_H
#define GPUMAT_EMU_CUDA_RUNTIME_H

#include <stdlib.h>
#include <string.h>

#include "../cuda_cpu.h"

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorNotSupported = 801 };
typedef enum cudaError cudaError_t;
typedef struct gm_emu_stream_tag *cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

// Launches are synchronous and cannot fail to start: no pending error.
inline cudaError_t cudaGetLastError() { return cudaSuccess; }

// Stream-ordered scratch arrays (the sums' and reductions' partials) are
// emulated device memory: src/device/emulated/kernels.c passes the device
// as the launchers' `stream`, and these hooks (src/device/emulated/device.c)
// allocate through it, so the simulated memory limit, fault injection
// (GPUMAT_EMULATED_FAIL_EVERY) and the PROT_NONE protection apply to them
// as to any device allocation.  A null stream: plain malloc.
extern "C" int gm_emu_scratch_alloc(void *device, size_t bytes, void **out);
extern "C" void gm_emu_scratch_free(void *device, void *p);

inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
  if (!s) return cudaMalloc(p, bytes);
  return gm_emu_scratch_alloc((void *)s, bytes, p) == 0 ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
  if (!s) return cudaFree(p);
  gm_emu_scratch_free((void *)s, p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

#endif
