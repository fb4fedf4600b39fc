/* cuSOLVER (dense LU) for invert and logdet on the CUDA device: the
 * shared ../solver.c on cusolverDn<t>getrf/getrs, on the compute stream,
 * with stream-ordered scratch (memory.c: cudaMallocAsync, trim and retry).  The result stays in
 * device memory; only info (and logdet's diagonal and pivots) are read. */
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <limits.h>
#include <stdlib.h>

#include "../../core/mem/backends.h"
#include "../solver.h"
#include "impl.h"

static gm_status cusolver_status(cusolverStatus_t st, const char *fn) {
  if (st == CUSOLVER_STATUS_SUCCESS) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch */
  gm_set_lib_error_info(fn, (int)st);
  return gm_fail(GM_ECUDA, "%s failed (cusolver status %d)", fn, (int)st);
}

static gm_status cuda_status(cudaError_t e, const char *fn) {
  if (e == cudaSuccess) return GM_OK;
  (void)cudaGetLastError();
  gm_set_lib_error_info(fn, (int)e);
  if (e == cudaErrorMemoryAllocation) return gm_fail(GM_ECUDA_OOM, "%s: %s", fn, cudaGetErrorString(e));
  return gm_fail(GM_ECUDA, "%s: %s", fn, cudaGetErrorString(e));
}

static cusolverDnHandle_t solver(void *ctx) { return gm_cuda_impl(ctx)->cusolver; }

/* A switch on t (GM_CTYPE_SWITCH) whose default is the ctype error of op. */
#define CTYPE_SWITCH(t, CASE, op) \
  GM_FLOAT_CTYPE_SWITCH(t, CASE, return gm_fail(GM_EINVAL, "%s: unsupported ctype", op))

/* cusolverDn<P><NAME>(handle, args...) as a gm_status. */
#define CUSOLVER_CALL(P, NAME, ...) \
  cusolver_status(gm_cusolver.cusolverDn##P##NAME(solver(ctx), __VA_ARGS__), "cusolverDn" #P #NAME)

static gm_status cu_getrf_buffer_size(void *ctx, gm_ctype t, int n, void *a, int lda, int *lwork) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return CUSOLVER_CALL(P, getrf_bufferSize, n, n, (T *)a, lda, lwork);
  CTYPE_SWITCH(t, X, "getrf")
#undef X
}

static gm_status cu_getrf(void *ctx, gm_ctype t, int n, void *a, int lda, void *work, int *ipiv, int *info) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return CUSOLVER_CALL(P, getrf, n, n, (T *)a, lda, (T *)work, ipiv, info);
  CTYPE_SWITCH(t, X, "getrf")
#undef X
}

static gm_status cu_getrs(void *ctx, gm_ctype t, int n, int nrhs, const void *a, int lda, const int *ipiv,
                          void *b, int ldb, int *info) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return CUSOLVER_CALL(P, getrs, CUBLAS_OP_N, n, nrhs, (const T *)a, lda, ipiv, (T *)b, ldb, info);
  CTYPE_SWITCH(t, X, "getrs")
#undef X
}


/* ---- gm.linalg's calls (../solver.h: gm_solver_call) ---- */

/* The calls' rows: the real floating ctypes and the complex ones (cuSOLVER's
 * C/Z routines, taking cuComplex / cuDoubleComplex, which have
 * gm_complex64's and gm_complex128's layout: every pointer goes as void *). */
#define LAPACK_SWITCH(t, CASE, op)                                  \
  switch (t) {                                                      \
    GM_FLOAT_CTYPES(CASE)                                           \
    GM_COMPLEX_CTYPES(CASE)                                         \
    default:                                                        \
      return gm_fail(GM_EINVAL, "%s: unsupported ctype", op);       \
  }

/* cusolverDn<P><NAME><SUF>(handle, args...) with NAME expanded first: the
 * SV_ names per cuSOLVER prefix, the complex rows' Hermitian routines where
 * the real one is symmetric (orgqr -> ungqr, syevd -> heevd, syevj -> heevj) */
#define CUSOLVER_NAMED(P, NAME, SUF, ...) CUSOLVER_PASTE_(P, NAME, SUF, __VA_ARGS__)
#define CUSOLVER_PASTE_(P, NAME, SUF, ...) \
  cusolver_status(gm_cusolver.cusolverDn##P##NAME##SUF(solver(ctx), __VA_ARGS__), "cusolverDn" #P #NAME #SUF)
#define SV_ORGQR_S orgqr
#define SV_ORGQR_D orgqr
#define SV_ORGQR_C ungqr
#define SV_ORGQR_Z ungqr
#define SV_SYEVD_S syevd
#define SV_SYEVD_D syevd
#define SV_SYEVD_C heevd
#define SV_SYEVD_Z heevd
#define SV_SYEVJ_S syevjBatched
#define SV_SYEVJ_D syevjBatched
#define SV_SYEVJ_C heevjBatched
#define SV_SYEVJ_Z heevjBatched

static cublasFillMode_t UPPER = CUBLAS_FILL_MODE_UPPER;

static cusolverEigMode_t jobz(const gm_solver_call *c) {
  return c->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
}

/* geev through the 64-bit cusolverDnXgeev (CUDA 12.6+), every data type
 * a's: of a real a, W is 2n (real parts, then imaginary), VR LAPACK's
 * packed form; of a complex one, W (n) and VR are complex.
 * Its host workspace is this call's own, alive until the stream is done
 * with it. */
#if CUDART_VERSION >= 12060
static gm_status xgeev(void *ctx, const gm_solver_call *c, int *lw) {
  cudaDataType dt;
  switch (c->t) {
    case GM_FLOAT: dt = CUDA_R_32F; break;
    case GM_DOUBLE: dt = CUDA_R_64F; break;
    case GM_COMPLEX64: dt = CUDA_C_32F; break;
    case GM_COMPLEX128: dt = CUDA_C_64F; break;
    default: return gm_fail(GM_EINVAL, "geev: unsupported ctype");
  }
  cusolverEigMode_t jobvr = jobz(c);
  int64_t n = c->n, ldvr = c->ldu > 0 ? c->ldu : 1;
  cusolverDnParams_t prm = NULL;
  size_t dev = 0, host = 0, elem = gm_ctype_size(c->t);
  void *hbuf = NULL;
  gm_status st = cusolver_status(gm_cusolver.cusolverDnCreateParams(&prm), "cusolverDnCreateParams");
  if (st == GM_OK)
    st = cusolver_status(gm_cusolver.cusolverDnXgeev_bufferSize(solver(ctx), prm, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, dt, c->a,
                                                    c->lda, dt, c->w, dt, NULL, 1, dt, c->u, ldvr, dt, &dev, &host),
                         "cusolverDnXgeev_bufferSize");
  if (st == GM_OK && lw) {
    size_t e = (dev + elem - 1) / elem;
    if (e > INT_MAX) st = gm_fail(GM_ERANGE, "geev: workspace too large");
    else *lw = (int)e;
  } else if (st == GM_OK) {
    if (host > 0 && !(hbuf = malloc(host))) st = gm_fail(GM_ENOMEM, "out of host memory");
    if (st == GM_OK)
      st = cusolver_status(gm_cusolver.cusolverDnXgeev(solver(ctx), prm, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, dt, c->a, c->lda,
                                           dt, c->w, dt, NULL, 1, dt, c->u, ldvr, dt, c->work,
                                           (size_t)c->lwork * elem, hbuf, host, c->info),
                           "cusolverDnXgeev");
    if (hbuf) { /* the call may still read it from the stream's work */
      gm_status s2 = cuda_status(cudaStreamSynchronize(gm_cuda_impl(ctx)->stream), "cudaStreamSynchronize");
      if (st == GM_OK) st = s2;
    }
    free(hbuf);
  }
  if (prm) gm_cusolver.cusolverDnDestroyParams(prm);
  return st;
}
#else
static gm_status xgeev(void *ctx, const gm_solver_call *c, int *lw) {
  (void)ctx, (void)c, (void)lw;
  return gm_fail(GM_EUNSUPPORTED, "geev: needs cusolverDnXgeev (CUDA 12.6 or later)");
}
#endif

static gm_status cu_call_buffer_size(void *ctx, const gm_solver_call *c, int *lw) {
  *lw = 0;
  if (c->fn == GM_SV_GEEV) return xgeev(ctx, c, lw);
#define X(T, E, name, kw, p, P, ...)                                                                     \
  case GM_##E:                                                                                           \
    switch (c->fn) {                                                                                     \
      case GM_SV_GETRF: return CUSOLVER_CALL(P, getrf_bufferSize, c->m, c->n, c->a, c->lda, lw);         \
      case GM_SV_GETRS: return GM_OK;                                                                    \
      case GM_SV_POTRF: return CUSOLVER_CALL(P, potrf_bufferSize, UPPER, c->n, c->a, c->lda, lw);        \
      case GM_SV_GEQRF: return CUSOLVER_CALL(P, geqrf_bufferSize, c->m, c->n, c->a, c->lda, lw);         \
      case GM_SV_ORGQR:                                                                                  \
        return CUSOLVER_NAMED(P, SV_ORGQR_##P, _bufferSize, c->m, c->n, c->k, c->a, c->lda, c->w, lw);  \
      case GM_SV_SYEVD:                                                                                  \
        return CUSOLVER_NAMED(P, SV_SYEVD_##P, _bufferSize, jobz(c), UPPER, c->n, c->a, c->lda, c->w, lw); \
      case GM_SV_GESVD: return CUSOLVER_CALL(P, gesvd_bufferSize, c->m, c->n, lw);                       \
      case GM_SV_GEEV: break; /* xgeev, above */                                                         \
    }                                                                                                    \
    break;
  LAPACK_SWITCH(c->t, X, "linalg")
#undef X
  return gm_fail(GM_EINVAL, "linalg: unknown call %d", (int)c->fn);
}

static gm_status cu_call(void *ctx, const gm_solver_call *c) {
  if (c->fn == GM_SV_GEEV) return xgeev(ctx, c, NULL);
  cublasOperation_t tr = c->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldu = c->ldu > 0 ? c->ldu : 1, ldvt = c->ldvt > 0 ? c->ldvt : 1;
#define X(T, E, name, kw, p, P, ...)                                                                      \
  case GM_##E:                                                                                            \
    switch (c->fn) {                                                                                      \
      case GM_SV_GETRF: return CUSOLVER_CALL(P, getrf, c->m, c->n, c->a, c->lda, c->work, c->ipiv, c->info); \
      case GM_SV_GETRS:                                                                                   \
        return CUSOLVER_CALL(P, getrs, tr, c->n, c->k, c->a, c->lda, c->ipiv, c->b, c->ldb, c->info);     \
      case GM_SV_POTRF: return CUSOLVER_CALL(P, potrf, UPPER, c->n, c->a, c->lda, c->work, c->lwork, c->info); \
      case GM_SV_GEQRF:                                                                                   \
        return CUSOLVER_CALL(P, geqrf, c->m, c->n, c->a, c->lda, c->w, c->work, c->lwork, c->info);       \
      case GM_SV_ORGQR:                                                                                   \
        return CUSOLVER_NAMED(P, SV_ORGQR_##P, , c->m, c->n, c->k, c->a, c->lda, c->w, c->work, c->lwork, \
                              c->info);                                                                   \
      case GM_SV_SYEVD:                                                                                   \
        return CUSOLVER_NAMED(P, SV_SYEVD_##P, , jobz(c), UPPER, c->n, c->a, c->lda, c->w, c->work,       \
                              c->lwork, c->info);                                                         \
      case GM_SV_GESVD: /* S real, of a complex a too; no rwork asked */                                 \
        return CUSOLVER_CALL(P, gesvd, (signed char)c->jobu, (signed char)c->jobvt, c->m, c->n, c->a,     \
                             c->lda, c->w, c->u, ldu, c->vt, ldvt, c->work, c->lwork, NULL, c->info);     \
      case GM_SV_GEEV: break; /* xgeev, above */                                                          \
    }                                                                                                     \
    break;
  LAPACK_SWITCH(c->t, X, "linalg")
#undef X
  return gm_fail(GM_EINVAL, "linalg: unknown call %d", (int)c->fn);
}

/* ---- batched entries for stacks of small matrices ---- */

static gm_status cublas_status(cublasStatus_t st, const char *fn) {
  if (st == CUBLAS_STATUS_SUCCESS) return GM_OK;
  (void)cudaGetLastError();
  gm_set_lib_error_info(fn, (int)st);
  return gm_fail(GM_ECUDA, "%s failed (cublas status %d)", fn, (int)st);
}

static gm_status cu_potrf_batched(void *ctx, gm_ctype t, int n, void **as, int lda, int *infos, int batch) {
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return CUSOLVER_CALL(P, potrfBatched, UPPER, n, (void *)as, lda, infos, batch);
  LAPACK_SWITCH(t, X, "potrfBatched")
#undef X
}

static gm_status cu_getrf_batched(void *ctx, gm_ctype t, int n, void **as, int lda, int *ipiv, int *infos,
                                  int batch) {
  cublasHandle_t h = gm_cuda_impl(ctx)->cublas;
#define X(T, E, name, kw, p, P, ...) \
  case GM_##E:                       \
    return cublas_status(gm_cublas.cublas##P##getrfBatched(h, n, (void *)as, lda, ipiv, infos, batch), "cublas" #P "getrfBatched");
  LAPACK_SWITCH(t, X, "getrfBatched")
#undef X
}

static gm_status cu_getrs_batched(void *ctx, gm_ctype t, bool trans, int n, int nrhs, void **as, int lda,
                                  const int *ipiv, void **bs, int ldb, int batch) {
  cublasHandle_t h = gm_cuda_impl(ctx)->cublas;
  cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  int info = 0;
  gm_status st = GM_OK;
#define X(T, E, name, kw, p, P, ...)                                                                           \
  case GM_##E:                                                                                                 \
    st = cublas_status(gm_cublas.cublas##P##getrsBatched(h, op, n, nrhs, (void *)as, lda, ipiv, (void *)bs, ldb, &info, \
                                               batch),                                                         \
                       "cublas" #P "getrsBatched");                                                            \
    break;
  LAPACK_SWITCH(t, X, "getrsBatched")
#undef X
  if (st == GM_OK && info != 0) return gm_fail(GM_EINVAL, "getrsBatched: argument %d rejected", -info);
  return st;
}

/* The end of a Jacobi batched call (syevj, gesvdj): its workspace freed
 * in stream order and, once its params exist, a wait for the call before
 * the caller destroys them. */
static gm_status jacobi_done(void *ctx, gm_status st, void *work, bool params) {
  if (work) gm_cuda_scratch_free_on(ctx, work);
  if (!params) return st;
  gm_status s2 = cuda_status(cudaStreamSynchronize(gm_cuda_impl(ctx)->stream), "cudaStreamSynchronize");
  return st == GM_OK ? s2 : st;
}

/* syevjBatched with default tolerance and sweeps (syevjInfo_t), its
 * workspace stream-ordered scratch; the params live until the call is
 * done with them (a wait: the caller reads the infos next anyway). */
static gm_status cu_syevj_batched(void *ctx, gm_ctype t, bool vectors, int n, void *a, int lda, void *w, int *infos,
                                  int batch) {
  cusolverEigMode_t jz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  syevjInfo_t prm = NULL;
  int lwork = 0;
  void *work = NULL;
  gm_status st = cusolver_status(gm_cusolver.cusolverDnCreateSyevjInfo(&prm), "cusolverDnCreateSyevjInfo");
#define X(T, E, name, kw, p, P, ...)                                                                           \
  case GM_##E:                                                                                                 \
    if (st == GM_OK)                                                                                           \
      st = CUSOLVER_NAMED(P, SV_SYEVJ_##P, _bufferSize, jz, UPPER, n, a, lda, w, &lwork, prm, batch);          \
    if (st == GM_OK) st = gm_cuda_scratch_alloc_on(ctx, (size_t)(lwork > 0 ? lwork : 1) * sizeof(T), &work);   \
    if (st == GM_OK) st = CUSOLVER_NAMED(P, SV_SYEVJ_##P, , jz, UPPER, n, a, lda, w, work, lwork, infos, prm, batch); \
    break;
  switch (t) {
    GM_FLOAT_CTYPES(X)
    GM_COMPLEX_CTYPES(X)
    default: st = gm_fail(GM_EINVAL, "syevjBatched: unsupported ctype");
  }
#undef X
  st = jacobi_done(ctx, st, work, prm != NULL);
  if (prm) gm_cusolver.cusolverDnDestroySyevjInfo(prm);
  return st;
}

/* gesvdjBatched with default tolerance and sweeps, the singular values
 * sorted descending (gesvdjInfo_t), as cu_syevj_batched: its workspace
 * stream-ordered scratch, the params alive until the call is done. */
static gm_status cu_gesvdj_batched(void *ctx, gm_ctype t, bool vectors, int m, int n, void *a, int lda, void *s,
                                   void *u, int ldu, void *v, int ldv, int *infos, int batch) {
  cusolverEigMode_t jz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  gesvdjInfo_t prm = NULL;
  int lwork = 0, lu = ldu > 0 ? ldu : 1, lv = ldv > 0 ? ldv : 1;
  void *work = NULL;
  gm_status st = cusolver_status(gm_cusolver.cusolverDnCreateGesvdjInfo(&prm), "cusolverDnCreateGesvdjInfo");
  if (st == GM_OK) st = cusolver_status(gm_cusolver.cusolverDnXgesvdjSetSortEig(prm, 1), "cusolverDnXgesvdjSetSortEig");
#define X(T, E, name, kw, p, P, ...)                                                                            \
  case GM_##E:                                                                                                  \
    if (st == GM_OK)                                                                                            \
      st = CUSOLVER_CALL(P, gesvdjBatched_bufferSize, jz, m, n, a, lda, s, u, lu, v, lv, &lwork, prm, batch);   \
    if (st == GM_OK) st = gm_cuda_scratch_alloc_on(ctx, (size_t)(lwork > 0 ? lwork : 1) * sizeof(T), &work);    \
    if (st == GM_OK)                                                                                            \
      st = CUSOLVER_CALL(P, gesvdjBatched, jz, m, n, a, lda, s, u, lu, v, lv, work, lwork, infos, prm, batch);  \
    break;
  switch (t) {
    GM_FLOAT_CTYPES(X)
    GM_COMPLEX_CTYPES(X)
    default: st = gm_fail(GM_EINVAL, "gesvdjBatched: unsupported ctype");
  }
#undef X
  st = jacobi_done(ctx, st, work, prm != NULL);
  if (prm) gm_cusolver.cusolverDnDestroyGesvdjInfo(prm);
  return st;
}

static gm_status cu_scratch_alloc(void *ctx, size_t bytes, void **out) { return gm_cuda_scratch_alloc_on(ctx, bytes, out); }

static void cu_scratch_free(void *ctx, void *p) { gm_cuda_scratch_free_on(ctx, p); }

static gm_status cu_read(void *ctx, void *dst, const void *src, size_t bytes) {
  cudaStream_t s = gm_cuda_impl(ctx)->stream;
  GM_TRY(cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync"));
  return cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

static gm_status cu_write(void *ctx, void *dst, const void *src, size_t bytes) {
  cudaStream_t s = gm_cuda_impl(ctx)->stream;
  GM_TRY(cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync"));
  return cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize"); /* src is pageable and freed next */
}

static const gm_solver_ops cu_solver = {
    .getrf_buffer_size = cu_getrf_buffer_size,
    .getrf = cu_getrf,
    .getrs = cu_getrs,
    .call_buffer_size = cu_call_buffer_size,
    .call = cu_call,
    .scratch_alloc = cu_scratch_alloc,
    .scratch_free = cu_scratch_free,
    .read = cu_read,
    .write = cu_write,
    .potrf_batched = cu_potrf_batched,
    .getrf_batched = cu_getrf_batched,
    .getrs_batched = cu_getrs_batched,
    .syevj_batched = cu_syevj_batched,
    .gesvdj_batched = cu_gesvdj_batched,
};

gm_status gm_cuda_invert(void *ctx, gm_ctype t, int n, void *a, int lda) {
  return gm_solver_invert(&cu_solver, ctx, t, n, a, lda);
}

gm_status gm_cuda_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign) {
  return gm_solver_logdet(&cu_solver, ctx, t, n, a, lda, logabs, sign);
}

gm_status gm_cuda_linalg(void *ctx, const gm_linalg_job *job, int *infos) {
  return gm_solver_linalg(&cu_solver, ctx, job, infos);
}
