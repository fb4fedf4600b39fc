/* An older CUDA runtime API on top of the installed (13.x) headers, for
 * tools/suite.d/25-cuda-compat.sh: force-included (-include) before
 * anything else when the sources of src/device/cuda are compiled with
 * -DGM_COMPAT_CUDART_VERSION=12000/12040/12080.  The runtime functions
 * whose signature CUDA 13 changed get the prototypes of that version, and
 * CUDART_VERSION says that version, so a 13-only call outside a version
 * guard fails to compile here, on a machine with only a 13.x toolkit (a
 * GPU machine may have a 12.x one).  It is a compile check
 * only; nothing is linked. */
#ifndef GM_CUDA_COMPAT_12_H
#define GM_CUDA_COMPAT_12_H

/* hide 13's prototypes of the changed functions under other names */
#define cudaMemPrefetchAsync gm_compat13_cudaMemPrefetchAsync
#define cudaMemAdvise gm_compat13_cudaMemAdvise
#include <cuda_runtime_api.h>
#undef cudaMemPrefetchAsync
#undef cudaMemAdvise

#undef CUDART_VERSION
#define CUDART_VERSION GM_COMPAT_CUDART_VERSION

/* 12.x: a device number (12.2 added the location forms as *_v2) */
extern cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream);
extern cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device);
#if CUDART_VERSION >= 12020
extern cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count, struct cudaMemLocation location,
                                           unsigned int flags, cudaStream_t stream);
extern cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location);
#endif

#endif
