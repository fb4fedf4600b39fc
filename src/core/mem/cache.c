/* Scoped allocation caches (GPUArrays' @cached): free blocks
 * kept by size and memory space, and the per-thread stack of scopes whose
 * allocations come from and return to them.  One process-wide lock guards
 * every cache and scope list: these are short list operations. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "runtime.h"

typedef struct cache_entry {
  gm_space space;
  gm_device *device; /* referenced */
  unsigned flags;
  size_t alloc_bytes, width, pitch;
  void *ptr, *dev_ptr;
  struct cache_entry *next;
} cache_entry;

struct gm_alloc_cache {
  atomic_long refcount;
  cache_entry *free_list;
  gm_cache_stats stats;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* spare entries (under cache_lock): a hit and its give back move memory
 * between a block and the cache without a malloc/free */
enum { SPARE_ENTRIES_MAX = 64 };
static cache_entry *spare_entries;
static int n_spare_entries;
static _Thread_local gm_cache_scope *top;

gm_status gm_alloc_cache_new(gm_alloc_cache **out) {
  gm_alloc_cache *c = calloc(1, sizeof *c);
  if (!c) return gm_fail(GM_ENOMEM, "out of host memory");
  atomic_init(&c->refcount, 1);
  *out = c;
  return GM_OK;
}

void gm_alloc_cache_ref(gm_alloc_cache *c) { atomic_fetch_add(&c->refcount, 1); }

static void free_entries(cache_entry *e) {
  while (e) {
    cache_entry *next = e->next;
    gm_block_free_memory(e->space, e->device, e->ptr, e->alloc_bytes, e->pitch, e->flags, NULL);
    if (e->device) gm_device_unref(e->device);
    free(e);
    e = next;
  }
}

static cache_entry *detach_all(gm_alloc_cache *c) {
  pthread_mutex_lock(&cache_lock);
  cache_entry *e = c->free_list;
  c->free_list = NULL;
  c->stats.n_blocks = c->stats.n_bytes = 0;
  pthread_mutex_unlock(&cache_lock);
  return e;
}

void gm_alloc_cache_unref(gm_alloc_cache *c) {
  if (!c || atomic_fetch_sub(&c->refcount, 1) != 1) return;
  free_entries(detach_all(c));
  free(c);
}

gm_cache_stats gm_alloc_cache_stats(gm_alloc_cache *c) {
  pthread_mutex_lock(&cache_lock);
  gm_cache_stats s = c->stats;
  pthread_mutex_unlock(&cache_lock);
  return s;
}

gm_status gm_alloc_cache_free(gm_alloc_cache *c) {
  for (gm_cache_scope *s = top; s; s = s->outer)
    if (s->cache == c) return gm_fail(GM_ESTATE, "cannot free an alloc cache inside its own scope");
  free_entries(detach_all(c));
  return GM_OK;
}

/* ---- scopes ---- */

/* One spare scope struct per thread: a gm.cached call pushes and pops a
 * scope without a calloc/free (freed at the thread's exit).  Off under
 * AddressSanitizer, so a use of a freed scope is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#define GM_RECYCLE_SCOPES 0
#else
#define GM_RECYCLE_SCOPES 1
static _Thread_local gm_cache_scope *spare_scope;
static pthread_key_t spare_scope_key;
static pthread_once_t spare_scope_once = PTHREAD_ONCE_INIT;
static bool spare_scope_key_ok;

static void free_spare_scope(void *arg) {
  (void)arg;
  free(spare_scope);
  spare_scope = NULL;
}

static void make_spare_scope_key(void) {
  spare_scope_key_ok = pthread_key_create(&spare_scope_key, free_spare_scope) == 0;
}
#endif

static gm_cache_scope *scope_alloc(void) {
#if GM_RECYCLE_SCOPES
  gm_cache_scope *s = spare_scope;
  if (s) {
    spare_scope = NULL;
    memset(s, 0, sizeof *s);
    return s;
  }
#endif
  return calloc(1, sizeof(gm_cache_scope));
}

static void scope_free(gm_cache_scope *s) {
#if GM_RECYCLE_SCOPES
  if (!spare_scope) {
    pthread_once(&spare_scope_once, make_spare_scope_key);
    if (spare_scope_key_ok && pthread_setspecific(spare_scope_key, &spare_scope) == 0) {
      spare_scope = s;
      return;
    }
  }
#endif
  free(s);
}

gm_status gm_cache_scope_push(gm_alloc_cache *cache, gm_cache_scope **out) {
  gm_cache_scope *s = scope_alloc();
  if (!s) return gm_fail(GM_ENOMEM, "out of host memory");
  atomic_init(&s->refcount, 1);
  s->cache = cache;
  if (cache) gm_alloc_cache_ref(cache);
  s->outer = top;
  top = s;
  *out = s;
  return GM_OK;
}

void gm_cache_scope_ref(gm_cache_scope *s) { atomic_fetch_add(&s->refcount, 1); }

void gm_cache_scope_unref(gm_cache_scope *s) {
  if (!s || atomic_fetch_sub(&s->refcount, 1) != 1) return;
  gm_alloc_cache_unref(s->cache);
  scope_free(s);
}

gm_cache_scope *gm_cache_scope_current(void) { return top && top->cache ? top : NULL; }

static void unlink_locked(gm_block *b) {
  gm_cache_scope *s = b->scope;
  if (!s) return;
  if (b->scope_prev)
    b->scope_prev->scope_next = b->scope_next;
  else
    s->blocks = b->scope_next;
  if (b->scope_next) b->scope_next->scope_prev = b->scope_prev;
  b->scope = NULL;
  b->scope_prev = b->scope_next = NULL;
  atomic_store(&b->in_scope, false);
}

static void enlist_locked(gm_cache_scope *s, gm_block *b) {
  b->scope = s;
  b->scope_prev = NULL;
  b->scope_next = s->blocks;
  if (s->blocks) s->blocks->scope_prev = b;
  s->blocks = b;
  atomic_store(&b->in_scope, true);
}

void gm_block_keep(gm_block *b) {
  pthread_mutex_lock(&cache_lock);
  unlink_locked(b);
  pthread_mutex_unlock(&cache_lock);
}

static bool matches(const cache_entry *e, const gm_block *b) {
  return e->space == b->space && e->device == b->device && e->flags == b->flags &&
         e->alloc_bytes == b->alloc_bytes && e->width == b->width;
}

bool gm_cache_take(gm_cache_scope *s, gm_block *b) {
  gm_alloc_cache *c = s->cache;
  pthread_mutex_lock(&cache_lock);
  enlist_locked(s, b);
  cache_entry **link = &c->free_list;
  while (*link && !matches(*link, b)) link = &(*link)->next;
  cache_entry *e = *link;
  gm_device *unref = NULL;
  bool hit = e != NULL;
  if (e) {
    *link = e->next;
    c->stats.n_blocks--;
    c->stats.n_bytes -= e->alloc_bytes;
    c->stats.n_hits++;
    b->ptr = e->ptr;
    b->dev_ptr = e->dev_ptr;
    b->pitch = e->pitch;
    unref = e->device;
    if (n_spare_entries < SPARE_ENTRIES_MAX) {
      e->next = spare_entries;
      spare_entries = e;
      n_spare_entries++;
      e = NULL;
    }
  } else {
    c->stats.n_misses++;
  }
  pthread_mutex_unlock(&cache_lock);
  if (unref) gm_device_unref(unref);
  free(e);
  return hit;
}

/* Moves b's memory into c (caller holds cache_lock); false when out of
 * host memory for the entry (the caller then frees the memory). */
static bool put_locked(gm_alloc_cache *c, gm_block *b) {
  cache_entry *e = spare_entries;
  if (e) {
    spare_entries = e->next;
    n_spare_entries--;
  } else if (!(e = malloc(sizeof *e))) {
    return false;
  }
  *e = (cache_entry){b->space, b->device, b->flags, b->alloc_bytes, b->width, b->pitch, b->ptr, b->dev_ptr, NULL};
  if (e->device) gm_device_ref(e->device);
  e->next = c->free_list;
  c->free_list = e;
  c->stats.n_blocks++;
  c->stats.n_bytes += e->alloc_bytes;
  return true;
}

bool gm_cache_give(gm_block *b) {
  /* scope is set only at allocation, before b is shared: a block out of
   * every scope stays out, so this check needs no lock */
  if (!atomic_load(&b->in_scope)) return false;
  pthread_mutex_lock(&cache_lock);
  gm_cache_scope *s = b->scope;
  bool given = s && s->cache && !b->registered_on && put_locked(s->cache, b);
  unlink_locked(b);
  pthread_mutex_unlock(&cache_lock);
  return given;
}

gm_status gm_cache_scope_pop(gm_cache_scope *s) {
  if (top != s) return gm_fail(GM_ESTATE, "alloc cache scopes must end innermost first");
  top = s->outer;
  /* every block of the scope still live goes back to the cache; its
   * holders see GM_BLOCK_REVOKED from now on */
  pthread_mutex_lock(&cache_lock);
  while (s->blocks) {
    gm_block *b = s->blocks;
    int live = GM_BLOCK_LIVE;
    bool revoke = atomic_compare_exchange_strong(&b->state, &live, GM_BLOCK_REVOKED);
    bool given = revoke && s->cache && put_locked(s->cache, b);
    unlink_locked(b);
    if (revoke) {
      if (!given) gm_block_free_memory(b->space, b->device, b->ptr, b->alloc_bytes, b->pitch, b->flags, NULL);
      if (b->device) gm_device_unref(b->device);
    }
  }
  s->closed = true;
  pthread_mutex_unlock(&cache_lock);
  gm_cache_scope_unref(s);
  return GM_OK;
}
