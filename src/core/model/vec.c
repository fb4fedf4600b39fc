/* Storage and facet bookkeeping: the default CALL-WITH-FACET* of the cube
 * manual (watch/unwatch), lazy creation, up-to-date tracking, copies. */
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "direct.h"
#include "../mem/block.h"
#include "../mem/spare.h"
#include "../mem/runtime.h"
#include "barrier.h"
#include "counters.h"

_Atomic bool gm_let_input_through = false;
_Atomic bool gm_let_output_through = false;
_Atomic bool gm_maybe_synchronize = true;
gm_counter_set gm_counter;

static const char *const facet_names[GM_N_FACETS] = {"foreign", "cuda_host", "cuda", "managed"};
static const char *const direction_names[] = {"input", "output", "io"};

const char *gm_facet_name_str(gm_facet_name f) { return facet_names[f]; }

int gm_facet_parse(const char *s, gm_facet_name *out) {
  for (int i = 0; i < GM_N_FACETS; i++)
    if (strcmp(s, facet_names[i]) == 0) {
      *out = (gm_facet_name)i;
      return 0;
    }
  return -1;
}

const char *gm_direction_str(gm_direction d) { return direction_names[d]; }

int gm_direction_parse(const char *s, gm_direction *out) {
  for (int i = 0; i < 3; i++)
    if (strcmp(s, direction_names[i]) == 0) {
      *out = (gm_direction)i;
      return 0;
    }
  return -1;
}

static bool is_host_facet(gm_facet_name f) {
  return f == GM_FACET_FOREIGN || f == GM_FACET_CUDA_HOST;
}

/* Facets that are the host storage itself and so share host_up_to_date:
 * the host facets, the managed facet (over managed memory) and the CUDA
 * facet of a mapped staging vec. */
static bool shares_host(const gm_vec *v, gm_facet_name f) {
  return is_host_facet(f) || f == GM_FACET_MANAGED || (f == GM_FACET_CUDA && v->staging_mapped);
}

static _Atomic unsigned long long gen_source;

/* A process-wide unique generation for v, returned. */
static unsigned long long new_generation(gm_vec *v) {
  unsigned long long g = atomic_fetch_add(&gen_source, 1) + 1;
  atomic_store(&v->gen, g);
  return g;
}

/* Every metadata access ends the current direct-access certificate
 * (core/model/direct.h): a new generation first, so no direct access starts
 * under the old one; then, if the certificate belongs to another thread,
 * wait until that thread is not inside a direct access of v.  Its
 * announcement (slot->vec) is a plain store, made visible here by
 * membarrier (an asymmetric fence): the thread either announced before
 * the barrier, and the wait sees it, or reads the new generation after
 * it.  A direct access makes no call, so the wait is nanoseconds.  The
 * owning thread itself cannot be inside one while it runs this.  Without
 * a slot there is no certificate to end (a direct access needs v's slot
 * to be its own, and a certificate is only issued with the slot set, at
 * a generation of its own, gm_vec_direct_open), so the common case, an
 * op's watch of a vec nobody reads element by element, makes no atomic
 * read-modify-write on the shared generation counter. */
static void invalidate_direct(gm_vec *v) {
  gm_direct_slot *s = atomic_load_explicit(&v->direct_slot, memory_order_relaxed);
  if (!s) return;
  new_generation(v);
  atomic_store_explicit(&v->direct_slot, NULL, memory_order_relaxed);
  if (pthread_equal(s->owner, pthread_self())) return;
  gm_direct_barrier();
  while (atomic_load_explicit(&s->vec, memory_order_acquire) == v) {
  }
}

/* Returns whether the lock was taken, so unlock matches even if the
 * global maybe-flag changes in between. */
/* Inline: every watch and unwatch takes it (GCC kept it a call). */
/* Whether v's metadata accesses take its lock (its synchronization). */
static inline __attribute__((always_inline)) bool sync_wanted(const gm_vec *v) {
  return v->synchronization == GM_SYNC_TRUE || (v->synchronization == GM_SYNC_MAYBE && gm_maybe_synchronize);
}

static inline __attribute__((always_inline)) bool vlock(gm_vec *v) {
  bool take = sync_wanted(v);
  if (take) gm_lock_acquire(&v->lock);
  invalidate_direct(v);
  return take;
}

static inline __attribute__((always_inline)) void vunlock(gm_vec *v, bool taken) {
  if (taken) gm_lock_release(&v->lock);
}

static size_t vec_bytes(const gm_vec *v) { return v->max_size * gm_ctype_size(v->ctype); }

gm_status gm_vec_new(gm_ctype ctype, size_t max_size, bool has_initial_element,
                     double initial_element, gm_sync sync, gm_vec **out) {
  if (max_size > SIZE_MAX / 16)
    return gm_fail(GM_ERANGE, "max_size %zu is too large", max_size);
  gm_vec *v = gm_spare_calloc(GM_SPARE_VEC, sizeof *v);
  if (!v) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  atomic_init(&v->refcount, 1);
  v->ctype = ctype;
  v->max_size = max_size;
  v->has_initial_element = has_initial_element;
  v->initial_element = initial_element;
  v->synchronization = sync;
  gm_lock_init(&v->lock);
  v->scope = gm_cache_scope_current();
  if (v->scope) gm_cache_scope_ref(v->scope);
  atomic_fetch_add(&gm_counter.n_mats_created, 1);
  atomic_fetch_add(&gm_counter.n_mat_bytes_created, (long)vec_bytes(v));
  *out = v;
  return GM_OK;
}

gm_status gm_vec_wrap_block(gm_ctype ctype, size_t max_size, struct gm_block *b, gm_vec **out) {
  gm_vec *v = NULL;
  gm_status st = gm_vec_new(ctype, max_size, false, 0, GM_SYNC_MAYBE, &v);
  if (st == GM_OK) st = gm_vec_adopt_block(v, b);
  if (st != GM_OK) {
    gm_vec_unref(v);
    return st;
  }
  gm_vec_keep(v); /* application memory never belongs to an alloc-cache scope */
  gm_block_deref(b); /* the vec's refcnt and hold remain */
  gm_block_drop(b);
  *out = v;
  return GM_OK;
}

gm_status gm_vec_wrap(gm_ctype ctype, size_t max_size, void *host, void (*release)(void *), void *ud,
                      gm_vec **out) {
  gm_block *b = NULL;
  GM_TRY(gm_block_wrap(host, max_size * gm_ctype_size(ctype), release, ud, &b));
  gm_status st = gm_vec_wrap_block(ctype, max_size, b, out);
  if (st != GM_OK) {
    b->wrap_release = NULL; /* the memory stays the caller's */
    gm_block_deref(b);
    gm_block_drop(b);
  }
  return st;
}

void gm_vec_ref(gm_vec *v) { atomic_fetch_add(&v->refcount, 1); }

/* Drops the vec's refcnt and hold of a block: the memory goes at once
 * unless a buffer still counts on it (mat_from_buffer, ensure). */
static void drop_block(gm_block *b) {
  gm_block_deref(b);
  gm_block_drop(b);
}

/* Waits for copies of v still on a copy stream, unless they are on
 * `except`'s (which orders them itself).  Storage a copy reads or writes
 * must not be touched or released before. */
static gm_status settle_copies(gm_vec *v, gm_device *except) {
  gm_device *d = v->copy_pending;
  if (!d || d == except) return GM_OK;
  GM_TRY(d->ops->stream_sync(d, d->copy_stream));
  v->copy_pending = NULL;
  return GM_OK;
}

/* Waits for device work that used the host storage in place (mapped or
 * managed memory): an op returns once queued, so the host must not read
 * or write that memory before the compute stream has run it. */
static gm_status settle_device(gm_vec *v) {
  gm_device *d = v->device_pending;
  if (!d) return GM_OK;
  if (v->pending_has_event) {
    GM_TRY(d->ops->event_sync(d, v->pending_event));
    d->ops->event_free(d, v->pending_event);
  } else {
    GM_TRY(d->ops->stream_sync(d, NULL));
  }
  v->device_pending = NULL;
  v->pending_has_event = false;
  return GM_OK;
}

/* Device work just queued on d uses the host storage in place: an event
 * after it (or, without events, the whole stream) is what the host will
 * wait for.  An older event goes: the stream runs in order, so the new
 * one covers it. */
static void note_device_work(gm_vec *v, gm_device *d) {
  if (v->device_pending && v->pending_has_event)
    v->device_pending->ops->event_free(v->device_pending, v->pending_event);
  void *ev = NULL;
  v->pending_has_event = d->ops->event_record && d->ops->event_record(d, &ev) == GM_OK;
  v->pending_event = ev;
  v->device_pending = d;
}

static void release_host(gm_vec *v) {
  if (!v->host_blk) return;
  (void)settle_copies(v, NULL); /* a failure is sticky: the next call reports it */
  (void)settle_device(v);
  atomic_fetch_sub(&gm_counter.host_bytes_in_use, (long)vec_bytes(v));
  atomic_fetch_sub(&gm_counter.n_host_arrays, 1);
  if (v->host_blk->registered_on) atomic_fetch_sub(&gm_counter.n_host_registrations, 1);
  drop_block(v->host_blk);
  v->host_blk = NULL;
  v->host = NULL;
}

static void release_device(gm_vec *v) {
  gm_facet *F = &v->facets[GM_FACET_CUDA];
  if (!F->ptr) return;
  (void)settle_copies(v, NULL);
  if (v->dev_blk) drop_block(v->dev_blk); /* a mapped facet has none: host_blk is its memory */
  v->dev_blk = NULL;
  gm_device_unref(F->device);
  F->ptr = NULL;
  F->device = NULL;
}

struct gm_vec_weak {
  atomic_long refcount;
  pthread_mutex_t lock;
  gm_vec *vec; /* NULL once the vec's storage is released */
};

static pthread_mutex_t weak_create_lock = PTHREAD_MUTEX_INITIALIZER;

gm_vec_weak *gm_vec_weak_get(gm_vec *v) {
  pthread_mutex_lock(&weak_create_lock);
  gm_vec_weak *w = v->weak;
  if (!w && (w = calloc(1, sizeof *w)) != NULL) {
    atomic_init(&w->refcount, 1); /* the vec's own reference */
    pthread_mutex_init(&w->lock, NULL);
    w->vec = v;
    v->weak = w;
  }
  if (w) atomic_fetch_add(&w->refcount, 1);
  pthread_mutex_unlock(&weak_create_lock);
  return w;
}

gm_vec *gm_vec_weak_lock(gm_vec_weak *w) {
  pthread_mutex_lock(&w->lock);
  gm_vec *v = w->vec;
  if (v) {
    long n = atomic_load(&v->refcount);
    while (n > 0 && !atomic_compare_exchange_weak(&v->refcount, &n, n + 1)) {
    }
    if (n <= 0) v = NULL; /* dying: its release is under way */
  }
  pthread_mutex_unlock(&w->lock);
  return v;
}

void gm_vec_weak_unref(gm_vec_weak *w) {
  if (!w || atomic_fetch_sub(&w->refcount, 1) != 1) return;
  pthread_mutex_destroy(&w->lock);
  free(w);
}

static void clear_weak(gm_vec *v) {
  gm_vec_weak *w = v->weak;
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->vec = NULL;
  pthread_mutex_unlock(&w->lock);
  gm_vec_weak_unref(w);
}

void gm_vec_unref(gm_vec *v) {
  if (!v) return;
  if (atomic_fetch_sub(&v->refcount, 1) != 1) return;
  clear_weak(v);
  release_device(v);
  release_host(v);
  gm_cache_scope_unref(v->scope);
  if (v->staging_dev) gm_device_unref(v->staging_dev);
  gm_lock_destroy(&v->lock);
  gm_spare_free(GM_SPARE_VEC, v);
}

static bool facet_up_to_date(const gm_vec *v, gm_facet_name f) {
  if (!v->facets[f].exists) return false;
  return shares_host(v, f) ? v->host_up_to_date : v->facets[f].up_to_date;
}

static void set_up_to_date(gm_vec *v, gm_facet_name f, bool b) {
  if (shares_host(v, f))
    v->host_up_to_date = b;
  else
    v->facets[f].up_to_date = b;
}

/* A write's effect on the facets: f (and whatever shares its storage)
 * becomes the only up-to-date copy. */
static void written_through(gm_vec *v, gm_facet_name f) {
  for (int g = 0; g < GM_N_FACETS; g++) set_up_to_date(v, (gm_facet_name)g, false);
  set_up_to_date(v, f, true);
}

static bool any_facet_exists(const gm_vec *v) {
  for (int i = 0; i < GM_N_FACETS; i++)
    if (v->facets[i].exists) return true;
  return false;
}

/* Copies the storage into facet `to` from an up-to-date facet of the other
 * memory space.  Host facets share storage, so only host<->device copies
 * exist. */
static gm_status refresh(gm_vec *v, gm_facet_name to) {
  size_t bytes = vec_bytes(v);
  gm_facet *D = &v->facets[GM_FACET_CUDA];
  if (is_host_facet(to)) {
    if (!facet_up_to_date(v, GM_FACET_CUDA)) return GM_OK; /* nothing newer */
    GM_TRY(gm_device_copy_d2h(D->device, v->host, D->ptr, bytes));
  } else {
    bool host_ok = facet_up_to_date(v, GM_FACET_FOREIGN) || facet_up_to_date(v, GM_FACET_CUDA_HOST);
    if (!host_ok) return GM_OK;
    bool page_locked = v->host_blk && (v->host_blk->space == GM_SPACE_PINNED || v->host_blk->registered_on);
    if (page_locked && !gm_device_async_copies_active()) {
      /* the DMA reads page-locked memory after the call
       * returns, which used to mean a sync of the whole compute stream
       * (every kernel queued before).  Queued on the copy stream instead,
       * the compute stream waiting for it; the host waits for the copy
       * alone, and only when it touches this storage (wait_copies). */
      GM_TRY(settle_copies(v, D->device));
      bool queued;
      gm_status st = gm_device_copy_h2d_queued(D->device, D->ptr, v->host, bytes, &queued);
      if (queued) v->copy_pending = D->device;
      GM_TRY(st);
      set_up_to_date(v, to, true);
      return GM_OK;
    }
    GM_TRY(gm_device_copy_h2d(D->device, D->ptr, v->host, bytes));
  }
  /* queued on the copy stream: host code must wait for it */
  if (gm_device_async_copies_active()) v->copy_pending = D->device;
  set_up_to_date(v, to, true);
  return GM_OK;
}

/* A host access waits for the vec's copies on a copy stream (the host
 * buffer is their source or destination); device work is ordered after
 * them by the compute stream's wait (with_syncing_cuda_facets). */
static gm_status wait_copies(gm_vec *v, gm_facet_name f) {
  if (!is_host_facet(f) || gm_device_async_copies_active()) return GM_OK;
  return settle_copies(v, NULL);
}

/* Host storage is one block (block.c: large blocks 2 MiB aligned with
 * transparent huge pages); page-locked from birth for a staging vec or
 * under the cuda_host strategy. */
static gm_status alloc_host(gm_vec *v, bool pinned, gm_device *dev) {
  gm_space sp = GM_SPACE_HOST;
  unsigned flags = 0;
  if (v->staging_dev) {
    sp = GM_SPACE_PINNED;
    dev = v->staging_dev;
    flags = v->staging_mapped ? GM_PINNED_MAPPED | GM_PINNED_PORTABLE : 0;
  } else if (pinned) {
    sp = GM_SPACE_PINNED;
  }
  GM_TRY(gm_block_alloc(sp, dev, vec_bytes(v), flags, &v->host_blk));
  v->host = v->host_blk->ptr;
  atomic_fetch_add(&gm_counter.host_bytes_in_use, (long)vec_bytes(v));
  atomic_fetch_add(&gm_counter.n_host_arrays, 1);
  return GM_OK;
}

/* The initial element everywhere: memset for +0 (all-zero bits in every
 * ctype), else one element and then doubling copies, at memcpy's speed in
 * every ctype (an element at a time through gm_ctype_set took 10
 * instructions per element: gm.zeros of 1M elements, 3 ms). */
static void fill_host(gm_vec *v) {
  size_t n = v->max_size, es = gm_ctype_size(v->ctype);
  if (n == 0) return;
  if (v->initial_element == 0 && !signbit(v->initial_element)) {
    memset(v->host, 0, n * es);
    return;
  }
  gm_ctype_set(v->ctype, v->host, 0, v->initial_element);
  char *p = v->host;
  for (size_t done = 1; done < n;) {
    size_t k = done < n - done ? done : n - done;
    memcpy(p + done * es, p, k * es);
    done += k;
  }
}

_Atomic bool gm_cuda_host_strategy = false;

/* *block: device memory for a new CUDA facet, allocated by the caller
 * before it took the vec lock (see gm_vec_watch); consumed here (set to
 * NULL) when the facet is created. */
static gm_status create_host(gm_vec *v, bool first, bool fill, bool pinned, gm_device *dev) {
  if (v->host) return GM_OK;
  GM_TRY(alloc_host(v, pinned, dev));
  if (fill) fill_host(v);
  v->host_up_to_date = first;
  if (v->staging_dev) v->facets[GM_FACET_FOREIGN].exists = v->facets[GM_FACET_CUDA_HOST].exists = true;
  return GM_OK;
}

static bool mapped_on(const gm_vec *v, gm_device *dev) { return v->staging_mapped && dev == v->staging_dev; }

/* The managed facet: the vec's storage moves into one managed block
 * (cudaMallocManaged) that host, managed and cuda facets then share in
 * place (like a mapped staging vec).  The host data, if any, is copied
 * over once (host memory to host-accessible memory: no device copy). */
static gm_status make_managed(gm_vec *v, bool first, bool fill, gm_device *dev) {
  if (!dev) return gm_fail(GM_EINVAL, "facet 'managed' needs an active cuda context (with_cuda)");
  if (v->dev_blk || (v->staging_dev && v->staging_dev != dev))
    return gm_fail(GM_ESTATE, "facet 'managed' cannot be made while the mat has memory on a device; destroy it first");
  for (int g = 0; g < GM_N_FACETS; g++)
    if (v->facets[g].n_watchers > 0 || v->facets[g].n_references > 0)
      return gm_fail(GM_ESTATE, "facet 'managed' cannot be made while facet '%s' is being accessed or referenced",
                     facet_names[g]);
  gm_block *b;
  GM_TRY(gm_block_alloc(GM_SPACE_MANAGED, dev, vec_bytes(v), 0, &b));
  gm_status st = gm_block_host_sync(b);
  if (st != GM_OK) {
    drop_block(b);
    return st;
  }
  if (v->host && v->host_up_to_date) {
    memcpy(b->ptr, v->host, vec_bytes(v));
  } else if (fill) {
    for (size_t i = 0; i < v->max_size; i++) gm_ctype_set(v->ctype, b->ptr, i, v->initial_element);
  }
  bool had_host = v->host != NULL, up = had_host ? v->host_up_to_date : first;
  if (v->facets[GM_FACET_CUDA].exists) { /* a mapped cuda facet of the old storage */
    release_device(v);
    memset(&v->facets[GM_FACET_CUDA], 0, sizeof v->facets[GM_FACET_CUDA]);
  }
  release_host(v);
  v->host_blk = b;
  v->host = b->ptr;
  v->host_up_to_date = up;
  atomic_fetch_add(&gm_counter.host_bytes_in_use, (long)vec_bytes(v));
  atomic_fetch_add(&gm_counter.n_host_arrays, 1);
  if (!v->staging_dev) {
    gm_device_ref(dev);
    v->staging_dev = dev;
  }
  v->staging_mapped = true;
  v->facets[GM_FACET_FOREIGN].exists = true;
  return GM_OK;
}

/* Nobody holds a pointer into the host storage (no host-side facet is
 * watched or referenced): it may move. */
static bool host_unwatched(const gm_vec *v) {
  for (int g = 0; g < GM_N_FACETS; g++)
    if (g != GM_FACET_CUDA && (v->facets[g].n_watchers > 0 || v->facets[g].n_references > 0)) return false;
  return true;
}

static gm_status create_facet(gm_vec *v, gm_facet_name f, gm_direction dir, gm_device *dev, gm_block **block) {
  bool first = !any_facet_exists(v);
  bool fill = first && v->has_initial_element && dir != GM_OUTPUT;
  if (f == GM_FACET_MANAGED) {
    GM_TRY(make_managed(v, first, fill, dev));
  } else if (f == GM_FACET_CUDA && mapped_on(v, dev)) {
    /* the device works in place on the mapped host block */
    GM_TRY(create_host(v, first, fill, false, dev));
    gm_device_ref(dev);
    v->facets[f].ptr = v->host_blk->dev_ptr;
    v->facets[f].device = dev;
  } else if (f == GM_FACET_CUDA) {
    if (!dev) return gm_fail(GM_EINVAL, "facet 'cuda' needs an active cuda context (with_cuda)");
    if (!*block) return gm_fail(GM_ESTATE, "internal error: cuda facet created without its device block");
    gm_block *b = *block;
    void *p = b->ptr;
    *block = NULL;
    if (fill) {
      gm_status st = gm_device_fill(dev, v->ctype, v->max_size, v->initial_element, p);
      if (st != GM_OK) {
        drop_block(b);
        return st;
      }
    }
    gm_device_ref(dev);
    v->dev_blk = b;
    v->facets[f].ptr = p;
    v->facets[f].device = dev;
    v->facets[f].up_to_date = first;
  } else {
    if (f == GM_FACET_CUDA_HOST && !dev)
      return gm_fail(GM_EINVAL, "facet 'cuda_host' needs an active cuda context (with_cuda)");
    bool pinned = f == GM_FACET_CUDA_HOST && atomic_load(&gm_cuda_host_strategy);
    GM_TRY(create_host(v, first, fill, pinned, dev));
    if (f == GM_FACET_CUDA_HOST && v->host_blk->space == GM_SPACE_HOST && !v->host_blk->registered_on) {
      GM_TRY(gm_block_register(v->host_blk, dev, host_unwatched(v)));
      v->host = v->host_blk->ptr; /* a sub-page block moves to a page of its own */
      atomic_fetch_add(&gm_counter.n_host_registrations, 1);
    }
  }
  v->facets[f].exists = true;
  gm_barrier_note_created(v, f);
  return GM_OK;
}

static bool is_owner(const gm_facet *F) {
  return F->n_owner_watchers > 0 && pthread_equal(F->watcher_thread, pthread_self());
}

/* Nested access to the same facet from the owning thread is allowed (a
 * write only when no other thread reads it); any other thread may join
 * only as a reader while nobody writes. */
static bool same_facet_conflict(const gm_facet *F, gm_direction dir) {
  if (F->n_watchers == 0) return false;
  if (is_owner(F)) return dir != GM_INPUT && F->n_watchers > F->n_owner_watchers;
  return dir != GM_INPUT || F->n_writers > 0;
}

static gm_status check_conflicts(gm_vec *v, gm_facet_name f, gm_direction dir) {
  for (int g = 0; g < GM_N_FACETS; g++) {
    if (g == (int)f) continue;
    const gm_facet *G = &v->facets[g];
    if (dir == GM_INPUT) {
      if (G->n_writers > 0 && !gm_let_input_through)
        return gm_fail(GM_ESTATE, "cannot read facet '%s' while facet '%s' is being written",
                       facet_names[f], facet_names[g]);
    } else if (G->n_watchers > 0 && !gm_let_output_through) {
      return gm_fail(GM_ESTATE, "cannot write facet '%s' while facet '%s' is being accessed",
                     facet_names[f], facet_names[g]);
    }
  }
  if (same_facet_conflict(&v->facets[f], dir))
    return gm_fail(GM_ESTATE, "facet '%s' is being accessed from another thread", facet_names[f]);
  return GM_OK;
}

gm_status gm_vec_check_memory(gm_vec *v) {
  if (v->scope && v->scope->closed) return gm_fail(GM_ESTATE, "memory returned to an alloc cache");
  if (v->host_blk) GM_TRY(gm_block_check(v->host_blk, NULL));
  if (v->dev_blk) GM_TRY(gm_block_check(v->dev_blk, NULL));
  return GM_OK;
}

static gm_status check_access(gm_vec *v, gm_facet_name f, gm_direction dir, gm_device *dev) {
  GM_TRY(gm_vec_check_memory(v));
  if (f == GM_FACET_CUDA && v->staging_mapped && dev && dev != v->staging_dev)
    return gm_fail(GM_ESTATE, "mapped mat belongs to another device");
  if (v->n_sync_locks > 0)
    return gm_fail(GM_ESTATE, "cannot access facet '%s' of a mat that with_syncing_cuda_facets is syncing",
                   facet_names[f]);
  GM_TRY(check_conflicts(v, f, dir));
  gm_facet *F = &v->facets[f];
  if (f == GM_FACET_CUDA && F->exists && dev && F->device != dev)
    return gm_fail(GM_ESTATE, "mat has a cuda facet on another device; destroy it first");
  return GM_OK;
}

static gm_status watch_locked(gm_vec *v, gm_facet_name f, gm_direction dir, gm_device *dev, gm_block **block) {
  GM_TRY(check_access(v, f, dir, dev));
  GM_TRY(wait_copies(v, f));
  if (f != GM_FACET_CUDA) GM_TRY(settle_device(v)); /* a host access of shared storage */
  gm_facet *F = &v->facets[f];
  if (!F->exists) GM_TRY(create_facet(v, f, dir, dev, block));
  if (dir != GM_OUTPUT && !facet_up_to_date(v, f)) GM_TRY(refresh(v, f));
  if (dir != GM_INPUT) written_through(v, f);
  if (F->n_owner_watchers == 0) {
    F->watcher_thread = pthread_self();
    F->n_owner_watchers = 1;
  } else if (pthread_equal(F->watcher_thread, pthread_self())) {
    F->n_owner_watchers++;
  }
  F->n_watchers++;
  if (dir != GM_INPUT) F->n_writers++;
  F->direction = dir;
  return GM_OK;
}

/* Device memory for a new CUDA facet is allocated with the vec lock NOT
 * held: gm_device_alloc may run the reclaim cascade, whose full Lua GC
 * (and the GC nudge) runs finalizers, and a finalizer may take this vec's
 * lock (with_syncing_cuda_facets' __gc) or run any gpumat op on it.  So:
 * check under the lock whether a block is needed (and whether the access
 * would fail anyway), allocate unlocked, then relock and redo the checks.
 * A block left unused (another thread created the facet meanwhile, or the
 * access failed) goes back through the deferred-free queue. */
static gm_status need_block(gm_vec *v, gm_facet_name f, gm_direction dir, gm_device *dev, bool *need) {
  bool taken = vlock(v);
  gm_status st = check_access(v, f, dir, dev);
  *need = st == GM_OK && f == GM_FACET_CUDA && dev && !v->facets[f].exists && !mapped_on(v, dev);
  vunlock(v, taken);
  return st;
}

static gm_status alloc_block(gm_vec *v, gm_device *dev, gm_block **block) {
  return gm_block_alloc(GM_SPACE_DEVICE, dev, vec_bytes(v), 0, block);
}

static bool element_quick_ok(const gm_vec *v);

/* A host access (the foreign facet) of a vec whose host storage is up to
 * date with nothing watched or pending (element_quick_ok) needs none of
 * watch_locked's checks, copies or waits, only its bookkeeping: an op's
 * operands are this case, and the full path was a third of a 1K-element
 * op's fixed cost. */
static bool watch_quick(gm_vec *v, gm_direction dir) {
  if (!element_quick_ok(v)) return false;
  gm_facet *F = &v->facets[GM_FACET_FOREIGN];
  if (dir != GM_INPUT) {
    written_through(v, GM_FACET_FOREIGN);
    F->n_writers = 1;
  }
  F->watcher_thread = pthread_self();
  F->n_owner_watchers = 1;
  F->n_watchers = 1;
  F->direction = dir;
  return true;
}

gm_status gm_vec_watch(gm_vec *v, gm_facet_name f, gm_direction dir, bool covers_all,
                       gm_device *dev, void **ptr) {
  if (dir == GM_OUTPUT && !covers_all) dir = GM_IO;
  if (f == GM_FACET_FOREIGN) {
    bool taken = vlock(v);
    bool quick = watch_quick(v, dir);
    if (quick) *ptr = v->host;
    vunlock(v, taken);
    if (quick) return GM_OK;
  }
  gm_block *block = NULL;
  gm_status st = GM_OK;
  for (;;) {
    bool need = false; /* only a CUDA facet's block is allocated unlocked (watch_locked checks again) */
    if (f == GM_FACET_CUDA && dev) GM_TRY(need_block(v, f, dir, dev, &need));
    if (need) GM_TRY(alloc_block(v, dev, &block));
    bool taken = vlock(v);
    bool lost = f == GM_FACET_CUDA && dev && !v->facets[f].exists && !block && !mapped_on(v, dev);
    if (!lost) {
      st = watch_locked(v, f, dir, dev, &block);
      if (st == GM_OK) *ptr = f == GM_FACET_CUDA ? v->facets[f].ptr : v->host;
    }
    vunlock(v, taken);
    if (!lost) break; /* else another thread dropped the facet meanwhile: again */
  }
  if (block) drop_block(block);
  return st;
}

/* Conditions under which an element access needs none of watch's work:
 * the host storage exists, is live and up to date (so no copy), nothing
 * is being accessed (no conflict, no nesting to count), no copy or
 * device work on shared storage is pending and no syncing lock is held. */
static bool element_quick_ok(const gm_vec *v) {
  if (!v->host || !v->host_up_to_date || !v->facets[GM_FACET_FOREIGN].exists) return false;
  if (v->n_sync_locks > 0 || v->copy_pending || v->device_pending) return false;
  if (v->scope && v->scope->closed) return false;
  if (!gm_block_live(v->host_blk) || (v->dev_blk && !gm_block_live(v->dev_blk))) return false;
  for (int g = 0; g < GM_N_FACETS; g++)
    if (v->facets[g].n_watchers > 0) return false;
  return true;
}

/* A new op result's storage, made in the lane as watch(FOREIGN, OUTPUT)
 * makes it: a vec with no facet yet (nothing to copy, fill or wait for),
 * not a staging vec (whose pinned memory may run the device's GC hook),
 * gets its host facet.  False (an allocation failure too: the watch path
 * then tries again and reports it) leaves it as it was. */
static bool lane_new_host(gm_vec *v) {
  if (v->host || any_facet_exists(v) || v->staging_dev || v->n_sync_locks > 0 || v->copy_pending ||
      v->device_pending || (v->scope && v->scope->closed))
    return false;
  gm_block *none = NULL;
  return create_facet(v, GM_FACET_FOREIGN, GM_OUTPUT, NULL, &none) == GM_OK;
}

bool gm_vec_lane_enter(gm_vec *v, gm_direction dir, bool wait, bool *taken) {
  bool take = sync_wanted(v);
  if (take) {
    if (wait)
      gm_lock_acquire(&v->lock);
    else if (!gm_lock_try(&v->lock))
      return false;
  }
  invalidate_direct(v);
  if (!element_quick_ok(v) && !(dir == GM_OUTPUT && lane_new_host(v))) {
    vunlock(v, take);
    return false;
  }
  if (dir != GM_INPUT) written_through(v, GM_FACET_FOREIGN); /* watch(FOREIGN, IO)'s effect */
  v->facets[GM_FACET_FOREIGN].direction = dir;
  *taken = take;
  return true;
}

void gm_vec_lane_leave(gm_vec *v, bool taken) { vunlock(v, taken); }

bool gm_vec_element_quick(gm_vec *v, size_t off, bool write, double *val) {
  bool taken = vlock(v);
  bool ok = element_quick_ok(v);
  if (ok) {
    if (write) {
      if (v->ctype == GM_DOUBLE)
        ((double *)v->host)[off] = *val;
      else
        gm_ctype_set(v->ctype, v->host, off, *val);
      written_through(v, GM_FACET_FOREIGN); /* what watch(FOREIGN, IO) does */
    } else {
      *val = v->ctype == GM_DOUBLE ? ((const double *)v->host)[off] : gm_ctype_get(v->ctype, v->host, off);
    }
    v->facets[GM_FACET_FOREIGN].direction = write ? GM_IO : GM_INPUT;
  }
  vunlock(v, taken);
  return ok;
}

void gm_vec_unwatch(gm_vec *v, gm_facet_name f, gm_direction dir) {
  bool taken = vlock(v);
  gm_facet *F = &v->facets[f];
  if (F->n_watchers > 0) F->n_watchers--;
  if (is_owner(F)) F->n_owner_watchers--;
  /* OUTPUT may have been promoted to IO; both count as writers */
  if (dir != GM_INPUT && F->n_writers > 0) F->n_writers--;
  /* a device op on storage the host shares is queued, not done */
  if (f == GM_FACET_CUDA && shares_host(v, f) && F->device) note_device_work(v, F->device);
  vunlock(v, taken);
}

unsigned long long gm_vec_direct_open(gm_vec *v, bool *writable) {
  /* no certificates without membarrier: then spare the element access
   * path (gm_mat_get/put, then this, on every access) a second lock */
  gm_direct_slot *mine = gm_direct_my_slot();
  *writable = false;
  if (!mine) return 0;
  bool taken = vlock(v);
  bool ok = element_quick_ok(v); /* the same conditions as the one-lock path */
  /* writes also need the host facets to be the only up-to-date ones */
  *writable = ok;
  for (int g = 0; ok && g < GM_N_FACETS; g++)
    if (!shares_host(v, (gm_facet_name)g) && facet_up_to_date(v, (gm_facet_name)g)) *writable = false;
  gm_direct_slot *slot = ok ? mine : NULL;
  unsigned long long gen = slot ? new_generation(v) : 0; /* no earlier certificate shares it */
  if (slot) atomic_store_explicit(&v->direct_slot, slot, memory_order_relaxed);
  vunlock(v, taken);
  return gen;
}

bool gm_vec_facet_exists(gm_vec *v, gm_facet_name f) {
  bool taken = vlock(v);
  bool b = v->facets[f].exists;
  vunlock(v, taken);
  return b;
}

bool gm_vec_facet_up_to_date(gm_vec *v, gm_facet_name f) {
  bool taken = vlock(v);
  bool b = facet_up_to_date(v, f);
  vunlock(v, taken);
  return b;
}

bool gm_vec_facet_info(gm_vec *v, gm_facet_name f, gm_facet *out) {
  bool taken = vlock(v);
  *out = v->facets[f];
  out->up_to_date = facet_up_to_date(v, f);
  vunlock(v, taken);
  return out->exists;
}

/* MGL printing order is by letter: C (cuda), F (foreign), H (cuda_host),
 * M (managed); uppercase when up to date. */
void gm_vec_facet_letters(gm_vec *v, char *buf, size_t n) {
  static const struct { gm_facet_name f; char c; } order[] = {
      {GM_FACET_CUDA, 'C'}, {GM_FACET_FOREIGN, 'F'}, {GM_FACET_CUDA_HOST, 'H'}, {GM_FACET_MANAGED, 'M'}};
  size_t k = 0;
  bool taken = vlock(v);
  for (size_t i = 0; i < 4 && k + 1 < n; i++) {
    if (!v->facets[order[i].f].exists) continue;
    buf[k++] = facet_up_to_date(v, order[i].f) ? order[i].c : (char)(order[i].c + ('a' - 'A'));
  }
  vunlock(v, taken);
  if (k == 0 && n > 1) buf[k++] = '-';
  if (n > 0) buf[k < n ? k : n - 1] = '\0';
}

/* Before facet f disappears, keep its data if it is the only up-to-date
 * copy and another facet can take it. */
static gm_status preserve_data(gm_vec *v, gm_facet_name f) {
  if (!facet_up_to_date(v, f)) return GM_OK;
  for (int g = 0; g < GM_N_FACETS; g++)
    if (g != (int)f && facet_up_to_date(v, (gm_facet_name)g)) return GM_OK;
  for (int g = 0; g < GM_N_FACETS; g++) {
    if (g == (int)f || !v->facets[g].exists) continue;
    if (shares_host(v, f) && shares_host(v, (gm_facet_name)g)) return GM_OK; /* shared storage */
    return refresh(v, (gm_facet_name)g);
  }
  return GM_OK;
}

static void drop_facet(gm_vec *v, gm_facet_name f) {
  gm_facet *F = &v->facets[f];
  if (f == GM_FACET_CUDA) {
    release_device(v);
  } else if (is_host_facet(f) || f == GM_FACET_MANAGED) {
    /* the host block goes with the last facet that uses it */
    bool others = false;
    for (int g = 0; g < GM_N_FACETS; g++)
      if (g != (int)f && v->facets[g].exists && shares_host(v, (gm_facet_name)g)) others = true;
    if (!others) {
      release_host(v);
    } else if (f == GM_FACET_CUDA_HOST && v->host_blk && v->host_blk->registered_on) {
      (void)settle_copies(v, NULL); /* no DMA from memory being unregistered */
      gm_block_unregister(v->host_blk);
      atomic_fetch_sub(&gm_counter.n_host_registrations, 1);
    }
  }
  memset(F, 0, sizeof *F);
  if (shares_host(v, f) && !v->host) v->host_up_to_date = false;
}

/* wrapped (gm_mat_wrap): the FOREIGN facet is the application's memory
 * and stays, like a referenced facet */
static bool kept_facet(const gm_vec *v, gm_facet_name f) {
  return f == GM_FACET_FOREIGN && v->host_blk && v->host_blk->wrapped;
}

static gm_status destroy_locked(gm_vec *v, gm_facet_name f, bool force, bool *destroyed) {
  gm_facet *F = &v->facets[f];
  *destroyed = false;
  if (!F->exists) return GM_OK;
  if (F->n_watchers > 0)
    return gm_fail(GM_ESTATE, "cannot destroy facet '%s' while it is being accessed", facet_names[f]);
  if (F->n_references > 0 && !force) return GM_OK;
  if (kept_facet(v, f)) return GM_OK;
  if (gm_vec_check_memory(v) == GM_OK) GM_TRY(preserve_data(v, f)); /* else no data left to keep */
  drop_facet(v, f);
  *destroyed = true;
  return GM_OK;
}

gm_status gm_vec_destroy_facet(gm_vec *v, gm_facet_name f, bool force, bool *destroyed) {
  bool taken = vlock(v);
  gm_status st = destroy_locked(v, f, force, destroyed);
  vunlock(v, taken);
  return st;
}

gm_status gm_vec_destroy_all(gm_vec *v) {
  bool taken = vlock(v);
  gm_status st = GM_OK;
  for (int g = 0; g < GM_N_FACETS && st == GM_OK; g++)
    if (v->facets[g].n_watchers > 0)
      st = gm_fail(GM_ESTATE, "cannot destroy mat while facet '%s' is being accessed", facet_names[g]);
  /* destroy-cube drops every unreferenced facet; a referenced facet that
   * survives is brought up to date first so it keeps the data */
  for (int g = 0; g < GM_N_FACETS && st == GM_OK; g++)
    if (v->facets[g].exists && (v->facets[g].n_references > 0 || kept_facet(v, (gm_facet_name)g)) &&
        !facet_up_to_date(v, (gm_facet_name)g) && gm_vec_check_memory(v) == GM_OK)
      st = refresh(v, (gm_facet_name)g);
  for (int g = 0; g < GM_N_FACETS && st == GM_OK; g++) {
    gm_facet *F = &v->facets[g];
    if (F->exists && F->n_references == 0 && !kept_facet(v, (gm_facet_name)g)) drop_facet(v, (gm_facet_name)g);
  }
  vunlock(v, taken);
  return st;
}

/* As gm_vec_watch: a new CUDA facet's memory is allocated unlocked. */
gm_status gm_vec_add_facet_reference(gm_vec *v, gm_facet_name f, gm_device *dev) {
  gm_block *block = NULL;
  gm_status st = GM_OK;
  GM_TRY(gm_vec_check_memory(v));
  for (;;) {
    if (f == GM_FACET_CUDA && dev && !block && !gm_vec_facet_exists(v, f) && !mapped_on(v, dev))
      GM_TRY(alloc_block(v, dev, &block));
    bool taken = vlock(v);
    bool lost = f == GM_FACET_CUDA && dev && !v->facets[f].exists && !block && !mapped_on(v, dev);
    if (!lost) {
      if (!v->facets[f].exists) st = create_facet(v, f, GM_IO, dev, &block);
      if (st == GM_OK) v->facets[f].n_references++;
    }
    vunlock(v, taken);
    if (!lost) break;
  }
  if (block) drop_block(block);
  return st;
}

gm_status gm_vec_remove_facet_reference(gm_vec *v, gm_facet_name f) {
  bool taken = vlock(v);
  gm_status st = GM_OK;
  if (!v->facets[f].exists)
    st = gm_fail(GM_EINVAL, "facet '%s' does not exist", facet_names[f]);
  else if (v->facets[f].n_references == 0)
    st = gm_fail(GM_EINVAL, "facet '%s' has no references to remove", facet_names[f]);
  else
    v->facets[f].n_references--;
  vunlock(v, taken);
  return st;
}

void gm_vec_sync_lock(gm_vec *v, bool lock) {
  bool taken = vlock(v);
  v->n_sync_locks += lock ? 1 : -1;
  vunlock(v, taken);
}

/* ---- blocks shared with buffers, staging, alloc-cache scopes ---- */

void gm_vec_set_staging(gm_vec *v, gm_device *dev, bool mapped) {
  if (!dev || v->staging_dev) return;
  gm_device_ref(dev);
  v->staging_dev = dev;
  v->staging_pinned = true;
  v->staging_mapped = mapped;
}

gm_status gm_vec_adopt_block(gm_vec *v, gm_block *b) {
  GM_TRY(gm_block_check(b, NULL));
  if (vec_bytes(v) > b->bytes)
    return gm_fail(GM_EINVAL, "the buffer's %zu bytes cannot hold %zu bytes", b->bytes, vec_bytes(v));
  if (b->pitch) return gm_fail(GM_EINVAL, "a pitched buffer cannot be a mat's memory");
  bool taken = vlock(v);
  gm_status st = GM_OK;
  if (any_facet_exists(v)) st = gm_fail(GM_ESTATE, "the mat already has memory");
  if (st == GM_OK) st = gm_block_ref(b);
  if (st == GM_OK) {
    gm_block_hold(b);
    if (b->space == GM_SPACE_DEVICE) {
      gm_facet *F = &v->facets[GM_FACET_CUDA];
      v->dev_blk = b;
      F->ptr = b->ptr;
      F->device = b->device;
      gm_device_ref(b->device);
      F->exists = F->up_to_date = true;
      gm_barrier_note_created(v, GM_FACET_CUDA);
    } else {
      v->host_blk = b;
      v->host = b->ptr;
      v->host_up_to_date = true;
      atomic_fetch_add(&gm_counter.host_bytes_in_use, (long)vec_bytes(v));
      atomic_fetch_add(&gm_counter.n_host_arrays, 1);
      v->facets[GM_FACET_FOREIGN].exists = true;
      gm_barrier_note_created(v, GM_FACET_FOREIGN);
      if (b->space == GM_SPACE_PINNED) {
        v->facets[GM_FACET_CUDA_HOST].exists = true;
        gm_device_ref(b->device);
        v->staging_dev = b->device;
        v->staging_pinned = true;
        v->staging_mapped = (b->flags & GM_PINNED_MAPPED) != 0;
      } else if (b->space == GM_SPACE_MANAGED) {
        /* managed memory: host and device both use it in place */
        v->facets[GM_FACET_MANAGED].exists = true;
        gm_device_ref(b->device);
        v->staging_dev = b->device;
        v->staging_mapped = true;
      }
    }
  }
  vunlock(v, taken);
  return st;
}

gm_block *gm_vec_facet_block(gm_vec *v, gm_facet_name f) {
  bool taken = vlock(v);
  gm_block *b = !v->facets[f].exists ? NULL : f == GM_FACET_CUDA ? (v->dev_blk ? v->dev_blk : v->host_blk)
                                                                 : v->host_blk;
  vunlock(v, taken);
  return b;
}

void gm_vec_keep(gm_vec *v) {
  bool taken = vlock(v);
  gm_cache_scope *s = v->scope;
  v->scope = NULL;
  if (v->host_blk) gm_block_keep(v->host_blk);
  if (v->dev_blk) gm_block_keep(v->dev_blk);
  vunlock(v, taken);
  gm_cache_scope_unref(s);
}
