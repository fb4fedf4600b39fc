/* The core's scoped-facet models without Lua: gm_access (several facets
 * watched all or none, released last first) and its public form
 * gm_facets_begin/end, gm_syncing (with_syncing_cuda_facets' lists,
 * locks and end) and the deferred-free queue (a pinned mat is freed when
 * its frame closes, not when released).  Storage is a wrapped array whose
 * release callback counts the frees.
 *
 * Exits 0 when every check passes and prints each failure. */
#include <stdio.h>
#include <string.h>

#include "core/model/access.h"
#include "core/model/context.h"
#include "core/model/deferred.h"
#include "core/model/syncing.h"
#include "core/model/vec.h"

#include "check.h"
#include "emulated_context.h"

#define N 8

static int n_released;
static void count_release(void *ud) {
  (void)ud;
  n_released++;
}

/* A mat over data (N doubles, data[i] = base + i) counting its release. */
static gm_mat *wrapped(double *data, double base) {
  for (int i = 0; i < N; i++) data[i] = base + i;
  size_t n = N;
  gm_mat *m = NULL;
  CHECK(gm_mat_wrap(data, 1 /* double */, 1, &n, count_release, NULL, &m) == GM_OK);
  return m;
}

/* A host mat of N doubles, element i = base + i. */
static gm_mat *host_mat(double base) {
  gm_mat_options o = {0};
  o.ctype = 1; /* double */
  o.cuda_enabled = 1;
  size_t n = N;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  for (size_t i = 0; m && i < N; i++) CHECK(gm_mat_put(m, i, base + (double)i) == GM_OK);
  return m;
}

static int watchers(gm_mat *m, gm_facet_name f) {
  gm_facet info;
  return gm_vec_facet_info(m->vec, f, &info) ? info.n_watchers : 0;
}

/* Storage for an access of up to 4 entries, aligned for gm_access. */
typedef union access4 {
  gm_access a;
  unsigned char bytes[sizeof(gm_access) + 4 * sizeof(gm_access_entry)];
} access4;

static void test_access_all_or_none(void) {
  double da[N], db[N];
  gm_mat *a = wrapped(da, 0), *b = wrapped(db, 100);
  access4 s;
  CHECK(gm_access_size(2) <= sizeof s);
  gm_access *acc = &s.a;
  gm_access_init(acc, 2);
  CHECK(gm_access_add(acc, a, GM_FACET_FOREIGN, GM_IO, NULL) == GM_OK);
  CHECK(gm_access_add(acc, b, GM_FACET_FOREIGN, GM_INPUT, NULL) == GM_OK);
  CHECK(gm_access_add(acc, b, GM_FACET_FOREIGN, GM_INPUT, NULL) == GM_EINVAL); /* full */
  CHECK(atomic_load(&a->vec->refcount) == 2); /* the entry references the storage */
  gm_vec_sync_lock(b->vec, true); /* the second watch fails */
  void *p[2] = {NULL, NULL};
  CHECK(gm_access_watch_all(acc, p) == GM_ESTATE);
  CHECK(strstr(gm_last_error(), "with_syncing_cuda_facets is syncing") != NULL);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 0); /* the first was let go: none */
  CHECK(atomic_load(&a->vec->refcount) == 1);
  gm_access_release(acc); /* idempotent */
  CHECK(atomic_load(&a->vec->refcount) == 1);
  gm_vec_sync_lock(b->vec, false);

  /* both watched, pointers in order; the entries outlive the mats */
  gm_access_init(acc, 2);
  CHECK(gm_access_add(acc, a, GM_FACET_FOREIGN, GM_IO, NULL) == GM_OK);
  CHECK(gm_access_add(acc, b, GM_FACET_FOREIGN, GM_INPUT, NULL) == GM_OK);
  CHECK(gm_access_watch_all(acc, p) == GM_OK);
  CHECK(p[0] == (void *)da && p[1] == (void *)db);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 1 && watchers(b, GM_FACET_FOREIGN) == 1);
  n_released = 0;
  gm_mat_free(a);
  gm_mat_free(b);
  CHECK(n_released == 0);
  gm_access_release(acc);
  CHECK(n_released == 2);
}

/* The public form (include/gpumat.h): gm_facets_begin/end. */
static void test_facets_public(void) {
  double da[N], db[N];
  gm_mat *a = wrapped(da, 0), *b = wrapped(db, 100);
  gm_facet_spec specs[2] = {{a, GM_FACET_FOREIGN, GM_OUTPUT}, {b, GM_FACET_FOREIGN, GM_INPUT}};
  void *p[2] = {NULL, NULL};
  gm_access *acc = NULL;
  gm_vec_sync_lock(b->vec, true);
  CHECK(gm_facets_begin(specs, 2, p, &acc) == GM_ESTATE && acc == NULL);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 0 && atomic_load(&a->vec->refcount) == 1);
  gm_vec_sync_lock(b->vec, false);
  CHECK(gm_facets_begin(specs, 2, p, &acc) == GM_OK && acc != NULL);
  CHECK(p[0] == (void *)da && p[1] == (void *)db);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 1 && watchers(b, GM_FACET_FOREIGN) == 1);
  gm_facets_end(acc);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 0 && watchers(b, GM_FACET_FOREIGN) == 0);
  specs[1].facet = GM_FACET_CUDA; /* no context: refused before anything is watched */
  CHECK(gm_facets_begin(specs, 2, p, &acc) == GM_ESTATE);
  CHECK(watchers(a, GM_FACET_FOREIGN) == 0);
  CHECK(gm_facets_begin(specs, 65, p, &acc) == GM_EINVAL);
  specs[1].mat = NULL;
  CHECK(gm_facets_begin(specs, 2, p, &acc) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "gm_facets_begin: specs[1].mat is NULL") == 0);
  gm_mat_free(a);
  gm_mat_free(b);
}

/* A cuda pointer and a host pointer at once on the emulated device; the
 * device copy holds what the host wrote before. */
static void test_facets_device(void) {
  gm_mat *a = host_mat(0), *b = host_mat(100);
  gm_facet_spec specs[2] = {{a, GM_FACET_CUDA, GM_INPUT}, {b, GM_FACET_FOREIGN, GM_IO}};
  void *p[2] = {NULL, NULL};
  gm_access *acc = NULL;
  CHECK(gm_facets_begin(specs, 2, p, &acc) == GM_OK);
  CHECK(p[0] != NULL && p[1] != NULL && gm_vec_facet_up_to_date(a->vec, GM_FACET_CUDA));
  CHECK(watchers(a, GM_FACET_CUDA) == 1 && watchers(b, GM_FACET_FOREIGN) == 1);
  gm_mat_free(a); /* the access holds the storage until it ends */
  gm_facets_end(acc);
  CHECK(watchers(b, GM_FACET_FOREIGN) == 0);
  gm_mat_free(b);
}

static void test_access_device(void) {
  struct gm_device *dev = (struct gm_device *)1;
  CHECK(gm_access_device(GM_FACET_FOREIGN, &dev) == GM_OK && dev == NULL);
  CHECK(gm_access_device(GM_FACET_CUDA, &dev) == GM_ESTATE);
  CHECK(strcmp(gm_last_error(), "facet 'cuda' needs an active cuda context (with_cuda)") == 0);
}

static void test_syncing_disjoint(void) {
  double da[N], db[N];
  gm_mat *a = wrapped(da, 0), *b = wrapped(db, 100);
  gm_vec *to_cuda[2] = {a->vec, a->vec}, *to_host[2] = {b->vec, a->vec};
  CHECK(gm_syncing_find_shared(to_cuda, 2, to_host, 1) == 0);
  CHECK(gm_syncing_find_shared(to_cuda, 2, to_host, 2) == 2);
  gm_syncing s;
  CHECK(gm_syncing_begin(&s, true, to_cuda, 2, to_host, 2) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "element 2 of to_cuda_host is also in to_cuda") == 0);
  CHECK(s.dev == NULL && atomic_load(&a->vec->refcount) == 1);
  /* no device: inactive, the body simply runs */
  CHECK(gm_syncing_begin(&s, true, to_cuda, 2, to_host, 1) == GM_OK);
  CHECK(s.dev == NULL && gm_syncing_end(&s) == GM_OK);
  gm_mat_free(a);
  gm_mat_free(b);
}

/* On the emulated device: to_cuda gets its cuda facet, everything listed
 * is locked until the end, to_cuda_host loses its cuda facet. */
static void test_syncing_device(void) {
  double dw[N];
  gm_mat *a = host_mat(0), *b = host_mat(100), *w = wrapped(dw, 0);
  void *p;
  CHECK(gm_mat_watch(b, GM_FACET_CUDA, GM_INPUT, gm_current_device(), &p) == GM_OK);
  gm_mat_unwatch(b, GM_FACET_CUDA, GM_INPUT);
  gm_vec *to_cuda[2] = {a->vec, a->vec}, *to_host[1] = {b->vec};
  gm_syncing s;
  CHECK(gm_syncing_begin(&s, true, to_cuda, 2, to_host, 1) == GM_OK);
  CHECK(s.dev != NULL && s.n_ensure == 1 && s.n_destroy == 1);
  CHECK(gm_vec_facet_up_to_date(a->vec, GM_FACET_CUDA));
  CHECK(gm_mat_watch(a, GM_FACET_FOREIGN, GM_INPUT, NULL, &p) == GM_ESTATE); /* locked */
  CHECK(gm_syncing_end(&s) == GM_OK);
  CHECK(s.dev == NULL);
  CHECK(!gm_vec_facet_exists(b->vec, GM_FACET_CUDA));
  CHECK(gm_vec_facet_exists(a->vec, GM_FACET_CUDA));
  double v = -1;
  CHECK(gm_mat_get(b, 3, &v) == GM_OK && v == 103);
  CHECK(atomic_load(&a->vec->refcount) == 1 && atomic_load(&b->vec->refcount) == 1);

  /* a failing start (application memory cannot be page-locked) undoes
   * the locks and references taken before it */
  gm_vec *to_host2[1] = {w->vec};
  gm_status st = gm_syncing_begin(&s, true, to_cuda, 1, to_host2, 1);
  CHECK(st == GM_EUNSUPPORTED && strstr(gm_last_error(), "cannot be page-locked") != NULL);
  CHECK(s.dev == NULL && atomic_load(&a->vec->refcount) == 1 && atomic_load(&w->vec->refcount) == 1);
  CHECK(gm_mat_watch(a, GM_FACET_FOREIGN, GM_INPUT, NULL, &p) == GM_OK); /* unlocked */
  gm_mat_unwatch(a, GM_FACET_FOREIGN, GM_INPUT);
  gm_mat_free(a);
  gm_mat_free(b);
  gm_mat_free(w);
}

static void test_deferred_pins(void) {
  double da[N], db[N];
  int owner = 0, other = 0;
  gm_mat *a = wrapped(da, 0), *b = wrapped(db, 0);
  CHECK(gm_deferred_pin(&owner, a) == GM_ESTATE); /* no frame */
  uint64_t outer, inner;
  CHECK(gm_deferred_frame_open(&owner, 1, &outer) == GM_OK);
  CHECK(gm_deferred_frame_open(&other, 0, &inner) == GM_OK);
  CHECK(gm_deferred_pin(&owner, a) == GM_OK); /* into owner's frame, not the other's */
  CHECK(gm_deferred_in_use(a) && !gm_deferred_in_use(b));
  n_released = 0;
  gm_deferred_release(a, false);
  gm_deferred_release(b, false);
  CHECK(n_released == 1 && gm_n_deferred == 1); /* b freed, a queued */
  gm_deferred_drain();
  CHECK(n_released == 1 && gm_n_deferred == 1); /* still pinned */
  gm_deferred_frame_close(inner);
  CHECK(n_released == 1 && gm_n_deferred == 1);
  gm_deferred_frame_close(outer);
  CHECK(n_released == 2 && gm_n_deferred == 0);
}

static void test_deferred_hook(void) {
  double da[N], db[N];
  gm_mat *a = wrapped(da, 0), *b = wrapped(db, 0);
  n_released = 0;
  gm_deferred_hook_enter();
  CHECK(gm_deferred_in_use(a));
  gm_deferred_release(a, false); /* an explicit free: waits */
  gm_deferred_release(b, true);  /* collected: freed at once */
  CHECK(n_released == 1 && gm_n_deferred == 1);
  gm_deferred_drain(); /* not while the hook runs */
  CHECK(n_released == 1);
  gm_deferred_hook_leave();
  gm_deferred_drain();
  CHECK(n_released == 2 && gm_n_deferred == 0);
}

int main(void) {
  test_access_all_or_none();
  test_access_device();
  test_facets_public();
  test_syncing_disjoint();
  gm_context c;
  gm_context_options o = gm_test_emulated_options(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  test_syncing_device();
  test_facets_device();
  CHECK(gm_context_exit(&c) == GM_OK);
  test_deferred_pins();
  test_deferred_hook();
  if (gm_test_failed) fprintf(stderr, "%d check(s) failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
