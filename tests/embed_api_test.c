/* Test of the embedding API (include/gpumat.h "Embedding" part and
 * include/gpumat_lua.h) against libgpumat: gm_mat_wrap and its release
 * callback (exactly once, whoever drops the last view: C, Lua, a Lua
 * view), facet access, contexts from C, every operation on the host and
 * on the emulated device with values checked against plain C, counters,
 * and the Lua entry points (embedded Lua parts, no package.path), with
 * settings per Lua state.
 * Every error path returns its status and leaves the arguments unchanged.
 * Exits 0 when every check passes; prints each failure. */
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumat.h"
#include "gpumat_lua.h"

#include "check.h"

static int n_released;
static void *last_ud;
static pthread_t release_thread;
static void count_release(void *ud) {
  n_released++;
  last_ud = ud;
  release_thread = pthread_self();
}

static void *free_in_thread(void *m) {
  gm_mat_free(m);
  return NULL;
}

static double get(gm_mat *m, size_t k) {
  double v = NAN;
  CHECK(gm_mat_get(m, k, &v) == GM_OK);
  return v;
}

static gm_mat *new_mat(int ctype, int rank, const size_t *dims, const double *vals) {
  gm_mat_options o = {0};
  o.ctype = ctype;
  o.has_initial_element = 1;
  o.cuda_enabled = 1;
  o.synchronization = GM_SYNC_MAYBE;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(rank, dims, &o, &m) == GM_OK);
  if (m && vals)
    for (size_t k = 0; k < gm_mat_size(m); k++) CHECK(gm_mat_put(m, k, vals[k]) == GM_OK);
  return m;
}

static double tol(int ctype) { return ctype == GM_CTYPE_FLOAT ? 1e-5 : 1e-12; }
static int near(double a, double b, int ctype) { return fabs(a - b) <= tol(ctype) * (1 + fabs(b)); }

static void check_values(gm_mat *m, const double *want, int ctype, const char *what) {
  for (size_t k = 0; k < gm_mat_size(m); k++) {
    double v = get(m, k);
    if (!near(v, want[k], ctype)) {
      fprintf(stderr, "%s: element %zu is %.17g, want %.17g\n", what, k, v, want[k]);
      CHECK(near(v, want[k], ctype));
    }
  }
}

/* ---- gm_mat_wrap ---- */

static void test_wrap(void) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  size_t dims[2] = {2, 3};
  gm_mat *m = NULL;
  n_released = 0;
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 2, dims, count_release, buf, &m) == GM_OK);
  CHECK(gm_mat_rank(m) == 2 && gm_mat_dim(m, 0) == 2 && gm_mat_dim(m, 1) == 3);
  CHECK(gm_mat_ctype(m) == GM_CTYPE_FLOAT && gm_mat_size(m) == 6 && gm_mat_max_size(m) == 6);
  CHECK(get(m, 4) == 5); /* no copy, no initial element: the application's data */
  CHECK(gm_mat_put(m, 0, 10) == GM_OK && buf[0] == 10);
  buf[5] = 60; /* the mat sees the application's writes */
  CHECK(get(m, 5) == 60);
  void *p = NULL;
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_INPUT, &p) == GM_OK && p == buf);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_OK);
  /* a displaced view keeps the memory; release waits for the last view */
  size_t vd = 2;
  gm_mat *v = NULL;
  CHECK(gm_mat_view(m, 1, &vd, 3, &v) == GM_OK);
  CHECK(gm_mat_begin_access(v, GM_FACET_FOREIGN, GM_IO, &p) == GM_OK && p == buf + 3);
  CHECK(gm_mat_end_access(v, GM_FACET_FOREIGN) == GM_OK);
  gm_mat_free(m);
  CHECK(n_released == 0);
  CHECK(get(v, 1) == 5);
  gm_mat_free(v);
  CHECK(n_released == 1 && last_ud == buf);

  /* NULL release is allowed; rank 0 wraps one element */
  double one = 2.5;
  CHECK(gm_mat_wrap(&one, GM_CTYPE_DOUBLE, 0, NULL, NULL, NULL, &m) == GM_OK);
  CHECK(gm_mat_size(m) == 1 && get(m, 0) == 2.5);
  gm_mat_free(m);

  /* errors: nothing made, release not called, out unchanged */
  n_released = 0;
  gm_mat *sentinel = (gm_mat *)&one, *out = sentinel;
  CHECK(gm_mat_wrap(NULL, GM_CTYPE_FLOAT, 2, dims, count_release, NULL, &out) == GM_EINVAL);
  CHECK(strstr(gm_last_error(), "data") != NULL);
  CHECK(gm_mat_wrap(buf, GM_CTYPE_BFLOAT16 + 1, 2, dims, count_release, NULL, &out) == GM_EINVAL);
  CHECK(gm_mat_wrap(buf, -1, 2, dims, count_release, NULL, &out) == GM_EINVAL);
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, GM_MAX_RANK + 1, dims, count_release, NULL, &out) == GM_EINVAL);
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, -1, dims, count_release, NULL, &out) == GM_EINVAL);
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 2, NULL, count_release, NULL, &out) == GM_EINVAL);
  size_t huge[2] = {(size_t)1 << 40, (size_t)1 << 40};
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 2, huge, count_release, NULL, &out) == GM_ERANGE);
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 2, dims, count_release, NULL, NULL) == GM_EINVAL);
  CHECK(out == sentinel && n_released == 0);
}

/* the last view may go on another thread: release runs there, once */
static void test_wrap_thread(void) {
  double buf[3] = {1, 2, 3};
  size_t n = 3, two = 2;
  gm_mat *m = NULL, *v = NULL;
  n_released = 0;
  CHECK(gm_mat_wrap(buf, GM_CTYPE_DOUBLE, 1, &n, count_release, buf, &m) == GM_OK);
  CHECK(gm_mat_view(m, 1, &two, 1, &v) == GM_OK);
  gm_mat_free(m);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, free_in_thread, v) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(n_released == 1 && last_ud == buf && pthread_equal(release_thread, t));
}

/* ---- facet access ---- */

static void test_access(void) {
  size_t n = 4;
  gm_mat *m = new_mat(GM_CTYPE_DOUBLE, 1, &n, (const double[]){1, 2, 3, 4});
  void *p = NULL, *q = NULL;
  /* output: the caller writes every element */
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_OUTPUT, &p) == GM_OK);
  for (int i = 0; i < 4; i++) ((double *)p)[i] = 10 * (i + 1);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_OK);
  CHECK(get(m, 3) == 40);
  /* nested on the same facet and thread, ended innermost first */
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_INPUT, &p) == GM_OK);
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_IO, &q) == GM_OK && p == q);
  size_t one = 1;
  gm_mat *other = new_mat(GM_CTYPE_DOUBLE, 1, &one, NULL);
  CHECK(gm_mat_begin_access(other, GM_FACET_FOREIGN, GM_INPUT, &q) == GM_OK);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_ESTATE); /* other's is innermost */
  CHECK(gm_mat_end_access(other, GM_FACET_FOREIGN) == GM_OK);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_OK);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_OK);
  CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_ESTATE); /* none open */
  CHECK(strstr(gm_last_error(), "no open access") != NULL);
  CHECK(gm_mat_end_access(m, GM_FACET_CUDA) == GM_ESTATE);
  CHECK(gm_mat_end_access(NULL, GM_FACET_FOREIGN) == GM_ESTATE);
  /* bad arguments leave *ptr alone */
  p = &n;
  CHECK(gm_mat_begin_access(m, (gm_facet_name)9, GM_INPUT, &p) == GM_EINVAL && p == &n);
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, (gm_direction)5, &p) == GM_EINVAL && p == &n);
  CHECK(gm_mat_begin_access(NULL, GM_FACET_FOREIGN, GM_INPUT, &p) == GM_EINVAL);
  CHECK(gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_INPUT, NULL) == GM_EINVAL);
  CHECK(gm_mat_begin_access(m, GM_FACET_CUDA, GM_INPUT, &p) == GM_EINVAL && p == &n); /* no context */
  CHECK(strstr(gm_last_error(), "context") != NULL);
  CHECK(gm_mat_begin_access(m, GM_FACET_MANAGED, GM_INPUT, &p) == GM_EINVAL && p == &n); /* no context */
  /* at most 64 open per thread */
  int opened = 0;
  while (gm_mat_begin_access(m, GM_FACET_FOREIGN, GM_INPUT, &p) == GM_OK) opened++;
  CHECK(opened == 64);
  for (int i = 0; i < opened; i++) CHECK(gm_mat_end_access(m, GM_FACET_FOREIGN) == GM_OK);
  CHECK(get(m, 0) == 10);
  gm_mat_free(other);
  gm_mat_free(m);
}

/* ---- contexts ---- */

static void test_contexts(void) {
  CHECK(gm_cuda_end() == GM_ESTATE); /* none begun */
  gm_cuda_options o = {0};
  o.backend = "tpu";
  CHECK(gm_cuda_begin(&o) == GM_EINVAL);
  CHECK(strstr(gm_last_error(), "backend") != NULL);
  o.backend = "emulated";
  o.device_id = 64;
  CHECK(gm_cuda_begin(&o) == GM_EINVAL);
  o.device_id = 0;
  o.n_random_states = -1;
  CHECK(gm_cuda_begin(&o) == GM_EINVAL);
  CHECK(gm_cuda_active() == 0);
  o.n_random_states = 0;
  o.disabled = 1;
  CHECK(gm_cuda_begin(&o) == GM_OK && gm_cuda_active() == 0);
  CHECK(gm_cuda_end() == GM_OK);

  /* the emulated device: ops on cuda-enabled mats run there; a wrapped
   * mat's data comes back into the application's buffer at the end */
  float buf[4] = {1, 2, 3, 4};
  size_t n = 4;
  gm_mat *w = NULL;
  n_released = 0;
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 1, &n, count_release, NULL, &w) == GM_OK);
  o.disabled = 0;
  CHECK(gm_cuda_begin(&o) == GM_OK && gm_cuda_active() == 1);
  gm_counter_values c0 = gm_counters();
  CHECK(gm_scal(2, w) == GM_OK);
  gm_counter_values c1 = gm_counters();
  CHECK(c1.n_memcpy_host_to_device == c0.n_memcpy_host_to_device + 1);
  CHECK(c1.n_device_arrays >= c0.n_device_arrays + 1);
  CHECK(buf[0] == 1); /* the result lives in the cuda facet until needed */
  void *p = NULL;
  CHECK(gm_mat_begin_access(w, GM_FACET_CUDA, GM_INPUT, &p) == GM_OK && p != NULL && p != buf);
  CHECK(gm_mat_begin_access(w, GM_FACET_FOREIGN, GM_OUTPUT, &p) == GM_ESTATE); /* cuda being read */
  CHECK(gm_mat_end_access(w, GM_FACET_CUDA) == GM_OK);
  CHECK(gm_mat_begin_access(w, GM_FACET_CUDA_HOST, GM_INPUT, &p) == GM_EUNSUPPORTED); /* wrapped */
  /* the foreign facet of wrapped memory is never destroyed */
  CHECK(gm_mat_begin_access(w, GM_FACET_FOREIGN, GM_INPUT, &p) == GM_OK && p == buf);
  CHECK(buf[3] == 8);
  CHECK(gm_mat_end_access(w, GM_FACET_FOREIGN) == GM_OK);
  CHECK(gm_scal(0.5, w) == GM_OK);
  /* a Lua-style inner context, then the end order */
  CHECK(gm_cuda_begin(NULL) == GM_OK);
  CHECK(gm_cuda_end() == GM_OK);
  CHECK(gm_cuda_end() == GM_OK);
  CHECK(gm_cuda_active() == 0);
  CHECK(buf[0] == 1 && buf[3] == 4); /* the exit barrier brought the data home */
  gm_mat_free(w);
  CHECK(n_released == 1);
  CHECK(gm_cuda_end() == GM_ESTATE);
}

/* ---- operations, on the host and on the emulated device ---- */

static void test_ops(int ctype) {
  size_t d23[2] = {2, 3}, d32[2] = {3, 2}, d22[2] = {2, 2}, d6 = 6, d3 = 3, d2 = 2;
  const double av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {0.5, -1, 2, 0.25, -3, 1};
  gm_mat *a = new_mat(ctype, 2, d23, av), *b = new_mat(ctype, 2, d32, bv), *c = new_mat(ctype, 2, d22, NULL);
  double want[6];

  /* c := 2 a b + 0 c */
  CHECK(gm_gemm(2, a, b, 0, c, 0, 0) == GM_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += av[i * 3 + k] * bv[k * 2 + j];
      want[i * 2 + j] = 2 * s;
    }
  check_values(c, want, ctype, "gemm");
  /* c := a^T-free: a (2x3) * a^T (3x2) with transpose_b, beta 1 */
  double before[4];
  for (int k = 0; k < 4; k++) before[k] = get(c, k);
  CHECK(gm_gemm(1, a, a, 1, c, 0, 1) == GM_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += av[i * 3 + k] * av[j * 3 + k];
      want[i * 2 + j] = before[i * 2 + j] + s;
    }
  check_values(c, want, ctype, "gemm transpose_b");
  /* shape errors leave c alone */
  for (int k = 0; k < 4; k++) before[k] = get(c, k);
  CHECK(gm_gemm(1, a, a, 0, c, 0, 0) == GM_EINVAL);
  CHECK(gm_gemm(1, NULL, a, 0, c, 0, 0) == GM_EINVAL);
  check_values(c, before, ctype, "gemm after error");

  gm_mat *x = new_mat(ctype, 1, &d6, av), *y = new_mat(ctype, 1, &d6, bv);
  CHECK(gm_axpy(3, x, y) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] = 3 * av[k] + bv[k];
  check_values(y, want, ctype, "axpy");
  CHECK(gm_scal(-2, y) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] *= -2;
  check_values(y, want, ctype, "scal");
  CHECK(gm_copy(x, y) == GM_OK);
  check_values(y, av, ctype, "copy");
  double s = 0;
  CHECK(gm_sum(x, &s) == GM_OK && near(s, 21, ctype));
  s = 7;
  CHECK(gm_sum(NULL, &s) == GM_EINVAL && s == 7);

  gm_mat *sums = new_mat(ctype, 1, &d3, NULL);
  CHECK(gm_sum_axis(a, sums, 0, 2, 0) == GM_OK); /* column sums, doubled */
  check_values(sums, (const double[]){10, 14, 18}, ctype, "sum_axis 0");
  gm_mat *rsum = new_mat(ctype, 1, &d2, (const double[]){1, 1});
  CHECK(gm_sum_axis(a, rsum, 1, 1, 1) == GM_OK); /* row sums + old */
  check_values(rsum, (const double[]){7, 16}, ctype, "sum_axis 1");
  CHECK(gm_sum_axis(a, rsum, 2, 1, 0) == GM_EINVAL);
  CHECK(gm_sum_axis(a, sums, 1, 1, 0) == GM_EINVAL); /* 3 results for 2 rows */
  check_values(sums, (const double[]){10, 14, 18}, ctype, "sum_axis after error");

  CHECK(gm_fill(y, 0.25) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] = 0.25;
  check_values(y, want, ctype, "fill");
  CHECK(gm_add_scalar(y, 1) == GM_OK);
  CHECK(gm_mul(x, y) == GM_OK); /* y := x .* 1.25 */
  for (int k = 0; k < 6; k++) want[k] = av[k] * 1.25;
  check_values(y, want, ctype, "add_scalar + mul");
  CHECK(gm_geem(2, x, x, -1, y) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] = 2 * av[k] * av[k] - av[k] * 1.25;
  check_values(y, want, ctype, "geem");
  CHECK(gm_expt(x, 2) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] = av[k] * av[k];
  check_values(x, want, ctype, "expt");
  CHECK(gm_apply(x, GM_FN_SQRT) == GM_OK);
  check_values(x, av, ctype, "sqrt");
  CHECK(gm_apply(x, GM_FN_LOG) == GM_OK && gm_apply(x, GM_FN_EXP) == GM_OK);
  check_values(x, av, ctype, "log then exp");
  CHECK(gm_apply(x, GM_FN_TANH) == GM_OK);
  for (int k = 0; k < 6; k++) want[k] = tanh(av[k]);
  check_values(x, want, ctype, "tanh");
  CHECK(gm_apply(x, GM_N_FUNCTIONS) == GM_EINVAL && gm_apply(x, (gm_function)-1) == GM_EINVAL);
  check_values(x, want, ctype, "apply after error");
  gm_mat *h = new_mat(ctype, 1, &d6, (const double[]){-2.5, -0.5, 0.5, 1.5, 2.5, -1.25});
  CHECK(gm_apply(h, GM_FN_ROUND) == GM_OK); /* halves to even (rint) */
  check_values(h, (const double[]){-2, 0, 0, 2, 2, -1}, ctype, "round");
  CHECK(gm_apply(h, GM_FN_RELU) == GM_OK && gm_apply(h, GM_FN_NEG) == GM_OK);
  check_values(h, (const double[]){0, 0, 0, -2, -2, 0}, ctype, "relu then neg");
  CHECK(gm_apply(h, GM_FN_ABS) == GM_OK && gm_apply(h, GM_FN_LOG1P) == GM_OK);
  check_values(h, (const double[]){0, 0, 0, log(3), log(3), 0}, ctype, "abs then log1p");
  CHECK(gm_apply(h, GM_FN_TRUNC) == GM_OK && gm_apply(h, GM_FN_POSITIVE) == GM_OK); /* the standard's rows */
  check_values(h, (const double[]){0, 0, 0, 1, 1, 0}, ctype, "trunc then positive");
  gm_mat_free(h);

  gm_mat *u = new_mat(ctype, 1, &d6, (const double[]){-2, -1, 0, 1, 2, 3});
  gm_mat *t = new_mat(ctype, 1, &d6, (const double[]){0, 0, 0, 2, 2, 2});
  CHECK(gm_lt(u, t) == GM_OK); /* t := u < t */
  check_values(t, (const double[]){1, 1, 0, 1, 0, 0}, ctype, "lt");
  CHECK(gm_min(1.5, u) == GM_OK);
  check_values(u, (const double[]){-2, -1, 0, 1, 1.5, 1.5}, ctype, "min");
  CHECK(gm_max(-0.5, u) == GM_OK);
  check_values(u, (const double[]){-0.5, -0.5, 0, 1, 1.5, 1.5}, ctype, "max");
  CHECK(gm_add_sign(2, u, 1, t) == GM_OK);
  check_values(t, (const double[]){-1, -1, 0, 3, 2, 2}, ctype, "add_sign");

  /* row/column scaling and geerv on the 2x3 a */
  gm_mat *a2 = new_mat(ctype, 2, d23, NULL), *rs = new_mat(ctype, 1, &d2, (const double[]){2, -1});
  gm_mat *cs = new_mat(ctype, 1, &d3, (const double[]){1, 0.5, -2});
  CHECK(gm_scale_rows(rs, a, a2) == GM_OK);
  check_values(a2, (const double[]){2, 4, 6, -4, -5, -6}, ctype, "scale_rows");
  CHECK(gm_scale_columns(cs, a, a2) == GM_OK);
  check_values(a2, (const double[]){1, 1, -6, 4, 2.5, -12}, ctype, "scale_columns");
  CHECK(gm_geerv(2, a, cs, 1, a2) == GM_OK); /* a2 += 2 a .* [cs; cs] */
  check_values(a2, (const double[]){3, 3, -18, 12, 7.5, -36}, ctype, "geerv");
  CHECK(gm_scale_rows(cs, a, a2) == GM_EINVAL && gm_geerv(1, a, rs, 0, a2) == GM_EINVAL);
  CHECK(gm_scale_columns(NULL, a, a2) == GM_EINVAL && gm_geerv(1, a, NULL, 0, a2) == GM_EINVAL);
  check_values(a2, (const double[]){3, 3, -18, 12, 7.5, -36}, ctype, "scale after errors");
  gm_mat_free(a2);
  gm_mat_free(rs);
  gm_mat_free(cs);

  /* mismatched ctype or size: an error, nothing changed */
  int other = ctype == GM_CTYPE_FLOAT ? GM_CTYPE_DOUBLE : GM_CTYPE_FLOAT;
  gm_mat *z = new_mat(other, 1, &d6, NULL), *short3 = new_mat(ctype, 1, &d3, NULL);
  CHECK(gm_copy(x, z) == GM_EINVAL && gm_axpy(1, x, z) == GM_EINVAL && gm_mul(x, z) == GM_EINVAL);
  CHECK(gm_copy(x, short3) == GM_EINVAL && gm_axpy(1, x, short3) == GM_EINVAL);
  CHECK(strstr(gm_last_error(), "sizes differ") != NULL);
  CHECK(gm_geem(1, x, short3, 0, t) == GM_EINVAL && gm_lt(short3, t) == GM_EINVAL);
  CHECK(gm_add_sign(1, short3, 0, t) == GM_EINVAL);
  check_values(t, (const double[]){-1, -1, 0, 3, 2, 2}, ctype, "after mismatches");
  CHECK(get(z, 0) == 0 && get(short3, 0) == 0);
  CHECK(gm_fill(NULL, 1) == GM_EINVAL && gm_scal(1, NULL) == GM_EINVAL && gm_expt(NULL, 1) == GM_EINVAL);
  CHECK(gm_add_scalar(NULL, 1) == GM_EINVAL && gm_min(1, NULL) == GM_EINVAL && gm_max(1, NULL) == GM_EINVAL);
  CHECK(gm_apply(NULL, GM_FN_EXP) == GM_EINVAL && gm_copy(NULL, x) == GM_EINVAL);

  gm_mat *all[] = {a, b, c, x, y, sums, rsum, u, t, z, short3};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) gm_mat_free(all[i]);
}

static void test_counters(void) {
  gm_counter_values c0 = gm_counters();
  size_t n = 1000;
  gm_mat *m = new_mat(GM_CTYPE_DOUBLE, 1, &n, NULL);
  gm_counter_values c1 = gm_counters();
  CHECK(c1.host_bytes_in_use == c0.host_bytes_in_use); /* no facet yet */
  CHECK(gm_fill(m, 1) == GM_OK);                       /* the host facet */
  c1 = gm_counters();
  CHECK(c1.host_bytes_in_use == c0.host_bytes_in_use + 8000);
  CHECK(c1.n_host_arrays == c0.n_host_arrays + 1);
  gm_mat_free(m);
  gm_counter_values c2 = gm_counters();
  CHECK(c2.host_bytes_in_use == c0.host_bytes_in_use && c2.n_host_arrays == c0.n_host_arrays);
  CHECK(c2.n_ooms >= 0 && c2.device_bytes_in_use >= 0);
}

/* ---- Lua ---- */

static int run(lua_State *L, const char *code) {
  if (luaL_dostring(L, code) != LUA_OK) {
    fprintf(stderr, "lua error: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* gpumat_pushmat of the light userdata at 1 (run under lua_pcall) */
static int push_before_open(lua_State *L) {
  gm_mat *m = lua_touserdata(L, 1);
  gpumat_pushmat(L, m);
  return 1;
}

static int check_at_1(lua_State *L) {
  gpumat_checkmat(L, 1);
  return 0;
}

static void test_lua(void) {
  /* pushing before luaopen_gpumat is a Lua error, not a crash */
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  size_t n = 2;
  gm_mat *tmp = new_mat(GM_CTYPE_DOUBLE, 1, &n, NULL);
  lua_pushcfunction(L, push_before_open);
  lua_pushlightuserdata(L, tmp);
  CHECK(lua_pcall(L, 1, 1, 0) != LUA_OK && strstr(lua_tostring(L, -1), "luaopen_gpumat") != NULL);
  lua_close(L);
  gm_mat_free(tmp);

  L = luaL_newstate();
  luaL_openlibs(L);
  /* no search path at all: everything comes from the library */
  CHECK(run(L, "package.path = ''; package.cpath = ''"));
  luaL_requiref(L, "gpumat", luaopen_gpumat, 1);
  CHECK(lua_istable(L, -1));
  lua_pop(L, 1);
  CHECK(run(L, "gm = require 'gpumat'; assert(gm == package.loaded.gpumat)"
               "; assert(type(gm.mat) == 'function' and type(gm.with_cuda) == 'function')"
               "; assert(require('gpumat.shaping'))"));
  /* calling luaopen_gpumat again gives the same module */
  lua_pushcfunction(L, luaopen_gpumat);
  lua_call(L, 0, 1);
  lua_getglobal(L, "gm");
  CHECK(lua_rawequal(L, -1, -2));
  lua_pop(L, 2);

  float buf[6] = {1, 2, 3, 4, 5, 6};
  size_t dims[2] = {2, 3};
  gm_mat *w = NULL;
  n_released = 0;
  CHECK(gm_mat_wrap(buf, GM_CTYPE_FLOAT, 2, dims, count_release, buf, &w) == GM_OK);
  gpumat_pushmat(L, w);
  CHECK(gpumat_testmat(L, -1) != NULL && gpumat_testmat(L, -1) != w); /* its own view */
  lua_setglobal(L, "w");
  gm_mat_free(w); /* Lua's reference keeps the memory */
  CHECK(n_released == 0);
  CHECK(run(L, "assert(w:ctype() == 'float' and w:dim(1) == 2 and w:dim(2) == 3)"
               "; gm.scal_(10, w); w[1] = -1"
               "; keep = w:reshape({3, 2})" /* a Lua view of the wrapped memory */
               "; made = gm.mat({2, 2}, {initial_contents = {{1, 2}, {3, 4}}})"));
  CHECK(buf[0] == -1 && buf[1] == 20 && buf[5] == 60);
  /* the foreign facet of wrapped memory survives destroy/destroy_facet,
   * also with the data on the device; cuda_host is refused */
  CHECK(run(L, "gm.with_cuda({backend = 'emulated'}, function()"
               "  gm.scal_(2, w); assert(w:facets() == 'Cf')"
               "  w:destroy_facet('foreign'); w:destroy(); assert(w:facets() == 'F')"
               "  local ok, err = pcall(gm.with_facet, w, 'cuda_host', 'input', function() end)"
               "  assert(not ok and tostring(err):find('application memory'), tostring(err))"
               "  gm.scal_(0.5, w) end)"
               "; assert(w:facets() == 'F' and w[2] == 20)"));
  CHECK(buf[0] == -1 && buf[1] == 20 && buf[5] == 60);
  lua_getglobal(L, "made");
  gm_mat *made = gpumat_checkmat(L, -1);
  CHECK(gm_mat_rank(made) == 2 && get(made, 3) == 4);
  lua_pop(L, 1);
  /* pushing NULL is a Lua error */
  lua_pushcfunction(L, push_before_open);
  lua_pushlightuserdata(L, NULL);
  CHECK(lua_pcall(L, 1, 1, 0) != LUA_OK && strstr(lua_tostring(L, -1), "NULL") != NULL);
  lua_pop(L, 1);
  lua_pushnumber(L, 3);
  CHECK(gpumat_testmat(L, -1) == NULL);
  lua_pop(L, 1);
  /* checkmat raises a Lua argument error */
  lua_pushcfunction(L, check_at_1);
  lua_pushstring(L, "x");
  CHECK(lua_pcall(L, 1, 0, 0) != LUA_OK && strstr(lua_tostring(L, -1), "gpumat.mat expected") != NULL);
  lua_pop(L, 1);
  CHECK(run(L, "made:free()"));
  lua_getglobal(L, "made");
  CHECK(gpumat_testmat(L, -1) == NULL);
  lua_pushcfunction(L, check_at_1);
  lua_pushvalue(L, -2);
  CHECK(lua_pcall(L, 1, 0, 0) != LUA_OK && strstr(lua_tostring(L, -1), "freed") != NULL);
  lua_pop(L, 2);
  /* dropping w leaves the reshaped view: still not released */
  CHECK(run(L, "w = nil; collectgarbage(); collectgarbage()"));
  CHECK(n_released == 0);
  CHECK(run(L, "assert(keep:mref(3, 2) == 60)"));
  lua_close(L); /* the last view goes with the state */
  CHECK(n_released == 1 && last_ud == buf);
}

static lua_State *open_gpumat_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "gpumat", luaopen_gpumat, 1);
  lua_setglobal(L, "gm");
  return L;
}

/* The binding's settings are per Lua state: two states of one application
 * configure gpumat independently; the core's flags (cuda_enabled) are
 * process-wide, seen by both. */
static void test_two_states(void) {
  lua_State *a = open_gpumat_state(), *b = open_gpumat_state();
  CHECK(run(a, "gm.default_ctype = 'float'; gm.print_max_elements = 2; gm.mat_headers = false"));
  CHECK(run(a, "assert(gm.mat(1):ctype() == 'float' and gm.default_ctype == 'float')"));
  CHECK(run(b, "assert(gm.mat(1):ctype() == 'double' and gm.default_ctype == 'double')"
               "; assert(gm.print_max_elements == 1000 and gm.mat_headers == true)"
               "; assert(gm.array_to_mat({1}):ctype() == 'double')"));
  /* the other way round: b's writes leave a alone */
  CHECK(run(b, "gm.default_ctype = 'float'; gm.default_synchronization = true"));
  CHECK(run(a, "gm.default_ctype = 'double'"));
  CHECK(run(b, "assert(gm.mat(1):ctype() == 'float' and gm.default_synchronization == true)"));
  CHECK(run(a, "assert(gm.mat(1):ctype() == 'double' and gm.default_synchronization == 'maybe')"));
  /* opening the module again keeps the state's settings */
  lua_pushcfunction(b, luaopen_gpumat);
  lua_call(b, 0, 1);
  lua_pop(b, 1);
  CHECK(run(b, "assert(gm.default_ctype == 'float' and gm.print_max_elements == 1000)"));
  CHECK(run(a, "assert(gm.print_max_elements == 2)"));
  /* a process-wide core flag is one for both */
  CHECK(run(a, "gm.cuda_enabled = false"));
  CHECK(run(b, "assert(gm.cuda_enabled == false); gm.cuda_enabled = true"));
  CHECK(run(a, "assert(gm.cuda_enabled == true)"));
  lua_close(a);
  CHECK(run(b, "assert(gm.mat(2):ctype() == 'float')")); /* b outlives a */
  lua_close(b);
}

int main(void) {
  test_wrap();
  test_wrap_thread();
  test_access();
  test_contexts();
  for (int mode = 0; mode < 2; mode++) {
    gm_cuda_options o = {0};
    o.backend = "emulated";
    if (mode == 1) CHECK(gm_cuda_begin(&o) == GM_OK && gm_cuda_active());
    test_ops(GM_CTYPE_FLOAT);
    test_ops(GM_CTYPE_DOUBLE);
    if (mode == 1) CHECK(gm_cuda_end() == GM_OK);
  }
  test_counters();
  test_lua();
  test_two_states();
  if (gm_test_failed) {
    fprintf(stderr, "embed_api_test: %d check(s) failed\n", atomic_load(&gm_test_failed));
    return 1;
  }
  printf("embed_api_test: all checks passed\n");
  return 0;
}
