/* invert and logdet on a device from cuSOLVER's dense LU entry points
 * (cusolverDn<t>getrf_bufferSize, getrf, getrs), written once for every
 * device backend.  The CUDA backend maps the entries to cuSOLVER; the
 * emulated device maps them to LAPACK with exactly cuSOLVER's arguments
 * (column-major, ipiv and info in device memory, a workspace), so the
 * mapping below runs in every CI pass.  Results stay in device memory:
 * only info, and for logdet the diagonal and the pivots, are read back. */
#ifndef GM_DEVICE_SOLVER_H
#define GM_DEVICE_SOLVER_H

#include "../core/exec/backend.h"
#include "../core/ops/blas_ops.h"

/* One cuSOLVER call of gm.linalg's jobs (cusolverDn<t><fn>, the
 * arguments of the same names; every pointer is device memory, work has
 * lwork elements).  The job code (solver.c) fills it; a backend maps it
 * to the library. */
typedef enum gm_solver_fn {
  GM_SV_GETRF, GM_SV_GETRS, GM_SV_POTRF, GM_SV_GEQRF, GM_SV_ORGQR, GM_SV_SYEVD, GM_SV_GESVD, GM_SV_GEEV
} gm_solver_fn;

typedef struct gm_solver_call {
  gm_solver_fn fn;
  gm_ctype t;
  int m, n, k;      /* getrs: n, nrhs = k; orgqr: m, n, k */
  bool trans;       /* getrs: CUBLAS_OP_T */
  bool vectors;     /* syevd, geev (jobvr): CUSOLVER_EIG_MODE_VECTOR (syevd's uplo is always upper) */
  char jobu, jobvt; /* gesvd */
  void *a, *b, *w, *u, *vt; /* b: getrs's b; w: tau, eigenvalues or S (geev: 2n, real
                             * parts then imaginary, Xgeev's real W); u: geev's VR */
  int lda, ldb, ldu, ldvt;
  int *ipiv, *info;
  void *work;
  int lwork;
} gm_solver_call;

typedef struct gm_solver_ops {
  /* cusolverDn<t>getrf_bufferSize(h, n, n, a, lda, &lwork): elements */
  gm_status (*getrf_buffer_size)(void *ctx, gm_ctype t, int n, void *a, int lda, int *lwork);
  /* cusolverDn<t>getrf(h, n, n, a, lda, work, ipiv, info); ipiv, info
   * and work are device memory */
  gm_status (*getrf)(void *ctx, gm_ctype t, int n, void *a, int lda, void *work, int *ipiv, int *info);
  /* cusolverDn<t>getrs(h, CUBLAS_OP_N, n, nrhs, a, lda, ipiv, b, ldb, info) */
  gm_status (*getrs)(void *ctx, gm_ctype t, int n, int nrhs, const void *a, int lda, const int *ipiv, void *b,
                     int ldb, int *info);
  /* cusolverDn<t><fn>_bufferSize for the call (elements; 0 for getrs) */
  gm_status (*call_buffer_size)(void *ctx, const gm_solver_call *c, int *lwork);
  /* cusolverDn<t><fn> with the call's arguments, queued on the stream */
  gm_status (*call)(void *ctx, const gm_solver_call *c);
  /* scratch device memory in stream order (cudaMallocAsync/FreeAsync) */
  gm_status (*scratch_alloc)(void *ctx, size_t bytes, void **out);
  void (*scratch_free)(void *ctx, void *p);
  /* synchronous device->host read of a small result */
  gm_status (*read)(void *ctx, void *dst, const void *src, size_t bytes);
  /* host->device write of a small argument, after the queued work and
   * finished before the return (src may be freed then) */
  gm_status (*write)(void *ctx, void *dst, const void *src, size_t bytes);
  /* Optional batched entries for stacks of small matrices (NULL: a call
   * per matrix).  as, bs: device arrays of `batch` device pointers (each
   * matrix column-major); infos: `batch` device ints.
   * cusolverDn<t>potrfBatched(h, UPPER, n, as, lda, infos, batch) */
  gm_status (*potrf_batched)(void *ctx, gm_ctype t, int n, void **as, int lda, int *infos, int batch);
  /* cublas<t>getrfBatched(h, n, as, lda, ipiv (n per matrix), infos, batch) */
  gm_status (*getrf_batched)(void *ctx, gm_ctype t, int n, void **as, int lda, int *ipiv, int *infos, int batch);
  /* cublas<t>getrsBatched(h, trans ? T : N, n, nrhs, as, lda, ipiv, bs,
   * ldb, &info (a host int: argument errors only), batch) */
  gm_status (*getrs_batched)(void *ctx, gm_ctype t, bool trans, int n, int nrhs, void **as, int lda,
                             const int *ipiv, void **bs, int ldb, int batch);
  /* cusolverDn<t>syevjBatched(h, jobz, UPPER, n, a, lda, w, work, lwork,
   * infos, params, batch) with its own workspace and default params (n
   * <= 32): the matrices at a + i * lda * n, eigenvalues ascending at w +
   * i * n; infos[i] = n + 1 when matrix i did not converge. */
  gm_status (*syevj_batched)(void *ctx, gm_ctype t, bool vectors, int n, void *a, int lda, void *w, int *infos,
                             int batch);
  /* cusolverDn<t>gesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv,
   * work, lwork, infos, params, batch) with its own workspace and params
   * sorting the singular values descending (m, n <= 32): matrix i at a + i
   * * lda * n, its singular values (real, of a complex a too) at s + i *
   * min(m, n), U (m x m) at u + i * ldu * m and V itself (n x n, not V^H)
   * at v + i * ldv * n; u and v are not referenced without vectors (NULL
   * then); infos[i] > 0 when matrix i did not converge. */
  gm_status (*gesvdj_batched)(void *ctx, gm_ctype t, bool vectors, int m, int n, void *a, int lda, void *s, void *u,
                              int ldu, void *v, int ldv, int *infos, int batch);
} gm_solver_ops;

/* blas_ops.h's invert and logdet (column-major a, in place for invert)
 * through s; ctx is the gm_device, whose kernel table (ops->kernels:
 * fill, blas dot and copy) does the rest. */
gm_status gm_solver_invert(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, void *a, int lda);
gm_status gm_solver_logdet(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, void *a, int lda,
                           double *logabs, int *sign);

/* blas_ops.h's linalg entry (one job, a stack of matrices) through s:
 * each matrix's calls in cuSOLVER's order, queued one matrix after the
 * other, the infos read back once at the end. */
gm_status gm_solver_linalg(const gm_solver_ops *s, void *ctx, const gm_linalg_job *job, int *infos);

#endif
