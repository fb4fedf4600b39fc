/* Watcher rules across threads (cube manual, WITH-FACET): "an inner
 * WITH-FACET does not conflict with an enclosing WITH-FACET if they are
 * for the same facet (but inner WITH-FACETs for another facet or for the
 * same facet from another thread do)"; any number of readers may share.
 * And synchronization: with a per-vec lock, concurrent watch/unwatch
 * from several threads keeps the watcher counts exact.
 *
 * Tests the core directly (src/core, linked like c_api_test); exits 0
 * when every check passes and prints each failure. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/model/direct.h"
#include "core/model/mat.h"
#include "core/ops/broadcast.h"
#include "core/ops/elementwise.h"
#include "gpumat.h"

#include "check.h"

static gm_mat *new_mat(gm_sync sync) {
  size_t n = 8;
  gm_mat_options o = {0};
  o.ctype = 1;
  o.has_initial_element = 1;
  o.initial_element = 1;
  o.synchronization = sync;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  return m;
}

static gm_status watch(gm_mat *m, gm_direction d) {
  void *p;
  return gm_mat_watch(m, GM_FACET_FOREIGN, d, NULL, &p);
}

static int n_watchers(gm_mat *m) {
  gm_facet info;
  gm_vec_facet_info(m->vec, GM_FACET_FOREIGN, &info);
  return info.n_watchers;
}

/* ---- a helper thread that performs one request and reports ---- */

typedef struct request {
  gm_mat *m;
  gm_direction dir;
  gm_status result;
  int hold;       /* keep the access until release is set */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int acquired, release;
} request;

static void *serve(void *arg) {
  request *r = arg;
  r->result = watch(r->m, r->dir);
  pthread_mutex_lock(&r->mu);
  r->acquired = 1;
  pthread_cond_broadcast(&r->cv);
  while (r->hold && r->result == GM_OK && !r->release) pthread_cond_wait(&r->cv, &r->mu);
  pthread_mutex_unlock(&r->mu);
  if (r->result == GM_OK) gm_mat_unwatch(r->m, GM_FACET_FOREIGN, r->dir);
  return NULL;
}

static void start(request *r, pthread_t *t, gm_mat *m, gm_direction dir, int hold) {
  r->m = m;
  r->dir = dir;
  r->hold = hold;
  r->acquired = r->release = 0;
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  CHECK(pthread_create(t, NULL, serve, r) == 0);
  pthread_mutex_lock(&r->mu);
  while (!r->acquired) pthread_cond_wait(&r->cv, &r->mu);
  pthread_mutex_unlock(&r->mu);
}

static void finish(request *r, pthread_t t) {
  pthread_mutex_lock(&r->mu);
  r->release = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  pthread_join(t, NULL);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
}

/* one request from another thread, released at once */
static gm_status from_other_thread(gm_mat *m, gm_direction dir) {
  request r;
  pthread_t t;
  start(&r, &t, m, dir, 0);
  finish(&r, t);
  return r.result;
}

static void test_nested_same_thread(void) {
  gm_mat *m = new_mat(GM_SYNC_TRUE);
  CHECK(watch(m, GM_IO) == GM_OK);
  CHECK(watch(m, GM_INPUT) == GM_OK); /* nested, same facet, same thread */
  CHECK(watch(m, GM_IO) == GM_OK);
  CHECK(n_watchers(m) == 3);
  /* the same facet from another thread conflicts while it is written */
  CHECK(from_other_thread(m, GM_INPUT) == GM_ESTATE);
  CHECK(from_other_thread(m, GM_IO) == GM_ESTATE);
  CHECK(from_other_thread(m, GM_OUTPUT) == GM_ESTATE);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  CHECK(n_watchers(m) == 0);
  /* free again: another thread may now write */
  CHECK(from_other_thread(m, GM_IO) == GM_OK);
  gm_mat_free(m);
}

static void test_readers_share(void) {
  gm_mat *m = new_mat(GM_SYNC_TRUE);
  CHECK(watch(m, GM_INPUT) == GM_OK);
  CHECK(from_other_thread(m, GM_INPUT) == GM_OK); /* readers share */
  CHECK(from_other_thread(m, GM_IO) == GM_ESTATE);
  /* another thread holds a read: the owner may not start writing */
  request r;
  pthread_t t;
  start(&r, &t, m, GM_INPUT, 1);
  CHECK(r.result == GM_OK);
  CHECK(n_watchers(m) == 2);
  CHECK(watch(m, GM_IO) == GM_ESTATE);
  /* even after the owner's own access ended (the reader is still there) */
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  CHECK(watch(m, GM_IO) == GM_ESTATE);
  CHECK(watch(m, GM_OUTPUT) == GM_ESTATE);
  CHECK(watch(m, GM_INPUT) == GM_OK); /* reading along is fine */
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  finish(&r, t);
  CHECK(n_watchers(m) == 0);
  CHECK(watch(m, GM_IO) == GM_OK);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  gm_mat_free(m);
}

/* a failed watch changes nothing: counts and data stay */
static void test_conflict_changes_nothing(void) {
  gm_mat *m = new_mat(GM_SYNC_TRUE);
  CHECK(gm_mat_put(m, 3, 7) == GM_OK);
  request r;
  pthread_t t;
  start(&r, &t, m, GM_IO, 1);
  CHECK(r.result == GM_OK);
  CHECK(watch(m, GM_INPUT) == GM_ESTATE);
  CHECK(watch(m, GM_OUTPUT) == GM_ESTATE);
  CHECK(n_watchers(m) == 1);
  finish(&r, t);
  double x = 0;
  CHECK(gm_mat_get(m, 3, &x) == GM_OK && x == 7);
  CHECK(n_watchers(m) == 0);
  gm_mat_free(m);
}

/* ---- synchronization: the per-vec lock makes the rules hold ----
 * Writers (io) and readers (input) hammer one facet from several threads.
 * Under the lock, a successful io watch excludes every other watcher, so
 * the test's own "inside" counters never see a writer together with
 * anybody else, and the watcher counts end at zero.  Without the lock the
 * check-then-count of watch races and both fail. */

enum { N_THREADS = 4, N_ROUNDS = 300000 };

static atomic_int readers_inside, writers_inside, n_violations;
static pthread_barrier_t start_line; /* all threads start together */

typedef struct hammer_arg {
  gm_mat *m;
  gm_direction dir;
  int n_ok;
} hammer_arg;

static void *hammer(void *p) {
  hammer_arg *a = p;
  pthread_barrier_wait(&start_line);
  for (int i = 0; i < N_ROUNDS; i++) {
    if (watch(a->m, a->dir) != GM_OK) continue; /* a conflict: fine */
    a->n_ok++;
    if (a->dir == GM_INPUT) {
      atomic_fetch_add(&readers_inside, 1);
      if (atomic_load(&writers_inside) > 0) atomic_fetch_add(&n_violations, 1);
      atomic_fetch_sub(&readers_inside, 1);
    } else {
      if (atomic_fetch_add(&writers_inside, 1) > 0) atomic_fetch_add(&n_violations, 1);
      if (atomic_load(&readers_inside) > 0) atomic_fetch_add(&n_violations, 1);
      atomic_fetch_sub(&writers_inside, 1);
    }
    gm_mat_unwatch(a->m, GM_FACET_FOREIGN, a->dir);
  }
  return NULL;
}

static void test_synchronized(gm_sync sync) {
  gm_mat *m = new_mat(sync);
  CHECK(watch(m, GM_INPUT) == GM_OK); /* create the facet first */
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  atomic_store(&n_violations, 0);
  pthread_barrier_init(&start_line, NULL, N_THREADS);
  pthread_t t[N_THREADS];
  hammer_arg a[N_THREADS];
  for (int i = 0; i < N_THREADS; i++) {
    a[i].m = m;
    a[i].dir = i % 2 ? GM_IO : GM_INPUT;
    a[i].n_ok = 0;
    CHECK(pthread_create(&t[i], NULL, hammer, &a[i]) == 0);
  }
  int n_ok = 0;
  for (int i = 0; i < N_THREADS; i++) {
    pthread_join(t[i], NULL);
    n_ok += a[i].n_ok;
  }
  pthread_barrier_destroy(&start_line);
  CHECK(n_ok > 0);
  CHECK(atomic_load(&n_violations) == 0);
  CHECK(n_watchers(m) == 0);
  CHECK(watch(m, GM_IO) == GM_OK); /* nobody is left watching */
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  gm_mat_free(m);
}

/* Direct element access (core/model/direct.h): one thread keeps reading element
 * 0 through a certificate while another writes every element with
 * watched puts, each of which ends the certificate (a metadata access on
 * another thread: membarrier, then wait for the reader to leave).  The
 * reader never sees a value go back, sees the last value at the end,
 * and really read directly and re-opened many times. */
enum { N_DIRECT_WRITES = 3000 };
static atomic_bool writer_done;

typedef struct {
  gm_mat *m;
  atomic_long n_direct, n_open;
} reader_arg;

static void *direct_reader(void *p) {
  reader_arg *a = p;
  gm_vec *v = a->m->vec;
  unsigned long long gen = 0;
  bool writable;
  double last = 0, x;
  for (;;) {
    bool done = atomic_load(&writer_done);
    if (gm_vec_direct_get(v, gen, a->m->ctype, 0, &x)) {
      a->n_direct++;
    } else {
      /* refused while the writer holds its watch (the watcher rule) */
      if (gm_mat_get(a->m, 0, &x) != GM_OK) continue;
      gen = gm_vec_direct_open(v, &writable);
      a->n_open++;
    }
    CHECK(x >= last && x <= N_DIRECT_WRITES);
    last = x;
    if (done) break;
  }
  CHECK(last == N_DIRECT_WRITES);
  return NULL;
}

static void test_direct_across_threads(void) {
  gm_mat *m = new_mat(GM_SYNC_TRUE);
  double x;
  CHECK(gm_mat_put(m, 0, 0) == GM_OK);
  bool writable = false;
  unsigned long long gen = gm_vec_direct_open(m->vec, &writable);
  if (gen == 0) { /* no membarrier here: the watched path is all there is */
    printf("facet_thread_test: direct access unavailable (no membarrier), skipped\n");
    gm_mat_free(m);
    return;
  }
  CHECK(writable);
  CHECK(gm_vec_direct_put(m->vec, gen, m->ctype, 3, 7));
  CHECK(gm_vec_direct_get(m->vec, gen, m->ctype, 3, &x) && x == 7);
  CHECK(watch(m, GM_INPUT) == GM_OK); /* any metadata access ends it */
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  CHECK(!gm_vec_direct_get(m->vec, gen, m->ctype, 3, &x));
  CHECK(!gm_vec_direct_put(m->vec, gen, m->ctype, 3, 8));
  CHECK(gm_mat_get(m, 3, &x) == GM_OK && x == 7);

  atomic_store(&writer_done, false);
  reader_arg a = {m, 0, 0};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, direct_reader, &a) == 0);
  while (atomic_load(&a.n_direct) == 0) { /* the reader holds a certificate */
  }
  for (int i = 1; i <= N_DIRECT_WRITES; i++)
    for (size_t k = 8; k-- > 0;) /* element 0 last; refused while the reader watches */
      while (gm_mat_put(m, k, i) != GM_OK) {
      }
  atomic_store(&writer_done, true);
  pthread_join(t, NULL);
  printf("facet_thread_test: direct reads %ld, certificates %ld\n", atomic_load(&a.n_direct), atomic_load(&a.n_open));
  CHECK(a.n_open > 1);
  CHECK(a.n_direct > 0);
  gm_mat_free(m);
}

/* ---- the small-op lane (core/exec/exec.h gm_lane_enter) ----
 * A small host op holds its vecs' locks instead of watching them; a mat
 * another thread watches still keeps it out, with the watch path's error
 * and nothing changed, and ops from several threads on shared inputs
 * (in either operand order: the second lock is only tried) give exact
 * results, fresh results included, with no deadlock. */

static gm_mat *fresh(size_t n) {
  gm_mat_options o = {0};
  o.ctype = GM_DOUBLE;
  o.synchronization = GM_SYNC_MAYBE;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  return m;
}

static gm_bc_arg mat_arg(gm_mat *m) { return (gm_bc_arg){m, 0}; }

static void test_lane_conflict(void) {
  gm_mat *m = new_mat(GM_SYNC_TRUE), *out = fresh(8);
  request r;
  pthread_t t;
  start(&r, &t, m, GM_IO, 1); /* another thread writes m */
  CHECK(r.result == GM_OK);
  CHECK(gm_scalar_(GM_SC_ADD, 1, m) == GM_ESTATE);
  CHECK(gm_broadcast_binary(GM_BC_ADD, GM_DOUBLE, mat_arg(m), (gm_bc_arg){NULL, 1}, out) == GM_ESTATE);
  gm_facet info;
  CHECK(!gm_vec_facet_info(out->vec, GM_FACET_FOREIGN, &info) || !info.exists); /* out made no storage */
  CHECK(n_watchers(m) == 1);
  finish(&r, t);
  double x = 0;
  CHECK(gm_mat_get(m, 0, &x) == GM_OK && x == 1); /* unchanged */
  CHECK(gm_scalar_(GM_SC_ADD, 1, m) == GM_OK);
  CHECK(gm_broadcast_binary(GM_BC_ADD, GM_DOUBLE, mat_arg(m), (gm_bc_arg){NULL, 1}, out) == GM_OK);
  CHECK(gm_mat_get(m, 7, &x) == GM_OK && x == 2);
  CHECK(gm_mat_get(out, 7, &x) == GM_OK && x == 3);
  CHECK(n_watchers(m) == 0 && n_watchers(out) == 0);
  gm_mat_free(out);
  gm_mat_free(m);
}

enum { LANE_N = 1000, LANE_ROUNDS = 20000 };

typedef struct {
  gm_mat *x, *z; /* shared inputs: x[i] = i, z[i] = 2 i */
  int k;         /* this thread's number: its operand order and scalar */
} lane_arg;

static void *lane_worker(void *p) {
  lane_arg *a = p;
  gm_mat *mine = fresh(LANE_N);
  pthread_barrier_wait(&start_line);
  for (int r = 0; r < LANE_ROUNDS / 10; r++) {
    gm_mat *out = fresh(LANE_N); /* a new result each round, made in the lane */
    gm_bc_arg x = mat_arg(a->x), z = mat_arg(a->z);
    CHECK(gm_broadcast_binary(GM_BC_ADD, GM_DOUBLE, a->k % 2 ? x : z, a->k % 2 ? z : x, out) == GM_OK);
    CHECK(gm_scalar_(GM_SC_ADD, a->k, out) == GM_OK);
    CHECK(gm_broadcast_binary(GM_BC_CMUL, GM_DOUBLE, mat_arg(out), (gm_bc_arg){NULL, 2}, mine) == GM_OK);
    double v = -1;
    size_t i = (size_t)(r * 37) % LANE_N;
    CHECK(gm_mat_get(mine, i, &v) == GM_OK && v == 2.0 * (3.0 * (double)i + a->k));
    gm_mat_free(out);
  }
  gm_mat_free(mine);
  return NULL;
}

static void test_lane_threads(void) {
  gm_mat *x = fresh(LANE_N), *z = fresh(LANE_N);
  for (size_t i = 0; i < LANE_N; i++) {
    CHECK(gm_mat_put(x, i, (double)i) == GM_OK);
    CHECK(gm_mat_put(z, i, 2.0 * (double)i) == GM_OK);
  }
  pthread_barrier_init(&start_line, NULL, N_THREADS);
  pthread_t t[N_THREADS];
  lane_arg a[N_THREADS];
  for (int i = 0; i < N_THREADS; i++) {
    a[i] = (lane_arg){x, z, i};
    CHECK(pthread_create(&t[i], NULL, lane_worker, &a[i]) == 0);
  }
  for (int i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start_line);
  CHECK(n_watchers(x) == 0 && n_watchers(z) == 0);
  double v = 0;
  CHECK(gm_mat_get(z, LANE_N - 1, &v) == GM_OK && v == 2.0 * (LANE_N - 1)); /* inputs untouched */
  gm_mat_free(x);
  gm_mat_free(z);
}

int main(void) {
  test_nested_same_thread();
  test_readers_share();
  test_conflict_changes_nothing();
  test_synchronized(GM_SYNC_TRUE);
  test_synchronized(GM_SYNC_MAYBE); /* gm_maybe_synchronize is true by default */
  test_direct_across_threads();
  test_lane_conflict();
  test_lane_threads();
  if (gm_test_failed) {
    fprintf(stderr, "facet_thread_test: %d check(s) failed\n", atomic_load(&gm_test_failed));
    return 1;
  }
  printf("facet_thread_test: all checks passed\n");
  return 0;
}
