// The part of the CUDA runtime API that kernels/*.cu call, for their
// build-time compilation for the emulated device (kernels/cpu/emu_kernels.h;
// this directory is on the include path of those objects only, so
// `#include <cuda_runtime.h>` in a .cu finds this file there).  Device
// memory is host memory; a launch or copy on a stream (the emulated
// device: src/device/emulated/kernels.c passes it as the stream) is queued
// on that device's compute stream and run by its worker thread; a null
// stream runs at once.
#ifndef GPUMAT_EMU_CUDA_RUNTIME_H
#define GPUMAT_EMU_CUDA_RUNTIME_H

#include <string.h>

#include "../cuda_cpu.h"
#include "../../../src/device/emulated/alias.h"

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorNotSupported = 801
};
typedef enum cudaError cudaError_t;
typedef struct gm_emu_stream_tag *cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

// A launch whose configuration CUDA refuses (kernels/launch.h
// gm_launch_config_error) runs nothing and leaves
// cudaErrorInvalidConfiguration here, on the launching thread, as cudart
// does; other launches are queued and cannot fail to start (a failure of
// queued work is the device's, reported at its next sync).  Reading the
// error clears it, as cudaGetLastError does.
inline thread_local cudaError_t gm_emu_last_launch_error = cudaSuccess;
inline cudaError_t cudaGetLastError() {
  cudaError_t e = gm_emu_last_launch_error;
  gm_emu_last_launch_error = cudaSuccess;
  return e;
}

// The launchers' scratch arrays (the sums' and reductions' partials) come
// from the allocator their caller passes down (gm_launch_ctx: the emulated
// device's, src/device/emulated/kernels.c), so the simulated memory limit,
// fault injection (GPUMAT_EMULATED_FAIL_EVERY) and the PROT_NONE
// protection apply to them as to any device allocation.  Copies and waits
// reach the device through the hook table this shim declares (emu_hooks.h).
#include "emu_hooks.h"

struct gm_emu_memcpy_task {
  void *dst;
  const void *src;
  size_t bytes;
  static int run(void *p) {
    gm_emu_memcpy_task *t = (gm_emu_memcpy_task *)p;
    memcpy(gm_emu_alias(t->dst), gm_emu_alias(t->src), t->bytes);
    delete t;
    return 0;
  }
};
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind, cudaStream_t s) {
  gm_emu_device_hooks.enqueue((void *)s, gm_emu_memcpy_task::run, new gm_emu_memcpy_task{dst, src, bytes});
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (s) gm_emu_device_hooks.wait((void *)s);
  return cudaSuccess;
}

#endif
