/* Device objects: one per (backend, device id), shared by every vec that
 * has memory on it.  This layer owns the caching pool and the deferred-free
 * queue; the backends (cuda/, emulated/) only provide gm_device_ops.
 *
 * Lifetime: a device is referenced by each vec facet holding memory on it
 * and by each active context; it is torn down (queue drained, pool
 * trimmed, backend destroyed) when the last reference goes.  gm_device_unref
 * from a finalizer therefore never tears down (the context still holds a
 * reference while any Lua code runs inside it); teardown happens at
 * context exit. */
#ifndef GM_DEVICE_RUNTIME_H
#define GM_DEVICE_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "pool.h"

struct gm_device {
  const gm_device_ops *ops;
  int id;
  atomic_long refcount;
  void *impl;              /* backend state */
  gm_pool pool;            /* caching allocator, see pool.h */
  pthread_mutex_t queue_lock;
  struct gm_deferred *queue; /* deferred frees, drained on the owning thread */
  /* called on allocation failure to run one full Lua GC (set by the
   * binding; never called from a finalizer) */
  void (*gc_hook)(void *arg);
  void *gc_hook_arg;
};

/* Creates the device of backend "cuda" or "emulated" with the given id. */
gm_status gm_device_open(const char *backend, int id, gm_device **out);
void gm_device_ref(gm_device *d);
void gm_device_unref(gm_device *d);

/* Allocation through the pool with the reclaim cascade of DESIGN.md §4:
 * drain queue, release cached blocks, GC hook, drain, retry; then
 * GM_ECUDA_OOM with gm_set_oom_info(). */
gm_status gm_device_alloc(gm_device *d, size_t bytes, void **out);
/* Queues p for freeing; safe from finalizers. */
void gm_device_defer_free(gm_device *d, void *p);
/* Queues release of host memory that d registered or allocated. */
void gm_device_defer_host_release(gm_device *d, void *p, int host_kind);
/* Frees everything on the deferred queue now. */
void gm_device_collect(gm_device *d);

/* Counted synchronous copies (gm_counter.n_memcpy_*). */
gm_status gm_device_copy_h2d(gm_device *d, void *dst, const void *src, size_t bytes);
gm_status gm_device_copy_d2h(gm_device *d, void *dst, const void *src, size_t bytes);

#endif
