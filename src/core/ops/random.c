/* Random numbers: the global stream, reservations and the fills that run
 * on the chosen place's backend.  See random.h and kernels/random.h. */
#include "random.h"

#include <math.h>
#include <pthread.h>

#include "../../../kernels/random.h"
#include "../exec/exec.h"
#include "elementwise.h"
#include "half.h"
#include "../../../kernels/half_ops.h"

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static gm_random_state global_state = {0, 0};

void gm_random_seed(uint64_t seed) {
  pthread_mutex_lock(&global_lock);
  global_state.key = seed;
  global_state.counter = 0;
  pthread_mutex_unlock(&global_lock);
}

gm_random_state gm_random_get(void) {
  pthread_mutex_lock(&global_lock);
  gm_random_state s = global_state;
  pthread_mutex_unlock(&global_lock);
  return s;
}

void gm_random_set(const gm_random_state *s) {
  pthread_mutex_lock(&global_lock);
  global_state = *s;
  pthread_mutex_unlock(&global_lock);
}

size_t gm_random_per_block(gm_ctype t) {
#define X(T, E, ...) \
  case GM_##E:       \
    return GM_RANDOM_PER_BLOCK_##E;
  GM_FLOAT_CTYPE_SWITCH(t, X, return 1)
#undef X
}

uint64_t gm_random_n_blocks_for(gm_ctype t, size_t n) {
  return gm_random_n_blocks(gm_random_per_block(t), n);
}

gm_random_state gm_random_reserve(gm_random_state *s, uint64_t blocks) {
  if (s) {
    gm_random_state start = *s;
    s->counter += blocks;
    return start;
  }
  pthread_mutex_lock(&global_lock);
  gm_random_state start = global_state;
  global_state.counter += blocks;
  pthread_mutex_unlock(&global_lock);
  return start;
}

gm_status gm_random_check_limit(gm_ctype t, double limit) {
  double c = gm_ctype_coerce(t, limit);
  if (!(c > 0) || !isfinite(c))
    return gm_fail(GM_EINVAL, "limit must be positive and finite as %s, got %g", gm_ctype_name(t),
                   limit);
  return GM_OK;
}

gm_status gm_random_check_gaussian(gm_ctype t, double mean, double stddev) {
  if (!isfinite(gm_ctype_coerce(t, mean)))
    return gm_fail(GM_EINVAL, "mean must be finite as %s, got %g", gm_ctype_name(t), mean);
  double sd = gm_ctype_coerce(t, stddev);
  if (!isfinite(sd) || sd < 0)
    return gm_fail(GM_EINVAL, "stddev must be non-negative and finite as %s, got %g",
                   gm_ctype_name(t), stddev);
  return GM_OK;
}

static gm_status no_random(const gm_exec *e, const char *op) {
  return gm_fail(GM_EUNSUPPORTED, "%s is not implemented on the %s backend yet", op, e->be->name);
}

/* Shared body of the two fills: acquire, reserve, call, release. */
static gm_status random_fill(gm_mat *m, gm_random_state *s, bool uniform, double a, double b) {
  const char *op = uniform ? "uniform_random_" : "gaussian_random_";
  GM_TRY(gm_check_float_mats(op, &m, 1));
  gm_exec e = gm_exec_choose(&m, 1);
  const gm_random_ops *r = e.be->random;
  if (!r || (uniform ? r->uniform == NULL : r->gaussian == NULL)) return no_random(&e, op);
  if (m->size == 0) return GM_OK;
  gm_operand opd = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &opd, 1));
  gm_random_state start = gm_random_reserve(s, gm_random_n_blocks_for(m->ctype, m->size));
  gm_status st = uniform ? r->uniform(e.dev, &start, m->ctype, m->size, a, opd.ptr)
                         : r->gaussian(e.dev, &start, m->ctype, m->size, a, b, opd.ptr);
  return gm_finish(&e, &opd, 1, st);
}

/* The largest value of half type t below the positive t value x. */
static double half_below(gm_ctype t, double x) {
#define X(T, E, ...)             \
  case GM_##E: {                 \
    T h = gm_sat_##T(x);         \
    h.bits--;                    \
    return gm_hload_##T(h);      \
  }
  switch (t) {
    GM_HALF_CTYPES(X)
    default:
      return x;
  }
#undef X
}

/* A float16/bfloat16 mat: the fill of a float32 mat of its dims (the same
 * draws from the same counters), rounded to nearest even into m (half.c),
 * as NumPy's rng.random(dtype=float32).astype(float16); a uniform draw
 * that would round up to the limit is first clamped to the type's value
 * just below it, so the fill stays in [0, limit) as a float one does. */
static gm_status half_fill(gm_mat *m, gm_random_state *s, bool uniform, double a, double b) {
  gm_mat *f = NULL;
  a = gm_ctype_coerce(m->ctype, a);
  if (uniform) GM_TRY(gm_random_check_limit(m->ctype, a));
  else GM_TRY(gm_random_check_gaussian(m->ctype, a, gm_ctype_coerce(m->ctype, b)));
  GM_TRY(gm_half_float_like(m, &f));
  gm_status st = uniform ? gm_uniform_random(f, a, s) : gm_gaussian_random(f, a, gm_ctype_coerce(m->ctype, b), s);
  if (st == GM_OK && uniform && f->size) st = gm_scalar_(GM_SC_MIN, half_below(m->ctype, a), f);
  return gm_half_store(st, f, m);
}

gm_status gm_uniform_random(gm_mat *m, double limit, gm_random_state *s) {
  if (gm_ctype_is_half(m->ctype)) return half_fill(m, s, true, limit, 0);
  GM_TRY(gm_random_check_limit(m->ctype, limit));
  return random_fill(m, s, true, gm_ctype_coerce(m->ctype, limit), 0);
}

gm_status gm_gaussian_random(gm_mat *m, double mean, double stddev, gm_random_state *s) {
  if (gm_ctype_is_half(m->ctype)) return half_fill(m, s, false, mean, stddev);
  GM_TRY(gm_random_check_gaussian(m->ctype, mean, stddev));
  return random_fill(m, s, false, gm_ctype_coerce(m->ctype, mean),
                     gm_ctype_coerce(m->ctype, stddev));
}

gm_status gm_random_gaussian_host(gm_ctype t, size_t n, void *buf, gm_random_state *s) {
  gm_random_state start = gm_random_reserve(s, gm_random_n_blocks_for(t, n));
  return gm_host_random_ops.gaussian(NULL, &start, t, n, 0.0, 1.0, buf);
}

gm_status gm_random_fill_check(gm_random_fill_kind k, const gm_mat *m, const double *p, bool *bad_m) {
  *bad_m = k == GM_FILL_ORTHOGONAL;
  switch (k) {
    case GM_FILL_UNIFORM:
      return gm_random_check_limit(m->ctype, p[0]);
    case GM_FILL_GAUSSIAN:
      return gm_random_check_gaussian(m->ctype, p[0], p[1]);
    case GM_FILL_ORTHOGONAL:
      break;
  }
  if (m->rank != 2) return gm_fail(GM_EINVAL, "matrix (rank 2) expected, got rank %d", m->rank);
  return GM_OK;
}

gm_status gm_random_fill(gm_random_fill_kind k, gm_mat *m, const double *p, gm_random_state *s) {
  switch (k) {
    case GM_FILL_UNIFORM:
      return gm_uniform_random(m, p[0], s);
    case GM_FILL_GAUSSIAN:
      return gm_gaussian_random(m, p[0], p[1], s);
    case GM_FILL_ORTHOGONAL:
      break;
  }
  return gm_orthogonal_random(m, p[0], s);
}
