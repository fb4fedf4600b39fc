/* cuSOLVER's dense LU entry points on the emulated device: LAPACK with
 * exactly cuSOLVER's arguments (column-major, pivots and info written to
 * device memory, a workspace of getrf_bufferSize elements), so the shared
 * invert/logdet of ../solver.c run here as they do on the CUDA backend. */
#include <lapacke.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/ops/blas_ops.h"
#include "../../core/mem/backends.h"
#include "alias.h"
#include "emulated.h"
#include "launchers.h"
#include "../solver.h"
#include "../../host/lapack_names.h"

_Static_assert(sizeof(lapack_int) == sizeof(int), "cuSOLVER's pivots are int");

/* LAPACK's getrf needs no workspace; cuSOLVER's does.  One element keeps
 * the argument non-NULL as on the GPU. */
static gm_status emu_getrf_buffer_size(void *ctx, gm_ctype t, int n, void *a, int lda, int *lwork) {
  (void)ctx;
  (void)t;
  (void)n;
  (void)a;
  (void)lda;
  *lwork = 1;
  return GM_OK;
}

/* LAPACKE's NaN check is the host's business: solver.c checks first, so
 * call the plain LAPACK routine through LAPACKE_*_work (no NaN scan).
 * Both run queued on the compute stream (closures below), as cuSOLVER's
 * kernels do; the caller reads info and the pivots with a synchronous
 * copy, which waits. */
typedef struct lu_task {
  bool solve; /* getrs, else getrf */
  gm_ctype t;
  int n, nrhs, lda, ldb;
  void *a, *b;
  int *ipiv, *info;
} lu_task;

static int run_lu(void *arg) {
  lu_task *k = arg;
  k->a = gm_emu_alias(k->a); /* the worker's addresses (alias.h) */
  k->b = gm_emu_alias(k->b);
  k->ipiv = gm_emu_alias(k->ipiv);
  k->info = gm_emu_alias(k->info);
  lapack_int r = 0;
  int st = 0;
#define X(T, E, name, kw, p, ...)                                                                             \
  case GM_##E:                                                                                                \
    r = k->solve ? LAPACKE_##p##getrs_work(LAPACK_COL_MAJOR, 'N', k->n, k->nrhs, k->a, k->lda, k->ipiv, k->b, \
                                           k->ldb)                                                            \
                 : LAPACKE_##p##getrf_work(LAPACK_COL_MAJOR, k->n, k->n, k->a, k->lda, k->ipiv);              \
    break;
  GM_FLOAT_CTYPE_SWITCH(k->t, X, st = (int)gm_fail(GM_EINVAL, "%s: unsupported ctype", k->solve ? "getrs" : "getrf"))
#undef X
  if (st == 0) *k->info = (int)r;
  free(k);
  return st;
}

static gm_status queue_lu(void *ctx, const lu_task *proto) {
  lu_task *k = malloc(sizeof *k);
  if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
  *k = *proto;
  gm_emu_enqueue(ctx, run_lu, k);
  return GM_OK;
}

static gm_status emu_getrf(void *ctx, gm_ctype t, int n, void *a, int lda, void *work, int *ipiv, int *info) {
  if (!work) return gm_fail(GM_EINVAL, "getrf: workspace is NULL");
  return queue_lu(ctx, &(lu_task){.solve = false, .t = t, .n = n, .a = a, .lda = lda, .ipiv = ipiv, .info = info});
}

static gm_status emu_getrs(void *ctx, gm_ctype t, int n, int nrhs, const void *a, int lda, const int *ipiv,
                           void *b, int ldb, int *info) {
  return queue_lu(ctx, &(lu_task){.solve = true, .t = t, .n = n, .nrhs = nrhs, .a = (void *)a, .lda = lda,
                                  .b = b, .ldb = ldb, .ipiv = (int *)ipiv, .info = info});
}


/* ---- gm.linalg's calls (../solver.h: gm_solver_call) ---- */

/* The calls' rows: the real floating ctypes and the complex ones (the
 * names and extra arguments per row: ../../host/lapack_names.h). */
#define LAPACK_CTYPES(X) GM_FLOAT_CTYPES(X) GM_COMPLEX_CTYPES(X)

/* heevd's documented minimum workspaces (LAPACK's query of syevd/heevd
 * needs none of the matrix): lwork in elements of the ctype, lrwork
 * reals (the complex rows), liwork ints */
static long long heevd_lwork(bool cx, bool vectors, long long n) {
  if (cx) return vectors ? 2 * n + n * n : n + 1;
  return vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
}

static long long heevd_lrwork(bool vectors, long long n) { return vectors ? 1 + 5 * n + 2 * n * n : n; }

/* cuSOLVER's bufferSize: LAPACK's own workspace query (lwork = -1, no
 * matrix element read; the size is the real part of the element it
 * writes), so the device workspace is the one LAPACK uses; syevd's is
 * LAPACK's documented minimum (its iwork and the complex rows' rwork are
 * the closure's). */
static gm_status emu_call_buffer_size(void *ctx, const gm_solver_call *c, int *lwork) {
  (void)ctx;
  lapack_int r = 0;
  int n = c->n, ldu = c->ldu > 0 ? c->ldu : 1, ldvt = c->ldvt > 0 ? c->ldvt : 1;
  char jobvr = c->vectors ? 'V' : 'N';
  switch (c->fn) {
    case GM_SV_GEQRF: case GM_SV_ORGQR: case GM_SV_GESVD: case GM_SV_GEEV: break;
    case GM_SV_SYEVD: {
      long long need = heevd_lwork(gm_ctype_is_complex(c->t), c->vectors, n);
      if (need > INT_MAX) return gm_fail(GM_ERANGE, "syevd: workspace too large for LAPACK");
      *lwork = (int)need;
      return GM_OK;
    }
    default: *lwork = 1; return GM_OK;
  }
  double q[2] = {1, 1}, rd[2] = {0, 0}; /* the query's element (one complex128 at most); a real workspace */
#define X(T, E, name, kw, p, ...)                                                                              \
  case GM_##E: {                                                                                               \
    T d[1];                                                                                                    \
    memset(d, 0, sizeof d);                                                                                    \
    void *qv = q, *dv = d, *rv = rd;                                                                           \
    r = c->fn == GM_SV_GEQRF   ? LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, c->m, n, dv, c->lda, dv, qv, -1)    \
        : c->fn == GM_SV_ORGQR ? GM_LAPACK_NAME(ORGQR_WORK, p)(LAPACK_COL_MAJOR, c->m, n, c->k, dv, c->lda, dv, qv, -1) \
        : c->fn == GM_SV_GEEV  ? LAPACKE_##p##geev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, dv, c->lda,           \
                                                        GM_LAPACK_GEEV_W_##p(T, dv, 0), dv, 1, dv, ldu, qv,    \
                                                        -1 GM_LAPACK_RWORK_##p(rv))                            \
                               : LAPACKE_##p##gesvd_work(LAPACK_COL_MAJOR, c->jobu, c->jobvt, c->m, n, dv, c->lda, \
                                                         rv, dv, ldu, dv, ldvt, qv, -1 GM_LAPACK_RWORK_##p(rv)); \
    break;                                                                                                     \
  }
  switch (c->t) {
    LAPACK_CTYPES(X)
    default: return gm_fail(GM_EINVAL, "linalg: unsupported ctype");
  }
#undef X
  if (r != 0) return gm_fail(GM_ELAPACK, "workspace query failed (info %d)", (int)r);
  *lwork = (int)gm_ctype_get(c->t, q, 0);
  return GM_OK;
}

/* The call, queued as cuSOLVER's kernels are: a copy of its arguments
 * runs on the worker against the aliases of its device pointers.  syevd's
 * integer workspace (cuSOLVER has none) and the complex rows' real one
 * (cuSOLVER keeps it inside its workspace: heevd's, gesvd's, Xgeev's host
 * buffer) are the closure's own. */
typedef struct la_extra {
  lapack_int liwork, lrwork, *iwork;
  double *rwork; /* reals of the ctype's precision (a double each is room enough) */
} la_extra;

static int la_extra_alloc(const gm_solver_call *c, la_extra *x) {
  long long n = c->n, k = c->m < c->n ? c->m : c->n;
  x->liwork = c->vectors ? 3 + 5 * c->n : 1;
  x->lrwork = c->fn == GM_SV_SYEVD ? (lapack_int)heevd_lrwork(c->vectors, n) : c->fn == GM_SV_GEEV ? 2 * c->n : 5 * (lapack_int)k;
  bool rw = gm_ctype_is_complex(c->t) && (c->fn == GM_SV_SYEVD || c->fn == GM_SV_GESVD || c->fn == GM_SV_GEEV);
  x->iwork = c->fn == GM_SV_SYEVD ? malloc((size_t)x->liwork * sizeof *x->iwork) : NULL;
  x->rwork = rw ? malloc((size_t)(x->lrwork > 0 ? x->lrwork : 1) * sizeof *x->rwork) : NULL;
  if ((c->fn == GM_SV_SYEVD && !x->iwork) || (rw && !x->rwork)) {
    free(x->iwork);
    free(x->rwork);
    return (int)gm_fail(GM_ENOMEM, "out of host memory");
  }
  return 0;
}

static int run_la_lapack(gm_solver_call *c, lapack_int *r) {
  la_extra x;
  int L = LAPACK_COL_MAJOR, n = c->n, st = la_extra_alloc(c, &x);
  if (st != 0) return st;
  char tr = c->trans ? 'T' : 'N', jobz = c->vectors ? 'V' : 'N';
  int ldu = c->ldu > 0 ? c->ldu : 1, ldvt = c->ldvt > 0 ? c->ldvt : 1;
#define X(T, E, name, kw, p, ...)                                                                          \
  case GM_##E:                                                                                             \
    switch (c->fn) {                                                                                       \
      case GM_SV_GETRF: *r = LAPACKE_##p##getrf_work(L, c->m, n, c->a, c->lda, c->ipiv); break;            \
      case GM_SV_GETRS:                                                                                    \
        *r = LAPACKE_##p##getrs_work(L, tr, n, c->k, c->a, c->lda, c->ipiv, c->b, c->ldb);                  \
        break;                                                                                             \
      case GM_SV_POTRF: *r = LAPACKE_##p##potrf_work(L, 'U', n, c->a, c->lda); break;                      \
      case GM_SV_GEQRF: *r = LAPACKE_##p##geqrf_work(L, c->m, n, c->a, c->lda, c->w, c->work, c->lwork); break; \
      case GM_SV_ORGQR:                                                                                    \
        *r = GM_LAPACK_NAME(ORGQR_WORK, p)(L, c->m, n, c->k, c->a, c->lda, c->w, c->work, c->lwork);       \
        break;                                                                                             \
      case GM_SV_SYEVD:                                                                                    \
        *r = GM_LAPACK_NAME(SYEVD_WORK, p)(L, jobz, 'U', n, c->a, c->lda, c->w, c->work, c->lwork           \
                                           GM_LAPACK_HEEVD_RWORK_##p(x.rwork, x.lrwork), x.iwork, x.liwork); \
        break;                                                                                             \
      case GM_SV_GEEV: /* vr is not referenced without vectors */                                         \
        *r = LAPACKE_##p##geev_work(L, 'N', jobz, n, c->a, c->lda, GM_LAPACK_GEEV_W_##p(T, c->w, n), c->a, 1, \
                                    c->u ? c->u : c->a, ldu, c->work, c->lwork GM_LAPACK_RWORK_##p(x.rwork)); \
        break;                                                                                             \
      case GM_SV_GESVD:                                                                                    \
        *r = LAPACKE_##p##gesvd_work(L, c->jobu, c->jobvt, c->m, n, c->a, c->lda, c->w, c->u, ldu, c->vt,  \
                                     ldvt, c->work, c->lwork GM_LAPACK_RWORK_##p(x.rwork));                \
        break;                                                                                             \
    }                                                                                                      \
    break;
  switch (c->t) {
    LAPACK_CTYPES(X)
    default: st = (int)gm_fail(GM_EINVAL, "linalg: unsupported ctype");
  }
#undef X
  free(x.iwork);
  free(x.rwork);
  return st;
}

static int run_la(void *arg) {
  gm_solver_call *c = arg;
  void **ptrs[] = {&c->a, &c->b, &c->w, &c->u, &c->vt, &c->work};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) *ptrs[i] = gm_emu_alias(*ptrs[i]);
  c->ipiv = gm_emu_alias(c->ipiv);
  c->info = gm_emu_alias(c->info);
  lapack_int r = 0;
  int st = run_la_lapack(c, &r);
  if (st == 0) *c->info = (int)r;
  free(c);
  return st;
}

static gm_status emu_call(void *ctx, const gm_solver_call *c) {
  if (!c->work) return gm_fail(GM_EINVAL, "linalg: workspace is NULL");
  gm_solver_call *k = malloc(sizeof *k);
  if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
  *k = *c;
  gm_emu_enqueue(ctx, run_la, k);
  return GM_OK;
}

/* ---- the batched entries: one closure runs the stack with LAPACK ---- */

typedef enum { BT_POTRF, BT_GETRF, BT_GETRS, BT_SYEVJ } batch_kind;

typedef struct batch_task {
  batch_kind kind;
  gm_ctype t;
  bool trans;
  int n, nrhs, lda, ldb, batch;
  bool vectors;    /* syevj */
  void **as, **bs; /* device arrays of device pointers */
  void *a, *w;     /* syevj: the strided stack, its eigenvalues */
  int *ipiv, *infos;
} batch_task;

/* syevjBatched's info from syevd's: n + 1 for "no convergence" */
static lapack_int syevj_info(lapack_int r, int n) { return r > 0 ? n + 1 : r; }

/* Matrix i's LAPACK call; the return is LAPACK's info. */
static lapack_int batch_one(const batch_task *k, void *a, void *b, int *ipiv) {
  int L = LAPACK_COL_MAJOR;
#define X(T, E, name, kw, p, ...)                                                                             \
  case GM_##E:                                                                                                \
    switch (k->kind) {                                                                                        \
      case BT_POTRF: return LAPACKE_##p##potrf_work(L, 'U', k->n, a, k->lda);                                 \
      case BT_GETRF: return LAPACKE_##p##getrf_work(L, k->n, k->n, a, k->lda, ipiv);                          \
      case BT_GETRS:                                                                                          \
        return LAPACKE_##p##getrs_work(L, k->trans ? 'T' : 'N', k->n, k->nrhs, a, k->lda, ipiv, b, k->ldb);   \
      case BT_SYEVJ: /* syevd (heevd): the same eigenvalues, ascending; n + 1 as syevj's "no convergence" */ \
        return syevj_info(GM_LAPACK_NAME(SYEVD, p)(L, k->vectors ? 'V' : 'N', 'U', k->n, a, k->lda, b), k->n); \
    }                                                                                                         \
    break;
  switch (k->t) {
    LAPACK_CTYPES(X)
    default: break;
  }
#undef X
  return -1;
}

/* The pointer arrays are device data: each element is aliased into a
 * local copy, never written back. */
static int run_batch(void *arg) {
  batch_task *k = arg;
  void **as = k->as ? gm_emu_alias(k->as) : NULL, **bs = k->bs ? gm_emu_alias(k->bs) : NULL;
  int *ipiv = k->ipiv ? gm_emu_alias(k->ipiv) : NULL, *infos = k->infos ? gm_emu_alias(k->infos) : NULL;
  int st = 0;
  /* syevj's eigenvalues are real (of a complex stack too) */
  size_t elem = gm_ctype_size(k->t), welem = gm_ctype_size(gm_ctype_real_of(k->t)), un = (size_t)k->n;
  char *sa = k->a ? gm_emu_alias(k->a) : NULL, *sw = k->w ? gm_emu_alias(k->w) : NULL;
  for (int i = 0; i < k->batch && st == 0; i++) {
    void *a = sa ? sa + (size_t)i * (size_t)k->lda * un * elem : gm_emu_alias(as[i]);
    void *b = sw ? sw + (size_t)i * un * welem : bs ? gm_emu_alias(bs[i]) : NULL;
    lapack_int r = batch_one(k, a, b, ipiv ? ipiv + (size_t)i * (size_t)k->n : NULL);
    if (infos) infos[i] = (int)r;
    else if (r < 0) st = (int)gm_fail(GM_EINVAL, "getrsBatched: argument %d rejected", (int)-r);
  }
  free(k);
  return st;
}

static gm_status queue_batch(void *ctx, const batch_task *proto) {
  if (!gm_ctype_is_float(proto->t) && !gm_ctype_is_complex(proto->t))
    return gm_fail(GM_EINVAL, "batched solver: unsupported ctype");
  batch_task *k = malloc(sizeof *k);
  if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
  *k = *proto;
  gm_emu_enqueue(ctx, run_batch, k);
  return GM_OK;
}

static gm_status emu_potrf_batched(void *ctx, gm_ctype t, int n, void **as, int lda, int *infos, int batch) {
  return queue_batch(ctx, &(batch_task){.kind = BT_POTRF, .t = t, .n = n, .lda = lda, .as = as, .infos = infos,
                                        .batch = batch});
}

static gm_status emu_getrf_batched(void *ctx, gm_ctype t, int n, void **as, int lda, int *ipiv, int *infos,
                                   int batch) {
  return queue_batch(ctx, &(batch_task){.kind = BT_GETRF, .t = t, .n = n, .lda = lda, .as = as, .ipiv = ipiv,
                                        .infos = infos, .batch = batch});
}

static gm_status emu_syevj_batched(void *ctx, gm_ctype t, bool vectors, int n, void *a, int lda, void *w,
                                   int *infos, int batch) {
  return queue_batch(ctx, &(batch_task){.kind = BT_SYEVJ, .t = t, .vectors = vectors, .n = n, .lda = lda, .a = a,
                                        .w = w, .infos = infos, .batch = batch});
}

/* cuBLAS checks getrsBatched's arguments on the host, before it queues */
static gm_status emu_getrs_batched(void *ctx, gm_ctype t, bool trans, int n, int nrhs, void **as, int lda,
                                   const int *ipiv, void **bs, int ldb, int batch) {
  int lo = n > 1 ? n : 1;
  if (n < 0 || nrhs < 0 || lda < lo || ldb < lo || batch < 0)
    return gm_fail(GM_EINVAL, "getrsBatched: bad arguments");
  return queue_batch(ctx, &(batch_task){.kind = BT_GETRS, .t = t, .trans = trans, .n = n, .nrhs = nrhs,
                                        .lda = lda, .ldb = ldb, .as = as, .bs = bs, .ipiv = (int *)ipiv,
                                        .batch = batch});
}

/* gesvdjBatched: gesdd per matrix (the same singular values, descending;
 * U full), its V^H turned into the V gesvdj gives, and info min(m, n) + 1
 * for "no convergence" as gesvdj's. */
typedef struct gesvdj_task {
  gm_ctype t;
  bool vectors;
  int m, n, lda, ldu, ldv, batch;
  void *a, *s, *u, *v;
  int *infos;
} gesvdj_task;

/* v (ldv) := the conjugate transpose of vt (n x n, tight), column-major;
 * a complex element's imaginary part is the real after its real part */
static void conj_transpose(gm_ctype t, int n, const char *vt, char *v, int ldv) {
  size_t elem = gm_ctype_size(t), un = (size_t)n;
  gm_ctype rt = gm_ctype_real_of(t);
  for (size_t c = 0; c < un; c++)
    for (size_t r = 0; r < un; r++) {
      char *dst = v + (r + c * (size_t)ldv) * elem;
      memcpy(dst, vt + (c + r * un) * elem, elem);
      if (gm_ctype_is_complex(t)) gm_ctype_set(rt, dst, 1, -gm_ctype_get(rt, dst, 1));
    }
}

static lapack_int gesdd_one(const gesvdj_task *k, void *a, void *s, void *u, void *vt) {
  int L = LAPACK_COL_MAJOR, ldu = k->ldu > 0 ? k->ldu : 1;
  char jobz = k->vectors ? 'A' : 'N';
#define X(T, E, name, kw, p, ...) \
  case GM_##E:                    \
    return LAPACKE_##p##gesdd(L, jobz, k->m, k->n, a, k->lda, s, u, ldu, vt, k->n > 0 ? k->n : 1);
  switch (k->t) {
    LAPACK_CTYPES(X)
    default: break;
  }
#undef X
  return -1;
}

static int run_gesvdj(void *arg) {
  gesvdj_task *k = arg;
  char *a = gm_emu_alias(k->a), *s = gm_emu_alias(k->s), *u = k->u ? gm_emu_alias(k->u) : NULL;
  char *v = k->v ? gm_emu_alias(k->v) : NULL;
  int *infos = gm_emu_alias(k->infos), mn = k->m < k->n ? k->m : k->n;
  size_t elem = gm_ctype_size(k->t), relem = gm_ctype_size(gm_ctype_real_of(k->t));
  char *vt = k->vectors ? malloc((size_t)k->n * (size_t)k->n * elem + 1) : NULL;
  if (k->vectors && !vt) {
    free(k);
    return (int)gm_fail(GM_ENOMEM, "out of host memory");
  }
  for (int i = 0; i < k->batch; i++) {
    size_t at = (size_t)i;
    char *ai = a + at * (size_t)k->lda * (size_t)k->n * elem, *ui = u ? u + at * (size_t)k->ldu * (size_t)k->m * elem : ai;
    lapack_int r = gesdd_one(k, ai, s + at * (size_t)mn * relem, ui, vt ? vt : ai);
    infos[i] = r > 0 ? mn + 1 : (int)r;
    if (vt && v && r == 0) conj_transpose(k->t, k->n, vt, v + at * (size_t)k->ldv * (size_t)k->n * elem, k->ldv);
  }
  free(vt);
  free(k);
  return 0;
}

static gm_status emu_gesvdj_batched(void *ctx, gm_ctype t, bool vectors, int m, int n, void *a, int lda, void *s,
                                    void *u, int ldu, void *v, int ldv, int *infos, int batch) {
  /* U and V are needed for the singular values alone too: on an H200
   * gesvdjBatched wrote them with jobz NOVECTOR (an illegal address for NULL) */
  if (m < 0 || n < 0 || m > 32 || n > 32 || lda < (m > 1 ? m : 1) || batch < 0 || !u || !v ||
      ldu < (m > 1 ? m : 1) || ldv < (n > 1 ? n : 1))
    return gm_fail(GM_EINVAL, "gesvdjBatched: bad arguments (m and n at most 32; U and V even without vectors)");
  if (!gm_ctype_is_float(t) && !gm_ctype_is_complex(t)) return gm_fail(GM_EINVAL, "gesvdjBatched: unsupported ctype");
  gesvdj_task *k = malloc(sizeof *k);
  if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
  *k = (gesvdj_task){.t = t, .vectors = vectors, .m = m, .n = n, .lda = lda, .ldu = ldu, .ldv = ldv, .batch = batch,
                     .a = a, .s = s, .u = u, .v = v, .infos = infos};
  gm_emu_enqueue(ctx, run_gesvdj, k);
  return GM_OK;
}

/* Scratch is emulated device memory (raw allocations, protected outside
 * device calls like every other device block). */
static gm_status emu_scratch_alloc(void *ctx, size_t bytes, void **out) {
  gm_device *d = ctx;
  return d->ops->raw_alloc(d, bytes, out);
}

static void emu_scratch_free(void *ctx, void *p) {
  gm_device *d = ctx;
  d->ops->raw_free(d, p);
}

static gm_status emu_read(void *ctx, void *dst, const void *src, size_t bytes) {
  gm_device *d = ctx;
  return d->ops->copy_d2h(d, dst, src, bytes, NULL);
}

/* after the queued work (the pointers may be its scratch), synchronous */
static gm_status emu_write(void *ctx, void *dst, const void *src, size_t bytes) {
  gm_device *d = ctx;
  GM_TRY(d->ops->stream_sync(d, NULL));
  return d->ops->copy_h2d(d, dst, src, bytes, NULL);
}

static const gm_solver_ops emu_solver = {
    .getrf_buffer_size = emu_getrf_buffer_size,
    .getrf = emu_getrf,
    .getrs = emu_getrs,
    .call_buffer_size = emu_call_buffer_size,
    .call = emu_call,
    .scratch_alloc = emu_scratch_alloc,
    .scratch_free = emu_scratch_free,
    .read = emu_read,
    .write = emu_write,
    .potrf_batched = emu_potrf_batched,
    .getrf_batched = emu_getrf_batched,
    .getrs_batched = emu_getrs_batched,
    .syevj_batched = emu_syevj_batched,
    .gesvdj_batched = emu_gesvdj_batched,
};

static gm_status emu_invert(void *ctx, gm_ctype t, int n, void *a, int lda) {
  return gm_solver_invert(&emu_solver, ctx, t, n, a, lda);
}

static gm_status emu_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign) {
  return gm_solver_logdet(&emu_solver, ctx, t, n, a, lda, logabs, sign);
}

static gm_status emu_linalg(void *ctx, const gm_linalg_job *job, int *infos) {
  return gm_solver_linalg(&emu_solver, ctx, job, infos);
}

/* The host's BLAS table with cuSOLVER-shaped invert/logdet. */
const gm_blas_ops *gm_emulated_blas_ops(const gm_blas_ops *host) {
  static gm_blas_ops ops;
  ops = *host;
  gm_emulated_blas_queued(&ops);
  ops.invert = emu_invert;
  ops.logdet = emu_logdet;
  ops.linalg = emu_linalg;
  ops.syrk = NULL; /* gemm, as on CUDA (the host's entry is not queued) */
  ops.potrf = NULL; /* host-facet only, as on CUDA */
  ops.geqrf = NULL;
  ops.orgqr = NULL;
  return &ops;
}
