/* cuSOLVER's dense LU entry points on the emulated device: LAPACK with
 * exactly cuSOLVER's arguments (column-major, pivots and info written to
 * device memory, a workspace of getrf_bufferSize elements), so the shared
 * invert/logdet of ../solver.c run here as they do on the CUDA backend. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/blas_ops.h"
#include "../../core/mem/backends.h"
#include "emulated.h"
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
 * call the plain LAPACK routine through LAPACKE_*_work (no NaN scan). */
static gm_status emu_getrf(void *ctx, gm_ctype t, int n, void *a, int lda, void *work, int *ipiv, int *info) {
  (void)ctx;
  if (!work) return gm_fail(GM_EINVAL, "getrf: workspace is NULL");
#define X(T, E, name, kw, p, ...)                                                 \
  case GM_##E:                                                                    \
    *info = (int)LAPACKE_##p##getrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);   \
    return GM_OK;
  GM_CTYPE_SWITCH(t, X, return gm_fail(GM_EINVAL, "getrf: unsupported ctype"))
#undef X
}

static gm_status emu_getrs(void *ctx, gm_ctype t, int n, int nrhs, const void *a, int lda, const int *ipiv,
                           void *b, int ldb, int *info) {
  (void)ctx;
#define X(T, E, name, kw, p, ...)                                                                \
  case GM_##E:                                                                                   \
    *info = (int)LAPACKE_##p##getrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb);  \
    return GM_OK;
  GM_CTYPE_SWITCH(t, X, return gm_fail(GM_EINVAL, "getrs: unsupported ctype"))
#undef X
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
  ops.invert = emu_invert;
  ops.logdet = emu_logdet;
  ops.potrf = NULL; /* host-facet only, as on CUDA */
  ops.geqrf = NULL;
  ops.orgqr = NULL;
  return &ops;
}
