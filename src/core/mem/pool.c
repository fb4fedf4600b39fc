/* The device caching pool: size classes, best-fit reuse of cached blocks,
 * real frees on trim.  See pool.h for the policy. */
#include "pool.h"

#include <stdint.h>
#include <stdlib.h>

#include "runtime.h"

typedef struct gm_pool_block {
  void *ptr;
  size_t bytes; /* size class */
  struct gm_pool_block *next; /* bucket chain when in use, cache list when cached */
} gm_pool_block;

size_t gm_pool_round(size_t bytes) {
  if (bytes == 0) bytes = 1;
  size_t g = bytes <= GM_POOL_SMALL_MAX ? GM_POOL_SMALL_GRANULE : GM_POOL_LARGE_GRANULE;
  if (bytes > SIZE_MAX - g) return SIZE_MAX;
  return (bytes + g - 1) / g * g;
}

void gm_pool_init(gm_pool *p) {
  pthread_mutex_init(&p->lock, NULL);
  p->limit = p->reserved = p->in_use = p->n_in_use = p->n_cached = 0;
  p->buckets = NULL;
  p->n_buckets = 0;
  p->cached = NULL;
}

/* ---- the in-use hash ---- */

static size_t bucket_of(const gm_pool *p, const void *ptr) {
  /* device blocks are at least 512-byte aligned: drop the zero bits, then
   * Fibonacci hashing spreads neighbours */
  uint64_t h = ((uint64_t)(uintptr_t)ptr >> 9) * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(h >> 32) & (p->n_buckets - 1);
}

/* Doubles the table (or creates it); false when out of host memory, in
 * which case the old table stays and still works (longer chains). */
static bool grow(gm_pool *p) {
  size_t n = p->n_buckets ? p->n_buckets * 2 : 64;
  gm_pool_block **t = calloc(n, sizeof *t);
  if (!t) return false;
  gm_pool_block **old = p->buckets;
  size_t n_old = p->n_buckets;
  p->buckets = t;
  p->n_buckets = n;
  for (size_t i = 0; i < n_old; i++)
    for (gm_pool_block *b = old[i], *next; b; b = next) {
      next = b->next;
      size_t k = bucket_of(p, b->ptr);
      b->next = t[k];
      t[k] = b;
    }
  free(old);
  return true;
}

static gm_status hash_insert(gm_pool *p, gm_pool_block *b) {
  if (p->n_in_use >= p->n_buckets && !grow(p) && p->n_buckets == 0)
    return gm_fail(GM_ENOMEM, "out of host memory");
  size_t k = bucket_of(p, b->ptr);
  b->next = p->buckets[k];
  p->buckets[k] = b;
  return GM_OK;
}

static gm_pool_block *hash_remove(gm_pool *p, const void *ptr) {
  if (!p->n_buckets) return NULL;
  for (gm_pool_block **link = &p->buckets[bucket_of(p, ptr)]; *link; link = &(*link)->next) {
    gm_pool_block *b = *link;
    if (b->ptr != ptr) continue;
    *link = b->next;
    return b;
  }
  return NULL;
}

static gm_status fail_oom(gm_pool *p, size_t bytes, const char *why) {
  gm_oom_info info = {bytes, p->limit, p->reserved, p->in_use};
  gm_set_oom_info(&info);
  return gm_fail(GM_ECUDA_OOM,
                 "cuda out of memory: %s (requested %zu bytes, limit %zu, reserved %zu, in use %zu)", why,
                 bytes, p->limit, p->reserved, p->in_use);
}

/* Unlinks and returns the smallest cached block of at least `size` bytes
 * and at most twice that (a much larger block is left for a larger
 * request; trimming frees it when memory runs short). */
static gm_pool_block *take_cached(gm_pool *p, size_t size) {
  gm_pool_block **link = &p->cached;
  for (; *link; link = &(*link)->next) {
    gm_pool_block *b = *link;
    if (b->bytes < size) continue;
    if (b->bytes / 2 > size) return NULL; /* sorted: all later ones are larger */
    *link = b->next;
    p->n_cached--;
    return b;
  }
  return NULL;
}

static gm_status new_block(gm_pool *p, struct gm_device *d, size_t size, size_t asked, gm_pool_block **out) {
  if (p->limit && (size > p->limit || p->reserved > p->limit - size))
    return fail_oom(p, asked, "pool limit reached");
  gm_pool_block *b = calloc(1, sizeof *b);
  if (!b) return gm_fail(GM_ENOMEM, "out of host memory");
  gm_status st = d->ops->raw_alloc(d, size, &b->ptr);
  if (st != GM_OK) {
    free(b);
    /* handled here (the caller's cascade may recover): leave no stale
     * error for the next launch */
    if (d->ops->clear_error) d->ops->clear_error(d);
    return st == GM_ECUDA_OOM ? fail_oom(p, asked, "device allocation failed") : st;
  }
  b->bytes = size;
  p->reserved += size;
  *out = b;
  return GM_OK;
}

static void insert_cached(gm_pool *p, gm_pool_block *b) {
  gm_pool_block **link = &p->cached;
  while (*link && (*link)->bytes < b->bytes) link = &(*link)->next;
  b->next = *link;
  *link = b;
  p->n_cached++;
}

gm_status gm_pool_alloc(gm_pool *p, struct gm_device *d, size_t bytes, void **out) {
  size_t size = gm_pool_round(bytes);
  if (size == SIZE_MAX) return fail_oom(p, bytes, "request too large");
  pthread_mutex_lock(&p->lock);
  gm_status st = GM_OK;
  gm_pool_block *b = take_cached(p, size);
  if (!b) st = new_block(p, d, size, bytes, &b);
  if (st == GM_OK && (st = hash_insert(p, b)) != GM_OK) {
    b->next = NULL;
    insert_cached(p, b); /* keep it for later: nothing is lost */
  }
  if (st == GM_OK) {
    p->in_use += b->bytes;
    p->n_in_use++;
    *out = b->ptr;
  }
  pthread_mutex_unlock(&p->lock);
  return st;
}

bool gm_pool_free(gm_pool *p, void *ptr) {
  pthread_mutex_lock(&p->lock);
  gm_pool_block *b = hash_remove(p, ptr);
  if (b) {
    p->in_use -= b->bytes;
    p->n_in_use--;
    insert_cached(p, b);
  }
  pthread_mutex_unlock(&p->lock);
  return b != NULL;
}

static void free_list(gm_pool *p, struct gm_device *d, gm_pool_block *b) {
  while (b) {
    gm_pool_block *next = b->next;
    d->ops->raw_free(d, b->ptr);
    p->reserved -= b->bytes;
    free(b);
    b = next;
  }
}

void gm_pool_trim(gm_pool *p, struct gm_device *d) {
  pthread_mutex_lock(&p->lock);
  free_list(p, d, p->cached);
  p->cached = NULL;
  p->n_cached = 0;
  pthread_mutex_unlock(&p->lock);
}

gm_pool_stats gm_pool_get_stats(gm_pool *p) {
  pthread_mutex_lock(&p->lock);
  gm_pool_stats s = {p->limit, p->reserved, p->in_use, p->n_in_use, p->reserved - p->in_use, p->n_cached};
  pthread_mutex_unlock(&p->lock);
  return s;
}

void gm_pool_set_limit(gm_pool *p, size_t limit) {
  pthread_mutex_lock(&p->lock);
  p->limit = limit;
  pthread_mutex_unlock(&p->lock);
}

void gm_pool_destroy(gm_pool *p, struct gm_device *d) {
  gm_pool_trim(p, d);
  pthread_mutex_lock(&p->lock);
  for (size_t i = 0; i < p->n_buckets; i++) free_list(p, d, p->buckets[i]);
  free(p->buckets);
  p->buckets = NULL;
  p->n_buckets = 0;
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_destroy(&p->lock);
}
