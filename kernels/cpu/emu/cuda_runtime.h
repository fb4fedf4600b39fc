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

enum cudaError { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorNotSupported = 801 };
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

inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

#endif
