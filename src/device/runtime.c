#include "runtime.h"

#include <stdlib.h>
#include <string.h>

#include "../core/counters.h"
#include "../core/vec.h"
#include "backends.h"

typedef struct gm_deferred {
  void *ptr;
  int kind; /* -1 device block, else GM_HOST_MALLOC/GM_HOST_PINNED host release */
  struct gm_deferred *next;
} gm_deferred;


gm_status gm_device_open(const char *backend, int id, gm_device **out) {
  gm_device *d = calloc(1, sizeof *d);
  if (!d) return gm_fail(GM_ENOMEM, "out of host memory");
  d->id = id;
  atomic_init(&d->refcount, 1);
  pthread_mutex_init(&d->queue_lock, NULL);
  gm_pool_init(&d->pool);
  gm_status st;
  if (strcmp(backend, "emulated") == 0)
    st = gm_emulated_device_init(d);
  else if (strcmp(backend, "cuda") == 0)
    st = gm_cuda_device_init(d);
  else
    st = gm_fail(GM_EINVAL, "unknown device backend '%s' (expected \"cuda\" or \"emulated\")", backend);
  if (st != GM_OK) {
    gm_pool_destroy(&d->pool, d);
    pthread_mutex_destroy(&d->queue_lock);
    free(d);
    return st;
  }
  *out = d;
  return GM_OK;
}

void gm_device_ref(gm_device *d) { atomic_fetch_add(&d->refcount, 1); }

void gm_device_unref(gm_device *d) {
  if (!d || atomic_fetch_sub(&d->refcount, 1) != 1) return;
  gm_device_collect(d);
  gm_pool_destroy(&d->pool, d);
  pthread_mutex_destroy(&d->queue_lock);
  d->ops->destroy(d);
  free(d);
}

static void enqueue(gm_device *d, void *p, int kind) {
  gm_deferred *q = malloc(sizeof *q);
  if (!q) return; /* cannot queue: the block stays cached until teardown */
  q->ptr = p;
  q->kind = kind;
  pthread_mutex_lock(&d->queue_lock);
  q->next = d->queue;
  d->queue = q;
  pthread_mutex_unlock(&d->queue_lock);
}

void gm_device_defer_free(gm_device *d, void *p) { enqueue(d, p, -1); }
void gm_device_defer_host_release(gm_device *d, void *p, int kind) { enqueue(d, p, kind); }

void gm_device_collect(gm_device *d) {
  pthread_mutex_lock(&d->queue_lock);
  gm_deferred *q = d->queue;
  d->queue = NULL;
  pthread_mutex_unlock(&d->queue_lock);
  while (q) {
    gm_deferred *next = q->next;
    if (q->kind < 0) {
      gm_pool_free(&d->pool, d, q->ptr);
    } else if (q->kind == GM_HOST_PINNED) {
      d->ops->host_free(d, q->ptr);
    } else {
      d->ops->host_unregister(d, q->ptr);
      free(q->ptr);
    }
    free(q);
    q = next;
  }
}

gm_status gm_device_alloc(gm_device *d, size_t bytes, void **out) {
  gm_device_collect(d);
  gm_status st = gm_pool_alloc(&d->pool, d, bytes, out);
  if (st != GM_ECUDA_OOM) return st;
  gm_pool_trim(&d->pool, d);
  if ((st = gm_pool_alloc(&d->pool, d, bytes, out)) != GM_ECUDA_OOM) return st;
  if (d->gc_hook) {
    d->gc_hook(d->gc_hook_arg);
    gm_device_collect(d);
    gm_pool_trim(&d->pool, d);
    if ((st = gm_pool_alloc(&d->pool, d, bytes, out)) != GM_ECUDA_OOM) return st;
  }
  atomic_fetch_add(&gm_counter.n_ooms, 1);
  return st;
}

gm_status gm_device_copy_h2d(gm_device *d, void *dst, const void *src, size_t bytes) {
  atomic_fetch_add(&gm_counter.n_memcpy_host_to_device, 1);
  return d->ops->copy_h2d(d, dst, src, bytes, NULL);
}

gm_status gm_device_copy_d2h(gm_device *d, void *dst, const void *src, size_t bytes) {
  atomic_fetch_add(&gm_counter.n_memcpy_device_to_host, 1);
  return d->ops->copy_d2h(d, dst, src, bytes, NULL);
}
