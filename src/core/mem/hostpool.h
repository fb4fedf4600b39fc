/* Caching allocator for host memory: the host storage of mats (host
 * facets), staging temporaries and mat-sized scratch, and, one pool per
 * device, page-locked memory (cudaHostAlloc is slow: milliseconds per
 * call on a real GPU machine).
 *
 * Why: an allocating expression (`a + 1`) needs a fresh result each
 * time; from malloc that is fresh pages faulted in one by one (about 2 ms
 * per 4 MB).  A freed block stays cached, faulted in, and the next request
 * of its size class takes it: the finalizer path (gm_block_drop from a
 * Lua __gc) is a lock and a list push, no syscall.
 *
 * Size classes:
 *  - under 4 KiB: 64-byte aligned; 4 classes per power of two, multiples
 *    of 64 bytes (64, 128, 192, 256, 320, ...);
 *  - 4 KiB up to 4 MiB: page aligned, page multiples, 4 classes per power
 *    of two (so a block of a page or more never shares a page with
 *    another block: cudaHostRegister works on whole pages, review-3 N18);
 *  - 4 MiB and more: 2 MiB aligned multiples of 2 MiB, advised to use
 *    transparent huge pages (as numpy's large arrays are).
 * The process-wide host pool carves fresh blocks under 4 MiB from 16 MiB
 * slabs advised to use transparent huge pages (hostpool.c says why).
 * Classes under 4 MiB are exact bins (a LIFO list each: the most recently
 * freed block, the one most likely still in cache, is reused first); the
 * large ones are one list sorted by size, best fit up to 1.5 times the
 * request.
 *
 * Trimming (cached blocks given back to the system): gm_hostpool_trim
 * (gm.collect()); when a system allocation fails (trim, retry); and when
 * the cached bytes would pass the limit (gm.host_pool_limit), the largest
 * cached blocks are given back first.
 *
 * Fault injection (the sweep of tools/faults-sweep.sh): with
 * GPUMAT_HOST_FAIL_EVERY=N in the environment every Nth request of the
 * host pool fails (after trimming the cache, as a real failure would),
 * GPUMAT_HOST_FAIL_MAX (default unlimited) capping the faults.
 *
 * Thread safety: every function takes the pool's lock; raw_alloc and
 * raw_free run with it held. */
#ifndef GM_MEM_HOSTPOOL_H
#define GM_MEM_HOSTPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/lock.h"
#include "../model/status.h"

#define GM_HOSTPOOL_PAGE ((size_t)4096)
#define GM_HOSTPOOL_HUGE ((size_t)2 << 20)
#define GM_HOSTPOOL_LARGE (2 * GM_HOSTPOOL_HUGE)
/* bins: 4 per power of two from 64 bytes (2^6) below GM_HOSTPOOL_LARGE (2^22) */
#define GM_HOSTPOOL_N_BINS (4 * (22 - 6))

struct gm_hostpool_node;

typedef struct gm_hostpool {
  gm_lock lock; /* ../model/lock.h */
  /* the system below the pool: raw_alloc gets bytes (a size class),
   * aligned as the class needs; raw_free gives them back */
  gm_status (*raw_alloc)(void *arg, size_t bytes, void **out);
  void (*raw_free)(void *arg, void *p, size_t bytes);
  void *arg;
  const char *what; /* "host", "page-locked": for messages */
  size_t cached, n_cached, in_use, n_in_use;
  unsigned long long hits, misses, n_trimmed; /* n_trimmed: blocks given back */
  struct gm_hostpool_node *bins[GM_HOSTPOOL_N_BINS];
  struct gm_hostpool_node *large; /* sorted by size, smallest first */
  unsigned long fail_every, fail_max, n_requests, n_faults; /* fault injection */
} gm_hostpool;

/* The size class of a request: what a block for it holds; SIZE_MAX when
 * the request is too large. */
size_t gm_hostpool_round(size_t bytes);
/* The alignment of a size class. */
size_t gm_hostpool_align(size_t size_class);

void gm_hostpool_init(gm_hostpool *p, const char *what, gm_status (*raw_alloc)(void *, size_t, void **),
                      void (*raw_free)(void *, void *, size_t), void *arg);
/* A block of at least gm_hostpool_round(bytes) bytes (*size: what it
 * holds, to pass back to gm_hostpool_free): cached, else from raw_alloc
 * (on failure: trim, retry); GM_ENOMEM "out of <what> memory" else. */
gm_status gm_hostpool_alloc(gm_hostpool *p, size_t bytes, void **out, size_t *size);
/* A cached block only (counted as a hit), else false and nothing changes:
 * for a caller with a cheaper way to refill the cache than raw_alloc. */
bool gm_hostpool_take(gm_hostpool *p, size_t bytes, void **out, size_t *size);
/* Returns a block of *size bytes from gm_hostpool_alloc to the cache
 * (or to the system when the cache is at its limit). */
void gm_hostpool_free(gm_hostpool *p, void *ptr, size_t size);
/* Gives every cached block back to the system. */
void gm_hostpool_trim(gm_hostpool *p);
/* Gives cached blocks back until at most `keep` bytes stay cached. */
void gm_hostpool_trim_to(gm_hostpool *p, size_t keep);

typedef struct gm_hostpool_stats {
  size_t in_use, n_in_use, cached, n_cached;
  unsigned long long hits, misses, n_trimmed;
} gm_hostpool_stats;
gm_hostpool_stats gm_hostpool_get_stats(gm_hostpool *p);
/* Trims; blocks still in use stay the caller's. */
void gm_hostpool_destroy(gm_hostpool *p);

/* ---- the process-wide pools ---- */

/* The pool of ordinary host memory (aligned_alloc/free below it). */
gm_hostpool *gm_host_pool(void);
/* Shorthands on gm_host_pool(): blocks of mat-sized scratch. */
gm_status gm_host_scratch(size_t bytes, void **out, size_t *size);
void gm_host_scratch_free(void *ptr, size_t size);

/* The most bytes each host pool keeps cached (the setting
 * gm.host_pool_limit); the default is a sixteenth of physical memory,
 * at most 2 GiB, at least 64 MiB.  Setting it trims the host pool to it. */
size_t gm_host_pool_limit(void);
void gm_host_pool_set_limit(size_t bytes);

#endif
