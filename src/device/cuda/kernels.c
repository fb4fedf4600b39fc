/* The CUDA device's op table: the launchers of kernels/NAME.cu on the
 * device's compute stream, through the adapters the emulated device shares
 * (../kernel_tables.h), and cuBLAS (blas.c). */
#include <cuda_runtime.h>

#include "../../core/mem/backends.h"
#include "impl.h"

/* Status of a launch: GM_ECUDA with the CUDA message, naming the kernel. */
static gm_status launch_status(int err, const char *kernel) {
  if (err == 0) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch */
  gm_set_lib_error_info(kernel, err);
  return gm_fail(GM_ECUDA, "%s: %s", kernel, cudaGetErrorString((cudaError_t)err));
}

/* The launchers' scratch (kernels/launch.h, gm_launch_ctx): the device's
 * stream-ordered scratch (memory.c: cudaMallocAsync, with the
 * out-of-memory trim and retry), as a cudaError_t. */
static int cuda_scratch_alloc(void *owner, size_t bytes, void **out) {
  gm_status st = gm_cuda_scratch_alloc_on(owner, bytes, out);
  if (st == GM_OK) return 0;
  return st == GM_ECUDA_OOM ? (int)cudaErrorMemoryAllocation : (int)cudaErrorUnknown;
}

static void cuda_scratch_free(void *owner, void *p) { gm_cuda_scratch_free_on(owner, p); }

#define GM_LAUNCHER(name) gm_cuda_##name
/* what a launcher gets from device ctx: its compute stream, its scratch,
 * the GPU's geometry (a compound literal: lives through the call) */
#define GM_LT_LAUNCH(ctx) \
  (&(gm_launch_ctx){(void *)gm_cuda_impl(ctx)->stream, cuda_scratch_alloc, cuda_scratch_free, (ctx), 0})
#define GM_LT_STATUS(ctx, err, kernel) launch_status(err, kernel)
#include "../kernel_tables.h"

static gm_blas_ops cuda_blas; /* cuBLAS (blas.c), scal by 0 and geam with beta 0 as kernels */

static gm_backend cuda_kernels = {
    .name = "cuda",
    .fill = gm_lt_fill,
    .strided_copy = gm_lt_strided_copy,       /* kernels/strided.cu */
    .convert = gm_lt_convert,                 /* kernels/strided.cu */
    .imatmul = gm_lt_imatmul,                 /* kernels/imatmul.cu */
    .blas = &cuda_blas,
    .random = &gm_lt_random_ops,              /* kernels/random.cu */
    .elementwise = &gm_lt_elementwise_ops,    /* kernels/elementwise.cu */
    .nn = &gm_lt_nn_ops,                      /* kernels/nn.cu */
    .reduce = &gm_lt_reduce_ops,              /* kernels/reduce.cu */
    .reduce_axis = &gm_lt_reduce_axis_ops,    /* kernels/reduce_axis.cu */
    .scan = &gm_lt_scan_ops,                  /* kernels/scan.cu */
    .strided_ew = &gm_lt_strided_ew_ops,        /* kernels/strided_ew.cu */
    .index = &gm_lt_index_ops,                  /* kernels/index.cu */
    .fft = &gm_cuda_fft_ops,                    /* cuFFT (fft.c) */
};

/* Filled at the first call (device init), before any op runs; later
 * calls write the same values. */
const gm_backend *gm_cuda_kernels(void) {
  if (!cuda_blas.scal) cuda_blas = gm_lt_blas_ops(&gm_cuda_blas_ops);
  return &cuda_kernels;
}
