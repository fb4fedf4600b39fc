/* The host BLAS table: CBLAS (OpenBLAS) with CblasColMajor, LAPACKE for
 * invert/logdet/potrf/geqrf/orgqr, loops for geam.  Arguments are column-major as documented
 * in core/ops/blas_ops.h; the row-major mapping is done by core/ops/blas.c. */
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#include <cblas.h>
#include <dlfcn.h>
#include <lapacke.h>
#include <pthread.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/complex_ops.h"
#include "../../kernels/half_ops.h"
#include "../core/exec/par.h"
#include "../core/mem/move.h"
#include "../core/ops/blas_ops.h"
#include "lapack_names.h"
#include "simd.h"

static enum CBLAS_TRANSPOSE cb(gm_blas_trans t) { return t == GM_BLAS_T ? CblasTrans : CblasNoTrans; }

static gm_status bad_ctype(const char *op) { return gm_fail(GM_EINVAL, "%s: unsupported ctype", op); }

/* A switch on t (GM_CTYPE_SWITCH) whose default is the ctype error of op. */
#define CTYPE_SWITCH(t, CASE, op) GM_FLOAT_CTYPE_SWITCH(t, CASE, return bad_ctype(op))

static gm_status h_asum(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *out = cblas_##p##asum(n, x, incx); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "asum")
#undef X
}

static gm_status h_nrm2(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *out = cblas_##p##nrm2(n, x, incx); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "nrm2")
#undef X
}

static gm_status h_dot(void *ctx, gm_ctype t, int n, const void *x, int incx, const void *y, int incy,
                       double *out) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *out = cblas_##p##dot(n, x, incx, y, incy); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "dot")
#undef X
}

/* Small contiguous vectors: a plain loop beats the library call's fixed
 * overhead (the hot path of x:scal_(2) on tiny mats). */
enum { SMALL_N = 32 };

/* x[i*incx] *= alpha with IEEE semantics: OpenBLAS (< 0.3.27) stores
 * zeros for alpha == 0, so 0 * Inf or 0 * NaN would give 0 on large
 * vectors and NaN on small ones (and on cuBLAS). */
#define GM_SCAL_LOOP(T, n, alpha, x, incx)                                         \
  do {                                                                             \
    T a_ = (T)(alpha), *x_ = (x);                                                  \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++) x_[i_ * (size_t)(incx)] *= a_;     \
  } while (0)

static gm_status h_axpy(void *ctx, gm_ctype t, int n, double alpha, const void *x, int incx, void *y,
                        int incy) {
  (void)ctx;
  bool loop = n <= SMALL_N && incx == 1 && incy == 1;
#define X(T, E, name, kw, p, ...)                               \
  case GM_##E:                                                  \
    if (loop) {                                                 \
      T a = (T)alpha, *yy = y;                                  \
      const T *xx = x;                                          \
      for (int i = 0; i < n; i++) yy[i] += a * xx[i];           \
    } else {                                                    \
      cblas_##p##axpy(n, (T)alpha, x, incx, y, incy);           \
    }                                                           \
    return GM_OK;
  CTYPE_SWITCH(t, X, "axpy")
#undef X
}

/* Unit strides: gm_move_bytes (memmove, or a vector loop where memmove
 * stalls), which runs at memory speed from the first byte (OpenBLAS's
 * ?copy kernel took 3-5x numpy's copy on 1K-100K elements, the sizes
 * where m:copy() and staging spend their time); over the cores in 64-byte
 * lines from 1 MiB on when the ranges do not overlap, as the elementwise
 * loops split theirs (1M-float x:copy() on one core took 408 us against
 * numpy's 302, while x + 1 on both took 135). */
typedef struct move_job {
  char *d;
  const char *s;
  size_t n;
} move_job;

static void move_lines(void *arg, size_t begin, size_t end) {
  const move_job *j = arg;
  size_t lo = begin * 64, hi = end * 64 < j->n ? end * 64 : j->n;
  gm_move_bytes(j->d + lo, j->s + lo, hi - lo);
}

static gm_status h_copy(void *ctx, gm_ctype t, int n, const void *x, int incx, void *y, int incy) {
  (void)ctx;
  if (incx == 1 && incy == 1 && n > 0 && (unsigned)t < GM_N_CTYPES) {
    size_t bytes = (size_t)n * gm_ctype_size(t);
    if (gm_bytes_apart(y, x, bytes)) {
      move_job j = {y, x, bytes};
      gm_par_for((bytes + 63) / 64, 64, 16.0, move_lines, &j); /* 16: a line's floats, as elements cost */
    } else {
      gm_move_bytes(y, x, bytes);
    }
    return GM_OK;
  }
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    cblas_##p##copy(n, x, incx, y, incy); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "copy")
#undef X
}

static gm_status h_scal(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx) {
  (void)ctx;
  bool loop = alpha == 0 || (n <= SMALL_N && incx == 1);
#define X(T, E, name, kw, p, ...)                          \
  case GM_##E:                                             \
    if (loop) GM_SCAL_LOOP(T, n, alpha, (T *)x, incx);     \
    else cblas_##p##scal(n, (T)alpha, x, incx);            \
    return GM_OK;
  CTYPE_SWITCH(t, X, "scal")
#undef X
}

/* A product with one side a vector (n == 1: C a column; m == 1: C a row)
 * as ?gemv: ?gemm packs all of A for it on every call (a 10000x32 X * w
 * copied X twice).  C is zeroed first when beta == 0, so it is not read
 * whatever the BLAS does with beta = 0. */
#define GM_DEFINE_GEMV(T, E, name, kw, p, ...)                                                        \
  static void gemv_##T(gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k, T alpha, const T *a,  \
                       int lda, const T *b, int ldb, T beta, T *c, int ldc) {                          \
    int len = n == 1 ? m : n, inc = n == 1 ? 1 : ldc;                                                 \
    if (beta == 0)                                                                                    \
      for (int i = 0; i < len; i++) c[(size_t)i * (size_t)inc] = 0;                                   \
    if (n == 1) /* c := op(A) * (column of op(B)) */                                                  \
      cblas_##p##gemv(CblasColMajor, cb(ta), ta == GM_BLAS_N ? m : k, ta == GM_BLAS_N ? k : m, alpha, \
                      a, lda, b, tb == GM_BLAS_N ? 1 : ldb, beta, c, 1);                              \
    else /* c' := op(B)' * (row of op(A))' */                                                         \
      cblas_##p##gemv(CblasColMajor, tb == GM_BLAS_N ? CblasTrans : CblasNoTrans,                      \
                      tb == GM_BLAS_N ? k : n, tb == GM_BLAS_N ? n : k, alpha, b, ldb, a,             \
                      ta == GM_BLAS_N ? lda : 1, beta, c, ldc);                                       \
  }
GM_FLOAT_CTYPES(GM_DEFINE_GEMV)
#undef GM_DEFINE_GEMV

/* Complex products: cblas_cgemm / zgemm (the ctype list's BLAS column),
 * alpha and beta real (an imaginary part 0); no gemv shortcut (the
 * library's own ?gemm handles a vector side well enough for complex). */
static gm_status h_cx_gemm(gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k, double alpha,
                           const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc) {
#define X(T, E, name, kw, p, P, etype, S, ...)                                                            \
  case GM_##E: {                                                                                          \
    T al = gm_sat_##T(alpha), be = gm_sat_##T(beta);                                                      \
    cblas_##p##gemm(CblasColMajor, cb(ta), cb(tb), m, n, k, &al, a, lda, b, ldb, &be, c, ldc);            \
    return GM_OK;                                                                                         \
  }
  switch (t) {
    GM_COMPLEX_CTYPES(X)
    default:
      return bad_ctype("gemm");
  }
#undef X
}

/* The rows x cols column-major block at x (leading dimension ld) of half
 * type t as float32 (exact) in a new buffer with the same ld (the gaps
 * between columns left unwritten: sgemm does not read them); NULL when
 * out of memory. */
static float *half_block_to_float(gm_ctype t, const void *x, int rows, int cols, int ld) {
  size_t ext = rows > 0 && cols > 0 ? (size_t)(cols - 1) * (size_t)ld + (size_t)rows : 0;
  float *f = malloc(ext * sizeof *f + 1);
  if (!f || !x) return f;
#define X(T, E, ...)                                                                               \
  case GM_##E:                                                                                     \
    for (int j = 0; j < cols; j++)                                                                 \
      for (int i = 0; i < rows; i++) {                                                             \
        size_t at = (size_t)j * (size_t)ld + (size_t)i;                                             \
        f[at] = gm_hload_##T(((const T *)x)[at]);                                                  \
      }                                                                                            \
    break;
  switch (t) {
    GM_HALF_CTYPES(X)
    default:
      break;
  }
#undef X
  return f;
}

/* float16/bfloat16 products in cublasGemmEx's shape (CUBLAS_COMPUTE_32F):
 * A and B (C too when beta != 0) converted to float32 exactly, sgemm
 * accumulating in float32, each element of C rounded to nearest even once
 * (half_ops.h).  The installed OpenBLAS has no sbgemm/shgemm; the
 * emulated device runs its GemmEx calls here too. */
static gm_status h_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                        double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                        int ldc);
static gm_status h_half_gemm(gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k, double alpha,
                             const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc) {
  bool na = ta == GM_BLAS_N, nb = tb == GM_BLAS_N;
  float *fa = half_block_to_float(t, a, na ? m : k, na ? k : m, lda);
  float *fb = half_block_to_float(t, b, nb ? k : n, nb ? n : k, ldb);
  float *fc = half_block_to_float(t, beta != 0 ? c : NULL, m, n, ldc);
  gm_status st = fa && fb && fc ? GM_OK : gm_fail(GM_ENOMEM, "gemm: out of host memory for float32 copies");
  if (st == GM_OK) st = h_gemm(NULL, GM_FLOAT, ta, tb, m, n, k, alpha, fa, lda, fb, ldb, beta, fc, ldc);
#define X(T, E, ...)                                                            \
  case GM_##E:                                                                  \
    for (int j = 0; j < n; j++)                                                 \
      for (int i = 0; i < m; i++) {                                             \
        size_t at = (size_t)j * (size_t)ldc + (size_t)i;                         \
        ((T *)c)[at] = gm_hstore_##T(fc[at]);                                   \
      }                                                                         \
    break;
  if (st == GM_OK) switch (t) {
      GM_HALF_CTYPES(X)
      default:
        break;
    }
#undef X
  free(fa);
  free(fb);
  free(fc);
  return st;
}

/* OpenBLAS's threads for a product with a short side.  Its own rule
 * threads every ?gemm of more than 2^18 m n k, and on this project's
 * 2-vCPU AMD EPYC VM two threads ran a product with a short side 2-3x
 * slower than one (float, OPENBLAS_NUM_THREADS 1 against 2: 5000x16 by
 * 16x10 40 us against 114, 20000x16 by 16x10 166 against 406,
 * 100000x16 by 16x16 1.0 ms against 1.8, 1797x64 by 64x10 45 against
 * 102, 1000x1000 by 1000x10 403 against 668; with OpenBLAS's own kernel
 * choice as with OPENBLAS_CORETYPE=Haswell), where square ones gained
 * (256: 232 us against 370, 512: 1.6 ms against 2.7; 64 and 128 about
 * even).  The softmax regression program spent two thirds of its time
 * in such products.  So a product whose smallest dimension is under
 * THREAD_MIN_DIM runs on the calling thread (openblas_set_num_threads(1)
 * around the call, found at run time: another BLAS has no such call and
 * is left alone).  On 16 cores OpenBLAS splits the same products 16
 * ways, each share smaller still, so the rule keeps them on one thread
 * there too.  The setting is process-wide: a product that another
 * thread starts meanwhile may run on one thread (slower, not wrong). */
enum { THREAD_MIN_DIM = 128 };
static void (*openblas_set)(int);
static int (*openblas_get)(void);
static pthread_once_t openblas_once = PTHREAD_ONCE_INIT;

static void find_openblas(void) {
  void *set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"), *get = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  if (set && get) {
    memcpy(&openblas_set, &set, sizeof set); /* (ISO C has no object-to-function pointer cast) */
    memcpy(&openblas_get, &get, sizeof get);
  }
}

/* -> the thread count to restore after the call, 0 when nothing changed */
static int one_thread_if_short(int m, int n, int k) {
  int lo = m < n ? m : n;
  if (k < lo) lo = k;
  if (lo >= THREAD_MIN_DIM) return 0;
  pthread_once(&openblas_once, find_openblas);
  if (!openblas_set) return 0;
  int before = openblas_get();
  if (before <= 1) return 0;
  openblas_set(1);
  return before;
}

static void restore_threads(int before) {
  if (before > 1) openblas_set(before);
}

static gm_status h_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                        double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                        int ldc) {
  (void)ctx;
  if (gm_ctype_is_complex(t)) return h_cx_gemm(t, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (gm_ctype_is_half(t)) return h_half_gemm(t, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if ((n == 1 || m == 1) && k > 0 && m > 0 && n > 0) {
#define V(T, E, ...) \
  case GM_##E:       \
    gemv_##T(ta, tb, m, n, k, (T)alpha, a, lda, b, ldb, (T)beta, c, ldc); \
    return GM_OK;
    CTYPE_SWITCH(t, V, "gemm")
#undef V
  }
#define X(T, E, name, kw, p, ...)                                                                     \
  case GM_##E: {                                                                                      \
    int threads = one_thread_if_short(m, n, k);                                                       \
    cblas_##p##gemm(CblasColMajor, cb(ta), cb(tb), m, n, k, (T)alpha, a, lda, b, ldb, (T)beta, c, ldc); \
    restore_threads(threads);                                                                         \
    return GM_OK;                                                                                     \
  }
  CTYPE_SWITCH(t, X, "gemm")
#undef X
}

/* syrk (blas_ops.h): the upper triangle by the library, then copied
 * into the lower one in 32 x 32 tiles (the reads of a column of the
 * upper triangle are ldc apart; a tile keeps them in L1), as numpy does
 * after its own syrk. */
#define GM_DEFINE_SYRK(T, p)                                                                   \
  static void syrk_##T(gm_blas_trans ta, int n, int k, T alpha, const T *a, int lda, T *c, int ldc) { \
    cblas_##p##syrk(CblasColMajor, CblasUpper, cb(ta), n, k, alpha, a, lda, (T)0, c, ldc);     \
    const size_t ld = (size_t)ldc, N = (size_t)n;                                              \
    for (size_t j0 = 0; j0 < N; j0 += 32)                                                      \
      for (size_t i0 = j0; i0 < N; i0 += 32) {                                                 \
        const size_t j1 = N - j0 < 32 ? N : j0 + 32, i1 = N - i0 < 32 ? N : i0 + 32;           \
        for (size_t j = j0; j < j1; j++)                                                       \
          for (size_t i = i0 > j + 1 ? i0 : j + 1; i < i1; i++) c[i + j * ld] = c[j + i * ld]; \
      }                                                                                        \
  }
GM_DEFINE_SYRK(float, s)
GM_DEFINE_SYRK(double, d)
#undef GM_DEFINE_SYRK

static gm_status h_syrk(void *ctx, gm_ctype t, gm_blas_trans ta, int n, int k, double alpha, const void *a, int lda,
                        void *c, int ldc) {
  (void)ctx;
  if (t == GM_FLOAT || t == GM_DOUBLE) {
    int threads = one_thread_if_short(n, n, k);
    if (t == GM_FLOAT)
      syrk_float(ta, n, k, (float)alpha, a, lda, c, ldc);
    else
      syrk_double(ta, n, k, alpha, a, lda, c, ldc);
    restore_threads(threads);
    return GM_OK;
  }
  return gm_fail(GM_EUNSUPPORTED, "syrk: float and double only, got %s", gm_ctype_name(t));
}

/* geam: column j of C from column j of op(A) and op(B).  A transposed
 * operand is read with stride ld; the untransposed inner loops are
 * contiguous and vectorize.  A pure transpose (beta == 0) goes to
 * ?omatcopy, which is blocked for cache. */
#define GM_DEFINE_GEAM(T, E, name, kw, p, ...)                                                   \
  static void geam_##T(gm_blas_trans ta, gm_blas_trans tb, int m, int n, T alpha, const T *a,     \
                       int lda, T beta, const T *b, int ldb, T *c, int ldc) {                     \
    if (beta == 0 && ta == GM_BLAS_T) {                                                           \
      cblas_##p##omatcopy(CblasColMajor, CblasTrans, n, m, alpha, a, lda, c, ldc);                \
      return;                                                                                     \
    }                                                                                             \
    size_t sa_i = ta == GM_BLAS_T ? (size_t)lda : 1, sa_j = ta == GM_BLAS_T ? 1 : (size_t)lda;    \
    size_t sb_i = tb == GM_BLAS_T ? (size_t)ldb : 1, sb_j = tb == GM_BLAS_T ? 1 : (size_t)ldb;    \
    for (int j = 0; j < n; j++) {                                                                 \
      T *cj = c + (size_t)j * (size_t)ldc;                                                        \
      const T *aj = a + (size_t)j * sa_j;                                                         \
      if (beta == 0) {                                                                            \
        if (sa_i == 1)                                                                            \
          for (int i = 0; i < m; i++) cj[i] = alpha * aj[i];                                      \
        else                                                                                      \
          for (int i = 0; i < m; i++) cj[i] = alpha * aj[(size_t)i * sa_i];                       \
        continue;                                                                                 \
      }                                                                                           \
      const T *bj = b + (size_t)j * sb_j;                                                         \
      if (sa_i == 1 && sb_i == 1)                                                                 \
        for (int i = 0; i < m; i++) cj[i] = alpha * aj[i] + beta * bj[i];                         \
      else                                                                                        \
        for (int i = 0; i < m; i++) cj[i] = alpha * aj[(size_t)i * sa_i] + beta * bj[(size_t)i * sb_i]; \
    }                                                                                             \
  }

GM_FLOAT_CTYPES(GM_DEFINE_GEAM)

static gm_status h_geam(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n,
                        double alpha, const void *a, int lda, double beta, const void *b, int ldb, void *c,
                        int ldc) {
  (void)ctx;
#define X(T, E, ...)                                                       \
  case GM_##E:                                                             \
    geam_##T(ta, tb, m, n, (T)alpha, a, lda, (T)beta, b, ldb, c, ldc);     \
    return GM_OK;
  CTYPE_SWITCH(t, X, "geam")
#undef X
}

/* LAPACKE checks its matrix argument for NaN first and reports it as an
 * illegal argument: name that plainly (a_arg is a's argument position;
 * getri sees NaN when infinite inputs made the LU factors NaN). */
static gm_status lapack_fail(const char *fn, lapack_int info, int a_arg) {
  gm_set_lib_error_info(fn, (int)info);
  if (info == -a_arg) return gm_fail(GM_ELAPACK, "matrix contains NaN or infinity (%s)", fn);
  return gm_fail(GM_ELAPACK, "%s failed (info %d)", fn, (int)info);
}

/* LU factorisation in place (getrf), shared by invert and logdet.  On
 * GM_OK, *ipiv (caller frees) holds the pivots and *singular the first
 * zero pivot (1-based) or 0.  Bad input (NaN, inf) is an error. */
static gm_status lu_factor(gm_ctype t, int n, void *a, int lda, lapack_int **ipiv, int *singular) {
  *ipiv = malloc((size_t)n * sizeof **ipiv);
  if (!*ipiv) return gm_fail(GM_ENOMEM, "out of host memory");
  lapack_int info = 0;
  switch (t) {
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    info = LAPACKE_##p##getrf(LAPACK_COL_MAJOR, n, n, a, lda, *ipiv); \
    break;
    GM_FLOAT_CTYPES(X)
#undef X
    default:
      free(*ipiv);
      *ipiv = NULL;
      return bad_ctype("getrf");
  }
  if (info < 0) {
    free(*ipiv);
    *ipiv = NULL;
    return lapack_fail("getrf", info, 4);
  }
  *singular = (int)info;
  return GM_OK;
}

static gm_status h_invert(void *ctx, gm_ctype t, int n, void *a, int lda) {
  (void)ctx;
  if (n == 0) return GM_OK;
  lapack_int *ipiv;
  int singular = 0;
  GM_TRY(lu_factor(t, n, a, lda, &ipiv, &singular));
  gm_status st = GM_OK;
  if (singular) {
    st = gm_fail(GM_ELAPACK, "matrix is singular (zero pivot in row %d)", singular);
  } else {
    lapack_int info = 0;
    switch (t) {
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    info = LAPACKE_##p##getri(LAPACK_COL_MAJOR, n, a, lda, ipiv); \
    break;
      GM_FLOAT_CTYPES(X)
#undef X
      default:
        st = bad_ctype("getri");
        break;
    }
    if (info > 0) st = gm_fail(GM_ELAPACK, "matrix is singular (zero pivot in row %d)", (int)info);
    else if (info < 0) st = lapack_fail("getri", info, 3);
  }
  free(ipiv);
  return st;
}

/* log|det| and sign from the LU factors: det = prod(u_ii) * (-1)^swaps. */
static gm_status h_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign) {
  (void)ctx;
  *logabs = 0;
  *sign = 1;
  if (n == 0) return GM_OK;
  lapack_int *ipiv;
  int singular = 0;
  GM_TRY(lu_factor(t, n, a, lda, &ipiv, &singular));
  if (singular) {
    *logabs = -INFINITY;
    *sign = 0;
  } else {
    for (int i = 0; i < n; i++) {
      size_t k = (size_t)i * (size_t)lda + (size_t)i;
      double u = gm_ctype_get(t, a, k);
      if (u < 0) *sign = -*sign;
      if (ipiv[i] != i + 1) *sign = -*sign;
      *logabs += log(fabs(u));
    }
  }
  free(ipiv);
  return GM_OK;
}

static gm_status h_potrf(void *ctx, gm_ctype t, int n, void *a, int lda, int *info) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##potrf(LAPACK_COL_MAJOR, 'L', n, a, lda); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "potrf")
#undef X
}

static gm_status h_geqrf(void *ctx, gm_ctype t, int m, int n, void *a, int lda, void *tau, int *info) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##geqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "geqrf")
#undef X
}

static gm_status h_orgqr(void *ctx, gm_ctype t, int m, int n, void *a, int lda, const void *tau, int *info) {
  (void)ctx;
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##orgqr(LAPACK_COL_MAJOR, m, n, n, a, lda, tau); \
    return GM_OK;
  CTYPE_SWITCH(t, X, "orgqr")
#undef X
}

/* ---- gm.linalg jobs (blas_ops.h: gm_linalg_job) ---- */

/* A switch over the floating ctypes only (LAPACK has no integer rows). */
#define FLOAT_SWITCH(t, CASE, op) \
  switch (t) {                    \
    GM_FLOAT_CTYPES(CASE)         \
    default:                      \
      return bad_ctype(op);       \
  }

/* The jobs' rows: the real floating ctypes and the complex ones (LAPACK's
 * c/z routines, lapack_names.h where the names differ); every pointer
 * goes to LAPACKE as void *, which its complex prototypes take. */
#define LAPACK_CTYPES(X) GM_FLOAT_CTYPES(X) GM_COMPLEX_CTYPES(X)
#define LAPACK_SWITCH(t, CASE, op) \
  switch (t) {                     \
    LAPACK_CTYPES(CASE)            \
    default:                       \
      return bad_ctype(op);        \
  }

/* Scratch of n items of elem bytes for a LAPACK job (at least one), after
 * the ctype check, so the jobs' switches below need no cleanup branch. */
static gm_status job_scratch(gm_ctype t, const char *op, size_t n, size_t elem, void **p) {
  if (!gm_ctype_is_float(t) && !gm_ctype_is_complex(t)) return bad_ctype(op);
  *p = malloc((n > 0 ? n : 1) * elem);
  return *p ? GM_OK : gm_fail(GM_ENOMEM, "out of host memory");
}

/* gesv of a small matrix (n <= SMALL_LU) in plain loops, LAPACK's
 * unblocked algorithm (getf2: the pivot is the first largest |a| of the
 * column, a zero pivot's column is left unscaled and info is its 1-based
 * index; getrs after it only when info is 0).  OpenBLAS's getrf + getrs
 * spend most of a stack of 8x8 solves in call overhead and its allocation
 * lock (perf), more than the arithmetic. */
enum { SMALL_LU = 16 };
#define GM_DEFINE_SMALL_LU(T, E, ...)                                                            \
  static int small_getrf_##T(int n, T *a, int *ipiv) {                                         \
    int info = 0;                                                                               \
    for (int j = 0; j < n; j++) {                                                               \
      T *cj = a + (size_t)j * (size_t)n;                                                        \
      int p = j;                                                                                \
      for (int i = j + 1; i < n; i++)                                                           \
        if (fabs((double)cj[i]) > fabs((double)cj[p])) p = i;                                   \
      ipiv[j] = p;                                                                              \
      if (cj[p] == 0) {                                                                         \
        if (info == 0) info = j + 1;                                                            \
        continue;                                                                               \
      }                                                                                         \
      if (p != j)                                                                               \
        for (int c = 0; c < n; c++) {                                                           \
          T t = a[(size_t)c * n + j];                                                           \
          a[(size_t)c * n + j] = a[(size_t)c * n + p], a[(size_t)c * n + p] = t;                \
        }                                                                                       \
      for (int i = j + 1; i < n; i++) cj[i] /= cj[j];                                           \
      for (int c = j + 1; c < n; c++) {                                                         \
        T *cc = a + (size_t)c * (size_t)n, f = cc[j];                                           \
        for (int i = j + 1; i < n; i++) cc[i] -= cj[i] * f;                                     \
      }                                                                                         \
    }                                                                                           \
    return info;                                                                                \
  }                                                                                             \
  /* one right-hand side x (n): op(A) x = b with P A = L U from above */                       \
  static void small_getrs_##T(bool trans, int n, const T *a, const int *ipiv, T *x) {           \
    if (!trans) {                                                                               \
      for (int j = 0; j < n; j++) { T t = x[j]; x[j] = x[ipiv[j]], x[ipiv[j]] = t; }            \
      for (int j = 0; j < n; j++)                                                               \
        for (int i = j + 1; i < n; i++) x[i] -= a[(size_t)j * n + i] * x[j];                    \
      for (int j = n - 1; j >= 0; j--) {                                                        \
        x[j] /= a[(size_t)j * n + j];                                                           \
        for (int i = 0; i < j; i++) x[i] -= a[(size_t)j * n + i] * x[j];                       \
      }                                                                                         \
      return;                                                                                   \
    }                                                                                           \
    for (int j = 0; j < n; j++) { /* U^T y = b */                                              \
      for (int i = 0; i < j; i++) x[j] -= a[(size_t)j * n + i] * x[i];                          \
      x[j] /= a[(size_t)j * n + j];                                                             \
    }                                                                                           \
    for (int j = n - 1; j >= 0; j--) /* L^T z = y */                                           \
      for (int i = j + 1; i < n; i++) x[j] -= a[(size_t)j * n + i] * x[i];                      \
    for (int j = n - 1; j >= 0; j--) { T t = x[j]; x[j] = x[ipiv[j]], x[ipiv[j]] = t; }         \
  }
GM_FLOAT_CTYPES(GM_DEFINE_SMALL_LU)
#undef GM_DEFINE_SMALL_LU

static gm_status h_small_gesv(const gm_linalg_job *j, int *info) {
  int ipiv[SMALL_LU];
#define X(T, E, ...)                                                                     \
  case GM_##E:                                                                           \
    *info = small_getrf_##T(j->n, j->a, ipiv);                                           \
    for (int r = 0; r < j->nrhs && *info == 0; r++)                                      \
      small_getrs_##T(j->trans, j->n, j->a, ipiv, (T *)j->b + (size_t)r * (size_t)j->n); \
    return GM_OK;
  FLOAT_SWITCH(j->t, X, "getrf")
#undef X
}

/* getrf + getrs through the _work entries: no NaN scan, so NaN input
 * gives NaN results as NumPy's (and cuSOLVER's) do. */
static gm_status h_gesv(const gm_linalg_job *j, int *info) {
  if (j->n <= SMALL_LU && !gm_ctype_is_complex(j->t)) return h_small_gesv(j, info);
  lapack_int *ipiv = NULL, r = 0;
  gm_status st = job_scratch(j->t, "getrf", (size_t)j->n, sizeof *ipiv, (void **)&ipiv);
  if (st != GM_OK) return st;
  char tr = j->trans ? 'T' : 'N';
#define X(T, E, name, kw, p, ...)                                                                   \
  case GM_##E:                                                                                      \
    r = LAPACKE_##p##getrf_work(LAPACK_COL_MAJOR, j->n, j->n, j->a, j->n, ipiv);                    \
    if (r == 0) r = LAPACKE_##p##getrs_work(LAPACK_COL_MAJOR, tr, j->n, j->nrhs, j->a, j->n, ipiv, \
                                            j->b, j->n);                                           \
    break;
  switch (j->t) { LAPACK_CTYPES(X) default: break; }
#undef X
  free(ipiv);
  *info = (int)r;
  return GM_OK;
}

static gm_status h_potrf_u(const gm_linalg_job *j, int *info) {
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##potrf_work(LAPACK_COL_MAJOR, 'U', j->n, j->a, j->n); \
    return GM_OK;
  LAPACK_SWITCH(j->t, X, "potrf")
#undef X
}

/* geqrf on a, its first k columns copied into b, orgqr (ungqr) on b:
 * through the _work entries (workspace queried first, its size the real
 * part of the element written), which skip LAPACKE's NaN scan, so a NaN
 * gives NaN factors as NumPy's (and cuSOLVER's) do. */
#define QR_WORK_(T, E, name, kw, p, ...)                                                               \
  static lapack_int qr_##E(const gm_linalg_job *j, int k, void *tau) {                                \
    T q[2];                                                                                           \
    memset(q, 0, sizeof q);                                                                           \
    lapack_int r = LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->m, tau, (void *)q, -1); \
    if (r == 0)                                                                                       \
      r = GM_LAPACK_NAME(ORGQR_WORK, p)(LAPACK_COL_MAJOR, j->m, j->qcols, k, j->b, j->m, tau, (void *)(q + 1), -1); \
    double q1 = gm_ctype_get(GM_##E, q, 0), q2 = gm_ctype_get(GM_##E, q, 1);                         \
    lapack_int lwork = (lapack_int)(q1 > q2 ? q1 : q2);                                               \
    T *work = malloc((size_t)(lwork > 0 ? lwork : 1) * sizeof *work);                                 \
    if (!work) return INT32_MIN;                                                                      \
    if (r == 0)                                                                                       \
      r = LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->m, tau, (void *)work, lwork); \
    if (r == 0) {                                                                                     \
      memcpy(j->b, j->a, (size_t)j->m * (size_t)k * sizeof(T));                                       \
      r = GM_LAPACK_NAME(ORGQR_WORK, p)(LAPACK_COL_MAJOR, j->m, j->qcols, k, j->b, j->m, tau, (void *)work, lwork); \
    }                                                                                                 \
    free(work);                                                                                       \
    return r;                                                                                         \
  }
LAPACK_CTYPES(QR_WORK_)
#undef QR_WORK_

static gm_status h_qr(const gm_linalg_job *j, int *info) {
  int k = j->m < j->n ? j->m : j->n;
  void *tau = NULL;
  gm_status st = job_scratch(j->t, "geqrf", (size_t)k, gm_ctype_size(j->t), &tau);
  if (st != GM_OK) return st;
  lapack_int r = 0;
#define X(T, E, ...)  \
  case GM_##E:        \
    r = qr_##E(j, k, tau); \
    break;
  switch (j->t) { LAPACK_CTYPES(X) default: break; }
#undef X
  free(tau);
  if (r == INT32_MIN) return gm_fail(GM_ENOMEM, "out of host memory");
  *info = (int)r;
  return GM_OK;
}

static gm_status h_syevd(const gm_linalg_job *j, int *info) {
  char jobz = j->vectors ? 'V' : 'N';
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)GM_LAPACK_NAME(SYEVD, p)(LAPACK_COL_MAJOR, jobz, 'U', j->n, j->a, j->n, j->w); \
    return GM_OK;
  LAPACK_SWITCH(j->t, X, "syevd")
#undef X
}

/* geev on a general a: w := wr then wi (2n, cuSOLVER Xgeev's real
 * layout), u := the right eigenvectors in LAPACK's real packed form when
 * vectors (a conjugate pair's vectors are columns j +- i column j+1); of
 * a complex a, w (n) and u are complex (cgeev/zgeev). */
static gm_status h_geev(const gm_linalg_job *j, int *info) {
  char jobvr = j->vectors ? 'V' : 'N';
  void *vr = j->vectors ? j->u : j->a; /* never written when 'N' */
  int ldvr = j->vectors ? j->n : 1, L = LAPACK_COL_MAJOR;
  switch (j->t) {
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##geev(L, 'N', jobvr, j->n, j->a, j->n, j->w, (T *)j->w + j->n, vr, 1, vr, ldvr); \
    return GM_OK;
    GM_FLOAT_CTYPES(X)
#undef X
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    *info = (int)LAPACKE_##p##geev(L, 'N', jobvr, j->n, j->a, j->n, j->w, vr, 1, vr, ldvr); \
    return GM_OK;
    GM_COMPLEX_CTYPES(X)
#undef X
    default: return gm_fail(GM_EINVAL, "geev: unsupported ctype");
  }
}

/* The host runs gesdd (divide and conquer, as NumPy does: faster than
 * gesvd for vectors); the devices run cuSOLVER's gesvd.  Both give the
 * singular values descending and the same subspaces. */
static gm_status h_gesvd(const gm_linalg_job *j, int *info) {
  char jobz = j->vectors ? (j->full ? 'A' : 'S') : 'N';
  void *u = j->u ? j->u : j->a, *vt = j->vt ? j->vt : j->a;
#define X(T, E, name, kw, p, ...)                                                                    \
  case GM_##E:                                                                                       \
    *info = (int)LAPACKE_##p##gesdd(LAPACK_COL_MAJOR, jobz, j->m, j->n, j->a, j->m, j->w, u, j->m, vt, \
                                    j->n);                                                           \
    return GM_OK;
  LAPACK_SWITCH(j->t, X, "gesdd")
#undef X
}

static gm_status h_trsm(void *ctx, gm_ctype t, bool left, bool upper, gm_blas_trans ta, bool unit, int m, int n,
                        double alpha, const void *a, int lda, void *b, int ldb) {
  (void)ctx;
  enum CBLAS_SIDE side = left ? CblasLeft : CblasRight;
  enum CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
  enum CBLAS_DIAG diag = unit ? CblasUnit : CblasNonUnit;
  switch (t) {
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    cblas_##p##trsm(CblasColMajor, side, uplo, cb(ta), diag, m, n, (T)alpha, a, lda, b, ldb); \
    return GM_OK;
    GM_FLOAT_CTYPES(X)
#undef X
#define X(T, E, name, kw, p, ...) /* complex: alpha by address, real */ \
  case GM_##E: {                                                        \
    T al = gm_sat_##T(alpha);                                           \
    cblas_##p##trsm(CblasColMajor, side, uplo, cb(ta), diag, m, n, &al, a, lda, b, ldb); \
    return GM_OK;                                                       \
  }
    GM_COMPLEX_CTYPES(X)
#undef X
    default: return bad_ctype("trsm");
  }
}

/* getrf with the pivots converted to w's ctype (a's, or its real type
 * for a complex a: gm_linalg_w_ctype; gm.linalg converts them to int64
 * for the user). */
static gm_status h_getrf(const gm_linalg_job *j, int *info) {
  int k = j->m < j->n ? j->m : j->n;
  lapack_int *ipiv = NULL, r = 0;
  gm_status st = job_scratch(j->t, "getrf", (size_t)k, sizeof *ipiv, (void **)&ipiv);
  if (st != GM_OK) return st;
#define X(T, E, name, kw, p, ...)                                               \
  case GM_##E:                                                                  \
    r = LAPACKE_##p##getrf_work(LAPACK_COL_MAJOR, j->m, j->n, j->a, j->m, ipiv); \
    break;
  switch (j->t) { LAPACK_CTYPES(X) default: break; }
#undef X
  for (int i = 0; i < k && r >= 0; i++) gm_ctype_set(gm_linalg_w_ctype(j), j->w, (size_t)i, (double)ipiv[i]);
  free(ipiv);
  *info = (int)r;
  return GM_OK;
}

/* getrs with GETRF's pivots read back from w (checked: 1..n). */
static gm_status h_getrs(const gm_linalg_job *j, int *info) {
  lapack_int *ipiv = NULL, r = 0;
  gm_status st = job_scratch(j->t, "getrs", (size_t)j->n, sizeof *ipiv, (void **)&ipiv);
  if (st != GM_OK) return st;
  char tr = j->trans ? 'T' : 'N';
  for (int i = 0; i < j->n && st == GM_OK; i++) {
    double v = gm_ctype_get(gm_linalg_w_ctype(j), j->w, (size_t)i);
    if (!(v >= 1 && v <= j->n) || v != (double)(int)v)
      st = gm_fail(GM_EINVAL, "pivot %d is %g, not an integer in 1..%d", i + 1, v, j->n);
    else
      ipiv[i] = (lapack_int)v;
  }
#define X(T, E, name, kw, p, ...)                                                                   \
  case GM_##E:                                                                                      \
    r = LAPACKE_##p##getrs_work(LAPACK_COL_MAJOR, tr, j->n, j->nrhs, j->a, j->n, ipiv, j->b, j->n); \
    break;
  if (st == GM_OK) switch (j->t) { LAPACK_CTYPES(X) default: break; }
#undef X
  free(ipiv);
  *info = (int)r;
  return st;
}

/* One small product of a stack (gm.linalg's GEMM job, every side at most
 * SMALL_GEMM): C = A B column-major in a plain loop, compiled per
 * instruction set.  A ?gemm call costs more than such a product (10000
 * 16x16 float products: about 1.3 us each through cblas_sgemm, 0.2-0.5
 * us for numpy, CPU time on the shared machine).  c does not overlap a or b (linalg.c checks); a and b
 * may be the same matrix (both only read). */
enum { SMALL_GEMM = 32 };
/* Rows of a column of C in blocks of 64 bytes summed in two local 32-byte
 * vectors over the whole inner dimension (GCC/Clang generic vectors: one
 * AVX register each, two SSE registers), so the accumulation never goes
 * through memory: a store-to-load chain on C per step of l measured 2x
 * slower, and so did one 64-byte generic vector, which GCC 12 keeps on
 * the stack in the AVX2 clone (10000 16x16 float products: 38-40 ms,
 * numpy 10 ms).  Then a 32-byte block, then leftover rows one by one. */
#define GM_DEFINE_SMALL_GEMM(T, E, ...)                                                                 \
  typedef T gm_vec32_##T __attribute__((vector_size(32)));                                             \
  GM_SIMD_CLONES static void small_gemm_##T(int m, int n, int k, const T *a, const T *b, T *restrict c) { \
    enum { W = 32 / sizeof(T) };                                                                       \
    for (int j = 0; j < n; j++) {                                                                      \
      const T *bj = b + (size_t)j * (size_t)k;                                                         \
      T *cj = c + (size_t)j * (size_t)m;                                                               \
      int i = 0;                                                                                       \
      for (; i + 2 * W <= m; i += 2 * W) {                                                             \
        gm_vec32_##T acc0 = {0}, acc1 = {0}, a0, a1;                                                   \
        for (int l = 0; l < k; l++) {                                                                  \
          const T *al = a + (size_t)l * (size_t)m + (size_t)i;                                         \
          memcpy(&a0, al, sizeof a0);                                                                  \
          memcpy(&a1, al + W, sizeof a1);                                                              \
          acc0 += a0 * bj[l];                                                                          \
          acc1 += a1 * bj[l];                                                                          \
        }                                                                                              \
        memcpy(cj + i, &acc0, sizeof acc0);                                                            \
        memcpy(cj + i + W, &acc1, sizeof acc1);                                                        \
      }                                                                                                \
      for (; i + W <= m; i += W) {                                                                     \
        gm_vec32_##T acc = {0}, av;                                                                    \
        for (int l = 0; l < k; l++) {                                                                  \
          memcpy(&av, a + (size_t)l * (size_t)m + (size_t)i, sizeof av);                               \
          acc += av * bj[l];                                                                           \
        }                                                                                              \
        memcpy(cj + i, &acc, sizeof acc);                                                              \
      }                                                                                                \
      for (; i < m; i++) {                                                                             \
        T sum = 0;                                                                                     \
        for (int l = 0; l < k; l++) sum += a[(size_t)l * (size_t)m + (size_t)i] * bj[l];               \
        cj[i] = sum;                                                                                   \
      }                                                                                                \
    }                                                                                                  \
  }
GM_FLOAT_CTYPES(GM_DEFINE_SMALL_GEMM)
#undef GM_DEFINE_SMALL_GEMM

/* One product: u := a b (the job's matrices). */
static gm_status h_one_gemm(const gm_linalg_job *j) {
  if (j->m > SMALL_GEMM || gm_ctype_is_complex(j->t) || j->n > SMALL_GEMM || j->nrhs > SMALL_GEMM)
    return h_gemm(NULL, j->t, GM_BLAS_N, GM_BLAS_N, j->m, j->n, j->nrhs, 1.0, j->a, j->m, j->b, j->nrhs, 0.0, j->u,
                  j->m);
#define X(T, E, ...)                                        \
  case GM_##E:                                              \
    small_gemm_##T(j->m, j->n, j->nrhs, j->a, j->b, j->u);  \
    return GM_OK;
  FLOAT_SWITCH(j->t, X, "gemm")
#undef X
}

/* The stack's products one after the other (job.batch of them). */
static gm_status h_stack_gemm(const gm_linalg_job *j) {
  size_t batch = j->batch ? j->batch : 1;
  gm_status st = GM_OK;
  for (size_t i = 0; i < batch && st == GM_OK; i++) {
    gm_linalg_job one = gm_linalg_job_at(j, i);
    st = h_one_gemm(&one);
  }
  return st;
}

/* One job on one matrix. */
static gm_status h_linalg_one(const gm_linalg_job *j, int *info) {
  switch (j->kind) {
    case GM_LA_GESV: return h_gesv(j, info);
    case GM_LA_POTRF: return h_potrf_u(j, info);
    case GM_LA_QR: return h_qr(j, info);
    case GM_LA_SYEVD: return h_syevd(j, info);
    case GM_LA_GEEV: return h_geev(j, info);
    case GM_LA_GESVD: return h_gesvd(j, info);
    case GM_LA_TRSM:
      return h_trsm(NULL, j->t, j->left, j->upper, j->trans ? GM_BLAS_T : GM_BLAS_N, j->unit,
                    j->left ? j->n : j->nrhs, j->left ? j->nrhs : j->n, 1.0, j->a, j->n, j->b,
                    j->left ? j->n : j->nrhs);
    case GM_LA_GEMM: return h_one_gemm(j); /* h_linalg runs a stack's itself */
    case GM_LA_GETRF: return h_getrf(j, info);
    case GM_LA_GETRS: return h_getrs(j, info);
  }
  return gm_fail(GM_EINVAL, "linalg: unknown job %d", (int)j->kind);
}

/* The stack's matrices one after the other, stopping where it failed. */
static gm_status h_linalg(void *ctx, const gm_linalg_job *j, int *infos) {
  (void)ctx;
  if (j->kind == GM_LA_GEMM) return h_stack_gemm(j);
  size_t batch = j->batch ? j->batch : 1;
  for (size_t i = 0; i < batch; i++) {
    gm_linalg_job one = gm_linalg_job_at(j, i);
    infos[i] = 0;
    GM_TRY(h_linalg_one(&one, &infos[i]));
    if (infos[i] < 0 || (infos[i] > 0 && j->kind != GM_LA_GETRF)) break;
  }
  return GM_OK;
}

const gm_blas_ops gm_host_blas_ops = {
    .asum = h_asum,
    .nrm2 = h_nrm2,
    .dot = h_dot,
    .axpy = h_axpy,
    .copy = h_copy,
    .scal = h_scal,
    .gemm = h_gemm,
    .syrk = h_syrk,
    .geam = h_geam,
    .invert = h_invert,
    .logdet = h_logdet,
    .potrf = h_potrf,
    .geqrf = h_geqrf,
    .orgqr = h_orgqr,
    .trsm = h_trsm,
    .linalg = h_linalg,
};
