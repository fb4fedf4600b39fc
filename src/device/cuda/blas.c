/* The BLAS sub-table on CUDA: cuBLAS on the context's stream (the handle is
 * bound to it at device open), column-major arguments as blas_ops.h
 * specifies, host pointer mode (scalars and reduction results live in
 * host memory).  Failures raise cublas_error with the cuBLAS function name
 * and status. */
#include "../../core/context.h"
#include "impl.h"

static gm_status cublas_status(cublasStatus_t st, const char *fn) {
  if (st == CUBLAS_STATUS_SUCCESS) return GM_OK;
  gm_set_lib_error_info(fn, (int)st);
  return gm_fail(GM_ECUBLAS, "%s failed: %s", fn, cublasGetStatusString(st));
}

static cublasHandle_t handle(void *ctx) { return gm_cuda_impl(ctx)->cublas; }
static cublasOperation_t op(gm_blas_trans t) { return t == GM_BLAS_T ? CUBLAS_OP_T : CUBLAS_OP_N; }

static gm_status cu_asum(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  if (t == GM_FLOAT) {
    float r = 0;
    GM_TRY(cublas_status(cublasSasum(handle(ctx), n, x, incx, &r), "cublasSasum"));
    *out = r;
    return GM_OK;
  }
  return cublas_status(cublasDasum(handle(ctx), n, x, incx, out), "cublasDasum");
}

static gm_status cu_nrm2(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  if (t == GM_FLOAT) {
    float r = 0;
    GM_TRY(cublas_status(cublasSnrm2(handle(ctx), n, x, incx, &r), "cublasSnrm2"));
    *out = r;
    return GM_OK;
  }
  return cublas_status(cublasDnrm2(handle(ctx), n, x, incx, out), "cublasDnrm2");
}

static gm_status cu_dot(void *ctx, gm_ctype t, int n, const void *x, int incx, const void *y, int incy,
                        double *out) {
  if (t == GM_FLOAT) {
    float r = 0;
    GM_TRY(cublas_status(cublasSdot(handle(ctx), n, x, incx, y, incy, &r), "cublasSdot"));
    *out = r;
    return GM_OK;
  }
  return cublas_status(cublasDdot(handle(ctx), n, x, incx, y, incy, out), "cublasDdot");
}

static gm_status cu_axpy(void *ctx, gm_ctype t, int n, double alpha, const void *x, int incx, void *y,
                         int incy) {
  if (t == GM_FLOAT) {
    float a = (float)alpha;
    return cublas_status(cublasSaxpy(handle(ctx), n, &a, x, incx, y, incy), "cublasSaxpy");
  }
  return cublas_status(cublasDaxpy(handle(ctx), n, &alpha, x, incx, y, incy), "cublasDaxpy");
}

static gm_status cu_copy(void *ctx, gm_ctype t, int n, const void *x, int incx, void *y, int incy) {
  if (t == GM_FLOAT) return cublas_status(cublasScopy(handle(ctx), n, x, incx, y, incy), "cublasScopy");
  return cublas_status(cublasDcopy(handle(ctx), n, x, incx, y, incy), "cublasDcopy");
}

static gm_status cu_scal(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx) {
  if (t == GM_FLOAT) {
    float a = (float)alpha;
    return cublas_status(cublasSscal(handle(ctx), n, &a, x, incx), "cublasSscal");
  }
  return cublas_status(cublasDscal(handle(ctx), n, &alpha, x, incx), "cublasDscal");
}

static gm_status cu_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                         double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                         int ldc) {
  if (t == GM_FLOAT) {
    float al = (float)alpha, be = (float)beta;
    /* TF32 only when asked for (gm.cuda_allow_tf32, review #17) */
    cublasMath_t mode = atomic_load(&gm_cuda_allow_tf32) ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
    GM_TRY(cublas_status(cublasSetMathMode(handle(ctx), mode), "cublasSetMathMode"));
    return cublas_status(
        cublasSgemm(handle(ctx), op(ta), op(tb), m, n, k, &al, a, lda, b, ldb, &be, c, ldc), "cublasSgemm");
  }
  return cublas_status(
      cublasDgemm(handle(ctx), op(ta), op(tb), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc), "cublasDgemm");
}

/* Only beta != 0 gets here: beta == 0 (and scal by 0) run as kernels
 * (../kernel_tables.h), so no result depends on how cuBLAS treats a zero
 * coefficient. */
static gm_status cu_geam(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n,
                         double alpha, const void *a, int lda, double beta, const void *b, int ldb, void *c,
                         int ldc) {
  if (t == GM_FLOAT) {
    float al = (float)alpha, be = (float)beta;
    return cublas_status(
        cublasSgeam(handle(ctx), op(ta), op(tb), m, n, &al, a, lda, &be, b, ldb, c, ldc), "cublasSgeam");
  }
  return cublas_status(
      cublasDgeam(handle(ctx), op(ta), op(tb), m, n, &alpha, a, lda, &beta, b, ldb, c, ldc), "cublasDgeam");
}

/* invert and logdet: cuSOLVER (solver.c); the result stays on the device. */
const gm_blas_ops gm_cuda_blas_ops = {
    .asum = cu_asum,
    .nrm2 = cu_nrm2,
    .dot = cu_dot,
    .axpy = cu_axpy,
    .copy = cu_copy,
    .scal = cu_scal,
    .gemm = cu_gemm,
    .geam = cu_geam,
    .invert = gm_cuda_invert,
    .logdet = gm_cuda_logdet,
};
