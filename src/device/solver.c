/* invert/logdet on cuSOLVER-shaped entry points; see solver.h. */
#include "solver.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ops/blas_ops.h"
#include "../core/mem/runtime.h"
#include "../../kernels/strided.h"

/* The op tables of the device the call runs on: ctx is that gm_device
 * (blas_ops.h), whose ops->kernels hold its fill and BLAS entries. */
static const gm_backend *kernels_of(void *ctx) { return ((const gm_device *)ctx)->ops->kernels; }

typedef struct scratch {
  void *work, *b, *diag;
  int *ipiv, *info;
} scratch;

static void release(const gm_solver_ops *s, void *ctx, scratch *w) {
  void *all[5] = {w->work, w->b, w->diag, w->ipiv, w->info};
  for (int i = 0; i < 5; i++)
    if (all[i]) s->scratch_free(ctx, all[i]);
}

/* LAPACKE rejects NaN in its input (the host's error); cuSOLVER would
 * factor it into NaN.  One device reduction gives the host's behaviour:
 * sum of squares is NaN iff an element is NaN (squares are never
 * negative, so infinities and overflow give +inf, not NaN).  Infinities
 * go on to the factorisation, as on the host. */
static gm_status check_nan(const gm_backend *k, void *ctx, gm_ctype t, int n, const void *a, int lda) {
  size_t elem = gm_ctype_size(t), un = (size_t)n;
  /* size_t counts, split by gm_blas_dot_n: n * n wraps an int past n = 46340 */
  size_t cols = lda == n ? 1 : un, len = lda == n ? un * un : un;
  for (size_t j = 0; j < cols; j++) {
    const void *col = (const char *)a + j * (size_t)lda * elem;
    double ss = 0;
    GM_TRY(gm_blas_dot_n(k->blas, ctx, t, len, col, 1, col, 1, &ss));
    if (isnan(ss)) return gm_fail(GM_ELAPACK, "matrix contains NaN or infinity (getrf)");
  }
  return GM_OK;
}

/* getrf in place with its pivots in w->ipiv; *singular: first zero pivot
 * (1-based) or 0. */
static gm_status factor(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, void *a, int lda, scratch *w,
                        int *singular) {
  size_t elem = gm_ctype_size(t);
  int lwork = 0;
  GM_TRY(s->getrf_buffer_size(ctx, t, n, a, lda, &lwork));
  GM_TRY(s->scratch_alloc(ctx, (size_t)(lwork > 0 ? lwork : 1) * elem, &w->work));
  GM_TRY(s->scratch_alloc(ctx, (size_t)n * sizeof(int), (void **)&w->ipiv));
  GM_TRY(s->scratch_alloc(ctx, sizeof(int), (void **)&w->info));
  GM_TRY(s->getrf(ctx, t, n, a, lda, w->work, w->ipiv, w->info));
  int info = 0;
  GM_TRY(s->read(ctx, &info, w->info, sizeof info));
  if (info < 0) {
    gm_set_lib_error_info("getrf", info);
    return gm_fail(GM_ELAPACK, "getrf failed (info %d)", info);
  }
  *singular = info;
  return GM_OK;
}

static gm_status invert(const gm_solver_ops *s, const gm_backend *k, void *ctx, gm_ctype t, int n, void *a,
                        int lda, scratch *w) {
  GM_TRY(check_nan(k, ctx, t, n, a, lda));
  int singular = 0;
  GM_TRY(factor(s, ctx, t, n, a, lda, w, &singular));
  if (singular) return gm_fail(GM_ELAPACK, "matrix is singular (zero pivot in row %d)", singular);
  /* B := I (zeros, then ones on the diagonal with stride n + 1) */
  size_t nn = (size_t)n * (size_t)n;
  GM_TRY(s->scratch_alloc(ctx, nn * gm_ctype_size(t), &w->b));
  GM_TRY(k->fill(ctx, t, nn, 0.0, w->b, 1));
  GM_TRY(k->fill(ctx, t, (size_t)n, 1.0, w->b, (size_t)n + 1));
  GM_TRY(s->getrs(ctx, t, n, n, a, lda, w->ipiv, w->b, n, w->info));
  int info = 0;
  GM_TRY(s->read(ctx, &info, w->info, sizeof info));
  if (info != 0) {
    gm_set_lib_error_info("getrs", info);
    return gm_fail(GM_ELAPACK, "getrs failed (info %d)", info);
  }
  /* a := B (column by column when lda exceeds n) */
  size_t elem = gm_ctype_size(t);
  if (lda == n) return gm_blas_copy_n(k->blas, ctx, t, nn, w->b, 1, a, 1);
  for (int j = 0; j < n; j++)
    GM_TRY(k->blas->copy(ctx, t, n, (const char *)w->b + (size_t)j * (size_t)n * elem, 1,
                         (char *)a + (size_t)j * (size_t)lda * elem, 1));
  return GM_OK;
}

gm_status gm_solver_invert(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, void *a, int lda) {
  if (n == 0) return GM_OK;
  scratch w = {0};
  gm_status st = invert(s, kernels_of(ctx), ctx, t, n, a, lda, &w);
  release(s, ctx, &w);
  return st;
}

static gm_status logdet(const gm_solver_ops *s, const gm_backend *k, void *ctx, gm_ctype t, int n, void *a,
                        int lda, double *logabs, int *sign, scratch *w) {
  GM_TRY(check_nan(k, ctx, t, n, a, lda));
  int singular = 0;
  GM_TRY(factor(s, ctx, t, n, a, lda, w, &singular));
  if (singular) {
    *logabs = -INFINITY;
    *sign = 0;
    return GM_OK;
  }
  /* the diagonal of U (stride lda + 1) and the pivots, read back */
  size_t elem = gm_ctype_size(t);
  GM_TRY(s->scratch_alloc(ctx, (size_t)n * elem, &w->diag));
  GM_TRY(k->blas->copy(ctx, t, n, a, lda + 1, w->diag, 1));
  void *diag = malloc((size_t)n * elem);
  int *ipiv = malloc((size_t)n * sizeof *ipiv);
  gm_status st = diag && ipiv ? GM_OK : gm_fail(GM_ENOMEM, "out of host memory");
  if (st == GM_OK) st = s->read(ctx, diag, w->diag, (size_t)n * elem);
  if (st == GM_OK) st = s->read(ctx, ipiv, w->ipiv, (size_t)n * sizeof *ipiv);
  if (st == GM_OK) {
    /* det = prod(u_ii) * (-1)^swaps, as on the host */
    for (int i = 0; i < n; i++) {
      double u = gm_ctype_get(t, diag, (size_t)i);
      if (u < 0) *sign = -*sign;
      if (ipiv[i] != i + 1) *sign = -*sign;
      *logabs += log(fabs(u));
    }
  }
  free(diag);
  free(ipiv);
  return st;
}

gm_status gm_solver_logdet(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, void *a, int lda,
                           double *logabs, int *sign) {
  *logabs = 0;
  *sign = 1;
  if (n == 0) return GM_OK;
  scratch w = {0};
  gm_status st = logdet(s, kernels_of(ctx), ctx, t, n, a, lda, logabs, sign, &w);
  release(s, ctx, &w);
  return st;
}

/* ---- gm.linalg jobs: blas_ops.h's linalg on cuSOLVER calls ---- */

enum { MAX_SCRATCH = 6 };

/* A job's scratch blocks, kept for the whole stack: every matrix of a
 * stack asks for the same blocks in the same order, so matrix i > 0 takes
 * matrix 0's (`next` walks them again; the calls are queued in stream
 * order, so reusing a block after the previous matrix's calls is safe). */
typedef struct job_scratch {
  void *p[MAX_SCRATCH];
  size_t bytes[MAX_SCRATCH];
  int n, next;
} job_scratch;

static gm_status job_alloc(const gm_solver_ops *s, void *ctx, job_scratch *w, size_t bytes, void **out) {
  if (bytes == 0) bytes = 1;
  if (w->next < w->n && w->bytes[w->next] >= bytes) {
    *out = w->p[w->next++];
    return GM_OK;
  }
  if (w->n == MAX_SCRATCH) return gm_fail(GM_EINVAL, "linalg: too many scratch blocks");
  GM_TRY(s->scratch_alloc(ctx, bytes, out));
  w->bytes[w->n] = bytes;
  w->p[w->n++] = *out;
  w->next = w->n;
  return GM_OK;
}

/* One call with its own workspace (bufferSize, then the call). */
static gm_status run_call(const gm_solver_ops *s, void *ctx, job_scratch *w, gm_solver_call *c) {
  int lwork = 0;
  GM_TRY(s->call_buffer_size(ctx, c, &lwork));
  c->lwork = lwork > 0 ? lwork : 1;
  GM_TRY(job_alloc(s, ctx, w, (size_t)c->lwork * gm_ctype_size(c->t), &c->work));
  return s->call(ctx, c);
}

/* GETRF's pivots, between cuSOLVER's device ints (ipiv) and gm.linalg's
 * elements of w's ctype t (gm_linalg_w_ctype: a's, real for a complex a):
 * through the host, n elements (gm.linalg converts them to int64). */
static gm_status pivots_io(const gm_solver_ops *s, void *ctx, gm_ctype t, int n, int *ipiv, void *w, bool to_w) {
  size_t elem = gm_ctype_size(t), un = (size_t)n;
  int *iv = malloc(un * sizeof *iv);
  void *fv = malloc(un * elem);
  gm_status st = iv && fv ? GM_OK : gm_fail(GM_ENOMEM, "out of host memory");
  if (st == GM_OK) st = to_w ? s->read(ctx, iv, ipiv, un * sizeof *iv) : s->read(ctx, fv, w, un * elem);
  for (size_t i = 0; i < un && st == GM_OK; i++) {
    if (to_w) {
      gm_ctype_set(t, fv, i, (double)iv[i]);
      continue;
    }
    double v = gm_ctype_get(t, fv, i);
    if (!(v >= 1 && v <= n) || v != (double)(int)v)
      st = gm_fail(GM_EINVAL, "pivot %zu is %g, not an integer in 1..%d", i + 1, v, n);
    else
      iv[i] = (int)v;
  }
  if (st == GM_OK) st = to_w ? s->write(ctx, w, fv, un * elem) : s->write(ctx, ipiv, iv, un * sizeof *iv);
  free(iv);
  free(fv);
  return st;
}

/* TRSM (cuBLAS, no cuSOLVER call), GETRF and GETRS with pivots in w. */
static gm_status lu_job(const gm_solver_ops *s, void *ctx, const gm_linalg_job *j, job_scratch *w, int *infos) {
  gm_solver_call c = {.t = j->t, .m = j->m, .n = j->n, .a = j->a, .lda = j->m, .info = infos};
  int k = j->m < j->n ? j->m : j->n;
  GM_TRY(job_alloc(s, ctx, w, (size_t)k * sizeof(int), (void **)&c.ipiv));
  if (j->kind == GM_LA_GETRF) {
    c.fn = GM_SV_GETRF;
    GM_TRY(run_call(s, ctx, w, &c));
    return pivots_io(s, ctx, gm_linalg_w_ctype(j), k, c.ipiv, j->w, true);
  }
  GM_TRY(pivots_io(s, ctx, gm_linalg_w_ctype(j), k, c.ipiv, j->w, false));
  c.fn = GM_SV_GETRS, c.k = j->nrhs, c.trans = j->trans, c.b = j->b, c.ldb = j->n;
  return run_call(s, ctx, w, &c);
}

/* GEMM: the stack's products in one strided-batched call where the
 * device has it (a launch per matrix costs more than a small product),
 * else one gemm each; batches past INT_MAX in several calls. */
static gm_status gemm_job(void *ctx, const gm_linalg_job *j) {
  const gm_blas_ops *b = kernels_of(ctx)->blas;
  size_t left = j->batch ? j->batch : 1, elem = gm_ctype_size(j->t);
  long long sa = (long long)j->m * j->nrhs, sb = (long long)j->nrhs * j->n, su = (long long)j->m * j->n;
  const char *a = j->a, *bb = j->b;
  char *u = j->u;
  while (left > 0) {
    int now = left > INT_MAX ? INT_MAX : (int)left;
    if (!b->gemm_batched) now = 1;
    gm_status st = now == 1 ? b->gemm(ctx, j->t, GM_BLAS_N, GM_BLAS_N, j->m, j->n, j->nrhs, 1.0, a, j->m, bb,
                                      j->nrhs, 0.0, u, j->m)
                            : b->gemm_batched(ctx, j->t, GM_BLAS_N, GM_BLAS_N, j->m, j->n, j->nrhs, 1.0, a, j->m,
                                              sa, bb, j->nrhs, sb, 0.0, u, j->m, su, now);
    GM_TRY(st);
    a += (size_t)now * (size_t)sa * elem, bb += (size_t)now * (size_t)sb * elem, u += (size_t)now * (size_t)su * elem;
    left -= (size_t)now;
  }
  return GM_OK;
}

/* TRSM and GEMM: cuBLAS calls, queued, no info to read back. */
static gm_status blas_job(void *ctx, const gm_linalg_job *j) {
  const gm_blas_ops *b = kernels_of(ctx)->blas;
  if (j->kind == GM_LA_GEMM) return gemm_job(ctx, j);
  int rows = j->left ? j->n : j->nrhs, cols = j->left ? j->nrhs : j->n;
  if (!b->trsm) return gm_fail(GM_EUNSUPPORTED, "trsm: not on this device");
  return b->trsm(ctx, j->t, j->left, j->upper, j->trans ? GM_BLAS_T : GM_BLAS_N, j->unit, rows, cols, 1.0, j->a,
                 j->n, j->b, rows);
}

/* The job's calls; infos[0] and infos[1] get the two calls' info. */
static gm_status job_calls(const gm_solver_ops *s, void *ctx, const gm_linalg_job *j, job_scratch *w, int *infos) {
  gm_solver_call c = {.t = j->t, .m = j->m, .n = j->n, .a = j->a, .lda = j->m, .info = infos};
  size_t elem = gm_ctype_size(j->t);
  int k = j->m < j->n ? j->m : j->n;
  switch (j->kind) {
    case GM_LA_GESV:
      c.fn = GM_SV_GETRF;
      GM_TRY(job_alloc(s, ctx, w, (size_t)j->n * sizeof(int), (void **)&c.ipiv));
      GM_TRY(run_call(s, ctx, w, &c));
      c.fn = GM_SV_GETRS, c.k = j->nrhs, c.trans = j->trans, c.b = j->b, c.ldb = j->n, c.info = infos + 1;
      return run_call(s, ctx, w, &c);
    case GM_LA_POTRF: c.fn = GM_SV_POTRF; return run_call(s, ctx, w, &c);
    case GM_LA_QR:
      c.fn = GM_SV_GEQRF;
      GM_TRY(job_alloc(s, ctx, w, (size_t)k * elem, &c.w));
      GM_TRY(run_call(s, ctx, w, &c));
      GM_TRY(gm_blas_copy_n(kernels_of(ctx)->blas, ctx, j->t, (size_t)j->m * (size_t)k, j->a, 1, j->b, 1));
      c.fn = GM_SV_ORGQR, c.n = j->qcols, c.k = k, c.a = j->b, c.info = infos + 1;
      return run_call(s, ctx, w, &c);
    case GM_LA_SYEVD: c.fn = GM_SV_SYEVD, c.vectors = j->vectors, c.w = j->w; return run_call(s, ctx, w, &c);
    case GM_LA_GEEV:
      c.fn = GM_SV_GEEV, c.vectors = j->vectors, c.w = j->w, c.u = j->u, c.ldu = j->vectors ? j->n : 1;
      return run_call(s, ctx, w, &c);
    case GM_LA_GETRF: case GM_LA_GETRS: return lu_job(s, ctx, j, w, infos);
    case GM_LA_TRSM: case GM_LA_GEMM: return blas_job(ctx, j);
    case GM_LA_GESVD:
      c.fn = GM_SV_GESVD, c.w = j->w, c.u = j->u, c.vt = j->vt, c.ldu = j->m, c.ldvt = j->n;
      c.jobu = j->vectors ? (j->full ? 'A' : 'S') : 'N', c.jobvt = j->vectors ? 'A' : 'N';
      return run_call(s, ctx, w, &c);
  }
  return gm_fail(GM_EINVAL, "linalg: unknown job %d", (int)j->kind);
}

/* Stacks of matrices up to this order go through the batched entries
 * (cuBLAS's getrfBatched is meant for small matrices; past it the
 * per-matrix cuSOLVER calls use the device better). */
enum { BATCHED_MAX_N = 64 };
/* syevjBatched's and gesvdjBatched's own limit */
enum { SYEVJ_MAX_N = 32 };

static bool batched(const gm_solver_ops *s, const gm_linalg_job *j, size_t batch) {
  if (batch < 2 || batch > INT_MAX || j->n > BATCHED_MAX_N) return false;
  if (j->kind == GM_LA_POTRF) return s->potrf_batched != NULL;
  if (j->kind == GM_LA_SYEVD) return s->syevj_batched && j->n <= SYEVJ_MAX_N;
  if (j->kind == GM_LA_GESVD) return s->gesvdj_batched && j->m <= SYEVJ_MAX_N; /* m >= n */
  return j->kind == GM_LA_GESV && s->getrf_batched && s->getrs_batched;
}

/* SYEVD of a stack of matrices of order <= 32: one Jacobi call (the
 * eigenvalues ascending as syevd's; eigenvectors the same up to sign). */
static gm_status syevj_job(const gm_solver_ops *s, void *ctx, const gm_linalg_job *j, size_t batch, int *infos) {
  job_scratch w = {{0}, {0}, 0, 0};
  int *dinfo = NULL;
  gm_status st = job_alloc(s, ctx, &w, batch * sizeof(int), (void **)&dinfo);
  if (st == GM_OK) st = s->syevj_batched(ctx, j->t, j->vectors, j->n, j->a, j->n, j->w, dinfo, (int)batch);
  if (st == GM_OK) st = s->read(ctx, infos, dinfo, batch * sizeof(int));
  for (int i = w.n - 1; i >= 0; i--) s->scratch_free(ctx, w.p[i]);
  return st;
}

/* gesvdjBatched's vectors as the GESVD job's: u the first n columns of
 * each full U unless the job is full (its own u then), vt = V^H, each
 * one strided copy (a launch for the stack); V^H's imaginary parts
 * negated for a complex stack (a real scal by -1 over every second real). */
static gm_status gesvdj_vectors(void *ctx, const gm_linalg_job *j, size_t batch, const void *u, const void *v) {
  const gm_backend *k = kernels_of(ctx);
  size_t m = (size_t)j->m, n = (size_t)j->n;
  int64_t im = (int64_t)m, in = (int64_t)n;
  if (!j->full) {
    gm_strided_geom g = {.rank = 3, .n = batch * n * m, .dims = {batch, n, m},
                         .src_strides = {im * im, im, 1}, .dst_strides = {im * in, im, 1}};
    GM_TRY(k->strided_copy(ctx, j->t, &g, u, j->u));
  }
  gm_strided_geom g = {.rank = 3, .n = batch * n * n, .dims = {batch, n, n},
                       .src_strides = {in * in, 1, in}, .dst_strides = {in * in, in, 1}};
  GM_TRY(k->strided_copy(ctx, j->t, &g, v, j->vt));
  if (!gm_ctype_is_complex(j->t)) return GM_OK;
  gm_ctype rt = gm_ctype_real_of(j->t);
  if (g.n > INT_MAX) return gm_fail(GM_ERANGE, "gesvdj: stack too large");
  return k->blas->scal(ctx, rt, (int)g.n, -1.0, (char *)j->vt + gm_ctype_size(rt), 2);
}

/* GESVD of a stack of matrices up to 32 x 32 (m >= n): one Jacobi call,
 * the singular values descending as gesvd's (vectors the same up to a
 * phase per pair).  U and V are scratch even for the singular values
 * alone: gesvdjBatched writes them whatever jobz says (NULL U and V gave
 * an illegal address on the first H200 run; PyTorch and CUDA.jl allocate
 * them too). */
static gm_status gesvdj_job(const gm_solver_ops *s, void *ctx, const gm_linalg_job *j, size_t batch, int *infos) {
  size_t m = (size_t)j->m, n = (size_t)j->n, elem = gm_ctype_size(j->t);
  job_scratch w = {{0}, {0}, 0, 0};
  int *dinfo = NULL;
  void *u = j->full ? j->u : NULL, *v = NULL;
  gm_status st = job_alloc(s, ctx, &w, batch * sizeof(int), (void **)&dinfo);
  if (st == GM_OK && !u) st = job_alloc(s, ctx, &w, batch * m * m * elem, &u);
  if (st == GM_OK) st = job_alloc(s, ctx, &w, batch * n * n * elem, &v);
  if (st == GM_OK)
    st = s->gesvdj_batched(ctx, j->t, j->vectors, j->m, j->n, j->a, j->m, j->w, u, j->m, v, j->n, dinfo, (int)batch);
  if (st == GM_OK && j->vectors) st = gesvdj_vectors(ctx, j, batch, u, v);
  if (st == GM_OK) st = s->read(ctx, infos, dinfo, batch * sizeof(int));
  for (int i = w.n - 1; i >= 0; i--) s->scratch_free(ctx, w.p[i]);
  return st;
}

/* POTRF and GESV of a stack in one or two batched calls: the matrices'
 * device addresses in device arrays, one info per matrix. */
static gm_status batched_job(const gm_solver_ops *s, void *ctx, const gm_linalg_job *j, size_t batch, int *infos) {
  if (j->kind == GM_LA_SYEVD) return syevj_job(s, ctx, j, batch, infos);
  if (j->kind == GM_LA_GESVD) return gesvdj_job(s, ctx, j, batch, infos);
  size_t ptrs = batch * sizeof(void *);
  void **host = malloc(2 * ptrs), **das = NULL, **dbs = NULL;
  int *dinfo = NULL, *ipiv = NULL, nb = (int)batch;
  if (!host) return gm_fail(GM_ENOMEM, "out of host memory");
  for (size_t i = 0; i < batch; i++) {
    gm_linalg_job one = gm_linalg_job_at(j, i);
    host[i] = one.a, host[batch + i] = one.b;
  }
  job_scratch w = {{0}, {0}, 0, 0};
  gm_status st = job_alloc(s, ctx, &w, 2 * ptrs, (void **)&das);
  if (st == GM_OK) st = job_alloc(s, ctx, &w, batch * sizeof(int), (void **)&dinfo);
  if (st == GM_OK) st = s->write(ctx, das, host, 2 * ptrs);
  dbs = das ? das + batch : NULL;
  if (st == GM_OK && j->kind == GM_LA_POTRF) st = s->potrf_batched(ctx, j->t, j->n, das, j->n, dinfo, nb);
  if (st == GM_OK && j->kind == GM_LA_GESV) {
    st = job_alloc(s, ctx, &w, batch * (size_t)j->n * sizeof(int), (void **)&ipiv);
    if (st == GM_OK) st = s->getrf_batched(ctx, j->t, j->n, das, j->n, ipiv, dinfo, nb);
    if (st == GM_OK) st = s->getrs_batched(ctx, j->t, j->trans, j->n, j->nrhs, das, j->n, ipiv, dbs, j->n, nb);
  }
  if (st == GM_OK) st = s->read(ctx, infos, dinfo, batch * sizeof(int));
  for (int i = w.n - 1; i >= 0; i--) s->scratch_free(ctx, w.p[i]);
  free(host);
  return st;
}

/* The stack's matrices one after the other, queued without a wait: each
 * matrix's two infos land in one device array, read back once at the end
 * (a read per matrix would wait for the device each time). */
gm_status gm_solver_linalg(const gm_solver_ops *s, void *ctx, const gm_linalg_job *job, int *infos) {
  size_t batch = job->batch ? job->batch : 1;
  if (job->kind == GM_LA_GEMM) return blas_job(ctx, job);
  if (job->kind == GM_LA_TRSM) {
    for (size_t i = 0; i < batch; i++) {
      gm_linalg_job one = gm_linalg_job_at(job, i);
      GM_TRY(blas_job(ctx, &one));
    }
    return GM_OK;
  }
  if (batch > SIZE_MAX / (2 * sizeof(void *))) return gm_fail(GM_ERANGE, "linalg: stack too large");
  if (batched(s, job, batch)) return batched_job(s, ctx, job, batch, infos);
  job_scratch w = {{0}, {0}, 0, 0};
  int *dinfo = NULL, *hinfo = malloc(2 * batch * sizeof *hinfo);
  gm_status st = hinfo ? job_alloc(s, ctx, &w, 2 * batch * sizeof(int), (void **)&dinfo)
                       : gm_fail(GM_ENOMEM, "out of host memory");
  /* jobs of one call never write the second slot: zero it */
  if (st == GM_OK) {
    memset(hinfo, 0, 2 * batch * sizeof *hinfo);
    st = s->write(ctx, dinfo, hinfo, 2 * batch * sizeof *hinfo);
  }
  for (size_t i = 0; i < batch && st == GM_OK; i++) {
    gm_linalg_job one = gm_linalg_job_at(job, i);
    w.next = 1; /* past dinfo */
    st = job_calls(s, ctx, &one, &w, dinfo + 2 * i);
  }
  if (st == GM_OK) st = s->read(ctx, hinfo, dinfo, 2 * batch * sizeof *hinfo);
  for (int i = w.n - 1; i >= 0; i--) s->scratch_free(ctx, w.p[i]);
  /* the first call's failure is the one to report (getrs after a
   * singular getrf only spreads it) */
  for (size_t i = 0; i < batch && st == GM_OK; i++) infos[i] = hinfo[2 * i] != 0 ? hinfo[2 * i] : hinfo[2 * i + 1];
  free(hinfo);
  return st;
}
