/* Level-1 BLAS calls over more elements than BLAS's int are split into
 * several calls (src/core/blas.c gm_blas_chunk).  Mats over
 * 2^31 elements do not fit this machine's tests, so the chunk size is
 * lowered to 7 and every split op is compared with the unsplit call, on
 * the host and on the emulated device, for strides 1 and 3.
 *
 * Exits 0 when every check passes and prints each failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/blas.h"
#include "core/context.h"
#include "core/exec.h"

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

int main(void) {
  compare("host", 1);
  compare("host", 3);
  gm_context c;
  gm_context_options o = gm_test_emulated_options(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_current_device() != NULL);
  compare("emulated", 1);
  compare("emulated", 3);
  CHECK(gm_context_exit(&c) == GM_OK);
  if (gm_test_failed) return 1;
  printf("blas_chunk_test: ok\n");
  return 0;
}
