/* State of one CUDA device, shared by the files of src/device/cuda. */
#ifndef GM_DEVICE_CUDA_IMPL_H
#define GM_DEVICE_CUDA_IMPL_H

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuda_runtime.h>

#include "../../core/blas_ops.h"
#include "../../core/random_ops.h"
#include "../../core/mem/runtime.h"

typedef struct cuda_impl {
  cudaStream_t stream; /* the compute stream (ops and synchronous copies) */
  cublasHandle_t cublas; /* bound to stream */
  cusolverDnHandle_t cusolver; /* bound to stream (solver.c) */
  void *rng_states;      /* curandStateXORWOW_t[n_rng_states] of the active context */
  int n_rng_states;
} cuda_impl;

static inline cuda_impl *gm_cuda_impl(void *ctx) { return ((gm_device *)ctx)->impl; }

/* cuBLAS (blas.c) and cuRAND (random.c) op tables. */
extern const gm_blas_ops gm_cuda_blas_ops;
extern const gm_random_ops gm_cuda_random_ops;

/* invert/logdet through cuSOLVER (solver.c). */
gm_status gm_cuda_invert(void *ctx, gm_ctype t, int n, void *a, int lda);
gm_status gm_cuda_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign);

/* Per-context random generator state (random.c). */
gm_status gm_cuda_random_begin(gm_device *d, unsigned long long seed, int n_states);
void gm_cuda_random_end(gm_device *d);

/* Launchers in kernels/curand.cu; return a cudaError_t as int. */
int gm_curand_alloc_init(void **states, int n_states, unsigned long long seed, void *stream);
void gm_curand_free(void *states);
int gm_curand_uniform(int ctype, void *states, int n_states, size_t n, double limit, void *x, void *stream);
int gm_curand_gaussian(int ctype, void *states, int n_states, size_t n, double mean, double stddev, void *x,
                       void *stream);

#endif
