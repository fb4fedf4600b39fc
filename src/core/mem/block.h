/* Blocks: the reference-counted unit of memory under vec facets and
 * buffers.  A vec's host storage and its cuda facet are each one
 * block; a buffer is a view (element type, dims, offset) of a block; so a
 * buffer and a mat facet can be the same memory (mat_from_buffer, ensure).
 *
 * Two counts:
 *  - refcnt, the user-visible count (buffer_refcnt): the memory
 *    is released as soon as it reaches 0, whoever still points at it;
 *  - holds, the C holders of the struct (buffer userdata, vecs): the
 *    struct is freed at 0, and its memory released if it was still live
 *    (a garbage buffer is released by its finalizer).
 * A released block stays readable as a struct: state tells every holder
 * that its memory is gone ("buffer released") or was taken back by an
 * alloc cache when its scope ended ("memory returned to an alloc cache").
 *
 * Release never calls the device: host memory is freed at once; device,
 * page-locked and managed memory go through the device's deferred-free
 * queue, so releasing is safe from a Lua finalizer.
 *
 * Scoped allocation caches (cache.c): while a scope with a cache
 * is active on this thread, gm_block_alloc takes blocks from the cache and
 * records them in the scope; a block released inside the scope, and every
 * block of the scope still live when it ends (unless kept), returns its
 * memory to the cache. */
#ifndef GM_MEM_BLOCK_H
#define GM_MEM_BLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../model/status.h"

struct gm_device;
struct gm_cache_scope;

typedef enum gm_space {
  GM_SPACE_HOST = 0, /* ordinary host memory */
  GM_SPACE_PINNED,   /* page-locked host memory from the device (cudaHostAlloc) */
  GM_SPACE_DEVICE,   /* device memory (pool, or cudaMallocPitch when pitched) */
  GM_SPACE_MANAGED,  /* managed memory (cudaMallocManaged) */
  GM_N_SPACES
} gm_space;

enum { GM_BLOCK_LIVE = 0, GM_BLOCK_RELEASED, GM_BLOCK_REVOKED };

typedef struct gm_block {
  atomic_long refcnt;
  atomic_long holds;
  atomic_int state;
  gm_space space;
  unsigned flags;            /* GM_PINNED_* of a pinned block */
  struct gm_device *device;  /* referenced; NULL for plain host memory */
  void *ptr;                 /* host address, or device address for DEVICE */
  void *dev_ptr;             /* device address of a mapped pinned block */
  size_t bytes;              /* usable (logical) bytes */
  size_t alloc_bytes;        /* size class (cache matching) */
  size_t width, pitch;       /* pitched: bytes per row, padded row; else 0 */
  struct gm_device *registered_on; /* HOST block page-locked by host_register */
  struct gm_cache_scope *scope;    /* allocating scope, until kept or released */
  atomic_bool in_scope;            /* scope != NULL: a release without it skips the cache lock */
  struct gm_block *scope_prev, *scope_next;
  /* gm_block_wrap: memory the application owns (gm_mat_wrap, DLPack
   * imports): never freed, cached or page-locked; wrap_release(wrap_ud)
   * when released */
  bool wrapped;
  void (*wrap_release)(void *ud);
  void *wrap_ud;
} gm_block;

/* "host", "pinned", "device", "managed". */
const char *gm_space_name(gm_space s);

/* A new block (refcnt 1, holds 1).  HOST needs no device; the others
 * need dev.  flags: GM_PINNED_* for PINNED (MAPPED also sets dev_ptr). */
gm_status gm_block_alloc(gm_space space, struct gm_device *dev, size_t bytes, unsigned flags, gm_block **out);
/* A pitched device block of height rows of width bytes. */
gm_status gm_block_alloc_pitched(struct gm_device *dev, size_t width, size_t height, gm_block **out);

/* A HOST block over the application's memory ptr (refcnt 1, holds 1, in
 * no scope): release(ud) instead of a free when it is released (release
 * may be NULL); gm_block_register refuses it (GM_EUNSUPPORTED). */
gm_status gm_block_wrap(void *ptr, size_t bytes, void (*release)(void *), void *ud, gm_block **out);
/* gm_block_wrap in any space (foreign memory imported with DLPack):
 * DEVICE and MANAGED need dev (referenced); release(ud) of a block with a
 * device goes through dev's deferred queue, after the device's queued
 * work (gm_device_defer_call). */
gm_status gm_block_wrap_in(gm_space space, struct gm_device *dev, void *ptr, size_t bytes, void (*release)(void *),
                           void *ud, gm_block **out);

void gm_block_hold(gm_block *b);
/* Drops a hold; at zero releases live memory and frees the struct. */
void gm_block_drop(gm_block *b);
/* refcnt + 1; fails (GM_ESTATE) on a released block. */
gm_status gm_block_ref(gm_block *b);
/* refcnt - 1 (not below 0); releases the memory at 0.  Returns the new
 * count. */
long gm_block_deref(gm_block *b);

/* Inline: every watch asks it of the host block (and the device one). */
static inline bool gm_block_live(const gm_block *b) { return atomic_load(&b->state) == GM_BLOCK_LIVE; }
/* GM_OK when live, else GM_ESTATE with "<what>: buffer released" or
 * "<what>: memory returned to an alloc cache". */
gm_status gm_block_check(const gm_block *b, const char *what);

/* Page-locks a HOST block with dev (cuda_host facet); idempotent.
 * cudaHostRegister works on whole pages, and two registered blocks that
 * share a page (one unregistered while the other's copy is in flight) are
 * undocumented ground (review-3 N18): host pool blocks of a page or more
 * are page-aligned page multiples, and a smaller block is first moved
 * into a block of its own page when `movable` (the caller holds the only
 * pointer to its memory: b->ptr changes) and b is held by one holder
 * alone; else it is registered where it is. */
gm_status gm_block_register(gm_block *b, struct gm_device *dev, bool movable);
void gm_block_unregister(gm_block *b);

/* Physical byte offset of logical byte off (pitched rows padded). */
size_t gm_block_phys(const gm_block *b, size_t off);

/* One end of a copy: a block at a logical byte offset, or plain host
 * memory (b == NULL). */
typedef struct gm_copy_end {
  gm_block *b;
  size_t off;
  void *host;
} gm_copy_end;
/* Copies n bytes across any two memory spaces, pitched rows included
 * (one 2-d copy when whole rows move); device copies are counted in
 * gm.counters().  Overlapping ranges of one block are an error. */
gm_status gm_block_copy(gm_copy_end dst, gm_copy_end src, size_t n);
/* Whether the host may dereference b->ptr directly (all but device
 * memory); managed and mapped page-locked memory after gm_block_host_sync
 * (waits for the device, whose queued work uses them in place). */
bool gm_block_host_accessible(const gm_block *b);
gm_status gm_block_host_sync(const gm_block *b);

/* ---- scoped allocation caches (cache.c) ---- */

typedef struct gm_alloc_cache gm_alloc_cache;
typedef struct gm_cache_stats {
  size_t n_blocks, n_bytes, n_hits, n_misses;
} gm_cache_stats;

gm_status gm_alloc_cache_new(gm_alloc_cache **out);
void gm_alloc_cache_ref(gm_alloc_cache *c);
/* Drops a reference; at zero frees every cached block. */
void gm_alloc_cache_unref(gm_alloc_cache *c);
gm_cache_stats gm_alloc_cache_stats(gm_alloc_cache *c);
/* Gives every free block back (device blocks via the deferred-free
 * queue); GM_ESTATE inside one of c's own scopes. */
gm_status gm_alloc_cache_free(gm_alloc_cache *c);

typedef struct gm_cache_scope {
  gm_alloc_cache *cache; /* NULL: an uncached scope */
  bool closed;
  atomic_long refcount;  /* the scope stack and every vec marked by it */
  gm_block *blocks;      /* live blocks allocated in the scope */
  struct gm_cache_scope *outer;
} gm_cache_scope;

/* Pushes a scope on this thread (cache NULL = uncached). */
gm_status gm_cache_scope_push(gm_alloc_cache *cache, gm_cache_scope **out);
/* Pops s (must be the innermost): live blocks of the scope give their
 * memory to the cache and become GM_BLOCK_REVOKED; s is marked closed. */
gm_status gm_cache_scope_pop(gm_cache_scope *s);
/* The innermost scope with a cache, or NULL (uncached / none). */
gm_cache_scope *gm_cache_scope_current(void);
void gm_cache_scope_ref(gm_cache_scope *s);
void gm_cache_scope_unref(gm_cache_scope *s);
/* Detaches b from its scope: it survives the scope's end. */
void gm_block_keep(gm_block *b);

/* Internal to block.c/cache.c: record b in s and take a free block of
 * b's kind from s's cache (a hit, else false: a miss), under one lock (a
 * miss whose allocation fails is unlinked with gm_block_keep); on
 * release, give b's memory to its scope's cache (false when b is not in
 * a cached scope). */
bool gm_cache_take(gm_cache_scope *s, gm_block *b);
bool gm_cache_give(gm_block *b);
void gm_block_free_memory(gm_space space, struct gm_device *dev, void *ptr, size_t bytes, size_t pitch,
                          unsigned flags, struct gm_device *registered_on);

#endif
