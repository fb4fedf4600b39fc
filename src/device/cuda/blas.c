/* The BLAS sub-table on CUDA: cuBLAS on the context's stream (the handle is
 * bound to it at device open), column-major arguments as blas_ops.h
 * specifies, host pointer mode (scalars and reduction results live in
 * host memory).  Failures raise cublas_error with the cuBLAS function name
 * and status. */
#include "../../core/model/context.h"
#include "impl.h"
#include "../../../kernels/complex_ops.h"

static gm_status cublas_status(cublasStatus_t st, const char *fn) {
  if (st == CUBLAS_STATUS_SUCCESS) return GM_OK;
  gm_set_lib_error_info(fn, (int)st);
  return gm_fail(GM_ECUBLAS, "%s failed: %s", fn, gm_cublas.cublasGetStatusString(st));
}

static cublasHandle_t handle(void *ctx) { return gm_cuda_impl(ctx)->cublas; }
static cublasOperation_t op(gm_blas_trans t) { return t == GM_BLAS_T ? CUBLAS_OP_T : CUBLAS_OP_N; }

/* A switch on t (GM_CTYPE_SWITCH) whose default is the ctype error of op. */
#define CTYPE_SWITCH(t, CASE, op) \
  GM_FLOAT_CTYPE_SWITCH(t, CASE, return gm_fail(GM_EINVAL, "%s: unsupported ctype", op))

/* cuBLAS function cublas<P><NAME>(handle, args...) as a gm_status. */
#define CUBLAS_CALL(P, NAME, ...) cublas_status(gm_cublas.cublas##P##NAME(handle(ctx), __VA_ARGS__), "cublas" #P #NAME)

/* Reductions: the result of the ctype in host memory, returned as double. */
#define CU_REDUCE(T, E, P, NAME, ...)                 \
  case GM_##E: {                                      \
    T r = 0;                                          \
    GM_TRY(CUBLAS_CALL(P, NAME, __VA_ARGS__, &r));    \
    *out = r;                                         \
    return GM_OK;                                     \
  }

static gm_status cu_asum(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
#define X(T, E, name, kw, p, P, ...) CU_REDUCE(T, E, P, asum, n, x, incx)
  CTYPE_SWITCH(t, X, "asum")
#undef X
}

static gm_status cu_nrm2(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
#define X(T, E, name, kw, p, P, ...) CU_REDUCE(T, E, P, nrm2, n, x, incx)
  CTYPE_SWITCH(t, X, "nrm2")
#undef X
}

static gm_status cu_dot(void *ctx, gm_ctype t, int n, const void *x, int incx, const void *y, int incy,
                        double *out) {
#define X(T, E, name, kw, p, P, ...) CU_REDUCE(T, E, P, dot, n, x, incx, y, incy)
  CTYPE_SWITCH(t, X, "dot")
#undef X
}

static gm_status cu_axpy(void *ctx, gm_ctype t, int n, double alpha, const void *x, int incx, void *y,
                         int incy) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E: {                     \
    T a = (T)alpha;                  \
    return CUBLAS_CALL(P, axpy, n, &a, x, incx, y, incy); \
  }
  CTYPE_SWITCH(t, X, "axpy")
#undef X
}

static gm_status cu_copy(void *ctx, gm_ctype t, int n, const void *x, int incx, void *y, int incy) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return CUBLAS_CALL(P, copy, n, x, incx, y, incy);
  CTYPE_SWITCH(t, X, "copy")
#undef X
}

static gm_status cu_scal(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E: {                     \
    T a = (T)alpha;                  \
    return CUBLAS_CALL(P, scal, n, &a, x, incx); \
  }
  CTYPE_SWITCH(t, X, "scal")
#undef X
}

/* cublasCgemm / Zgemm: cuComplex and cuDoubleComplex have gm_complex64's
 * and gm_complex128's layout (two reals, real part first) */
static gm_status cu_cx_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                            double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                            int ldc) {
#define X(T, E, name, kw, p, P, ...)                                                             \
  case GM_##E: {                                                                                 \
    T al = gm_sat_##T(alpha), be = gm_sat_##T(beta);                                             \
    return CUBLAS_CALL(P, gemm, op(ta), op(tb), m, n, k, (const void *)&al, a, lda, b, ldb,       \
                       (const void *)&be, c, ldc);                                               \
  }
  switch (t) {
    GM_COMPLEX_CTYPES(X)
    default:
      return gm_fail(GM_EINVAL, "gemm: unsupported ctype");
  }
#undef X
}

/* TF32 (a float-only tensor-core mode) only when asked for
 * (gm.cuda_allow_tf32), for float products */
static gm_status math_mode(void *ctx, gm_ctype t) {
  if (t != GM_FLOAT) return GM_OK;
  cublasMath_t mode = atomic_load(&gm_cuda_allow_tf32) ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
  return cublas_status(gm_cublas.cublasSetMathMode(handle(ctx), mode), "cublasSetMathMode");
}

/* float16/bfloat16: cublasGemmEx on the half arrays themselves, products
 * accumulated in float32 (CUBLAS_COMPUTE_32F: tensor cores where the card
 * has them; gm.cuda_allow_tf32 concerns float32 inputs only), alpha and
 * beta float32, each element of C rounded once on store.  The emulated
 * device runs this call's arguments against the host (src/host/blas.c
 * h_half_gemm: convert, sgemm, round). */
static gm_status cu_half_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                              double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                              int ldc) {
  float al = (float)alpha, be = (float)beta;
  cudaDataType_t dt = t == GM_FLOAT16 ? CUDA_R_16F : CUDA_R_16BF;
  return cublas_status(gm_cublas.cublasGemmEx(handle(ctx), op(ta), op(tb), m, n, k, &al, a, dt, lda, b, dt, ldb, &be,
                                              c, dt, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
}

static gm_status cu_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                         double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                         int ldc) {
  if (gm_ctype_is_complex(t)) return cu_cx_gemm(ctx, t, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (gm_ctype_is_half(t)) return cu_half_gemm(ctx, t, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  GM_TRY(math_mode(ctx, t));
#define X(T, E, name, kw, p, P, ...)                                                      \
  case GM_##E: {                                                                          \
    T al = (T)alpha, be = (T)beta;                                                        \
    return CUBLAS_CALL(P, gemm, op(ta), op(tb), m, n, k, &al, a, lda, b, ldb, &be, c, ldc); \
  }
  CTYPE_SWITCH(t, X, "gemm")
#undef X
}

/* cublasCgemmStridedBatched / Z...: complex stacks (cu_cx_gemm's layout note) */
static gm_status cu_cx_gemm_batched(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                                    double alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                                    long long sb, double beta, void *c, int ldc, long long sc, int batch) {
#define X(T, E, name, kw, p, P, ...)                                                                     \
  case GM_##E: {                                                                                         \
    T al = gm_sat_##T(alpha), be = gm_sat_##T(beta);                                                     \
    return CUBLAS_CALL(P, gemmStridedBatched, op(ta), op(tb), m, n, k, (const void *)&al, a, lda, sa, b, \
                       ldb, sb, (const void *)&be, c, ldc, sc, batch);                                   \
  }
  switch (t) {
    GM_COMPLEX_CTYPES(X)
    default:
      return gm_fail(GM_EINVAL, "gemm_batched: unsupported ctype");
  }
#undef X
}

/* The stack's products in one launch (gm.linalg's GEMM job: matmul of
 * stacks); TF32 as cu_gemm. */
static gm_status cu_gemm_batched(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                                 double alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                                 long long sb, double beta, void *c, int ldc, long long sc, int batch) {
  if (gm_ctype_is_complex(t))
    return cu_cx_gemm_batched(ctx, t, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
  GM_TRY(math_mode(ctx, t));
#define X(T, E, name, kw, p, P, ...)                                                                       \
  case GM_##E: {                                                                                           \
    T al = (T)alpha, be = (T)beta;                                                                         \
    return CUBLAS_CALL(P, gemmStridedBatched, op(ta), op(tb), m, n, k, &al, (const T *)a, lda, sa,         \
                       (const T *)b, ldb, sb, &be, (T *)c, ldc, sc, batch);                                 \
  }
  switch (t) {
    GM_FLOAT_CTYPES(X)
    default:
      return gm_fail(GM_EINVAL, "gemm_batched: unsupported ctype");
  }
#undef X
}

/* Only beta != 0 gets here: beta == 0 (and scal by 0) run as kernels
 * (../kernel_tables.h), so no result depends on how cuBLAS treats a zero
 * coefficient. */
static gm_status cu_geam(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n,
                         double alpha, const void *a, int lda, double beta, const void *b, int ldb, void *c,
                         int ldc) {
#define X(T, E, name, kw, p, P, ...)                                                     \
  case GM_##E: {                                                                         \
    T al = (T)alpha, be = (T)beta;                                                       \
    return CUBLAS_CALL(P, geam, op(ta), op(tb), m, n, &al, a, lda, &be, b, ldb, c, ldc); \
  }
  CTYPE_SWITCH(t, X, "geam")
#undef X
}

static gm_status cu_trsm(void *ctx, gm_ctype t, bool left, bool upper, gm_blas_trans ta, bool unit, int m, int n,
                        double alpha, const void *a, int lda, void *b, int ldb) {
  cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
#define X(T, E, name, kw, p, P, ...)                                                           \
  case GM_##E: {                                                                               \
    T al = (T)alpha;                                                                           \
    return CUBLAS_CALL(P, trsm, side, uplo, op(ta), diag, m, n, &al, (const T *)a, lda, (T *)b, ldb); \
  }
  switch (t) {
    GM_FLOAT_CTYPES(X)
#undef X
#define X(T, E, name, kw, p, P, ...) /* complex: cu_cx_gemm's layout note, alpha real */ \
  case GM_##E: {                                                                         \
    T al = gm_sat_##T(alpha);                                                            \
    return CUBLAS_CALL(P, trsm, side, uplo, op(ta), diag, m, n, (const void *)&al, a, lda, b, ldb); \
  }
    GM_COMPLEX_CTYPES(X)
    default:
      return gm_fail(GM_EINVAL, "trsm: unsupported ctype");
  }
#undef X
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
    .trsm = cu_trsm,
    .invert = gm_cuda_invert,
    .logdet = gm_cuda_logdet,
    .linalg = gm_cuda_linalg,
    .gemm_batched = cu_gemm_batched,
};
