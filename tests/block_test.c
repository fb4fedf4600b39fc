/* The block layer without Lua (src/core/mem/block.h, cache.c) on the
 * emulated device: the two counts, release through the deferred queue,
 * pitched 2-d copies, overlap, alloc-cache scopes (hit, revoke, keep), the
 * device address of wrapped managed memory.
 *
 * With the argument "bench" it also times, at the allocator level, a 64
 * MiB device block from the pool and from an alloc cache (hits) against a
 * fresh one (the emulated device's mmap, committed at once as cudaMalloc
 * commits, + munmap; GPUMAT_EMULATED_COMMIT=0: pages left untouched): the
 * Lua call path is left out, so these are the costs the caches save per
 * allocation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/mem/block.h"
#include "core/mem/runtime.h"

static gm_device *emu(void) {
  gm_device *d = NULL;
  CHECK(gm_device_get("emulated", 0, &d) == GM_OK);
  return d;
}

static void test_counts(gm_device *d) {
  gm_block *b;
  CHECK(gm_block_alloc(GM_SPACE_DEVICE, d, 1000, 0, &b) == GM_OK);
  gm_pool_stats s0 = gm_pool_get_stats(&d->pool);
  CHECK(s0.in_use >= 1000);
  CHECK(gm_block_ref(b) == GM_OK);
  CHECK(gm_block_deref(b) == 1);
  gm_block_hold(b);
  CHECK(gm_block_deref(b) == 0); /* released: queued, the struct lives on */
  CHECK(!gm_block_live(b));
  CHECK(gm_block_check(b, "x") == GM_ESTATE);
  CHECK(strcmp(gm_last_error(), "x: buffer released") == 0);
  CHECK(gm_block_ref(b) == GM_ESTATE);
  gm_block_drop(b);
  gm_block_drop(b);
  gm_device_collect(d);
  CHECK(gm_pool_get_stats(&d->pool).in_use == s0.in_use - gm_pool_round(1000));
  /* the last hold releases live memory too (a garbage buffer) */
  CHECK(gm_block_alloc(GM_SPACE_HOST, NULL, 10, 0, &b) == GM_OK);
  gm_block_drop(b);
}

static void test_pitched_copies(gm_device *d) {
  gm_block *p, *h;
  CHECK(gm_block_alloc_pitched(d, 20, 3, &p) == GM_OK); /* 3 rows of 5 floats */
  CHECK(p->pitch == 256 && p->bytes == 60);
  CHECK(gm_block_alloc(GM_SPACE_HOST, NULL, 60, 0, &h) == GM_OK);
  float src[15], back[15];
  for (int i = 0; i < 15; i++) src[i] = (float)i;
  CHECK(gm_block_copy((gm_copy_end){p, 0, NULL}, (gm_copy_end){NULL, 0, src}, 60) == GM_OK);
  CHECK(gm_block_phys(p, 24) == 256 + 4);
  /* from the middle of row 1 into the host block: three runs */
  CHECK(gm_block_copy((gm_copy_end){h, 0, NULL}, (gm_copy_end){p, 12, NULL}, 40) == GM_OK);
  memcpy(back, h->ptr, 40);
  for (int i = 0; i < 10; i++) CHECK(back[i] == (float)(i + 3));
  /* overlap inside one block */
  CHECK(gm_block_copy((gm_copy_end){p, 0, NULL}, (gm_copy_end){p, 8, NULL}, 16) == GM_EINVAL);
  CHECK(gm_block_copy((gm_copy_end){p, 20, NULL}, (gm_copy_end){p, 0, NULL}, 20) == GM_OK);
  CHECK(gm_block_copy((gm_copy_end){NULL, 0, back}, (gm_copy_end){p, 20, NULL}, 20) == GM_OK);
  for (int i = 0; i < 5; i++) CHECK(back[i] == (float)i);
  gm_block_deref(p);
  gm_block_drop(p);
  gm_block_deref(h);
  gm_block_drop(h);
}

static void test_cache(gm_device *d) {
  gm_alloc_cache *c;
  CHECK(gm_alloc_cache_new(&c) == GM_OK);
  gm_block *kept = NULL, *leaked = NULL;
  for (int round = 0; round < 3; round++) {
    gm_cache_scope *s;
    CHECK(gm_cache_scope_push(c, &s) == GM_OK);
    gm_block *a, *b;
    CHECK(gm_block_alloc(GM_SPACE_DEVICE, d, 4096, 0, &a) == GM_OK);
    CHECK(gm_block_alloc(GM_SPACE_HOST, NULL, 100, 0, &b) == GM_OK);
    gm_block_deref(b); /* released inside the scope: to the cache at once */
    gm_block_drop(b);
    if (round == 0) {
      leaked = a; /* still held after the scope: revoked */
    } else if (round == 1) {
      kept = a;
      gm_block_keep(a);
    } else {
      gm_block_deref(a);
      gm_block_drop(a);
    }
    CHECK(gm_cache_scope_pop(s) == GM_OK);
  }
  gm_cache_stats st = gm_alloc_cache_stats(c);
  CHECK(st.n_misses == 3); /* a and b in round 0; a again in round 2 (round 1's was kept) */
  CHECK(st.n_hits == 3);
  CHECK(st.n_blocks == 2);
  CHECK(gm_block_check(leaked, NULL) == GM_ESTATE);
  CHECK(strcmp(gm_last_error(), "memory returned to an alloc cache") == 0);
  CHECK(gm_block_live(kept));
  gm_block_drop(leaked);
  gm_block_deref(kept);
  gm_block_drop(kept);
  CHECK(gm_alloc_cache_free(c) == GM_OK);
  CHECK(gm_alloc_cache_stats(c).n_blocks == 0);
  gm_alloc_cache_unref(c);
  gm_device_collect(d);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bench(gm_device *d) {
  const size_t bytes = (size_t)64 << 20;
  const int n = 20000, n_fresh = 2000;
  gm_block *b;
  /* pool hit: allocate, release, drain the queue back into the pool */
  double t0 = now();
  for (int i = 0; i < n; i++) {
    CHECK(gm_block_alloc(GM_SPACE_DEVICE, d, bytes, 0, &b) == GM_OK);
    gm_block_drop(b);
    gm_device_collect(d);
  }
  double pool = (now() - t0) / n;
  gm_alloc_cache *c;
  CHECK(gm_alloc_cache_new(&c) == GM_OK);
  t0 = now();
  for (int i = 0; i < n; i++) {
    gm_cache_scope *s;
    CHECK(gm_cache_scope_push(c, &s) == GM_OK);
    CHECK(gm_block_alloc(GM_SPACE_DEVICE, d, bytes, 0, &b) == GM_OK);
    gm_block_drop(b);
    CHECK(gm_cache_scope_pop(s) == GM_OK);
  }
  double cache = (now() - t0) / n;
  gm_alloc_cache_free(c);
  gm_alloc_cache_unref(c);
  gm_device_collect(d);
  /* fresh: the backend's own allocation and free (mmap, populate unless
     GPUMAT_EMULATED_COMMIT=0, munmap); committed ones take milliseconds,
     so fewer of them */
  const char *commit_env = getenv("GPUMAT_EMULATED_COMMIT");
  bool committed = !(commit_env && strcmp(commit_env, "0") == 0);
  int n_fresh_run = committed ? 20 : n_fresh;
  t0 = now();
  for (int i = 0; i < n_fresh_run; i++) {
    void *p;
    CHECK(d->ops->raw_alloc(d, bytes, &p) == GM_OK);
    d->ops->raw_free(d, p);
  }
  double fresh = (now() - t0) / n_fresh_run;
  /* fresh and first touch of every page, as cudaMalloc commits memory */
  t0 = now();
  for (int i = 0; i < 20; i++) {
    void *p;
    CHECK(d->ops->raw_alloc(d, bytes, &p) == GM_OK);
    gm_device_enter(d);
    for (size_t k = 0; k < bytes; k += 4096) ((volatile char *)p)[k] = 1;
    gm_device_leave(d);
    d->ops->raw_free(d, p);
  }
  double touched = (now() - t0) / 20;
  printf("| pool hit (block alloc + release + drain), 64 MiB | %.3f µs |\n", pool * 1e6);
  printf("| alloc-cache hit (scope push + block alloc + release + pop), 64 MiB | %.3f µs |\n", cache * 1e6);
  printf("| fresh raw allocation (%s), 64 MiB | %.3f µs |\n",
         committed ? "mmap + commit + munmap" : "mmap + munmap, pages untouched", fresh * 1e6);
  printf("| fresh raw allocation with every page touched once, 64 MiB | %.1f µs |\n", touched * 1e6);
  printf("| fresh / pool hit | %.1f× |\n", fresh / pool);
  printf("| fresh / cache hit | %.1f× |\n", fresh / cache);
}

/* A wrapped managed block (a DLPack import of kDLCUDAManaged memory) is
 * one address on host and device, as an allocated one: the cuda facet
 * that uses it in place takes dev_ptr, which was NULL for wrapped blocks
 * (the first H200 run: an illegal address at the import's first device op). */
static void test_wrap_managed(gm_device *d) {
  gm_block *m, *w;
  CHECK(gm_block_alloc(GM_SPACE_MANAGED, d, 64, 0, &m) == GM_OK);
  CHECK(m->dev_ptr == m->ptr);
  CHECK(gm_block_wrap_in(GM_SPACE_MANAGED, d, m->ptr, 64, NULL, NULL, &w) == GM_OK);
  CHECK(w->ptr == m->ptr && w->dev_ptr == m->ptr);
  gm_block_deref(w);
  gm_block_drop(w);
  CHECK(gm_block_wrap(m->ptr, 64, NULL, NULL, &w) == GM_OK); /* host memory: no device address */
  CHECK(w->dev_ptr == NULL);
  gm_block_deref(w);
  gm_block_drop(w);
  gm_block_deref(m);
  gm_block_drop(m);
  gm_device_collect(d);
}

int main(int argc, char **argv) {
  gm_device *d = emu();
  if (!d) return 1;
  test_counts(d);
  test_pitched_copies(d);
  test_cache(d);
  test_wrap_managed(d);
  if (argc > 1 && strcmp(argv[1], "bench") == 0) bench(d);
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
