/* Blocks: allocation per memory space, the two counts, release, copies
 * across memory spaces.  See block.h. */
#include "block.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../model/counters.h"
#include "move.h"
#include "hostpool.h"
#include "spare.h"
#include "runtime.h"

static const char *const space_names[GM_N_SPACES] = {"host", "pinned", "device", "managed"};

const char *gm_space_name(gm_space s) { return (unsigned)s < GM_N_SPACES ? space_names[s] : "?"; }

static gm_status need_op(struct gm_device *dev, bool has, const char *what) {
  if (!dev) return gm_fail(GM_EINVAL, "%s memory needs an active cuda context (with_cuda)", what);
  if (!has) return gm_fail(GM_EUNSUPPORTED, "device '%s' has no %s memory", dev->ops->name, what);
  return GM_OK;
}

/* Fresh memory for b (space, device, alloc_bytes, flags, width set). */
static gm_status alloc_memory_of(gm_block *b, size_t height) {
  gm_device *d = b->device;
  switch (b->space) {
    case GM_SPACE_HOST:
      return gm_hostpool_alloc(gm_host_pool(), b->alloc_bytes, &b->ptr, &b->alloc_bytes);
    case GM_SPACE_PINNED: {
      if (b->flags == 0) return gm_device_pinned_alloc(d, b->alloc_bytes, &b->ptr, &b->alloc_bytes);
      GM_TRY(need_op(d, d->ops->host_alloc_flags != NULL, "page-locked"));
      GM_TRY(d->ops->host_alloc_flags(d, b->alloc_bytes, b->flags, &b->ptr));
      atomic_fetch_add(&d->pinned_bytes, (long)b->alloc_bytes);
      atomic_fetch_add(&d->n_pinned_arrays, 1);
      if (b->flags & GM_PINNED_MAPPED) {
        gm_status st = d->ops->host_device_pointer ? d->ops->host_device_pointer(d, b->ptr, &b->dev_ptr)
                                                   : gm_fail(GM_EUNSUPPORTED, "device cannot map host memory");
        if (st != GM_OK) {
          gm_device_defer_host_release(d, b->ptr, GM_HOST_PINNED, b->alloc_bytes);
          b->ptr = NULL;
          return st;
        }
      }
      return GM_OK;
    }
    case GM_SPACE_DEVICE:
      if (b->pitch == 0 && b->width == 0) return gm_device_alloc(d, b->bytes ? b->bytes : 1, &b->ptr);
      GM_TRY(need_op(d, d->ops->alloc_pitched != NULL, "pitched"));
      gm_device_collect(d);
      return d->ops->alloc_pitched(d, b->width, height, &b->ptr, &b->pitch);
    case GM_SPACE_MANAGED:
      GM_TRY(need_op(d, d->ops->managed_alloc != NULL, "managed"));
      GM_TRY(d->ops->managed_alloc(d, b->alloc_bytes, &b->ptr));
      b->dev_ptr = b->ptr;
      return GM_OK;
    default:
      return gm_fail(GM_EINVAL, "unknown memory space");
  }
}

/* A failed backend allocation is handled here (an error status, maybe a
 * retry by the caller): clear cudart's last error so the next launch does
 * not report it. */
static gm_status alloc_memory(gm_block *b, size_t height) {
  gm_status st = alloc_memory_of(b, height);
  if (st != GM_OK && b->device && b->device->ops->clear_error) b->device->ops->clear_error(b->device);
  return st;
}

void gm_block_free_memory(gm_space space, struct gm_device *d, void *ptr, size_t bytes, size_t pitch,
                          unsigned flags, struct gm_device *registered_on) {
  switch (space) {
    case GM_SPACE_HOST:
      if (registered_on) {
        /* unregistered, then free()d, from the queue (no device call here) */
        gm_device_defer_host_release(registered_on, ptr, GM_HOST_MALLOC, bytes);
        gm_device_unref(registered_on);
      } else {
        gm_hostpool_free(gm_host_pool(), ptr, bytes);
      }
      break;
    case GM_SPACE_PINNED: /* unflagged blocks go back to the device's pinned pool */
      gm_device_defer_host_release(d, ptr, flags ? GM_HOST_PINNED : GM_HOST_PINNED_POOL, bytes);
      break;
    case GM_SPACE_DEVICE:
      if (pitch)
        gm_device_defer_raw_free(d, ptr);
      else
        gm_device_defer_free(d, ptr);
      break;
    case GM_SPACE_MANAGED:
      gm_device_defer_managed_free(d, ptr);
      break;
    default:
      break;
  }
}

/* Block structs are recycled through this thread's spare list
 * (spare.h): an allocation that hits the pool or a cache then makes no
 * malloc/free for the struct. */
static gm_block *struct_alloc(void) { return gm_spare_calloc(GM_SPARE_BLOCK, sizeof(gm_block)); }

static void struct_free(gm_block *b) { gm_spare_free(GM_SPARE_BLOCK, b); }

static gm_status new_block(gm_space space, gm_device *dev, gm_block **out) {
  if (space != GM_SPACE_HOST && !dev)
    return gm_fail(GM_EINVAL, "%s memory needs an active cuda context (with_cuda)", gm_space_name(space));
  gm_block *b = struct_alloc();
  if (!b) return gm_fail(GM_ENOMEM, "out of host memory");
  atomic_init(&b->refcnt, 1);
  atomic_init(&b->holds, 1);
  atomic_init(&b->state, GM_BLOCK_LIVE);
  b->space = space;
  b->device = space == GM_SPACE_HOST ? NULL : dev;
  *out = b;
  return GM_OK;
}

/* Takes the memory from the current scope's cache, or allocates it and
 * records the block in the scope. */
static gm_status fill_block(gm_block *b, size_t height) {
  gm_cache_scope *s = gm_cache_scope_current();
  if (!(s && gm_cache_take(s, b))) {
    gm_status st = alloc_memory(b, height);
    if (st != GM_OK) {
      if (s) gm_block_keep(b); /* out of the scope before the struct goes */
      return st;
    }
  }
  if (b->device) gm_device_ref(b->device);
  return GM_OK;
}

gm_status gm_block_alloc(gm_space space, gm_device *dev, size_t bytes, unsigned flags, gm_block **out) {
  if (bytes > SIZE_MAX / 2) return gm_fail(GM_ERANGE, "block of %zu bytes is too large", bytes);
  gm_block *b = NULL; /* (set by new_block on success; -O3 cannot see it) */
  GM_TRY(new_block(space, dev, &b));
  b->bytes = bytes;
  b->flags = space == GM_SPACE_PINNED ? flags : 0;
  size_t n = bytes ? bytes : 1;
  bool pooled = space == GM_SPACE_HOST || (space == GM_SPACE_PINNED && b->flags == 0);
  b->alloc_bytes = pooled ? gm_hostpool_round(n) : space == GM_SPACE_DEVICE ? gm_pool_round(n) : n;
  gm_status st = fill_block(b, 1);
  if (st != GM_OK) {
    struct_free(b);
    return st;
  }
  *out = b;
  return GM_OK;
}

gm_status gm_block_alloc_pitched(gm_device *dev, size_t width, size_t height, gm_block **out) {
  if (width == 0 || height == 0) return gm_fail(GM_EINVAL, "a pitched block needs rows of at least one byte");
  if (height > SIZE_MAX / 2 / width) return gm_fail(GM_ERANGE, "pitched block is too large");
  gm_block *b = NULL;
  GM_TRY(new_block(GM_SPACE_DEVICE, dev, &b));
  b->width = width;
  b->bytes = width * height;
  b->alloc_bytes = width * height;
  gm_status st = fill_block(b, height);
  if (st != GM_OK) {
    struct_free(b);
    return st;
  }
  *out = b;
  return GM_OK;
}

gm_status gm_block_wrap_in(gm_space space, struct gm_device *dev, void *ptr, size_t bytes, void (*release_fn)(void *),
                           void *ud, gm_block **out) {
  if (!ptr) return gm_fail(GM_EINVAL, "cannot wrap a NULL pointer");
  gm_block *b = NULL;
  GM_TRY(new_block(space, dev, &b));
  if (b->device) gm_device_ref(b->device); /* release() drops it */
  b->ptr = ptr;
  /* managed memory is one address on host and device: a facet that uses
   * it in place reads dev_ptr (NULL there was the first H200 run's illegal
   * address, a DLPack import of kDLCUDAManaged memory scaled on the device) */
  if (space == GM_SPACE_MANAGED) b->dev_ptr = ptr;
  b->bytes = b->alloc_bytes = bytes;
  b->wrapped = true;
  b->wrap_release = release_fn;
  b->wrap_ud = ud;
  *out = b;
  return GM_OK;
}

gm_status gm_block_wrap(void *ptr, size_t bytes, void (*release_fn)(void *), void *ud, gm_block **out) {
  return gm_block_wrap_in(GM_SPACE_HOST, NULL, ptr, bytes, release_fn, ud, out);
}

void gm_block_hold(gm_block *b) { atomic_fetch_add(&b->holds, 1); }

static void release(gm_block *b, int why) {
  int live = GM_BLOCK_LIVE;
  if (!atomic_compare_exchange_strong(&b->state, &live, why)) return;
  if (b->wrapped) { /* the application's memory: hand it back */
    /* device or managed memory only once the device's queued work that
     * may use it has run: through its deferred queue */
    if (b->wrap_release && b->device) gm_device_defer_call(b->device, b->wrap_release, b->wrap_ud);
    else if (b->wrap_release) b->wrap_release(b->wrap_ud);
  } else if (!gm_cache_give(b))
    gm_block_free_memory(b->space, b->device, b->ptr, b->alloc_bytes, b->pitch, b->flags, b->registered_on);
  b->registered_on = NULL;
  if (b->device) gm_device_unref(b->device);
}

void gm_block_drop(gm_block *b) {
  if (!b || atomic_fetch_sub(&b->holds, 1) != 1) return;
  release(b, GM_BLOCK_RELEASED);
  struct_free(b);
}

gm_status gm_block_ref(gm_block *b) {
  GM_TRY(gm_block_check(b, "ref_buffer"));
  atomic_fetch_add(&b->refcnt, 1);
  return GM_OK;
}

long gm_block_deref(gm_block *b) {
  long n = atomic_load(&b->refcnt);
  while (n > 0 && !atomic_compare_exchange_weak(&b->refcnt, &n, n - 1)) {
  }
  if (n <= 0) return 0;
  if (n == 1) release(b, GM_BLOCK_RELEASED);
  return n - 1;
}

gm_status gm_block_check(const gm_block *b, const char *what) {
  int s = atomic_load(&b->state);
  if (s == GM_BLOCK_LIVE) return GM_OK;
  const char *why = s == GM_BLOCK_REVOKED ? "memory returned to an alloc cache" : "buffer released";
  return what ? gm_fail(GM_ESTATE, "%s: %s", what, why) : gm_fail(GM_ESTATE, "%s", why);
}

/* Moves a sub-page block's memory into a page of its own (N18). */
static gm_status own_page(gm_block *b) {
  void *p;
  size_t size;
  GM_TRY(gm_hostpool_alloc(gm_host_pool(), GM_HOSTPOOL_PAGE, &p, &size));
  memcpy(p, b->ptr, b->bytes);
  gm_hostpool_free(gm_host_pool(), b->ptr, b->alloc_bytes);
  b->ptr = p;
  b->alloc_bytes = size;
  return GM_OK;
}

gm_status gm_block_register(gm_block *b, gm_device *dev, bool movable) {
  if (b->space != GM_SPACE_HOST || b->registered_on) return GM_OK;
  /* unregistering before the application's release would need a device
   * call at release time, which may be inside a Lua finalizer */
  if (b->wrapped)
    return gm_fail(GM_EUNSUPPORTED, "application memory (gm_mat_wrap) cannot be page-locked (facet 'cuda_host')");
  bool shares_page = b->alloc_bytes % GM_HOSTPOOL_PAGE != 0 || (uintptr_t)b->ptr % GM_HOSTPOOL_PAGE != 0;
  bool alone = atomic_load(&b->holds) == 1 && atomic_load(&b->refcnt) == 1 && !atomic_load(&b->in_scope);
  if (shares_page && movable && alone) GM_TRY(own_page(b));
  GM_TRY(gm_device_host_register(dev, b->ptr, b->alloc_bytes));
  gm_device_ref(dev);
  b->registered_on = dev;
  gm_block_keep(b); /* page-locked memory never goes to an alloc cache */
  return GM_OK;
}

void gm_block_unregister(gm_block *b) {
  gm_device *d = b->registered_on;
  if (!d) return;
  gm_device_host_unregister(d, b->ptr, b->alloc_bytes);
  b->registered_on = NULL;
  gm_device_unref(d);
}

size_t gm_block_phys(const gm_block *b, size_t off) {
  return b->pitch ? off / b->width * b->pitch + off % b->width : off;
}

bool gm_block_host_accessible(const gm_block *b) { return b->space != GM_SPACE_DEVICE; }

/* Memory the device uses in place (managed, mapped page-locked): queued
 * kernels may still read or write it, so the host waits for the device. */
gm_status gm_block_host_sync(const gm_block *b) {
  bool in_place = b->space == GM_SPACE_MANAGED || (b->space == GM_SPACE_PINNED && (b->flags & GM_PINNED_MAPPED));
  if (!in_place || !b->device) return GM_OK;
  return b->device->ops->synchronize(b->device);
}

/* ---- copies ---- */

static size_t run_of(const gm_copy_end *e) {
  if (!e->b || !e->b->pitch) return SIZE_MAX;
  return e->b->width - e->off % e->b->width;
}

static char *addr(const gm_copy_end *e) {
  return e->b ? (char *)e->b->ptr + gm_block_phys(e->b, e->off) : (char *)e->host + e->off;
}

static bool on_device(const gm_copy_end *e) { return e->b && e->b->space == GM_SPACE_DEVICE; }

/* height rows of width bytes; through the device when either side is
 * device or managed memory (counted), else gm_move_bytes. */
static gm_status copy_rows(gm_device *dev, bool d_dst, bool d_src, char *dst, size_t dpitch, const char *src,
                           size_t spitch, size_t width, size_t height) {
  if (dev && (d_dst || d_src)) {
    if (!dev->ops->copy_2d) return gm_fail(GM_EUNSUPPORTED, "device '%s' cannot copy 2-d", dev->ops->name);
    if (d_src && !d_dst) atomic_fetch_add(&gm_counter.n_memcpy_device_to_host, 1);
    if (d_dst && !d_src) atomic_fetch_add(&gm_counter.n_memcpy_host_to_device, 1);
    return dev->ops->copy_2d(dev, dst, dpitch, src, spitch, width, height);
  }
  for (size_t r = 0; r < height; r++) gm_move_bytes(dst + r * dpitch, src + r * spitch, width);
  return GM_OK;
}

gm_status gm_block_copy(gm_copy_end dst, gm_copy_end src, size_t n) {
  if (n == 0) return GM_OK;
  if (dst.b) GM_TRY(gm_block_check(dst.b, "copy"));
  if (src.b) GM_TRY(gm_block_check(src.b, "copy"));
  if (dst.b && dst.b == src.b && dst.off < src.off + n && src.off < dst.off + n)
    return gm_fail(GM_EINVAL, "source and destination areas overlap");
  if (dst.b) GM_TRY(gm_block_host_sync(dst.b));
  if (src.b) GM_TRY(gm_block_host_sync(src.b));
  gm_device *dd = on_device(&dst) ? dst.b->device : NULL, *sd = on_device(&src) ? src.b->device : NULL;
  if (dd && sd && dd != sd) return gm_fail(GM_EUNSUPPORTED, "copies between two devices are not supported");
  gm_device *dev = dd ? dd : sd;
  bool d_dst = dd != NULL, d_src = sd != NULL;
  /* whole rows of one width: one 2-d copy (cudaMemcpy2D) */
  size_t w = dst.b && dst.b->pitch ? dst.b->width : src.b && src.b->pitch ? src.b->width : 0;
  if (w && n % w == 0) {
    bool dok = !(dst.b && dst.b->pitch) || (dst.b->width == w && dst.off % w == 0);
    bool sok = !(src.b && src.b->pitch) || (src.b->width == w && src.off % w == 0);
    if (dok && sok) {
      size_t dp = dst.b && dst.b->pitch ? dst.b->pitch : w, sp = src.b && src.b->pitch ? src.b->pitch : w;
      return copy_rows(dev, d_dst, d_src, addr(&dst), dp, addr(&src), sp, w, n / w);
    }
  }
  while (n > 0) {
    size_t r = n, a = run_of(&dst), b = run_of(&src);
    if (a < r) r = a;
    if (b < r) r = b;
    GM_TRY(copy_rows(dev, d_dst, d_src, addr(&dst), r, addr(&src), r, r, 1));
    dst.off += r;
    src.off += r;
    n -= r;
  }
  return GM_OK;
}
