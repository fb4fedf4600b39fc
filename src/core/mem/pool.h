/* Caching allocator for one device.
 *
 * Requests are rounded to a size class: multiples of GM_POOL_SMALL_GRANULE
 * (512 bytes) up to GM_POOL_SMALL_MAX, multiples of GM_POOL_LARGE_GRANULE
 * (2 MiB) above.  A freed block stays cached; a request takes the smallest
 * cached block that is large enough and not wastefully large (at most
 * twice the rounded request), else a new block from the backend.
 *
 * Pieces: requests up to GM_POOL_PIECE_MAX are carved from segments of
 * GM_POOL_SEGMENT bytes (one raw allocation each), as PyTorch's caching
 * allocator carves its small pool: a raw allocation costs a cudaMalloc
 * (tens of microseconds and a device synchronization) or, on the emulated
 * device, a memfd and two mappings (about 20 us), and a loop of small
 * temporaries made thousands of them before the collector freed the
 * first.  Cached blocks up to GM_POOL_PIECE_MAX (pieces, and small blocks
 * of their own when the limit refused a segment) wait in one LIFO list
 * per size class, so the block just freed (warm in the caches) is the
 * next one taken; larger ones in one list sorted by size.  A segment goes
 * back to the backend on trim once none of its pieces is in use.
 * Reserved bytes (held from the backend, in use or cached) are counted
 * against an optional limit (a segment the limit refuses: the request
 * gets a block of its own); gm_pool_trim gives cached blocks back to the
 * backend for real (raw_free).
 *
 * Blocks handed out are found by pointer in O(1) (a hash with chaining,
 * grown at load 1).
 *
 * Thread safety: every function takes the pool's lock; the backend's
 * raw_alloc/raw_free are called with it held. */
#ifndef GM_DEVICE_POOL_H
#define GM_DEVICE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../model/status.h"

struct gm_device;
struct gm_pool_block;
struct gm_pool_segment;

#define GM_POOL_SMALL_GRANULE ((size_t)512)
#define GM_POOL_SMALL_MAX ((size_t)1 << 20)
#define GM_POOL_LARGE_GRANULE ((size_t)2 << 20)
#define GM_POOL_SEGMENT ((size_t)2 << 20)
#define GM_POOL_PIECE_MAX ((size_t)256 << 10)
#define GM_POOL_N_CLASSES (GM_POOL_PIECE_MAX / GM_POOL_SMALL_GRANULE)

typedef struct gm_pool {
  pthread_mutex_t lock;
  size_t limit;       /* 0 = unlimited (n_pool_bytes) */
  size_t reserved;    /* bytes obtained from raw_alloc and not yet returned */
  size_t in_use;      /* bytes of blocks handed out to callers */
  size_t n_in_use;    /* blocks handed out */
  size_t n_cached;    /* blocks cached */
  struct gm_pool_block **buckets; /* blocks handed out: hash on the pointer
                                    (a list would make each free a linear search) */
  size_t n_buckets;               /* power of two, or 0 before first use */
  struct gm_pool_block *cached;   /* cached blocks above GM_POOL_PIECE_MAX, sorted by size */
  struct gm_pool_block *by_class[GM_POOL_N_CLASSES]; /* cached small blocks, LIFO per
                                                        size class (bytes / 512 - 1) */
  unsigned long long class_mask[GM_POOL_N_CLASSES / 64]; /* bit c: by_class[c] not empty */
  struct gm_pool_segment *segments; /* every segment held from the backend */
  struct gm_pool_segment *carving;  /* the segment new pieces are cut from */
} gm_pool;

/* The size class of a request (what a block for it really holds). */
size_t gm_pool_round(size_t bytes);

void gm_pool_init(gm_pool *p);
/* Allocates from cached blocks or the backend; GM_ECUDA_OOM (with
 * gm_set_oom_info) when the limit or the backend refuses.  No reclaiming
 * here: see gm_device_alloc. */
gm_status gm_pool_alloc(gm_pool *p, struct gm_device *d, size_t bytes, void **out);
/* Returns a block to the cache; false if ptr is not a block in use. */
bool gm_pool_free(gm_pool *p, void *ptr);
/* Gives every cached block of its own, and every segment none of whose
 * pieces is in use, back to the backend (raw_free). */
void gm_pool_trim(gm_pool *p, struct gm_device *d);

typedef struct gm_pool_stats {
  size_t limit, reserved, in_use, n_in_use, cached, n_cached;
} gm_pool_stats;
gm_pool_stats gm_pool_get_stats(gm_pool *p);
void gm_pool_set_limit(gm_pool *p, size_t limit);
/* Trims, then frees the lock; blocks still in use are given back too. */
void gm_pool_destroy(gm_pool *p, struct gm_device *d);

#endif
