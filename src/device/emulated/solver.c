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

#define FLOAT_SWITCH(t, CASE, DEFAULT) \
  switch (t) {                         \
    GM_FLOAT_CTYPES(CASE)              \
    default:                           \
      DEFAULT;                         \
  }

/* cuSOLVER's bufferSize: LAPACK's own workspace query (lwork = -1, no
 * matrix element read), so the device workspace is the one LAPACK uses;
 * syevd's is LAPACK's documented minimum (its iwork is the closure's). */
/* cgeev/zgeev's workspace query (complex elements; rwork is the
 * closure's) */
static gm_status complex_geev_size(const gm_solver_call *c, int *lwork) {
  double q = 1;
  lapack_int r = 0;
  int ldu = c->ldu > 0 ? c->ldu : 1;
  char jobvr = c->vectors ? 'V' : 'N';
#define X(T, E, name, kw, p, ...)                                                                              \
  case GM_##E: {                                                                                               \
    T qv = {1, 0}, d[1] = {{0, 0}};                                                                            \
    __typeof__(qv.re) rd = 0;                                                                                  \
    r = LAPACKE_##p##geev_work(LAPACK_COL_MAJOR, 'N', jobvr, c->n, (void *)d, c->lda, (void *)d, (void *)d, 1, \
                               (void *)d, ldu, (void *)&qv, -1, &rd);                                          \
    q = (double)qv.re;                                                                                         \
    break;                                                                                                     \
  }
  switch (c->t) {
    GM_COMPLEX_CTYPES(X)
    default: return gm_fail(GM_EINVAL, "geev: unsupported ctype");
  }
#undef X
  if (r != 0) return gm_fail(GM_ELAPACK, "workspace query failed (info %d)", (int)r);
  *lwork = (int)q;
  return GM_OK;
}

static gm_status emu_call_buffer_size(void *ctx, const gm_solver_call *c, int *lwork) {
  (void)ctx;
  if (gm_ctype_kind(c->t) == GM_KIND_COMPLEX) return complex_geev_size(c, lwork);
  double q = 1;
  lapack_int r = 0;
  int n = c->n, ldu = c->ldu > 0 ? c->ldu : 1, ldvt = c->ldvt > 0 ? c->ldvt : 1;
  switch (c->fn) {
    case GM_SV_GEQRF: case GM_SV_ORGQR: case GM_SV_GESVD: case GM_SV_GEEV: break;
    case GM_SV_SYEVD: {
      long long nn = n, need = c->vectors ? 1 + 6 * nn + 2 * nn * nn : 2 * nn + 1;
      if (need > INT_MAX) return gm_fail(GM_ERANGE, "syevd: workspace too large for LAPACK");
      *lwork = (int)need;
      return GM_OK;
    }
    default: *lwork = 1; return GM_OK;
  }
#define X(T, E, name, kw, p, ...)                                                                              \
  case GM_##E: {                                                                                               \
    T qv = 1, d[1] = {0};                                                                                      \
    r = c->fn == GM_SV_GEQRF   ? LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, c->m, n, d, c->lda, d, &qv, -1)     \
        : c->fn == GM_SV_ORGQR ? LAPACKE_##p##orgqr_work(LAPACK_COL_MAJOR, c->m, n, c->k, d, c->lda, d, &qv, -1) \
        : c->fn == GM_SV_GEEV  ? LAPACKE_##p##geev_work(LAPACK_COL_MAJOR, 'N', c->vectors ? 'V' : 'N', n, d,    \
                                                        c->lda, d, d, d, 1, d, ldu, &qv, -1)                  \
                               : LAPACKE_##p##gesvd_work(LAPACK_COL_MAJOR, c->jobu, c->jobvt, c->m, n, d, c->lda, \
                                                         d, d, ldu, d, ldvt, &qv, -1);                         \
    q = (double)qv;                                                                                            \
    break;                                                                                                     \
  }
  FLOAT_SWITCH(c->t, X, return gm_fail(GM_EINVAL, "linalg: unsupported ctype"))
#undef X
  if (r != 0) return gm_fail(GM_ELAPACK, "workspace query failed (info %d)", (int)r);
  *lwork = (int)q;
  return GM_OK;
}


/* The call, queued as cuSOLVER's kernels are: a copy of its arguments
 * runs on the worker against the aliases of its device pointers.  syevd's
 * integer workspace (cuSOLVER has none) is the closure's own. */
static int run_la_float(gm_solver_call *c, lapack_int *r);

/* cgeev/zgeev, the one complex call: its rwork (2n reals; cuSOLVER's
 * Xgeev keeps it in its host workspace) is the closure's own */
static int run_la_complex(gm_solver_call *c, lapack_int *r) {
  size_t n2 = 2 * (size_t)(c->n > 0 ? c->n : 1);
  char jobvr = c->vectors ? 'V' : 'N';
  int ldu = c->ldu > 0 ? c->ldu : 1, st = 0;
  void *vr = c->u ? c->u : c->a;
#define X(T, E, name, kw, p, ...)                                                                             \
  case GM_##E: {                                                                                              \
    __typeof__(((T *)0)->re) *rwork = malloc(n2 * sizeof *rwork);                                            \
    if (!rwork) return (int)gm_fail(GM_ENOMEM, "out of host memory");                                        \
    *r = LAPACKE_##p##geev_work(LAPACK_COL_MAJOR, 'N', jobvr, c->n, c->a, c->lda, c->w, vr, 1, vr, ldu, c->work, \
                                c->lwork, rwork);                                                             \
    free(rwork);                                                                                              \
    break;                                                                                                    \
  }
  switch (c->t) {
    GM_COMPLEX_CTYPES(X)
    default: st = (int)gm_fail(GM_EINVAL, "geev: unsupported ctype");
  }
#undef X
  return st;
}

static int run_la(void *arg) {
  gm_solver_call *c = arg;
  void **ptrs[] = {&c->a, &c->b, &c->w, &c->u, &c->vt, &c->work};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) *ptrs[i] = gm_emu_alias(*ptrs[i]);
  c->ipiv = gm_emu_alias(c->ipiv);
  c->info = gm_emu_alias(c->info);
  lapack_int r = 0;
  int st = gm_ctype_kind(c->t) == GM_KIND_COMPLEX ? run_la_complex(c, &r) : run_la_float(c, &r);
  if (st == 0) *c->info = (int)r;
  free(c);
  return st;
}

static int run_la_float(gm_solver_call *c, lapack_int *r) {
  int L = LAPACK_COL_MAJOR, n = c->n;
  lapack_int liwork = c->vectors ? 3 + 5 * n : 1, *iwork = NULL;
  if (c->fn == GM_SV_SYEVD && !(iwork = malloc((size_t)liwork * sizeof *iwork)))
    return (int)gm_fail(GM_ENOMEM, "out of host memory");
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
        *r = LAPACKE_##p##orgqr_work(L, c->m, n, c->k, c->a, c->lda, c->w, c->work, c->lwork);             \
        break;                                                                                             \
      case GM_SV_SYEVD:                                                                                    \
        *r = LAPACKE_##p##syevd_work(L, jobz, 'U', n, c->a, c->lda, c->w, c->work, c->lwork, iwork, liwork); \
        break;                                                                                             \
      case GM_SV_GEEV: /* vr is not referenced without vectors */                                         \
        *r = LAPACKE_##p##geev_work(L, 'N', jobz, n, c->a, c->lda, c->w, (T *)c->w + n, c->a, 1,            \
                                    c->u ? c->u : c->a, ldu, c->work, c->lwork);                           \
        break;                                                                                             \
      case GM_SV_GESVD:                                                                                    \
        *r = LAPACKE_##p##gesvd_work(L, c->jobu, c->jobvt, c->m, n, c->a, c->lda, c->w, c->u, ldu, c->vt,  \
                                     ldvt, c->work, c->lwork);                                             \
        break;                                                                                             \
    }                                                                                                      \
    break;
  int st = 0;
  FLOAT_SWITCH(c->t, X, st = (int)gm_fail(GM_EINVAL, "linalg: unsupported ctype"))
#undef X
  free(iwork);
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

typedef enum { BT_POTRF, BT_GETRF, BT_GETRS } batch_kind;

typedef struct batch_task {
  batch_kind kind;
  gm_ctype t;
  bool trans;
  int n, nrhs, lda, ldb, batch;
  void **as, **bs; /* device arrays of device pointers */
  int *ipiv, *infos;
} batch_task;

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
    }                                                                                                         \
    break;
  switch (k->t) {
    GM_FLOAT_CTYPES(X)
    default: break;
  }
#undef X
  return -1;
}

/* The pointer arrays are device data: each element is aliased into a
 * local copy, never written back. */
static int run_batch(void *arg) {
  batch_task *k = arg;
  void **as = gm_emu_alias(k->as), **bs = k->bs ? gm_emu_alias(k->bs) : NULL;
  int *ipiv = k->ipiv ? gm_emu_alias(k->ipiv) : NULL, *infos = k->infos ? gm_emu_alias(k->infos) : NULL;
  int st = 0;
  for (int i = 0; i < k->batch && st == 0; i++) {
    void *a = gm_emu_alias(as[i]), *b = bs ? gm_emu_alias(bs[i]) : NULL;
    lapack_int r = batch_one(k, a, b, ipiv ? ipiv + (size_t)i * (size_t)k->n : NULL);
    if (infos) infos[i] = (int)r;
    else if (r < 0) st = (int)gm_fail(GM_EINVAL, "getrsBatched: argument %d rejected", (int)-r);
  }
  free(k);
  return st;
}

static gm_status queue_batch(void *ctx, const batch_task *proto) {
  if (gm_ctype_kind(proto->t) != GM_KIND_FLOAT) return gm_fail(GM_EINVAL, "batched solver: unsupported ctype");
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
  ops.potrf = NULL; /* host-facet only, as on CUDA */
  ops.geqrf = NULL;
  ops.orgqr = NULL;
  return &ops;
}
