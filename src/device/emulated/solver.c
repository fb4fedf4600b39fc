/* cuSOLVER's dense LU entry points on the emulated device: LAPACK with
 * exactly cuSOLVER's arguments (column-major, pivots and info written to
 * device memory, a workspace of getrf_bufferSize elements), so the shared
 * invert/logdet of ../solver.c run here as they do on the CUDA backend. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/blas_ops.h"
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

static const gm_solver_ops emu_solver = {
    .getrf_buffer_size = emu_getrf_buffer_size,
    .getrf = emu_getrf,
    .getrs = emu_getrs,
    .scratch_alloc = emu_scratch_alloc,
    .scratch_free = emu_scratch_free,
    .read = emu_read,
};

static gm_status emu_invert(void *ctx, gm_ctype t, int n, void *a, int lda) {
  return gm_solver_invert(&emu_solver, ctx, t, n, a, lda);
}

static gm_status emu_logdet(void *ctx, gm_ctype t, int n, void *a, int lda, double *logabs, int *sign) {
  return gm_solver_logdet(&emu_solver, ctx, t, n, a, lda, logabs, sign);
}

/* The host's BLAS table with cuSOLVER-shaped invert/logdet. */
const gm_blas_ops *gm_emulated_blas_ops(const gm_blas_ops *host) {
  static gm_blas_ops ops;
  ops = *host;
  gm_emulated_blas_queued(&ops);
  ops.invert = emu_invert;
  ops.logdet = emu_logdet;
  ops.potrf = NULL; /* host-facet only, as on CUDA */
  ops.geqrf = NULL;
  ops.orgqr = NULL;
  return &ops;
}
