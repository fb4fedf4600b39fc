/* The operations half of the public C API (include/gpumat.h): whole-mat
 * forms of the core ops (the Lua functions' defaults: every visible
 * element, unit strides), and the counters. */
#include <stdatomic.h>

#include "../ops/blas.h"
#include "../model/counters.h"
#include "../ops/elementwise.h"
#include "../exec/stage.h"
#include "../mem/runtime.h"

_Static_assert((int)GM_CTYPE_FLOAT == (int)GM_FLOAT && (int)GM_CTYPE_DOUBLE == (int)GM_DOUBLE, "public ctype numbers");
/* Every row of the op table has its public number (a row without one
 * does not compile). */
#define X(name, E, ...) _Static_assert((int)GM_FN_##E == (int)GM_UN_##E, "gm_function of " #name);
GM_UNARY_OPS(X)
#undef X
_Static_assert((int)GM_N_FUNCTIONS == (int)GM_N_UNARY, "gm_function follows gm_unary_op");

#define NEED(x, op)                                                      \
  do {                                                                   \
    if (!(x)) return gm_fail(GM_EINVAL, "%s: a mat argument is NULL", op); \
  } while (0)

static gm_status same_size(const char *op, const gm_mat *x, const gm_mat *y) {
  if (x->size != y->size)
    return gm_fail(GM_EINVAL, "%s: sizes differ (%zu vs %zu)", op, x->size, y->size);
  return GM_OK;
}

gm_status gm_fill(gm_mat *x, double alpha) {
  NEED(x, "gm_fill");
  return gm_fill_(alpha, x, x->size);
}

gm_status gm_copy(gm_mat *x, gm_mat *y) {
  NEED(x && y, "gm_copy");
  GM_TRY(same_size("gm_copy", x, y));
  return gm_copy_(x, y, x->size, 1, 1);
}

gm_status gm_scal(double alpha, gm_mat *x) {
  NEED(x, "gm_scal");
  return gm_scal_(alpha, x, x->size, 1);
}

gm_status gm_axpy(double alpha, gm_mat *x, gm_mat *y) {
  NEED(x && y, "gm_axpy");
  GM_TRY(same_size("gm_axpy", x, y));
  return gm_axpy_(alpha, x, y, x->size, 1, 1);
}

gm_status gm_gemm(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c, int transpose_a, int transpose_b) {
  NEED(a && b && c, "gm_gemm");
  gm_gemm_args g = {transpose_a != 0, transpose_b != 0, GM_UNSET, GM_UNSET, GM_UNSET,
                    GM_UNSET,         GM_UNSET,         GM_UNSET};
  return gm_gemm_(alpha, a, b, beta, c, g);
}

/* The whole-mat sum is sum_ over a 1 x size view into a one-element mat of
 * x's ctype and cuda-enabledness, so it runs where x's ops run. */
gm_status gm_sum(gm_mat *x, double *out) {
  NEED(x && out, "gm_sum");
  if (x->size == 0) {
    *out = 0;
    return GM_OK;
  }
  size_t row[2] = {1, x->size}, one = 1;
  gm_mat *v = NULL, *s = NULL;
  gm_mat_options o = {0};
  o.ctype = (int)x->ctype;
  o.cuda_enabled = x->cuda_enabled;
  o.synchronization = GM_SYNC_MAYBE;
  /* a strided view is summed from a contiguous copy */
  gm_status st = x->contiguous ? gm_mat_view(x, 2, row, x->displacement, &v) : gm_mat_contiguous_copy(x, &v);
  if (st == GM_OK && !x->contiguous) st = gm_mat_reshape_and_displace_(v, 2, row, 0);
  if (st == GM_OK) st = gm_mat_new(1, &one, &o, &s);
  if (st == GM_OK) st = gm_sum_(v, s, 1, 1, 0);
  double r = 0;
  if (st == GM_OK) st = gm_mat_get(s, 0, &r);
  gm_mat_free(s);
  gm_mat_free(v);
  if (st == GM_OK) *out = r;
  return st;
}

gm_status gm_sum_axis(gm_mat *x, gm_mat *y, int axis, double alpha, double beta) {
  NEED(x && y, "gm_sum_axis");
  return gm_sum_(x, y, axis, alpha, beta);
}

gm_status gm_apply(gm_mat *x, gm_function fn) {
  NEED(x, "gm_apply");
  if ((int)fn < 0 || fn >= GM_N_FUNCTIONS) return gm_fail(GM_EINVAL, "gm_apply: bad function %d", (int)fn);
  return gm_unary_((gm_unary_op)fn, x, x->size);
}

gm_status gm_expt(gm_mat *x, double power) {
  NEED(x, "gm_expt");
  return gm_expt_(x, power);
}

gm_status gm_add_scalar(gm_mat *x, double alpha) {
  NEED(x, "gm_add_scalar");
  return gm_add_scalar_(alpha, x);
}

gm_status gm_mul(gm_mat *x, gm_mat *y) {
  NEED(x && y, "gm_mul");
  return gm_mul_(x, y);
}

gm_status gm_geem(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c) {
  NEED(a && b && c, "gm_geem");
  return gm_geem_(alpha, a, b, beta, c);
}

gm_status gm_lt(gm_mat *x, gm_mat *y) {
  NEED(x && y, "gm_lt");
  return gm_lt_(x, y);
}

gm_status gm_min(double alpha, gm_mat *x) {
  NEED(x, "gm_min");
  return gm_min_(alpha, x);
}

gm_status gm_max(double alpha, gm_mat *x) {
  NEED(x, "gm_max");
  return gm_max_(alpha, x);
}

gm_status gm_add_sign(double alpha, gm_mat *a, double beta, gm_mat *b) {
  NEED(a && b, "gm_add_sign");
  return gm_add_sign_(alpha, a, beta, b);
}

gm_status gm_geerv(double alpha, gm_mat *a, gm_mat *x, double beta, gm_mat *b) {
  NEED(a && x && b, "gm_geerv");
  return gm_geerv_(alpha, a, x, beta, b);
}

gm_status gm_scale_rows(gm_mat *scales, gm_mat *a, gm_mat *result) {
  NEED(scales && a && result, "gm_scale_rows");
  return gm_scale_rows_(scales, a, result);
}

gm_status gm_scale_columns(gm_mat *scales, gm_mat *a, gm_mat *result) {
  NEED(scales && a && result, "gm_scale_columns");
  return gm_scale_columns_(scales, a, result);
}

static void add_device(gm_device *d, void *arg) {
  gm_counter_values *t = arg;
  gm_pool_stats s = gm_pool_get_stats(&d->pool);
  t->device_bytes_in_use += (long long)s.in_use;
  t->device_bytes_pooled += (long long)s.cached;
  t->n_device_arrays += (long long)s.n_in_use;
  t->pinned_host_bytes += (long long)atomic_load(&d->pinned_bytes);
  gm_hostpool_stats p = gm_hostpool_get_stats(&d->pinned_pool);
  t->pinned_host_bytes_cached += (long long)p.cached;
  t->pinned_host_pool_hits += (long long)p.hits;
}

gm_counter_values gm_counters(void) {
  gm_counter_values t = {0};
  gm_device_foreach(add_device, &t);
  t.n_memcpy_host_to_device = atomic_load(&gm_counter.n_memcpy_host_to_device);
  t.n_memcpy_device_to_host = atomic_load(&gm_counter.n_memcpy_device_to_host);
  t.host_bytes_in_use = atomic_load(&gm_counter.host_bytes_in_use);
  t.n_host_arrays = atomic_load(&gm_counter.n_host_arrays);
  t.n_ooms = atomic_load(&gm_counter.n_ooms);
  t.n_host_registrations = atomic_load(&gm_counter.n_host_registrations);
  gm_hostpool_stats h = gm_hostpool_get_stats(gm_host_pool());
  t.host_pool_bytes_in_use = (long long)h.in_use;
  t.host_pool_bytes_cached = (long long)h.cached;
  t.host_pool_hits = (long long)h.hits;
  t.host_pool_misses = (long long)h.misses;
  t.host_pool_trims = (long long)h.n_trimmed;
  t.host_pool_limit = (long long)gm_host_pool_limit();
  return t;
}
