/* The host caching allocator (src/core/mem/hostpool.c): size classes and
 * alignments, reuse (hits), the cache limit, trimming, the trim-and-retry
 * on a failed system allocation, and several threads allocating, writing,
 * checking and freeing at once from one pool (and through gm_block_alloc
 * from the process-wide host pool) while another trims it.  Run by
 * spec/c_api_spec.lua and under ThreadSanitizer by
 * tools/suite.d/30-tsan.sh; exits 0 when every check passes. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem/block.h"
#include "core/mem/hostpool.h"
#include "core/model/status.h"

#include "check.h"

/* ---- a system that counts its calls and can refuse ---- */

typedef struct counting {
  atomic_int n_alloc, n_free, refuse; /* refuse: fail the next that many */
} counting;

static gm_status counting_alloc(void *arg, size_t bytes, void **out) {
  counting *c = arg;
  if (atomic_load(&c->refuse) > 0) {
    atomic_fetch_sub(&c->refuse, 1);
    return GM_ENOMEM;
  }
  *out = aligned_alloc(gm_hostpool_align(bytes), bytes);
  if (!*out) return GM_ENOMEM;
  atomic_fetch_add(&c->n_alloc, 1);
  return GM_OK;
}

static void counting_free(void *arg, void *p, size_t bytes) {
  counting *c = arg;
  (void)bytes;
  atomic_fetch_add(&c->n_free, 1);
  free(p);
}

static void test_classes(void) {
  CHECK(gm_hostpool_round(0) == 64 && gm_hostpool_round(64) == 64 && gm_hostpool_round(65) == 128);
  CHECK(gm_hostpool_round(129) == 192 && gm_hostpool_round(1200) == 1280 && gm_hostpool_round(4000) == 4096);
  CHECK(gm_hostpool_round(4097) == 8192 && gm_hostpool_round(8193) == 12288 && gm_hostpool_round(16385) == 20480);
  CHECK(gm_hostpool_round(4u << 20) == (4u << 20) && gm_hostpool_round((4u << 20) + 1) == (6u << 20));
  CHECK(gm_hostpool_round(SIZE_MAX - 5) == SIZE_MAX);
  /* every class of a page or more is a page multiple: no registered block shares a page */
  for (size_t b = 4096; b < (8u << 20); b += 1531) CHECK(gm_hostpool_round(b) % 4096 == 0);
  CHECK(gm_hostpool_align(64) == 64 && gm_hostpool_align(8192) == 4096 && gm_hostpool_align(6u << 20) == (2u << 20));
}

static void test_reuse_and_trim(void) {
  counting c = {0};
  gm_hostpool p;
  gm_hostpool_init(&p, "test", counting_alloc, counting_free, &c);
  void *a, *b;
  size_t sa, sb;
  CHECK(gm_hostpool_alloc(&p, 10000, &a, &sa) == GM_OK && sa == 12288 && (uintptr_t)a % 4096 == 0);
  memset(a, 1, sa);
  gm_hostpool_free(&p, a, sa);
  CHECK(gm_hostpool_alloc(&p, 9000, &b, &sb) == GM_OK && b == a && sb == sa); /* same class: a hit */
  gm_hostpool_stats s = gm_hostpool_get_stats(&p);
  CHECK(s.hits == 1 && s.misses == 1 && s.in_use == sa && s.cached == 0 && c.n_alloc == 1);
  gm_hostpool_free(&p, b, sb);
  /* a large request takes a cached large block up to 1.5 times its size */
  void *l1, *l2;
  size_t s1, s2;
  CHECK(gm_hostpool_alloc(&p, 6u << 20, &l1, &s1) == GM_OK && s1 == (6u << 20) && (uintptr_t)l1 % (2u << 20) == 0);
  gm_hostpool_free(&p, l1, s1);
  CHECK(gm_hostpool_alloc(&p, 4u << 20, &l2, &s2) == GM_OK && l2 == l1 && s2 == (6u << 20));
  gm_hostpool_free(&p, l2, s2);
  CHECK(gm_hostpool_alloc(&p, 2u << 20, &l2, &s2) == GM_OK && s2 == (2u << 20)); /* a bin's class */
  gm_hostpool_free(&p, l2, s2);
  void *l3;
  size_t s3;
  CHECK(gm_hostpool_alloc(&p, 8u << 20, &l3, &s3) == GM_OK && s3 == (8u << 20));
  gm_hostpool_free(&p, l3, s3);
  CHECK(gm_hostpool_alloc(&p, 4u << 20, &l3, &s3) == GM_OK && s3 == (6u << 20)); /* best fit, not the 8 MiB */
  gm_hostpool_free(&p, l3, s3);
  CHECK(gm_hostpool_alloc(&p, 5u << 20, &l3, &s3) == GM_OK && s3 == (6u << 20));
  void *l4;
  size_t s4;
  CHECK(gm_hostpool_alloc(&p, 4u << 20, &l4, &s4) == GM_OK && s4 == (4u << 20)); /* 8 MiB is over 1.5x */
  gm_hostpool_free(&p, l3, s3);
  gm_hostpool_free(&p, l4, s4);
  s = gm_hostpool_get_stats(&p);
  CHECK(s.n_cached == 5 && s.in_use == 0); /* 12 KiB, 2, 4, 6 and 8 MiB */
  gm_hostpool_trim_to(&p, 7u << 20); /* the largest go first */
  s = gm_hostpool_get_stats(&p);
  CHECK(s.n_cached == 3 && s.cached == sa + (6u << 20) && s.n_trimmed == 2);
  gm_hostpool_trim(&p);
  s = gm_hostpool_get_stats(&p);
  CHECK(s.cached == 0 && s.n_cached == 0 && c.n_free == c.n_alloc);
  /* take: a cached block only, nothing from the system */
  int n_alloc = atomic_load(&c.n_alloc);
  CHECK(!gm_hostpool_take(&p, 300, &a, &sa) && atomic_load(&c.n_alloc) == n_alloc);
  CHECK(gm_hostpool_alloc(&p, 300, &a, &sa) == GM_OK && sa == 320);
  gm_hostpool_free(&p, a, sa);
  CHECK(gm_hostpool_take(&p, 290, &b, &sb) && b == a && sb == 320);
  gm_hostpool_free(&p, b, sb);
  gm_hostpool_destroy(&p);
}

static void test_failure_trims(void) {
  counting c = {0};
  gm_hostpool p;
  gm_hostpool_init(&p, "test", counting_alloc, counting_free, &c);
  void *a, *b;
  size_t sa, sb;
  CHECK(gm_hostpool_alloc(&p, 100, &a, &sa) == GM_OK);
  gm_hostpool_free(&p, a, sa);
  atomic_store(&c.refuse, 1); /* the system refuses once: the cache is trimmed, the retry succeeds */
  CHECK(gm_hostpool_alloc(&p, 5000, &b, &sb) == GM_OK);
  gm_hostpool_stats s = gm_hostpool_get_stats(&p);
  CHECK(s.cached == 0 && s.n_trimmed == 1 && c.n_free == 1);
  atomic_store(&c.refuse, 2); /* refused twice: a clean error naming the pool */
  void *x = NULL;
  size_t sx = 0;
  CHECK(gm_hostpool_alloc(&p, 5000, &x, &sx) == GM_ENOMEM && x == NULL);
  CHECK(strstr(gm_last_error(), "out of test memory") != NULL);
  gm_hostpool_free(&p, b, sb);
  gm_hostpool_destroy(&p);
}

/* ---- threads ---- */

#define N_THREADS 4
#define N_ROUNDS 300

static gm_hostpool shared;
static counting shared_sys;
static atomic_int stop;

static void *worker(void *arg) {
  unsigned id = (unsigned)(size_t)arg, seed = id * 7919u + 1;
  void *held[8] = {0};
  size_t size[8] = {0}, want[8] = {0};
  for (int r = 0; r < N_ROUNDS; r++) {
    int k = r % 8;
    if (held[k]) { /* the block still holds what this thread wrote */
      unsigned char *q = held[k];
      CHECK(q[0] == (unsigned char)id && q[want[k] - 1] == (unsigned char)id);
      gm_hostpool_free(&shared, held[k], size[k]);
      held[k] = NULL;
    }
    seed = seed * 1103515245u + 12345u;
    want[k] = 1 + (seed >> 8) % (r % 16 == 0 ? (5u << 20) : 70000u);
    if (gm_hostpool_alloc(&shared, want[k], &held[k], &size[k]) != GM_OK) continue;
    memset(held[k], (int)id, want[k]);
    gm_block *b = NULL; /* the block layer on the process-wide pool */
    if (gm_block_alloc(GM_SPACE_HOST, NULL, 1 + (seed >> 4) % 20000, 0, &b) == GM_OK) {
      memset(b->ptr, 3, b->bytes);
      gm_block_drop(b);
    }
  }
  for (int k = 0; k < 8; k++)
    if (held[k]) gm_hostpool_free(&shared, held[k], size[k]);
  return NULL;
}

static void *trimmer(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    gm_hostpool_trim_to(&shared, 1u << 20); /* trimming while blocks are in use */
    gm_hostpool_stats s = gm_hostpool_get_stats(&shared);
    CHECK(s.n_in_use <= 8 * N_THREADS);
    gm_hostpool_trim(gm_host_pool());
  }
  return NULL;
}

static void test_threads(void) {
  gm_hostpool_init(&shared, "shared", counting_alloc, counting_free, &shared_sys);
  pthread_t t[N_THREADS], tr;
  CHECK(pthread_create(&tr, NULL, trimmer, NULL) == 0);
  for (size_t i = 0; i < N_THREADS; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)(i + 1)) == 0);
  for (size_t i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
  atomic_store(&stop, 1);
  pthread_join(tr, NULL);
  gm_hostpool_stats s = gm_hostpool_get_stats(&shared);
  CHECK(s.in_use == 0 && s.n_in_use == 0);
  CHECK(s.hits + s.misses == (unsigned long long)N_THREADS * N_ROUNDS);
  gm_hostpool_destroy(&shared);
  CHECK(atomic_load(&shared_sys.n_alloc) == atomic_load(&shared_sys.n_free));
  CHECK(gm_hostpool_get_stats(gm_host_pool()).in_use == 0);
}

int main(void) {
  test_classes();
  test_reuse_and_trim();
  test_failure_trims();
  test_threads();
  if (gm_test_failed) fprintf(stderr, "hostpool_test: %d checks failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
