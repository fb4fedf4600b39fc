/* The device caching pool: size classes, best-fit reuse of cached blocks,
 * real frees on trim.  See pool.h for the policy. */
#include "pool.h"

#include <stdint.h>
#include <stdlib.h>

#include "runtime.h"

/* A raw allocation that small blocks are carved from (pool.h). */
typedef struct gm_pool_segment {
  void *ptr;
  size_t bytes, used; /* pieces are cut at ptr + used */
  size_t n_in_use;    /* its pieces handed out (the others are cached) */
  struct gm_pool_segment *next;
} gm_pool_segment;

typedef struct gm_pool_block {
  void *ptr;
  size_t bytes; /* size class */
  gm_pool_segment *seg; /* the segment it is a piece of; NULL: a raw allocation of its own */
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
  for (size_t c = 0; c < GM_POOL_N_CLASSES; c++) p->by_class[c] = NULL;
  for (size_t w = 0; w < GM_POOL_N_CLASSES / 64; w++) p->class_mask[w] = 0;
  p->segments = p->carving = NULL;
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

/* ---- the cache ---- */

static size_t class_of(size_t size) { return size / GM_POOL_SMALL_GRANULE - 1; }

static void insert_cached(gm_pool *p, gm_pool_block *b) {
  p->n_cached++;
  if (b->bytes <= GM_POOL_PIECE_MAX) {
    size_t c = class_of(b->bytes);
    b->next = p->by_class[c];
    p->by_class[c] = b;
    p->class_mask[c / 64] |= 1ull << (c % 64);
    return;
  }
  gm_pool_block **link = &p->cached;
  while (*link && (*link)->bytes < b->bytes) link = &(*link)->next;
  b->next = *link;
  *link = b;
}

/* The first non-empty class in [lo, hi], or SIZE_MAX. */
static size_t next_class(const gm_pool *p, size_t lo, size_t hi) {
  for (size_t c = lo; c <= hi;) {
    unsigned long long w = p->class_mask[c / 64] >> (c % 64);
    if (w) {
      c += (size_t)__builtin_ctzll(w);
      return c <= hi ? c : SIZE_MAX;
    }
    c = (c / 64 + 1) * 64;
  }
  return SIZE_MAX;
}

/* Unlinks and returns the smallest cached block of at least `size` bytes
 * and at most twice that (a much larger block is left for a larger
 * request; trimming frees it when memory runs short); within a small
 * class, the one freed last. */
static gm_pool_block *take_cached(gm_pool *p, size_t size) {
  if (size <= GM_POOL_PIECE_MAX) {
    size_t lo = class_of(size), hi = class_of(size * 2 < GM_POOL_PIECE_MAX ? size * 2 : GM_POOL_PIECE_MAX);
    size_t c = next_class(p, lo, hi);
    if (c != SIZE_MAX) {
      gm_pool_block *b = p->by_class[c];
      p->by_class[c] = b->next;
      if (!b->next) p->class_mask[c / 64] &= ~(1ull << (c % 64));
      p->n_cached--;
      return b;
    }
    if (size * 2 <= GM_POOL_PIECE_MAX) return NULL;
  }
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

/* ---- new blocks ---- */

static bool under_limit(const gm_pool *p, size_t size) {
  return !p->limit || (size <= p->limit && p->reserved <= p->limit - size);
}

static gm_status raw_alloc(struct gm_device *d, size_t size, void **ptr) {
  gm_status st = d->ops->raw_alloc(d, size, ptr);
  /* handled here (the caller's cascade may recover): leave no stale error
   * for the next launch */
  if (st != GM_OK && d->ops->clear_error) d->ops->clear_error(d);
  return st;
}

/* A piece of `size` bytes cut from the carving segment, or from a new one
 * (the old one's tail cached as a piece of its own); NULL when no segment
 * can be had (the limit, or the backend refused one: the caller then asks
 * for a block of its own, which may still fit). */
static gm_pool_block *cut_piece(gm_pool *p, struct gm_device *d, size_t size) {
  gm_pool_segment *s = p->carving;
  if (!s || s->bytes - s->used < size) {
    if (!under_limit(p, GM_POOL_SEGMENT)) return NULL;
    gm_pool_segment *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    if (raw_alloc(d, GM_POOL_SEGMENT, &n->ptr) != GM_OK) {
      free(n);
      return NULL;
    }
    n->bytes = GM_POOL_SEGMENT;
    n->next = p->segments;
    p->segments = n;
    p->reserved += GM_POOL_SEGMENT;
    if (s && s->bytes > s->used) { /* the old tail (a multiple of 512, under `size`) */
      gm_pool_block *t = calloc(1, sizeof *t);
      if (t) {
        *t = (gm_pool_block){(char *)s->ptr + s->used, s->bytes - s->used, s, NULL};
        s->used = s->bytes;
        insert_cached(p, t);
      }
    }
    p->carving = s = n;
  }
  gm_pool_block *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  *b = (gm_pool_block){(char *)s->ptr + s->used, size, s, NULL};
  s->used += size;
  return b;
}

static gm_status new_block(gm_pool *p, struct gm_device *d, size_t size, size_t asked, gm_pool_block **out) {
  if (size <= GM_POOL_PIECE_MAX && (*out = cut_piece(p, d, size)) != NULL) return GM_OK;
  if (!under_limit(p, size)) return fail_oom(p, asked, "pool limit reached");
  gm_pool_block *b = calloc(1, sizeof *b);
  if (!b) return gm_fail(GM_ENOMEM, "out of host memory");
  gm_status st = raw_alloc(d, size, &b->ptr);
  if (st != GM_OK) {
    free(b);
    return st == GM_ECUDA_OOM ? fail_oom(p, asked, "device allocation failed") : st;
  }
  b->bytes = size;
  p->reserved += size;
  *out = b;
  return GM_OK;
}

gm_status gm_pool_alloc(gm_pool *p, struct gm_device *d, size_t bytes, void **out) {
  size_t size = gm_pool_round(bytes);
  if (size == SIZE_MAX) return fail_oom(p, bytes, "request too large");
  pthread_mutex_lock(&p->lock);
  gm_status st = GM_OK;
  gm_pool_block *b = take_cached(p, size);
  if (!b) st = new_block(p, d, size, bytes, &b);
  if (st == GM_OK && (st = hash_insert(p, b)) != GM_OK) insert_cached(p, b); /* kept for later: nothing is lost */
  if (st == GM_OK) {
    p->in_use += b->bytes;
    p->n_in_use++;
    if (b->seg) b->seg->n_in_use++;
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
    if (b->seg) b->seg->n_in_use--;
    insert_cached(p, b);
  }
  pthread_mutex_unlock(&p->lock);
  return b != NULL;
}

/* ---- giving memory back ---- */

/* Gives back the blocks of list b of their own and forgets the pieces of
 * segments with no piece in use (all: every piece); returns the rest, in
 * their order. */
static gm_pool_block *drop_blocks(gm_pool *p, struct gm_device *d, gm_pool_block *b, bool all) {
  gm_pool_block *keep = NULL, **tail = &keep;
  while (b) {
    gm_pool_block *next = b->next;
    if (!b->seg) {
      d->ops->raw_free(d, b->ptr);
      p->reserved -= b->bytes;
      free(b);
      p->n_cached--;
    } else if (all || b->seg->n_in_use == 0) {
      free(b); /* its segment goes below */
      p->n_cached--;
    } else {
      *tail = b;
      tail = &b->next;
    }
    b = next;
  }
  *tail = NULL;
  return keep;
}

/* Frees the segments none of whose pieces is in use (all of them: every
 * piece is then already forgotten). */
static void drop_segments(gm_pool *p, struct gm_device *d, bool all) {
  for (gm_pool_segment **link = &p->segments; *link;) {
    gm_pool_segment *s = *link;
    if (!all && s->n_in_use) {
      link = &s->next;
      continue;
    }
    *link = s->next;
    if (p->carving == s) p->carving = NULL;
    d->ops->raw_free(d, s->ptr);
    p->reserved -= s->bytes;
    free(s);
  }
}

static void trim(gm_pool *p, struct gm_device *d, bool all) {
  p->cached = drop_blocks(p, d, p->cached, all);
  for (size_t c = 0; c < GM_POOL_N_CLASSES; c++) {
    if (!p->by_class[c]) continue;
    p->by_class[c] = drop_blocks(p, d, p->by_class[c], all);
    if (!p->by_class[c]) p->class_mask[c / 64] &= ~(1ull << (c % 64));
  }
  drop_segments(p, d, all);
}

void gm_pool_trim(gm_pool *p, struct gm_device *d) {
  pthread_mutex_lock(&p->lock);
  trim(p, d, false);
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
  pthread_mutex_lock(&p->lock);
  for (size_t i = 0; i < p->n_buckets; i++)
    for (gm_pool_block *b = p->buckets[i], *next; b; b = next) {
      next = b->next;
      if (!b->seg) {
        d->ops->raw_free(d, b->ptr);
        p->reserved -= b->bytes;
      }
      p->in_use -= b->bytes;
      p->n_in_use--;
      free(b);
    }
  free(p->buckets);
  p->buckets = NULL;
  p->n_buckets = 0;
  trim(p, d, true);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_destroy(&p->lock);
}
