/* The CUDA device's op table: launchers from kernels/NAME.cu on the device's
 * stream. */
#include <cuda_runtime.h>

#include "../../core/mem/backends.h"
#include "ew_nn.h"
#include "impl.h"

int gm_cuda_fill(int ctype, size_t n, double alpha, void *x, size_t incx, void *stream);


static void *stream_of(void *ctx) { return ((cuda_impl *)((gm_device *)ctx)->impl)->stream; }

static gm_status launch_status(int err, const char *kernel) {
  if (err == 0) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch (review #1) */
  gm_set_lib_error_info(kernel, err);
  return gm_fail(GM_ECUDA, "%s: %s", kernel, cudaGetErrorString((cudaError_t)err));
}

static gm_status cu_fill(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx) {
  return launch_status(gm_cuda_fill((int)t, n, alpha, x, incx, stream_of(ctx)), "fill kernel");
}

static const gm_backend cuda_kernels = {
    .name = "cuda",
    .fill = cu_fill,
    .blas = &gm_cuda_blas_ops,     /* cuBLAS, blas.c */
    .random = &gm_cuda_random_ops, /* cuRAND, random.c */
    .elementwise = &gm_cuda_elementwise_ops, /* kernels/elementwise.cu, elementwise.c */
    .nn = &gm_cuda_nn_ops,                   /* kernels/nn.cu, nn.c */
};

const gm_backend *gm_cuda_kernels(void) { return &cuda_kernels; }
