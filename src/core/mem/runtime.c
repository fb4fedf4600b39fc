#include "runtime.h"

#include <stdlib.h>
#include <string.h>

#include "../model/counters.h"
#include "backends.h"
#include "spare.h"

typedef struct gm_deferred {
  void *ptr;
  int kind; /* DEFER_* below, else GM_HOST_MALLOC/GM_HOST_PINNED host release */
  size_t bytes;
  struct gm_deferred *next;
} gm_deferred;

/* ---- registry: devices live for the whole process ---- */

#define GM_MAX_DEVICES 64
enum { BACKEND_EMULATED = 0, BACKEND_CUDA = 1, N_BACKENDS };

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static gm_device *registry[N_BACKENDS][GM_MAX_DEVICES];

/* Default GC nudge: one incremental step per this many device bytes. */
#define GM_GC_STEP_BUDGET ((size_t)64 << 20)

/* The pinned pool's system: the backend's cudaHostAlloc / cudaFreeHost. */
static gm_status pinned_raw_alloc(void *arg, size_t bytes, void **out) {
  gm_device *d = arg;
  gm_status st = d->ops->host_alloc(d, bytes, out);
  if (st != GM_OK && d->ops->clear_error) d->ops->clear_error(d); /* handled: trimmed and retried */
  return st;
}

static void pinned_raw_free(void *arg, void *p, size_t bytes) {
  gm_device *d = arg;
  (void)bytes;
  d->ops->host_free(d, p);
}

static gm_status open_device(int backend, int id, gm_device **out) {
  gm_device *d = calloc(1, sizeof *d);
  if (!d) return gm_fail(GM_ENOMEM, "out of host memory");
  d->id = id;
  atomic_init(&d->refcount, 1);
  atomic_init(&d->n_queued, 0);
  pthread_mutex_init(&d->queue_lock, NULL);
  gm_pool_init(&d->pool);
  gm_hostpool_init(&d->pinned_pool, "page-locked", pinned_raw_alloc, pinned_raw_free, d);
  atomic_init(&d->n_pinned_queued, 0);
  d->gc_step_budget = GM_GC_STEP_BUDGET;
  gm_status st = backend == BACKEND_EMULATED ? gm_emulated_device_init(d) : gm_cuda_device_init(d);
  if (st == GM_OK) st = d->ops->stream_new(d, &d->copy_stream);
  if (st != GM_OK) {
    gm_hostpool_destroy(&d->pinned_pool);
    if (d->ops) d->ops->destroy(d);
    gm_pool_destroy(&d->pool, d);
    pthread_mutex_destroy(&d->queue_lock);
    free(d);
    return st;
  }
  *out = d;
  return GM_OK;
}

gm_status gm_device_get(const char *backend, int id, gm_device **out) {
  int b;
  if (strcmp(backend, "emulated") == 0)
    b = BACKEND_EMULATED;
  else if (strcmp(backend, "cuda") == 0)
    b = BACKEND_CUDA;
  else
    return gm_fail(GM_EINVAL, "unknown device backend '%s' (expected \"cuda\" or \"emulated\")", backend);
  if (id < 0 || id >= GM_MAX_DEVICES)
    return gm_fail(GM_EINVAL, "device id %d is out of range 0..%d", id, GM_MAX_DEVICES - 1);
  pthread_mutex_lock(&registry_lock);
  gm_status st = GM_OK;
  if (!registry[b][id]) st = open_device(b, id, &registry[b][id]);
  if (st == GM_OK) *out = registry[b][id];
  pthread_mutex_unlock(&registry_lock);
  return st;
}

void gm_device_ref(gm_device *d) { atomic_fetch_add(&d->refcount, 1); }
void gm_device_unref(gm_device *d) {
  if (d) atomic_fetch_sub(&d->refcount, 1);
}

void gm_device_foreach(void (*fn)(gm_device *d, void *arg), void *arg) {
  gm_device *all[N_BACKENDS * GM_MAX_DEVICES];
  size_t n = 0;
  pthread_mutex_lock(&registry_lock);
  for (int b = 0; b < N_BACKENDS; b++)
    for (int i = 0; i < GM_MAX_DEVICES; i++)
      if (registry[b][i]) all[n++] = registry[b][i];
  pthread_mutex_unlock(&registry_lock);
  for (size_t i = 0; i < n; i++) fn(all[i], arg);
}

/* ---- deferred frees ---- */

/* Nodes come from the device's spare list (taken in the same critical
 * section as the push), else from malloc; drained nodes go back to the
 * spare list, which never holds more nodes than the longest queue seen. */
static void push(gm_device *d, gm_deferred *q) {
  q->next = d->queue;
  d->queue = q;
  atomic_fetch_add(&d->n_queued, 1);
}

static void enqueue(gm_device *d, void *p, int kind, size_t bytes) {
  pthread_mutex_lock(&d->queue_lock);
  gm_deferred *q = d->spare_nodes;
  if (q) {
    d->spare_nodes = q->next;
    *q = (gm_deferred){p, kind, bytes, NULL};
    push(d, q);
  }
  pthread_mutex_unlock(&d->queue_lock);
  if (q) return;
  if (!(q = malloc(sizeof *q))) return; /* cannot queue: the block stays in use until the process ends */
  *q = (gm_deferred){p, kind, bytes, NULL};
  pthread_mutex_lock(&d->queue_lock);
  push(d, q);
  pthread_mutex_unlock(&d->queue_lock);
}

/* Deferred kinds besides host releases: a pool block, a raw (pitched)
 * block given straight back to the backend, a managed block. */
enum { DEFER_POOL = -1, DEFER_RAW = -2, DEFER_MANAGED = -3, DEFER_CALL = -4 };

/* A DEFER_CALL node's ptr: the release of foreign device memory (a DLPack
 * producer's deleter), which may free it at once. */
typedef struct deferred_call {
  void (*fn)(void *);
  void *ud;
} deferred_call;

void gm_device_defer_free(gm_device *d, void *p) { enqueue(d, p, DEFER_POOL, 0); }
void gm_device_defer_raw_free(gm_device *d, void *p) { enqueue(d, p, DEFER_RAW, 0); }
void gm_device_defer_managed_free(gm_device *d, void *p) { enqueue(d, p, DEFER_MANAGED, 0); }
void gm_device_defer_call(gm_device *d, void (*fn)(void *), void *ud) {
  deferred_call *c = malloc(sizeof *c);
  if (!c) return; /* cannot queue: the foreign memory stays in use until the process ends */
  *c = (deferred_call){fn, ud};
  enqueue(d, c, DEFER_CALL, 0);
}
void gm_device_defer_host_release(gm_device *d, void *p, int kind, size_t bytes) {
  if (kind == GM_HOST_PINNED_POOL) atomic_fetch_add(&d->n_pinned_queued, 1);
  enqueue(d, p, kind, bytes);
}

static void release_one(gm_device *d, gm_deferred *q) {
  if (q->kind == DEFER_POOL) {
    gm_pool_free(&d->pool, q->ptr);
    return;
  }
  if (q->kind == DEFER_RAW) {
    d->ops->raw_free(d, q->ptr);
    return;
  }
  if (q->kind == DEFER_CALL) {
    deferred_call *c = q->ptr;
    c->fn(c->ud);
    free(c);
    return;
  }
  if (q->kind == DEFER_MANAGED) {
    if (d->ops->managed_free) d->ops->managed_free(d, q->ptr);
    return;
  }
  atomic_fetch_sub(&d->pinned_bytes, (long)q->bytes);
  atomic_fetch_sub(&d->n_pinned_arrays, 1);
  if (q->kind == GM_HOST_PINNED) {
    d->ops->host_free(d, q->ptr);
  } else if (q->kind == GM_HOST_PINNED_POOL) {
    atomic_fetch_sub(&d->n_pinned_queued, 1);
    gm_hostpool_free(&d->pinned_pool, q->ptr, q->bytes);
  } else {
    d->ops->host_unregister(d, q->ptr);
    gm_hostpool_free(gm_host_pool(), q->ptr, q->bytes);
  }
}

/* A page-locked block going back to the pinned pool may still be the
 * source or destination of a queued copy: one wait for the device per
 * drain, before any is reused (cudaFreeHost waited for each); so may
 * foreign memory whose release a DEFER_CALL hands back to its owner. */
static void sync_for_pinned(gm_device *d, const gm_deferred *q, bool host) {
  for (; q; q = q->next)
    if ((host && q->kind == GM_HOST_PINNED_POOL) || q->kind == DEFER_CALL) {
      (void)d->ops->synchronize(d); /* a failure is the stream's error: reported by its next sync */
      return;
    }
}

/* What a drain frees: pool blocks only (no backend call at all), every
 * device block, or everything (host releases too).  The allocation path
 * leaves host releases queued: cudaFreeHost and cudaHostUnregister may
 * synchronize the device. */
enum { DRAIN_POOL, DRAIN_DEVICE, DRAIN_ALL };

static bool drains(int level, int kind) {
  return level == DRAIN_ALL || (level == DRAIN_DEVICE && kind < 0) || kind == DEFER_POOL;
}

static void drain(gm_device *d, int level) {
  bool host = level == DRAIN_ALL;
  /* the hit path: nothing queued, no lock (a free racing with this check
   * is drained by the next allocation or collect, as if it came later) */
  if (atomic_load(&d->n_queued) == 0) return;
  pthread_mutex_lock(&d->queue_lock);
  gm_deferred *q = d->queue, *keep = NULL, *done = NULL, *done_last = NULL;
  d->queue = NULL;
  atomic_store(&d->n_queued, 0);
  pthread_mutex_unlock(&d->queue_lock);
  long n_keep = 0;
  if (level != DRAIN_POOL) sync_for_pinned(d, q, host);
  while (q) {
    gm_deferred *next = q->next;
    if (drains(level, q->kind)) {
      release_one(d, q);
      q->next = done;
      if (!done) done_last = q;
      done = q;
    } else {
      q->next = keep;
      keep = q;
      n_keep++;
    }
    q = next;
  }
  if (!keep && !done) return;
  pthread_mutex_lock(&d->queue_lock);
  if (done) {
    done_last->next = d->spare_nodes;
    d->spare_nodes = done;
  }
  if (keep) {
    gm_deferred *last = keep;
    while (last->next) last = last->next;
    last->next = d->queue;
    d->queue = keep;
    atomic_fetch_add(&d->n_queued, n_keep);
  }
  pthread_mutex_unlock(&d->queue_lock);
}

void gm_device_collect(gm_device *d) { drain(d, DRAIN_ALL); }

void gm_device_reclaim_for_scratch(gm_device *d) {
  drain(d, false);
  gm_pool_trim(&d->pool, d);
}

static void collect_cb(gm_device *d, void *arg) {
  (void)arg;
  gm_device_collect(d);
  gm_pool_trim(&d->pool, d);
  gm_hostpool_trim(&d->pinned_pool);
}

static void add_live(gm_device *d, void *arg) {
  drain(d, DRAIN_POOL); /* from any thread: no backend call */
  *(size_t *)arg += gm_pool_get_stats(&d->pool).in_use + (size_t)atomic_load(&d->pinned_bytes);
}

size_t gm_mem_live_bytes(void) {
  size_t n = gm_hostpool_get_stats(gm_host_pool()).in_use;
  gm_device_foreach(add_live, &n);
  return n;
}

void gm_device_collect_all(void) {
  gm_device_foreach(collect_cb, NULL);
  gm_hostpool_trim(gm_host_pool()); /* after the collects: unregistered blocks came back to it */
  gm_spare_trim();
}

/* ---- allocation with the reclaim cascade ---- */

static _Thread_local bool in_gc_hook;
static _Thread_local int async_copies; /* gm_device_begin_async_copies depth */

static void run_gc_hook(gm_device *d, bool full, size_t bytes) {
  /* never re-enter the GC; never touch the Lua state from another thread */
  if (!d->gc_hook || in_gc_hook || !pthread_equal(d->gc_hook_thread, pthread_self())) return;
  in_gc_hook = true;
  /* finalizers run here: their copies are synchronous even when this
   * allocation serves with_syncing_cuda_facets' async copies */
  int async = async_copies;
  async_copies = 0;
  d->gc_hook(d->gc_hook_arg, full, bytes);
  async_copies = async;
  in_gc_hook = false;
}

static void nudge_gc(gm_device *d, size_t bytes) {
  d->bytes_since_step += bytes;
  if (d->bytes_since_step < d->gc_step_budget) return;
  size_t n = d->bytes_since_step;
  d->bytes_since_step = 0;
  run_gc_hook(d, false, n);
}

gm_status gm_device_alloc(gm_device *d, size_t bytes, void **out) {
  drain(d, DRAIN_DEVICE);
  gm_status st = gm_pool_alloc(&d->pool, d, bytes, out);
  if (st == GM_ECUDA_OOM) {
    gm_pool_trim(&d->pool, d);
    st = gm_pool_alloc(&d->pool, d, bytes, out);
  }
  if (st == GM_ECUDA_OOM && d->gc_hook && !in_gc_hook && pthread_equal(d->gc_hook_thread, pthread_self())) {
    run_gc_hook(d, true, 0);
    gm_device_collect(d);
    gm_pool_trim(&d->pool, d);
    st = gm_pool_alloc(&d->pool, d, bytes, out);
  }
  if (st == GM_ECUDA_OOM) atomic_fetch_add(&gm_counter.n_ooms, 1);
  if (st == GM_OK) {
    atomic_fetch_add(&gm_counter.n_bytes_allocated, (long)bytes);
    nudge_gc(d, bytes);
  }
  return st;
}

/* ---- copies ---- */

void gm_device_begin_async_copies(void) { async_copies++; }
void gm_device_end_async_copies(void) { async_copies--; }
bool gm_device_async_copies_active(void) { return async_copies > 0; }

static gm_stream *copy_stream_of(gm_device *d) { return async_copies > 0 ? d->copy_stream : NULL; }

/* An H2D copy on the copy stream writes device memory that kernels queued
 * earlier on the compute stream may still read: a pool block freed by a
 * dropped mat and reused at once, or the destination's own old contents.
 * So the copy stream waits for an event of the compute stream first
 * (write after read); the host does not wait. */
static gm_status copy_after_compute(gm_device *d, gm_stream *s) {
  if (!s || !d->ops->stream_wait) return GM_OK;
  return d->ops->stream_wait(d, s, NULL);
}

gm_status gm_device_copy_h2d(gm_device *d, void *dst, const void *src, size_t bytes) {
  atomic_fetch_add(&gm_counter.n_memcpy_host_to_device, 1);
  gm_stream *s = copy_stream_of(d);
  GM_TRY(copy_after_compute(d, s));
  return d->ops->copy_h2d(d, dst, src, bytes, s);
}

gm_status gm_device_copy_h2d_queued(gm_device *d, void *dst, const void *src, size_t bytes, bool *queued) {
  *queued = false;
  if (!d->copy_stream || !d->ops->stream_wait) return gm_device_copy_h2d(d, dst, src, bytes);
  atomic_fetch_add(&gm_counter.n_memcpy_host_to_device, 1);
  GM_TRY(copy_after_compute(d, d->copy_stream));
  GM_TRY(d->ops->copy_h2d(d, dst, src, bytes, d->copy_stream));
  *queued = true; /* even if the wait below fails, the copy is in flight */
  return d->ops->stream_wait(d, NULL, d->copy_stream);
}

gm_status gm_device_copy_d2h(gm_device *d, void *dst, const void *src, size_t bytes) {
  atomic_fetch_add(&gm_counter.n_memcpy_device_to_host, 1);
  return d->ops->copy_d2h(d, dst, src, bytes, copy_stream_of(d));
}

/* ---- device calls ---- */

void gm_device_enter(gm_device *d) {
  if (d && d->ops->enter) d->ops->enter(d);
}

void gm_device_leave(gm_device *d) {
  if (d && d->ops->leave) d->ops->leave(d);
}

gm_status gm_device_fill(gm_device *d, gm_ctype t, size_t n, double alpha, void *x) {
  const gm_backend *k = d->ops->kernels;
  if (!k || !k->fill) return gm_fail(GM_EUNSUPPORTED, "device '%s' has no fill kernel", d->ops->name);
  gm_device_enter(d);
  gm_status st = k->fill(d, t, n, alpha, x, 1);
  gm_device_leave(d);
  return st;
}

/* ---- page-locked host memory ---- */

static gm_status handled(gm_device *d, gm_status st) {
  if (st != GM_OK && d->ops->clear_error) d->ops->clear_error(d);
  return st;
}

gm_status gm_device_host_register(gm_device *d, void *p, size_t bytes) {
  GM_TRY(handled(d, d->ops->host_register(d, p, bytes)));
  atomic_fetch_add(&d->pinned_bytes, (long)bytes);
  atomic_fetch_add(&d->n_pinned_arrays, 1);
  return GM_OK;
}

void gm_device_host_unregister(gm_device *d, void *p, size_t bytes) {
  d->ops->host_unregister(d, p);
  atomic_fetch_sub(&d->pinned_bytes, (long)bytes);
  atomic_fetch_sub(&d->n_pinned_arrays, 1);
}

gm_status gm_device_host_alloc(gm_device *d, size_t bytes, void **out) {
  GM_TRY(handled(d, d->ops->host_alloc(d, bytes, out)));
  atomic_fetch_add(&d->pinned_bytes, (long)bytes);
  atomic_fetch_add(&d->n_pinned_arrays, 1);
  return GM_OK;
}

gm_status gm_device_pinned_alloc(gm_device *d, size_t bytes, void **out, size_t *size) {
  /* a cached block first; on a miss, the queued releases (one device
   * synchronization) before a cudaHostAlloc */
  if (!gm_hostpool_take(&d->pinned_pool, bytes, out, size)) {
    if (atomic_load(&d->n_pinned_queued) > 0) gm_device_collect(d);
    GM_TRY(gm_hostpool_alloc(&d->pinned_pool, bytes, out, size));
  }
  atomic_fetch_add(&d->pinned_bytes, (long)*size);
  atomic_fetch_add(&d->n_pinned_arrays, 1);
  return GM_OK;
}
