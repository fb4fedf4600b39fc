/* Caching allocator for one device (seed 004, DESIGN.md §4).
 * Counts reserved bytes (held from the backend, in use or cached) against
 * an optional limit. */
#ifndef GM_DEVICE_POOL_H
#define GM_DEVICE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/status.h"

struct gm_device;
struct gm_pool_block;

typedef struct gm_pool {
  pthread_mutex_t lock;
  size_t limit;       /* 0 = unlimited (n_pool_bytes) */
  size_t reserved;    /* bytes obtained from raw_alloc and not yet returned */
  size_t in_use;      /* bytes handed out to callers */
  size_t n_in_use;    /* blocks handed out */
  struct gm_pool_block *blocks; /* all blocks, in use or cached */
} gm_pool;

void gm_pool_init(gm_pool *p);
/* Allocates from cached blocks or the backend; GM_ECUDA_OOM when the
 * limit or the backend refuses (no reclaim here: see gm_device_alloc). */
gm_status gm_pool_alloc(gm_pool *p, struct gm_device *d, size_t bytes, void **out);
/* Returns a block to the cache. */
void gm_pool_free(gm_pool *p, struct gm_device *d, void *ptr);
/* Gives every cached (unused) block back to the backend. */
void gm_pool_trim(gm_pool *p, struct gm_device *d);
/* Bytes cached (reserved but not in use). */
size_t gm_pool_cached(gm_pool *p);
void gm_pool_destroy(gm_pool *p, struct gm_device *d);

#endif
