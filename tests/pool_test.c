/* The device caching pool (src/core/mem/pool.c) over a backend that
 * counts its raw allocations: small requests are pieces of 2 MiB
 * segments (one raw allocation for many blocks), the block freed last is
 * the next one taken, the 2x rule, a limit that refuses a segment, trim
 * keeping segments with a piece in use, a refused segment falling back
 * to a block of its own, destroy giving everything back, and several
 * threads allocating, writing, checking and freeing while another trims.
 * Run by spec/c_api_spec.lua and under ThreadSanitizer by
 * tools/suite.d/30-tsan.sh; exits 0 when every check passes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mem/pool.h"
#include "core/mem/runtime.h"

#include "check.h"

/* ---- a backend that counts (and can refuse) raw allocations ---- */

/* The pool calls the backend with its lock held; the lock here only makes
 * the counters' readers below (and TSan) see that. */
static pthread_mutex_t backend_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_alloc, n_free, refuse_over; /* refuse_over: fail requests above it (0: none) */
static size_t live_bytes;

typedef struct raw {
  void *p;
  size_t bytes;
} raw;
static raw raws[4096];

static gm_status counting_alloc(gm_device *d, size_t bytes, void **out) {
  (void)d;
  if (refuse_over && bytes > (size_t)refuse_over) return GM_ECUDA_OOM;
  void *p = aligned_alloc(512, bytes);
  if (!p) return GM_ECUDA_OOM;
  pthread_mutex_lock(&backend_lock);
  for (int i = 0; i < 4096; i++)
    if (!raws[i].p) {
      raws[i] = (raw){p, bytes};
      break;
    }
  n_alloc++;
  live_bytes += bytes;
  pthread_mutex_unlock(&backend_lock);
  *out = p;
  return GM_OK;
}

static void counting_free(gm_device *d, void *p) {
  (void)d;
  pthread_mutex_lock(&backend_lock);
  for (int i = 0; i < 4096; i++)
    if (raws[i].p == p) {
      live_bytes -= raws[i].bytes;
      raws[i] = (raw){NULL, 0};
      n_free++;
      pthread_mutex_unlock(&backend_lock);
      free(p);
      return;
    }
  pthread_mutex_unlock(&backend_lock);
  CHECK(!"raw_free of a pointer that is no raw allocation (a piece freed on its own?)");
}

static gm_device_ops ops = {.name = "counting", .raw_alloc = counting_alloc, .raw_free = counting_free};

static void *alloc(gm_pool *p, gm_device *d, size_t bytes) {
  void *ptr = NULL;
  CHECK(gm_pool_alloc(p, d, bytes, &ptr) == GM_OK);
  CHECK(ptr && (uintptr_t)ptr % 512 == 0);
  if (ptr) memset(ptr, 0xab, bytes); /* every byte of it is usable (ASan checks) */
  return ptr;
}

static void pieces(gm_device *d) {
  gm_pool p;
  gm_pool_init(&p);
  /* 1000 blocks of 1 KiB and 1000 of 64 KiB: pieces of segments */
  static void *a[2000];
  for (int i = 0; i < 2000; i++) a[i] = alloc(&p, d, i % 2 ? 1000 : 64 * 1024);
  int segments = n_alloc;
  size_t need = 1000 * 1024 + 1000 * 64 * 1024;
  CHECK(segments >= (int)(need / GM_POOL_SEGMENT) && segments <= (int)(need / GM_POOL_SEGMENT) + 2);
  for (int i = 0; i < 2000; i++)
    for (int j = i + 1; j < i + 3 && j < 2000; j++) /* no two overlap (neighbours in time) */
      CHECK((char *)a[i] + 1024 <= (char *)a[j] || (char *)a[j] + 1024 <= (char *)a[i]);
  gm_pool_stats s = gm_pool_get_stats(&p);
  CHECK(s.reserved == (size_t)segments * GM_POOL_SEGMENT && s.n_in_use == 2000);
  CHECK(s.in_use == 1000 * 1024 + 1000 * 64 * 1024);

  /* the block freed last is the next one taken, with no raw allocation
   * (odd indices hold 1 KiB, even ones 64 KiB) */
  gm_pool_free(&p, a[11]);
  gm_pool_free(&p, a[13]);
  gm_pool_free(&p, a[10]);
  CHECK(alloc(&p, d, 1000 + 24) == a[13]); /* same class (1024) */
  CHECK(alloc(&p, d, 900) == a[11]);
  CHECK(alloc(&p, d, 64 * 1024) == a[10]);
  CHECK(n_alloc == segments);
  /* the 2x rule: a 64 KiB piece does not serve 1 KiB, but serves 40 KiB */
  gm_pool_free(&p, a[10]);
  void *x = alloc(&p, d, 1000);
  CHECK(x != a[10]);
  CHECK(alloc(&p, d, 40 * 1024) == a[10]);
  gm_pool_free(&p, x);

  /* trim keeps segments with a piece in use, gives back the others */
  for (int i = 0; i < 2000; i++) gm_pool_free(&p, a[i]);
  gm_pool_trim(&p, d);
  s = gm_pool_get_stats(&p);
  CHECK(s.in_use == 0 && s.n_in_use == 0 && s.n_cached == 0 && s.reserved == 0);
  CHECK(n_free == n_alloc && live_bytes == 0);

  void *keep = alloc(&p, d, 4096);
  void *gone = alloc(&p, d, 4096);
  gm_pool_free(&p, gone);
  gm_pool_trim(&p, d); /* keep's segment stays; gone is still a cached piece of it */
  s = gm_pool_get_stats(&p);
  CHECK(s.reserved == GM_POOL_SEGMENT && s.n_cached == 1 && s.in_use == 4096);
  CHECK(alloc(&p, d, 4096) == gone);
  gm_pool_free(&p, gone);
  gm_pool_free(&p, keep);
  gm_pool_trim(&p, d);
  CHECK(gm_pool_get_stats(&p).reserved == 0 && live_bytes == 0);

  /* blocks above the piece size are raw allocations of their own */
  int before = n_alloc;
  void *big = alloc(&p, d, GM_POOL_PIECE_MAX + 1);
  CHECK(n_alloc == before + 1 && gm_pool_get_stats(&p).reserved == gm_pool_round(GM_POOL_PIECE_MAX + 1));
  gm_pool_free(&p, big);

  /* destroy gives back what is in use too */
  alloc(&p, d, 512);
  alloc(&p, d, 3 << 20);
  gm_pool_destroy(&p, d);
  CHECK(n_free == n_alloc && live_bytes == 0);
}

/* a limit below a segment, and a backend that refuses one: blocks of their own */
static void fallbacks(gm_device *d) {
  gm_pool p;
  gm_pool_init(&p);
  gm_pool_set_limit(&p, 4096);
  void *a = alloc(&p, d, 800);
  gm_pool_stats s = gm_pool_get_stats(&p);
  CHECK(s.reserved == 1024 && s.in_use == 1024);
  void *b = NULL;
  CHECK(gm_pool_alloc(&p, d, 8000, &b) == GM_ECUDA_OOM && b == NULL);
  gm_pool_free(&p, a);
  gm_pool_destroy(&p, d);
  CHECK(n_free == n_alloc && live_bytes == 0);

  gm_pool_init(&p);
  refuse_over = (int)GM_POOL_PIECE_MAX;
  int before = n_alloc;
  a = alloc(&p, d, 5000);
  CHECK(n_alloc == before + 1 && gm_pool_get_stats(&p).reserved == 5120);
  refuse_over = 0;
  b = alloc(&p, d, 5000); /* now a segment */
  CHECK(gm_pool_get_stats(&p).reserved == 5120 + GM_POOL_SEGMENT);
  gm_pool_free(&p, a);
  gm_pool_free(&p, b);
  CHECK(alloc(&p, d, 5000) == b); /* freed last, taken first */
  gm_pool_destroy(&p, d);
  CHECK(n_free == n_alloc && live_bytes == 0);
}

/* a segment's tail too short for the next request is cached, not lost */
static void tails(gm_device *d) {
  gm_pool p;
  gm_pool_init(&p);
  size_t piece = 200 * 1024; /* 10 of them fit a segment, 48 KiB left over */
  void *a[11];
  for (int i = 0; i < 11; i++) a[i] = alloc(&p, d, piece);
  gm_pool_stats s = gm_pool_get_stats(&p);
  CHECK(s.reserved == 2 * GM_POOL_SEGMENT && s.n_cached == 1);
  CHECK(s.reserved - s.in_use == GM_POOL_SEGMENT - piece + (GM_POOL_SEGMENT - 10 * piece));
  void *t = alloc(&p, d, 40 * 1024); /* the tail, right after the tenth piece */
  CHECK(t == (char *)a[9] + piece);
  for (int i = 0; i < 11; i++) gm_pool_free(&p, a[i]);
  gm_pool_free(&p, t);
  gm_pool_trim(&p, d);
  CHECK(gm_pool_get_stats(&p).reserved == 0);
  gm_pool_destroy(&p, d);
  CHECK(n_free == n_alloc && live_bytes == 0);
}

/* Several threads allocate blocks of assorted sizes (pieces and blocks
 * of their own), fill each with a pattern of their own, check it before
 * freeing, while another thread trims: a block handed out twice, or
 * given back to the backend while in use, shows as a wrong pattern (or
 * as a use after free under ASan, a race under TSan). */
#define N_THREADS 4
#define N_ROUNDS 2000
typedef struct worker {
  gm_pool *p;
  gm_device *d;
  unsigned seed;
} worker;
static atomic_int stop_trimming;

static void *alloc_free_loop(void *arg) {
  worker *w = arg;
  void *held[8] = {0};
  size_t sizes[8] = {0};
  unsigned char tag[8] = {0};
  for (int r = 0; r < N_ROUNDS; r++) {
    int k = (int)(rand_r(&w->seed) % 8);
    if (held[k]) {
      const unsigned char *b = held[k];
      bool ok = true;
      for (size_t i = 0; i < sizes[k]; i += 509) ok = ok && b[i] == tag[k];
      CHECK(ok && b[sizes[k] - 1] == tag[k]);
      CHECK(gm_pool_free(w->p, held[k]));
      held[k] = NULL;
    } else {
      size_t n = rand_r(&w->seed) % 4 ? 1 + rand_r(&w->seed) % (64 * 1024) : 1 + rand_r(&w->seed) % (1 << 20);
      void *ptr = NULL;
      if (gm_pool_alloc(w->p, w->d, n, &ptr) != GM_OK) continue;
      tag[k] = (unsigned char)(rand_r(&w->seed) | 1);
      memset(ptr, tag[k], n);
      held[k] = ptr;
      sizes[k] = n;
    }
  }
  for (int k = 0; k < 8; k++)
    if (held[k]) CHECK(gm_pool_free(w->p, held[k]));
  return NULL;
}

static void *trim_loop(void *arg) {
  worker *w = arg;
  while (!atomic_load(&stop_trimming)) {
    gm_pool_trim(w->p, w->d);
    (void)gm_pool_get_stats(w->p);
    nanosleep(&(struct timespec){0, 200000L}, NULL);
  }
  return NULL;
}

static void threads(gm_device *d) {
  gm_pool p;
  gm_pool_init(&p);
  pthread_t t[N_THREADS], trimmer;
  worker w[N_THREADS + 1];
  for (int i = 0; i <= N_THREADS; i++) w[i] = (worker){&p, d, 1234u + (unsigned)i};
  atomic_store(&stop_trimming, 0);
  CHECK(pthread_create(&trimmer, NULL, trim_loop, &w[N_THREADS]) == 0);
  for (int i = 0; i < N_THREADS; i++) CHECK(pthread_create(&t[i], NULL, alloc_free_loop, &w[i]) == 0);
  for (int i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
  atomic_store(&stop_trimming, 1);
  pthread_join(trimmer, NULL);
  gm_pool_stats s = gm_pool_get_stats(&p);
  CHECK(s.in_use == 0 && s.n_in_use == 0);
  gm_pool_trim(&p, d);
  CHECK(gm_pool_get_stats(&p).reserved == 0);
  gm_pool_destroy(&p, d);
  pthread_mutex_lock(&backend_lock);
  CHECK(n_free == n_alloc && live_bytes == 0);
  pthread_mutex_unlock(&backend_lock);
}

int main(void) {
  gm_device d;
  memset(&d, 0, sizeof d);
  d.ops = &ops;
  pieces(&d);
  fallbacks(&d);
  tails(&d);
  threads(&d);
  if (gm_test_failed) {
    fprintf(stderr, "pool_test: %d checks failed\n", (int)gm_test_failed);
    return 1;
  }
  printf("pool_test: all checks passed\n");
  return 0;
}
