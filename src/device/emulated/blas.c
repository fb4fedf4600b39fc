/* cuBLAS on the emulated device: the host's BLAS entries (CBLAS, same
 * column-major arguments) queued on the compute stream as closures, as
 * cuBLAS queues its kernels.  asum, nrm2 and dot return their result to
 * host memory, so the host waits for them (cuBLAS's host pointer mode
 * blocks the same way).  invert/logdet go through cuSOLVER's argument
 * mapping (solver.c). */
#include <stdlib.h>

#include "../../core/ops/blas_ops.h"
#include "../../core/mem/backends.h"
#include "alias.h"
#include "emulated.h"
#include "launchers.h"

typedef enum { B_ASUM, B_NRM2, B_DOT, B_AXPY, B_COPY, B_SCAL, B_GEMM, B_GEAM, B_TRSM, B_GEMM_BATCHED } blas_kind;

typedef struct blas_task {
  blas_kind kind;
  gm_ctype t;
  gm_blas_trans ta, tb;
  bool left, upper, unit; /* trsm */
  int m, n, k, lda, ldb, ldc, batch;
  long long sa, sb, sc; /* gemm_batched's strides (elements) */
  double alpha, beta;
  const void *a, *b;
  void *c;
  double *out;
} blas_task;

/* cuBLAS's strided-batched gemm on the host: the plain product (the only
 * one gm.linalg asks for) as the host's GEMM job, whose small-matrix loop
 * beats a CBLAS call per matrix; anything else one gemm per matrix. */
static gm_status run_gemm_batched(const blas_task *b) {
  const gm_blas_ops *h = &gm_host_blas_ops;
  bool plain = b->ta == GM_BLAS_N && b->tb == GM_BLAS_N && b->alpha == 1 && b->beta == 0 && b->lda == b->m &&
               b->ldb == b->k && b->ldc == b->m && b->sa == (long long)b->m * b->k &&
               b->sb == (long long)b->k * b->n && b->sc == (long long)b->m * b->n;
  if (plain) {
    gm_linalg_job j = {.kind = GM_LA_GEMM, .t = b->t, .m = b->m, .n = b->n, .nrhs = b->k, .a = (void *)b->a,
                       .b = (void *)b->b, .u = b->c, .batch = (size_t)b->batch};
    return h->linalg(NULL, &j, NULL); /* GEMM writes no infos */
  }
  size_t elem = gm_ctype_size(b->t);
  gm_status st = GM_OK;
  for (int i = 0; i < b->batch && st == GM_OK; i++)
    st = h->gemm(NULL, b->t, b->ta, b->tb, b->m, b->n, b->k, b->alpha, (const char *)b->a + (size_t)i * b->sa * elem,
                 b->lda, (const char *)b->b + (size_t)i * b->sb * elem, b->ldb, b->beta,
                 (char *)b->c + (size_t)i * b->sc * elem, b->ldc);
  return st;
}

static int run_blas(void *arg) {
  blas_task *b = arg;
  b->a = gm_emu_alias(b->a); /* the worker's addresses (alias.h) */
  b->b = gm_emu_alias(b->b);
  b->c = gm_emu_alias(b->c);
  const gm_blas_ops *h = &gm_host_blas_ops;
  gm_status st = GM_OK;
  switch (b->kind) {
  case B_ASUM: st = h->asum(NULL, b->t, b->n, b->a, b->lda, b->out); break;
  case B_NRM2: st = h->nrm2(NULL, b->t, b->n, b->a, b->lda, b->out); break;
  case B_DOT: st = h->dot(NULL, b->t, b->n, b->a, b->lda, b->b, b->ldb, b->out); break;
  case B_AXPY: st = h->axpy(NULL, b->t, b->n, b->alpha, b->a, b->lda, b->c, b->ldc); break;
  case B_COPY: st = h->copy(NULL, b->t, b->n, b->a, b->lda, b->c, b->ldc); break;
  case B_SCAL: st = h->scal(NULL, b->t, b->n, b->alpha, b->c, b->ldc); break;
  case B_GEMM:
    st = h->gemm(NULL, b->t, b->ta, b->tb, b->m, b->n, b->k, b->alpha, b->a, b->lda, b->b, b->ldb, b->beta, b->c,
                 b->ldc);
    break;
  case B_GEMM_BATCHED: st = run_gemm_batched(b); break;
  case B_TRSM:
    st = h->trsm(NULL, b->t, b->left, b->upper, b->ta, b->unit, b->m, b->n, b->alpha, b->a, b->lda, b->c, b->ldc);
    break;
  case B_GEAM:
    st = h->geam(NULL, b->t, b->ta, b->tb, b->m, b->n, b->alpha, b->a, b->lda, b->beta, b->b, b->ldb, b->c,
                 b->ldc);
    break;
  }
  free(b);
  return (int)st;
}

static gm_status queue(void *ctx, const blas_task *proto) {
  blas_task *b = malloc(sizeof *b);
  if (!b) return gm_fail(GM_ENOMEM, "out of host memory");
  *b = *proto;
  gm_emu_enqueue(ctx, run_blas, b);
  return GM_OK;
}

/* A result for the host: queued, then waited for (errors of the queued
 * call surface in the sync). */
static gm_status queue_and_wait(void *ctx, const blas_task *proto) {
  GM_TRY(queue(ctx, proto));
  gm_device *d = ctx;
  return d->ops->stream_sync(d, NULL);
}

static gm_status e_asum(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  return queue_and_wait(ctx, &(blas_task){.kind = B_ASUM, .t = t, .n = n, .a = x, .lda = incx, .out = out});
}

static gm_status e_nrm2(void *ctx, gm_ctype t, int n, const void *x, int incx, double *out) {
  return queue_and_wait(ctx, &(blas_task){.kind = B_NRM2, .t = t, .n = n, .a = x, .lda = incx, .out = out});
}

static gm_status e_dot(void *ctx, gm_ctype t, int n, const void *x, int incx, const void *y, int incy,
                       double *out) {
  return queue_and_wait(
      ctx, &(blas_task){.kind = B_DOT, .t = t, .n = n, .a = x, .lda = incx, .b = y, .ldb = incy, .out = out});
}

static gm_status e_axpy(void *ctx, gm_ctype t, int n, double alpha, const void *x, int incx, void *y, int incy) {
  return queue(ctx, &(blas_task){.kind = B_AXPY, .t = t, .n = n, .alpha = alpha, .a = x, .lda = incx, .c = y,
                                 .ldc = incy});
}

static gm_status e_copy(void *ctx, gm_ctype t, int n, const void *x, int incx, void *y, int incy) {
  /* cuBLAS's ?copy takes the real float types only (the host's memmove
   * would take any): refuse the rest as src/device/cuda/blas.c does */
  if (!gm_ctype_is_float(t)) return gm_fail(GM_EINVAL, "copy: unsupported ctype");
  return queue(ctx, &(blas_task){.kind = B_COPY, .t = t, .n = n, .a = x, .lda = incx, .c = y, .ldc = incy});
}

static gm_status e_scal(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx) {
  return queue(ctx, &(blas_task){.kind = B_SCAL, .t = t, .n = n, .alpha = alpha, .c = x, .ldc = incx});
}

static gm_status e_gemm(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                        double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
                        int ldc) {
  return queue(ctx, &(blas_task){.kind = B_GEMM, .t = t, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                                 .alpha = alpha, .a = a, .lda = lda, .b = b, .ldb = ldb, .beta = beta, .c = c,
                                 .ldc = ldc});
}

static gm_status e_geam(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, double alpha,
                        const void *a, int lda, double beta, const void *b, int ldb, void *c, int ldc) {
  return queue(ctx, &(blas_task){.kind = B_GEAM, .t = t, .ta = ta, .tb = tb, .m = m, .n = n, .alpha = alpha,
                                 .a = a, .lda = lda, .beta = beta, .b = b, .ldb = ldb, .c = c, .ldc = ldc});
}

static gm_status e_trsm(void *ctx, gm_ctype t, bool left, bool upper, gm_blas_trans ta, bool unit, int m, int n,
                       double alpha, const void *a, int lda, void *b, int ldb) {
  return queue(ctx, &(blas_task){.kind = B_TRSM, .t = t, .left = left, .upper = upper, .ta = ta, .unit = unit,
                                 .m = m, .n = n, .alpha = alpha, .a = a, .lda = lda, .c = b, .ldc = ldb});
}

static gm_status e_gemm_batched(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, int k,
                                double alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                                long long sb, double beta, void *c, int ldc, long long sc, int batch) {
  return queue(ctx, &(blas_task){.kind = B_GEMM_BATCHED, .t = t, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                                 .alpha = alpha, .a = a, .lda = lda, .sa = sa, .b = b, .ldb = ldb, .sb = sb,
                                 .beta = beta, .c = c, .ldc = ldc, .sc = sc, .batch = batch});
}

/* The queued BLAS entries; invert/logdet are solver.c's. */
void gm_emulated_blas_queued(gm_blas_ops *ops) {
  ops->asum = e_asum;
  ops->nrm2 = e_nrm2;
  ops->dot = e_dot;
  ops->axpy = e_axpy;
  ops->copy = e_copy;
  ops->scal = e_scal;
  ops->gemm = e_gemm;
  ops->geam = e_geam;
  ops->trsm = e_trsm;
  ops->gemm_batched = e_gemm_batched;
}
