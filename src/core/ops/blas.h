/* BLAS operations on mats (MGL-MAT §11) and the block operations the
 * non-destructive and assembling functions are built from.
 *
 * Mats are row-major; this file maps every call once to the column-major
 * entries of the backend's gm_blas_ops (blas_ops.h), chooses the place with
 * gm_exec_choose and acquires the operands there.  Every function validates
 * all preconditions (ctypes, extents, int range of the BLAS interface)
 * before touching memory and returns a status with a message.
 *
 * Level-1 ops see x's visible elements as a vector: element i is
 * x[i*incx] counted from the displacement, and (n-1)*incx + 1 must not
 * exceed the visible size. */
#ifndef GM_CORE_BLAS_H
#define GM_CORE_BLAS_H

#include <stdbool.h>
#include <stddef.h>

#include "blas_ops.h"
#include "../model/mat.h"

/* Checks that n elements with stride inc fit in x's visible part (and
 * that inc fits BLAS's int; n may exceed it: level-1 calls are split).
 * name/incname appear in the message ("x", "incx"). */
gm_status gm_blas_check_vector(const gm_mat *x, size_t n, size_t inc, const char *name,
                               const char *incname);

/* Fails when the n-element strided vectors x and y (already checked with
 * gm_blas_check_vector) share an element of one storage without being the
 * very same vector: BLAS (and cuBLAS) give order-dependent results then.
 * Identical vectors are fine for copy_ (a no-op) and axpy_. */
gm_status gm_blas_check_alias(const gm_mat *x, size_t incx, const gm_mat *y, size_t incy, size_t n);

/* The operand rules of a level-1 call on x and (NULL for one-vector
 * calls) y, in this order: one ctype, n elements with their strides
 * inside each (gm_blas_check_vector), and when alias is set no partial
 * overlap (gm_blas_check_alias).  *bad names the operand at fault: 1 x,
 * 2 y. */
gm_status gm_blas_check_level1(const gm_mat *x, const gm_mat *y, size_t n, size_t incx, size_t incy, bool alias,
                               int *bad);

/* Level-1 calls (asum, nrm2, dot, axpy_, copy_, scal_) over more than
 * this many elements are split into calls of at most this many (review
 * #18: BLAS and cuBLAS counts are int).  INT_MAX; tests lower it. */
extern size_t gm_blas_chunk;

gm_status gm_asum(gm_mat *x, size_t n, size_t incx, double *out);
gm_status gm_nrm2(gm_mat *x, size_t n, size_t incx, double *out);
gm_status gm_dot(gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy, double *out);
/* y := alpha * x + y */
gm_status gm_axpy_(double alpha, gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy);
/* y := x */
gm_status gm_copy_(gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy);
/* x := alpha * x */
gm_status gm_scal_(double alpha, gm_mat *x, size_t n, size_t incx);

#define GM_UNSET ((size_t)-1)

/* In validators that report which argument is bad through `int *bad`:
 * evaluate expr and, on failure, record `which` and return its status. */
#define GM_BAD(which, expr)          \
  do {                               \
    gm_status st_ = (expr);          \
    if (st_ != GM_OK) {              \
      *bad = (which);                \
      return st_;                    \
    }                                \
  } while (0)

/* gemm_ arguments; GM_UNSET fields take MGL's defaults: m = rows of C,
 * n = columns of C, k = columns of A (rows when transposed), lda/ldb/ldc
 * = row width (dims[1]) of A/B/C. */
typedef struct gm_gemm_args {
  bool transpose_a, transpose_b;
  size_t m, n, k, lda, ldb, ldc;
} gm_gemm_args;

/* Resolves defaults in *g and validates.  On failure *bad names the
 * operand at fault: 1 = a, 2 = b, 3 = c, 0 = none in particular. */
gm_status gm_gemm_resolve(const gm_mat *a, const gm_mat *b, const gm_mat *c, gm_gemm_args *g, int *bad);
/* C := alpha * op(A) op(B) + beta * C (resolves g itself). */
gm_status gm_gemm_(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c, gm_gemm_args g);

/* A rows x cols block of a mat: element (i, j) is at offset
 * off + i*ld + j from the mat's displacement. */
typedef struct gm_submat {
  gm_mat *m;
  size_t off, ld;
  bool trans; /* the block is op(M): rows x cols of the transposed view */
} gm_submat;

/* C := alpha * op(A) + beta * op(B) on rows x cols blocks (B unused when
 * beta == 0, may have m == NULL).  Written elements of C get OUTPUT when
 * the block covers C's visible part, else IO. */
gm_status gm_geam_(double alpha, gm_submat a, double beta, gm_submat b, gm_submat c, size_t rows,
                   size_t cols);

/* stack_: places mats[0..n) along axis (0-based) into dst (MGL-MAT §9).
 * On failure *bad is 1 (axis), 2 (mats) or 3 (dst). */
gm_status gm_stack_(int axis, gm_mat *const *mats, int n, gm_mat *dst, int *bad);

/* Elementwise equality of the visible parts (same size required); runs on
 * the host facet, as MGL-MAT's m= does. */
gm_status gm_m_eq(gm_mat *a, gm_mat *b, bool *out);

/* out := inverse of a (square); out is a distinct n x n mat. */
gm_status gm_invert(gm_mat *a, gm_mat *out);
/* log |det a| and its sign (-1, 0, 1); a is not modified. */
gm_status gm_logdet(gm_mat *a, double *logabs, int *sign);

/* gm.linalg: job (blas_ops.h; its t is set here) on each matrix of the
 * stacks ms = {a, b, w, u, vt} (NULL where the job has no such operand):
 * contiguous column-major matrices of job_elems each, one ctype, the
 * stack size a's.  Runs on the device when its table has linalg, else on
 * the host facet.  Stops at the first matrix whose LAPACK info is not 0:
 * *failed is its 1-based index in the stack and *info the info (0, 0
 * when every matrix went through). */
gm_status gm_linalg_run(gm_linalg_job job, gm_mat *const ms[5], size_t *failed, int *info);

#endif
