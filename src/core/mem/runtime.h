/* Device objects: one per (backend, device id), shared by every vec that
 * has memory on it.  This layer owns the caching pool and the deferred-free
 * queue; the backends (cuda/, emulated/) only provide gm_device_ops.
 *
 * Lifetime: a device is opened on first use (gm_device_get) and lives
 * until the process ends, like CUDA's primary context.  Contexts
 * (with_cuda) only borrow it: at context exit its deferred queue is
 * drained; its cached blocks stay cached for the next context (else
 * every context would cudaMalloc everything again) and are given back
 * only by the reclaim cascade (out of memory) and gm.collect().
 * Consequently gm_device_unref, called by a Lua finalizer, never tears
 * anything down and never calls into the backend.
 *
 * Deferred frees: gm_device_defer_free only queues (a mutex and a
 * malloc), so it is safe from a finalizer and from any thread.  Device
 * blocks are freed at the next allocation on the device; everything
 * (also page-locked host memory, whose release may synchronize the
 * device) by gm_device_collect() (gm.collect(), the reclaim cascade) and
 * at context exit. */
#ifndef GM_DEVICE_RUNTIME_H
#define GM_DEVICE_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "hostpool.h"
#include "pool.h"

/* Calls into the Lua binding to reclaim memory held by garbage mats.
 * full: one complete collection (reclaim cascade); else an incremental
 * step accounting for `bytes` newly allocated device bytes (the GC does
 * not see device memory, so device allocations nudge it). */
typedef void (*gm_gc_hook)(void *arg, bool full, size_t bytes);

struct gm_device {
  const gm_device_ops *ops;
  int id;
  atomic_long refcount;    /* informational: facets and contexts using it */
  void *impl;              /* backend state */
  gm_pool pool;            /* caching allocator, see pool.h */
  pthread_mutex_t queue_lock;
  struct gm_deferred *queue; /* deferred frees */
  /* spare queue nodes (under queue_lock): a free queues without a malloc */
  struct gm_deferred *spare_nodes;
  /* entries on queue: an allocation with nothing queued skips the lock */
  atomic_long n_queued;
  gm_stream *copy_stream;  /* with_syncing_cuda_facets' stream */
  gm_gc_hook gc_hook;      /* set by the binding while a context is active */
  void *gc_hook_arg;
  pthread_t gc_hook_thread; /* the hook's Lua state belongs to this thread */
  size_t gc_step_budget;   /* bytes allocated between GC nudges */
  size_t bytes_since_step;
  /* One host thread per device at a time: the pool
   * limit, the GC hook, the cuBLAS/cuSOLVER handles and the compute stream
   * are per device, so a second thread's outermost context on a device in
   * use is refused (under queue_lock). */
  pthread_t owner_thread;
  int n_owner_contexts;
  atomic_long pinned_bytes;    /* page-locked host bytes in use (registered or allocated) */
  atomic_long n_pinned_arrays;
  /* cached page-locked blocks (cudaHostAlloc, unflagged): hostpool.h */
  gm_hostpool pinned_pool;
  atomic_long n_pinned_queued; /* GM_HOST_PINNED_POOL releases on the queue */
};

/* The device of backend "cuda" or "emulated" with the given id, opened
 * on first use. */
gm_status gm_device_get(const char *backend, int id, gm_device **out);
void gm_device_ref(gm_device *d);
void gm_device_unref(gm_device *d);
/* Calls fn for every device opened so far. */
void gm_device_foreach(void (*fn)(gm_device *d, void *arg), void *arg);

/* Allocation through the pool with the reclaim cascade:
 * drain queue, release cached blocks, one full GC through gc_hook, drain,
 * retry; then GM_ECUDA_OOM with gm_set_oom_info() (and n_ooms counted).
 * A successful allocation may nudge the GC (gc_hook with full = false).
 * The hook runs Lua finalizers, so callers must hold no vec lock (vec.c
 * allocates a new facet's block before locking); it runs only on the
 * thread that installed it and never re-enters itself. */
gm_status gm_device_alloc(gm_device *d, size_t bytes, void **out);

/* What a device's scratch allocation (stream-ordered, outside the pool)
 * gets back before its one retry: the device blocks of garbage mats still
 * on the deferred queue (into the pool's cache), then the cache (to the
 * backend).  No GC: the op's operands are held.  Both backends' scratch
 * paths use it: trimming the cache alone would miss the queue. */
void gm_device_reclaim_for_scratch(gm_device *d);
/* Queues p for freeing; safe from finalizers. */
void gm_device_defer_free(gm_device *d, void *p);
/* Queues a pitched block for raw_free / a managed block for managed_free. */
void gm_device_defer_raw_free(gm_device *d, void *p);
void gm_device_defer_managed_free(gm_device *d, void *p);
/* Queues fn(ud), run after a device synchronization by the drain that
 * frees device blocks: foreign memory a DLPack producer frees in its
 * deleter, which gpumat's queued work may still use. */
void gm_device_defer_call(gm_device *d, void (*fn)(void *), void *ud);
/* How host memory that a device knows of is released. */
enum { GM_HOST_MALLOC = 0, GM_HOST_PINNED = 1, GM_HOST_PINNED_POOL = 2 };
/* Queues release of host memory that d registered (GM_HOST_MALLOC: it is
 * unregistered, then returned to the host pool) or allocated
 * (GM_HOST_PINNED: host_free; GM_HOST_PINNED_POOL: back to d's pinned
 * pool, after one device synchronization per drain, as cudaFreeHost
 * would have waited, so a queued copy never reads a reused block). */
void gm_device_defer_host_release(gm_device *d, void *p, int host_kind, size_t bytes);
/* Frees everything on the deferred queue now. */
void gm_device_collect(gm_device *d);
/* gm_device_collect on every device, then its cached blocks (device pool,
 * pinned pool) are given back, and the host pool's (gm.collect()). */
void gm_device_collect_all(void);

/* Bytes of memory that mats and buffers hold now: host pool blocks,
 * page-locked and device blocks in use, after each device's queued pool
 * block frees are taken back into its pool (no backend call).  The Lua
 * binding paces its collector by it (util.c, gml_pushmat). */
size_t gm_mem_live_bytes(void);

/* Counted copies (gm_counter.n_memcpy_*), one count per copy.  Synchronous
 * unless this thread is inside gm_device_begin_async_copies, in which
 * case they are queued on d->copy_stream. */
gm_status gm_device_copy_h2d(gm_device *d, void *dst, const void *src, size_t bytes);
gm_status gm_device_copy_d2h(gm_device *d, void *dst, const void *src, size_t bytes);
/* An H2D copy from page-locked memory that does not wait for the compute
 * stream: queued on d->copy_stream, with the compute stream
 * made to wait for it, so later device work sees the data.  *queued says
 * whether the copy went to the copy stream (then the caller must wait
 * for that stream before the host touches src again, and before src is
 * released: the DMA reads it after the return); without a copy stream or
 * stream_wait it is a plain synchronous copy. */
gm_status gm_device_copy_h2d_queued(gm_device *d, void *dst, const void *src, size_t bytes, bool *queued);
void gm_device_begin_async_copies(void);
void gm_device_end_async_copies(void);
bool gm_device_async_copies_active(void);

/* x[i] = alpha on device memory, as a device call (enter/leave). */
gm_status gm_device_fill(gm_device *d, gm_ctype t, size_t n, double alpha, void *x);

/* Page-locking through the device, counted in pinned_bytes. */
gm_status gm_device_host_register(gm_device *d, void *p, size_t bytes);
void gm_device_host_unregister(gm_device *d, void *p, size_t bytes);
gm_status gm_device_host_alloc(gm_device *d, size_t bytes, void **out);
/* Page-locked memory from d's pinned pool (*size: the block's size, to
 * release with GM_HOST_PINNED_POOL); on a miss, queued pinned releases
 * are collected first (one device synchronization), so a loop of staging
 * mats reuses its blocks. */
gm_status gm_device_pinned_alloc(gm_device *d, size_t bytes, void **out, size_t *size);

/* Brackets a device call (ops->enter/leave; NULL-safe). */
void gm_device_enter(gm_device *d);
void gm_device_leave(gm_device *d);

#endif
