/* The BLAS sub-table of gm_backend (backend.h).
 *
 * Every entry takes COLUMN-MAJOR, cuBLAS-style arguments on every backend:
 * ints for sizes, leading dimensions and increments, ctx first (NULL on the
 * host, the gm_device for a device), pointers already at the first element
 * to use, in the backend's memory space.  The row-major -> column-major
 * mapping of gpumat's row-major mats lives once, in core/ops/blas.c, so a new
 * backend only has to forward these arguments to its library
 * (host: CBLAS with CblasColMajor; CUDA: the cublasS and cublasD calls).
 *
 * Scalars (alpha, beta) come as double and are rounded to the ctype by the
 * implementation; reductions (asum, nrm2, dot) write their result as a
 * double to *out, a HOST pointer.
 *
 * The core guarantees before calling: n, m, k >= 0; inc >= 1; every
 * accessed element lies inside the operands; ld >= max(1, rows) in the
 * column-major sense; alias rules noted per entry.  Entries return GM_OK or
 * a failure status set with gm_fail() (e.g. GM_ECUBLAS with
 * gm_set_lib_error_info for a library error).  A NULL entry means the
 * backend lacks the op: the core then reports GM_EUNSUPPORTED, except for
 * invert/logdet, which fall back to the host facet, and potrf/geqrf/orgqr,
 * which only the host facet runs. */
#ifndef GM_CORE_BLAS_OPS_H
#define GM_CORE_BLAS_OPS_H

#include <stdbool.h>

#include "../model/ctype.h"
#include "../model/status.h"

typedef enum gm_blas_trans { GM_BLAS_N = 0, GM_BLAS_T = 1 } gm_blas_trans;

/* One dense LAPACK job on one column-major matrix (gm.linalg, core/ops/linalg.c
 * loops over the stack).  Every operand is tight (lda = ldq = ldu = m,
 * ldb = ldvt = n) and in the backend's memory space.
 * GESV:  a (n x n) := its LU factors; b (n x nrhs) := op(A)^-1 b, op(A)
 *        A^T when trans (getrf + getrs).  info > 0: singular.
 * POTRF: the upper triangle of a (n x n) := U with A = U^T U (only the
 *        upper triangle read and written).  info > 0: not positive
 *        definite (the order of the leading minor).
 * QR:    a (m x n) := geqrf's R and reflectors; b (m x qcols, k <= qcols
 *        <= m with k = min(m, n)) := the first qcols columns of Q (orgqr).
 * SYEVD: w (n) := the eigenvalues of the symmetric a (n x n, upper
 *        triangle read) in ascending order; a := the eigenvectors (its
 *        columns) when vectors, else destroyed.
 * GEEV:  m == n; w (2n) := the eigenvalues of the general a (n x n),
 *        real parts then imaginary parts (cuSOLVER Xgeev's real layout;
 *        a conjugate pair adjacent, positive imaginary part first); u
 *        (n x n) := the right eigenvectors, unit length, in LAPACK's real
 *        packed form (for a pair j, j+1: columns j +- i column j+1) when
 *        vectors; a is destroyed.  info > 0: no convergence.  The one
 *        job that takes a complex a: then w (n) and u are complex.
 * GESVD: m >= n; w (n) := the singular values, descending; when vectors,
 *        u (m x m when full, else m x n) := U and vt (n x n) := V^T; a is
 *        destroyed.  info > 0: no convergence.
 * TRSM:  m == n; b := the solution X of op(A) X = B (left) or X op(A) = B
 *        (not left), A (n x n) triangular (upper: its upper triangle
 *        read, else the lower; unit: its diagonal taken as ones), op(A)
 *        A^T when trans; b is n x nrhs when left, else nrhs x n (the
 *        trsm entry below).  a is only read.
 * GETRF: a (m x n) := its LU factors (getrf); w (min(m, n)) := the
 *        1-based pivots as elements of the ctype.  info > 0 (a zero
 *        pivot: U is singular) does not stop a stack.
 * GETRS: m == n; a (n x n) holds getrf's LU factors and w (n) its
 *        pivots as GETRF writes them (only read); b (n x nrhs) :=
 *        op(A)^-1 b, op(A) A^T when trans.
 * GEMM:  u (m x n) := a (m x nrhs) b (nrhs x n) (the gemm entry; a and b
 *        only read), for each of `batch` matrices stored one after the
 *        other (0 counts as 1): the batched matrix product, one job per
 *        stack (cuBLAS's strided-batched gemm on a device).
 * Every job takes the complex ctypes too (LAPACK's c/z routines, cuSOLVER's
 * C/Z ones), with the Hermitian forms where the real job is symmetric:
 * POTRF gives U with A = U^H U, QR's q is ungqr's, SYEVD is heevd (a
 * Hermitian, upper triangle read), TRSM's trans stays a plain transpose
 * as GESV's and GETRS's do.  Of a complex job, w is real (the real ctype
 * of the same precision, gm_linalg_w_ctype) for SYEVD and GESVD (the
 * eigenvalues, the singular values) and for GETRF and GETRS (the pivots);
 * GEEV's w is complex. */
typedef enum gm_linalg_kind {
  GM_LA_GESV, GM_LA_POTRF, GM_LA_QR, GM_LA_SYEVD, GM_LA_GESVD, GM_LA_TRSM, GM_LA_GETRF, GM_LA_GETRS, GM_LA_GEMM,
  GM_LA_GEEV
} gm_linalg_kind;

typedef struct gm_linalg_job {
  gm_linalg_kind kind;
  gm_ctype t;
  int m, n, nrhs, qcols;
  bool trans, vectors, full;
  bool upper, left, unit; /* TRSM */
  void *a, *b, *w, *u, *vt;
  /* the stack: `batch` matrices (0 counts as 1) of each operand, one after
   * the other (gm_linalg_job_at) */
  size_t batch;
} gm_linalg_job;

/* Elements of one matrix of operand i (0 a, 1 b, 2 w, 3 u, 4 vt). */
size_t gm_linalg_job_elems(const gm_linalg_job *j, int i);
/* The ctype of the job's w operand: t's real type for the complex
 * SYEVD, GESVD, GETRF and GETRS jobs, t otherwise. */
gm_ctype gm_linalg_w_ctype(const gm_linalg_job *j);
/* The job on matrix i of the stack alone (batch 1). */
gm_linalg_job gm_linalg_job_at(const gm_linalg_job *j, size_t i);

typedef struct gm_blas_ops {
  /* *out = sum |x[i*incx]|, i < n */
  gm_status (*asum)(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out);
  /* *out = sqrt(sum x[i*incx]^2) */
  gm_status (*nrm2)(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out);
  /* *out = sum x[i*incx] * y[i*incy] */
  gm_status (*dot)(void *ctx, gm_ctype t, int n, const void *x, int incx, const void *y, int incy,
                   double *out);
  /* y[i*incy] += alpha * x[i*incx]; x and y may be identical */
  gm_status (*axpy)(void *ctx, gm_ctype t, int n, double alpha, const void *x, int incx, void *y,
                    int incy);
  /* y[i*incy] = x[i*incx] */
  gm_status (*copy)(void *ctx, gm_ctype t, int n, const void *x, int incx, void *y, int incy);
  /* x[i*incx] *= alpha */
  gm_status (*scal)(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx);
  /* C = alpha * op(A) * op(B) + beta * C, C is m x n, op(A) m x k, op(B)
   * k x n (cublasXgemm / cblas_Xgemm).  C does not overlap A or B.  When
   * beta == 0, C is not read (NaNs in C do not propagate).  t may be a
   * half type: cublasGemmEx's shape (float32 products and sums, alpha and
   * beta float32, C rounded once on store). */
  gm_status (*gemm)(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                    double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                    int ldc);
  /* C = alpha * op(A) + beta * op(B), C is m x n (cublasXgeam).  Serves
   * transpose, m_add, m_sub and strided block copies (stack_).  When
   * beta == 0, B is not read and may be NULL (pass A to libraries that
   * need a valid pointer).  C does not overlap A or B. */
  gm_status (*geam)(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n,
                    double alpha, const void *a, int lda, double beta, const void *b, int ldb, void *c,
                    int ldc);
  /* B := alpha * op(A)^-1 B (left) or alpha * B op(A)^-1 (not left), B
   * m x n, A triangular of order m (left) or n (cublasXtrsm /
   * cblas_Xtrsm); upper picks A's triangle, unit takes its diagonal as
   * ones.  B does not overlap A.  Optional: gm.linalg's TRSM job needs it
   * on the backend that runs the job. */
  gm_status (*trsm)(void *ctx, gm_ctype t, bool left, bool upper, gm_blas_trans ta, bool unit, int m, int n,
                    double alpha, const void *a, int lda, void *b, int ldb);
  /* Optional (may be NULL: the core then runs them on the host facet).
   * invert: A (n x n) := inverse of A, in place; GM_ELAPACK when singular.
   * logdet: *logabs = log |det A|, *sign in {-1, 0, 1} (0 and -inf when
   * singular); A is overwritten (by its LU factors). */
  gm_status (*invert)(void *ctx, gm_ctype t, int n, void *a, int lda);
  gm_status (*logdet)(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign);
  /* Optional LAPACK factorisations for mv_gaussian_random and
   * orthogonal_random_ (core/ops/random_linalg.c), which run on the host
   * facet: the host table has them, device tables leave them NULL.  *info
   * is LAPACK's (0: done; > 0: a numerical failure the caller names;
   * < 0: a bad argument, NaN included); the status fails only when the
   * backend cannot run the ctype.
   * potrf: the lower Cholesky factor of A (n x n) in place (A = L L^T,
   * only the lower triangle read and written); *info > 0 is the order of
   * the leading minor that is not positive definite. */
  gm_status (*potrf)(void *ctx, gm_ctype t, int n, void *a, int lda, int *info);
  /* geqrf: QR of A (m x n, m >= n) in place: R in the upper triangle, the
   * Householder reflectors below it and their scalars in tau (n elements
   * of the ctype). */
  gm_status (*geqrf)(void *ctx, gm_ctype t, int m, int n, void *a, int lda, void *tau, int *info);
  /* orgqr: A (m x n) := the first n columns of Q from geqrf's output in A
   * and tau (k = n reflectors). */
  gm_status (*orgqr)(void *ctx, gm_ctype t, int m, int n, void *a, int lda, const void *tau, int *info);
  /* Optional (NULL: the core runs gm.linalg on the host facet): one job
   * (above) on every matrix of its stack; infos (HOST ints, one per
   * matrix, zeroed by the caller) get LAPACK's info of each (a job of two
   * calls: the first nonzero one; GEMM and TRSM write none).  A backend
   * may stop after a matrix whose info is < 0, or > 0 in any job but
   * GETRF (the stack has failed), or go on.  The status fails only for
   * errors that are not numerical (ctype, memory, the library). */
  gm_status (*linalg)(void *ctx, const gm_linalg_job *job, int *infos);
  /* Optional (NULL: the core calls gemm): C := alpha op(A) op(A)^T, the
   * whole n x n C (both triangles: the backend mirrors the one its library
   * writes), op(A) n x k (ta = N: A is n x k; T: A is k x n).  Half the
   * products of the gemm it replaces: the core calls it for a gemm whose
   * two operands are one block read once transposed, once not (numpy's
   * `A.T @ A`), real float and double only.  C does not overlap A and is
   * not read. */
  gm_status (*syrk)(void *ctx, gm_ctype t, gm_blas_trans ta, int n, int k, double alpha, const void *a, int lda,
                    void *c, int ldc);
  /* Optional (NULL: the caller loops over gemm): gemm on `batch` triples,
   * matrix i of each operand at its pointer + i * its stride (elements;
   * cublasXgemmStridedBatched).  The C_i do not overlap each other or any
   * A_i, B_i. */
  gm_status (*gemm_batched)(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                            double alpha, const void *a, int lda, long long stride_a, const void *b, int ldb,
                            long long stride_b, double beta, void *c, int ldc, long long stride_c, int batch);
} gm_blas_ops;

/* The host table (src/host/blas.c): CBLAS (OpenBLAS) and LAPACKE. */
extern const gm_blas_ops gm_host_blas_ops;

/* dot and copy over raw pointers in a backend's memory, split into calls
 * of at most gm_blas_chunk elements (core/ops/blas.h) as the mat calls are:
 * n is a size_t, so n x n blocks of the LAPACK paths (linalg.c, the device
 * solver) never reach an entry as a wrapped int.  dot
 * adds the parts' results. */
gm_status gm_blas_dot_n(const gm_blas_ops *b, void *ctx, gm_ctype t, size_t n, const void *x, size_t incx,
                        const void *y, size_t incy, double *out);
gm_status gm_blas_copy_n(const gm_blas_ops *b, void *ctx, gm_ctype t, size_t n, const void *x, size_t incx,
                         void *y, size_t incy);

#endif
