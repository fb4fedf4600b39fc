/* mv-gaussian-random and orthogonal-random! (MGL-MAT §15) on the host
 * facet: Cholesky and QR through the LAPACK entries of the host backend's
 * BLAS table (potrf, geqrf, orgqr; column-major), the sampling and the
 * checks here.  Operands are read and written through the foreign facet,
 * so a mat whose data lives on a device is copied to the host once (and
 * its device facet becomes stale after a write).  Row-major data is
 * transposed into column-major buffers around the LAPACK calls, as
 * LAPACKE's row-major interface does, so the results are the same. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/backend.h"
#include "blas_ops.h"
#include "../exec/exec.h"
#include "random.h"

static gm_status oom(void) { return gm_fail(GM_ENOMEM, "out of host memory"); }

/* The host backend's BLAS table, which has the LAPACK entries. */
static const gm_blas_ops *host_lapack(void) { return gm_exec_host().be->blas; }

/* Lower Cholesky factor in place (column-major n x n); info > 0: not PD. */
static gm_status potrf(gm_ctype t, size_t n, void *a, int *info) {
  const gm_blas_ops *b = host_lapack();
  if (!b->potrf) return gm_fail(GM_EUNSUPPORTED, "the host backend has no potrf");
  return b->potrf(NULL, t, (int)n, a, (int)n, info);
}

/* dst (cols x rows, row-major) = src (rows x cols, row-major) transposed:
 * a row-major matrix into column-major order. */
static void transpose(size_t esz, size_t rows, size_t cols, const void *src, void *dst) {
  const char *s = src;
  char *d = dst;
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < cols; j++) memcpy(d + (j * rows + i) * esz, s + (i * cols + j) * esz, esz);
}

/* Q of the thin QR of the column-major p x q matrix a (p >= q), in place;
 * sign[j] = sign of R[j][j], so Q diag(sign) is Haar distributed. */
static gm_status thin_q(gm_ctype t, size_t p, size_t q, void *a, void *tau, double *sign, int *info) {
  const gm_blas_ops *b = host_lapack();
  if (!b->geqrf || !b->orgqr) return gm_fail(GM_EUNSUPPORTED, "the host backend has no geqrf/orgqr");
  int lp = (int)p, lq = (int)q;
  GM_TRY(b->geqrf(NULL, t, lp, lq, a, lp, tau, info));
  if (*info != 0) return GM_OK;
  for (size_t j = 0; j < q; j++) sign[j] = gm_ctype_get(t, a, j * p + j) < 0 ? -1.0 : 1.0;
  return b->orgqr(NULL, t, lp, lq, a, lp, tau, info);
}

static gm_status check_mv_args(const gm_mat *means, const gm_mat *cov) {
  GM_TRY(gm_check_same_ctype("mv_gaussian_random", means, cov));
  if (!(means->rank == 1 || (means->rank == 2 && means->dims[1] == 1)))
    return gm_fail(GM_EINVAL, "means must be an N x 1 column (or a vector)");
  size_t n = means->size;
  if (cov->rank != 2 || cov->dims[0] != n || cov->dims[1] != n)
    return gm_fail(GM_EINVAL, "covariances must be %zu x %zu to match means", n, n);
  if (n > (size_t)INT_MAX / (n ? n : 1)) return gm_fail(GM_ERANGE, "means are too large for LAPACK");
  return GM_OK;
}

/* Symmetry within rounding: |c_ij - c_ji| <= tol * max |c|. */
static gm_status check_symmetric(gm_ctype t, size_t n, const void *c) {
  double big = 0, tol = t == GM_FLOAT ? 1e-5 : 1e-12;
  for (size_t i = 0; i < n * n; i++) big = fmax(big, fabs(gm_ctype_get(t, c, i)));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (fabs(gm_ctype_get(t, c, i * n + j) - gm_ctype_get(t, c, j * n + i)) > tol * big)
        return gm_fail(GM_EINVAL, "covariances are not symmetric (elements %zu,%zu and %zu,%zu)",
                       i + 1, j + 1, j + 1, i + 1);
  return GM_OK;
}

/* Copies the visible elements of means and cov to host buffers. */
static gm_status read_mv_inputs(gm_mat *means, gm_mat *cov, double *mu, void *l) {
  gm_exec e = gm_exec_host();
  gm_operand ops[2] = {{means, GM_INPUT, NULL}, {cov, GM_INPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  for (size_t i = 0; i < means->size; i++) mu[i] = gm_ctype_get(means->ctype, ops[0].ptr, i);
  memcpy(l, ops[1].ptr, cov->size * gm_ctype_size(cov->ctype));
  gm_release(&e, ops, 2);
  return GM_OK;
}

/* y = mu + L z with L lower triangular (column-major), into mu. */
static void add_lower_times(gm_ctype t, size_t n, const void *l, const void *z, double *mu) {
  for (size_t i = n; i-- > 0;) {
    double acc = 0;
    for (size_t j = 0; j <= i; j++) acc += gm_ctype_get(t, l, j * n + i) * gm_ctype_get(t, z, j);
    mu[i] = gm_ctype_coerce(t, mu[i] + acc);
  }
}

/* z: the covariances as read (row-major), then the samples; l: the
 * covariances in column-major order, then their factor L. */
static gm_status mv_sample(gm_mat *means, gm_mat *cov, gm_random_state *s, double *mu, void *l,
                           void *z) {
  gm_ctype t = means->ctype;
  size_t n = means->size;
  GM_TRY(read_mv_inputs(means, cov, mu, z));
  GM_TRY(check_symmetric(t, n, z));
  transpose(gm_ctype_size(t), n, n, z, l);
  int info = 0;
  if (n) GM_TRY(potrf(t, n, l, &info));
  if (info > 0)
    return gm_fail(GM_ELAPACK, "covariances are not positive definite (leading minor %d)", (int)info);
  if (info < 0) return gm_fail(GM_ELAPACK, "?potrf failed (info %d)", (int)info);
  GM_TRY(gm_random_gaussian_host(t, n, z, s));
  add_lower_times(t, n, l, z, mu);
  return GM_OK;
}

gm_status gm_mv_gaussian_random(gm_mat *means, gm_mat *cov, gm_random_state *s,
                                const gm_mat_options *o, gm_mat **out) {
  GM_TRY(check_mv_args(means, cov));
  size_t n = means->size, esz = gm_ctype_size(means->ctype);
  double *mu = malloc((n ? n : 1) * sizeof *mu);
  void *l = malloc((n ? n * n : 1) * esz), *z = malloc((n ? n * n : 1) * esz);
  gm_status st = mu && l && z ? mv_sample(means, cov, s, mu, l, z) : oom();
  gm_mat *res = NULL;
  if (st == GM_OK) {
    gm_mat_options mo = *o;
    mo.ctype = (int)means->ctype;
    mo.displacement = 0;
    mo.max_size = 0;
    size_t dims[2] = {n, 1};
    st = gm_mat_new(2, dims, &mo, &res);
    if (st == GM_OK) st = gm_mat_write_doubles(res, mu);
    if (st != GM_OK) gm_mat_free(res);
  }
  free(mu);
  free(l);
  free(z);
  if (st == GM_OK) *out = res;
  return st;
}

/* out (r x c, row-major) = scale * Q diag(sign), transposed for wide m;
 * a is the column-major p x q Q (p = max(r, c)). */
static void place_q(gm_ctype t, size_t r, size_t c, const void *a, const double *sign,
                    double scale, double *out) {
  size_t p = r >= c ? r : c;
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < c; j++)
      out[i * c + j] = r >= c ? scale * sign[j] * gm_ctype_get(t, a, j * p + i)
                              : scale * sign[i] * gm_ctype_get(t, a, i * p + j);
}

/* g: the row-major p x q gaussian draw; a: it in column-major order. */
static gm_status orthogonal_fill(gm_mat *m, double scale, gm_random_state *s, void *g, void *a,
                                 void *tau, double *sign, double *out) {
  gm_ctype t = m->ctype;
  size_t r = m->dims[0], c = m->dims[1];
  size_t p = r >= c ? r : c, q = r >= c ? c : r;
  GM_TRY(gm_random_gaussian_host(t, p * q, g, s));
  transpose(gm_ctype_size(t), p, q, g, a);
  int info = 0;
  GM_TRY(thin_q(t, p, q, a, tau, sign, &info));
  if (info != 0) return gm_fail(GM_ELAPACK, "QR decomposition failed (info %d)", (int)info);
  place_q(t, r, c, a, sign, scale, out);
  return gm_mat_write_doubles(m, out);
}

gm_status gm_orthogonal_random(gm_mat *m, double scale, gm_random_state *s) {
  if (m->rank != 2) return gm_fail(GM_EINVAL, "m must be a matrix (rank 2), got rank %d", m->rank);
  if (!isfinite(gm_ctype_coerce(m->ctype, scale)))
    return gm_fail(GM_EINVAL, "scale must be finite as %s, got %g", gm_ctype_name(m->ctype), scale);
  if (m->size == 0) return GM_OK;
  if (m->size > (size_t)INT_MAX) return gm_fail(GM_ERANGE, "m is too large for LAPACK");
  size_t q = m->dims[0] < m->dims[1] ? m->dims[0] : m->dims[1], esz = gm_ctype_size(m->ctype);
  void *g = malloc(m->size * esz), *a = malloc(m->size * esz), *tau = malloc(q * esz);
  double *sign = malloc(q * sizeof *sign), *out = malloc(m->size * sizeof *out);
  gm_status st = g && a && tau && sign && out ? orthogonal_fill(m, scale, s, g, a, tau, sign, out) : oom();
  free(g);
  free(a);
  free(tau);
  free(sign);
  free(out);
  return st;
}
