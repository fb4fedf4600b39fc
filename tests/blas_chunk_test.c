/* Level-1 BLAS calls over more elements than BLAS's int are split into
 * several calls (src/core/ops/blas.c gm_blas_chunk).  Mats over
 * 2^31 elements do not fit this machine's tests, so the chunk size is
 * lowered to 7 and every split op is compared with the unsplit call, on
 * the host and on the emulated device, for strides 1 and 3.
 *
 * The same lowered limit covers the LAPACK paths: invert
 * and logdet copy and NaN-check n x n elements, which wrapped an int past
 * n = 46340.  On the emulated device the level-1 entries are wrapped to
 * record the largest count they receive, standing in for BLAS's int: a
 * count above the lowered limit is a count that would have wrapped.
 *
 * Exits 0 when every check passes and prints each failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/exec/backend.h"
#include "core/ops/blas.h"
#include "core/ops/blas_ops.h"
#include "core/mem/runtime.h"
#include "core/model/context.h"
#include "core/exec/exec.h"

#include "check.h"
#include "emulated_context.h"

#define N 101

static gm_mat *new_mat(size_t n, double base) {
  gm_mat_options o = {0};
  o.ctype = 1;
  o.has_initial_element = 1;
  o.initial_element = 0;
  o.cuda_enabled = 1;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  void *p;
  CHECK(gm_mat_watch(m, GM_FACET_FOREIGN, GM_OUTPUT, NULL, &p) == GM_OK);
  for (size_t i = 0; i < n; i++) ((double *)p)[i] = base + sin((double)i) * 3;
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_OUTPUT);
  return m;
}

static void read_all(gm_mat *m, double *out) {
  void *p;
  CHECK(gm_mat_watch(m, GM_FACET_FOREIGN, GM_INPUT, NULL, &p) == GM_OK);
  memcpy(out, p, m->size * sizeof(double));
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
}

typedef struct results {
  double asum, nrm2, dot, y[3 * N];
} results;

static results run(size_t chunk, size_t inc) {
  gm_blas_chunk = chunk;
  size_t n = (3 * N - 1) / inc + 1 < N ? (3 * N - 1) / inc + 1 : N;
  gm_mat *x = new_mat(3 * N, 1), *y = new_mat(3 * N, -2);
  results r;
  memset(&r, 0, sizeof r);
  CHECK(gm_asum(x, n, inc, &r.asum) == GM_OK);
  CHECK(gm_nrm2(x, n, inc, &r.nrm2) == GM_OK);
  CHECK(gm_dot(x, y, n, inc, inc, &r.dot) == GM_OK);
  CHECK(gm_axpy_(0.5, x, y, n, inc, inc) == GM_OK);
  CHECK(gm_scal_(-3, y, n, inc) == GM_OK);
  gm_mat *z = new_mat(3 * N, 7);
  CHECK(gm_copy_(y, z, n, inc, 1) == GM_OK);
  CHECK(gm_axpy_(1, z, y, 3 * N, 1, 1) == GM_OK);
  read_all(y, r.y);
  gm_mat_free(x);
  gm_mat_free(y);
  gm_mat_free(z);
  gm_blas_chunk = 2147483647;
  return r;
}

static void compare(const char *where, size_t inc) {
  results whole = run(2147483647, inc), split = run(7, inc);
  double tol = 1e-12;
  if (fabs(whole.asum - split.asum) > tol * whole.asum) fprintf(stderr, "%s inc %zu: asum\n", where, inc);
  CHECK(fabs(whole.asum - split.asum) <= tol * whole.asum);
  CHECK(fabs(whole.nrm2 - split.nrm2) <= tol * whole.nrm2);
  CHECK(fabs(whole.dot - split.dot) <= tol * (1 + fabs(whole.dot)));
  CHECK(whole.asum > 0 && whole.nrm2 > 0);
  for (size_t i = 0; i < 3 * N; i++) CHECK(whole.y[i] == split.y[i]);
}

/* ---- the LAPACK paths ---- */

static gm_blas_ops real_blas, seen_blas;
static gm_backend seen_kernels;
static gm_device_ops seen_ops;
static int max_count; /* largest n a level-1 entry received */

static void saw(int n) {
  if (n > max_count) max_count = n;
}
static gm_status w_dot(void *c, gm_ctype t, int n, const void *x, int ix, const void *y, int iy, double *o) {
  saw(n);
  return real_blas.dot(c, t, n, x, ix, y, iy, o);
}
static gm_status w_copy(void *c, gm_ctype t, int n, const void *x, int ix, void *y, int iy) {
  saw(n);
  return real_blas.copy(c, t, n, x, ix, y, iy);
}
static gm_status w_asum(void *c, gm_ctype t, int n, const void *x, int ix, double *o) {
  saw(n);
  return real_blas.asum(c, t, n, x, ix, o);
}
static gm_status w_nrm2(void *c, gm_ctype t, int n, const void *x, int ix, double *o) {
  saw(n);
  return real_blas.nrm2(c, t, n, x, ix, o);
}

/* Points device d at copies of its tables whose level-1 entries record
 * their counts; returns the tables to put back. */
static const gm_device_ops *watch_counts(gm_device *d) {
  const gm_device_ops *old = d->ops;
  seen_ops = *old;
  seen_kernels = *old->kernels;
  real_blas = seen_blas = *old->kernels->blas;
  seen_blas.dot = w_dot;
  seen_blas.copy = w_copy;
  seen_blas.asum = w_asum;
  seen_blas.nrm2 = w_nrm2;
  seen_kernels.blas = &seen_blas;
  seen_ops.kernels = &seen_kernels;
  d->ops = &seen_ops;
  return old;
}

static const double M3[9] = {4, -2, 1, 3, 6, -4, 2, 1, 8}; /* det 4*52 + 2*32 + 1*(-9) = 263 */

/* A 3x3 double mat holding v (contents written through the foreign
 * facet) and an uninitialised 3x3 result beside it. */
static void make_3x3(const double v[9], gm_mat **a, gm_mat **r) {
  size_t dims[2] = {3, 3};
  gm_mat_options o = {0};
  o.ctype = 1;
  o.cuda_enabled = 1;
  *a = *r = NULL;
  CHECK(gm_mat_new(2, dims, &o, a) == GM_OK && gm_mat_new(2, dims, &o, r) == GM_OK);
  void *p;
  CHECK(gm_mat_watch(*a, GM_FACET_FOREIGN, GM_OUTPUT, NULL, &p) == GM_OK);
  memcpy(p, v, 9 * sizeof *v);
  gm_mat_unwatch(*a, GM_FACET_FOREIGN, GM_OUTPUT);
}

/* invert and logdet of M3 with level-1 chunks of `chunk` elements. */
static void lapack_case(size_t chunk, double inv[9], double *logabs, int *sign) {
  gm_mat *a, *r;
  make_3x3(M3, &a, &r);
  gm_blas_chunk = chunk;
  CHECK(gm_invert(a, r) == GM_OK);
  CHECK(gm_logdet(a, logabs, sign) == GM_OK);
  gm_blas_chunk = 2147483647;
  read_all(r, inv);
  gm_mat_free(a);
  gm_mat_free(r);
}

/* A NaN in the last, partial chunk (element 9 of 9, chunks of 7) is
 * still found: invert fails as on the host (LAPACKE's NaN check). */
static void nan_in_tail(void) {
  double v[9];
  memcpy(v, M3, sizeof v);
  v[8] = NAN;
  gm_mat *a, *r;
  make_3x3(v, &a, &r);
  gm_blas_chunk = 7;
  CHECK(gm_invert(a, r) == GM_ELAPACK);
  gm_blas_chunk = 2147483647;
  gm_mat_free(a);
  gm_mat_free(r);
}

/* inv(M3) * M3 = I and log 263 with the split copies, agreeing with the
 * unsplit run to the last bit. */
static void compare_lapack(const char *where) {
  double whole[9], split[9], lw, ls;
  int sw, ss;
  lapack_case(2147483647, whole, &lw, &sw);
  lapack_case(7, split, &ls, &ss);
  for (int i = 0; i < 9; i++) CHECK(whole[i] == split[i]);
  CHECK(lw == ls && sw == ss && ss == 1);
  CHECK(fabs(ls - log(263.0)) < 1e-12);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double v = 0;
      for (int k = 0; k < 3; k++) v += split[i * 3 + k] * M3[k * 3 + j];
      if (fabs(v - (i == j)) > 1e-12) fprintf(stderr, "%s: inv(M3)*M3 [%d,%d] = %g\n", where, i, j, v);
      CHECK(fabs(v - (i == j)) <= 1e-12);
    }
}

int main(void) {
  compare("host", 1);
  compare("host", 3);
  compare_lapack("host");
  nan_in_tail();
  gm_context c;
  gm_context_options o = gm_test_emulated_options(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_current_device() != NULL);
  compare("emulated", 1);
  compare("emulated", 3);
  gm_device *d = gm_current_device();
  const gm_device_ops *old = watch_counts(d);
  max_count = 0;
  double inv[9], la;
  int sg;
  lapack_case(7, inv, &la, &sg);
  /* copy in, NaN check and copy back of 9 elements: at most 7 per call */
  if (max_count > 7) fprintf(stderr, "emulated: a level-1 entry got %d elements (limit 7)\n", max_count);
  CHECK(max_count > 0 && max_count <= 7);
  compare_lapack("emulated");
  nan_in_tail();
  d->ops = old;
  CHECK(gm_context_exit(&c) == GM_OK);
  if (gm_test_failed) return 1;
  printf("blas_chunk_test: ok\n");
  return 0;
}
