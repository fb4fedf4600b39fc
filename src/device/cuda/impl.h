/* State of one CUDA device, shared by device.c and kernels.c. */
#ifndef GM_DEVICE_CUDA_IMPL_H
#define GM_DEVICE_CUDA_IMPL_H

#include <cuda_runtime.h>

typedef struct cuda_impl {
  cudaStream_t stream; /* the context's compute stream */
} cuda_impl;

#endif
