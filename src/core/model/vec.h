/* vec: the reference-counted storage shared by all views of a mat, and
 * its facets (MGL-CUBE semantics).
 *
 * Facets: FOREIGN (host memory), CUDA_HOST (the same host memory,
 * page-locked), CUDA (device memory on one device), MANAGED (the host
 * storage moved into managed memory).  FOREIGN and CUDA_HOST share
 * storage, so they share one up-to-date bit (vec->host_up_to_date); so do
 * MANAGED and, on a mapped or managed vec, CUDA.  Facets are created lazily; a vec
 * that was never accessed owns no memory.
 *
 * Thread safety: facet metadata is guarded by vec->lock when the vec's
 * synchronization says so; the data itself is guarded only by the
 * watcher rules (readers may share, a writer excludes other facets). */
#ifndef GM_CORE_VEC_H
#define GM_CORE_VEC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "ctype.h"
#include "lock.h"
#include "status.h"

/* gm_facet_name and gm_direction are public (include/gpumat.h). */

struct gm_device;

typedef struct gm_facet {
  bool exists;
  bool up_to_date;       /* for FOREIGN/CUDA_HOST see vec->host_up_to_date */
  int n_watchers;
  int n_writers;         /* watchers with direction OUTPUT or IO */
  gm_direction direction; /* of the last access */
  int n_references;
  /* Same-facet rule across threads: watcher_thread "owns" the facet while
   * n_owner_watchers > 0 (its nested accesses of any direction are
   * allowed); other threads may only join as readers of a facet nobody
   * writes.  Watchers not counted in n_owner_watchers belong to other
   * threads (or to an owner that left), so the check errs on the side of
   * a conflict. */
  pthread_t watcher_thread;
  int n_owner_watchers;
  void *ptr;             /* device pointer (CUDA); host facets use vec->host */
  struct gm_device *device; /* CUDA: the device owning ptr (referenced) */
} gm_facet;

typedef struct gm_vec {
  atomic_long refcount;
  gm_ctype ctype;
  size_t max_size;
  bool has_initial_element;
  double initial_element;
  gm_sync synchronization;
  gm_lock lock; /* lock.h: facet bookkeeping */

  /* Memory is held as blocks (mem/block.h), one hold and one refcnt
   * each, so buffers can share it (mat_from_buffer, ensure). */
  struct gm_block *host_blk; /* FOREIGN and CUDA_HOST storage, or NULL */
  void *host;              /* host_blk->ptr (NULL without host storage) */
  bool host_up_to_date;
  struct gm_block *dev_blk; /* the CUDA facet's memory (unless mapped) */
  /* Staging: host memory page-locked from birth on
   * staging_dev; mapped also lets the CUDA facet use that memory in
   * place (no device block, no copies; it shares host_up_to_date). */
  bool staging_pinned, staging_mapped;
  struct gm_device *staging_dev;
  /* the alloc-cache scope the vec was created in, until kept */
  struct gm_cache_scope *scope;

  gm_facet facets[GM_N_FACETS];
  int n_sync_locks; /* with_syncing_cuda_facets (safe): any access is an error */
  struct gm_device *copy_pending; /* copies queued on its copy stream
                                     (with_syncing_cuda_facets;
                                     H2D from page-locked memory, #10):
                                     host watches and releases wait */
  /* device work queued on the compute stream of this device used the vec's
   * host storage in place (a mapped or managed cuda facet): host watches,
   * element access and releases wait for that stream first */
  struct gm_device *device_pending;
  void *pending_event;    /* device_pending's event after that work */
  bool pending_has_event; /* else the host syncs the compute stream */
  struct gm_vec_weak *weak; /* weak handle (barriers), created on demand */
  /* Direct element access (core/model/direct.h): gen changes (to a process-wide
   * unique value) whenever facet metadata is touched. */
  _Atomic unsigned long long gen;
  /* the thread holding the current certificate (core/model/direct.h), or NULL */
  struct gm_direct_slot *_Atomic direct_slot;
} gm_vec;

/* Lua names: "foreign", "cuda_host", "cuda", "managed". */
const char *gm_facet_name_str(gm_facet_name f);
int gm_facet_parse(const char *s, gm_facet_name *out);
const char *gm_direction_str(gm_direction d);
int gm_direction_parse(const char *s, gm_direction *out);

/* Host storage page-locked from birth (foreign and cuda_host facets one
 * block) on dev, and with mapped, also the device's memory.
 * Call before any facet exists.  dev NULL: ordinary host memory. */
void gm_vec_set_staging(gm_vec *v, struct gm_device *dev, bool mapped);
/* A new facet f of v whose memory is b (mat_from_buffer): FOREIGN for a
 * host block, CUDA_HOST for a pinned one, CUDA for a device block.  v must
 * have no facet yet; v takes a hold and a refcnt of b. */
gm_status gm_vec_adopt_block(gm_vec *v, struct gm_block *b);
/* The block behind facet f (NULL if none), for ensure's views. */
struct gm_block *gm_vec_facet_block(gm_vec *v, gm_facet_name f);
/* Detaches v (and its blocks) from its alloc-cache scope: it survives. */
void gm_vec_keep(gm_vec *v);
/* GM_OK while v's memory is usable, else why not (buffer released,
 * memory returned to an alloc cache). */
gm_status gm_vec_check_memory(gm_vec *v);

/* A vec over application memory (gm_mat_wrap): its host storage is a
 * wrapped block (mem/block.h, gm_block_wrap), so the FOREIGN facet exists
 * and is up to date from birth; it is never destroyed (destroy_facet
 * skips it like a referenced facet).  On failure release is not called. */
gm_status gm_vec_wrap(gm_ctype ctype, size_t max_size, void *host, void (*release)(void *),
                      void *ud, gm_vec **out);
/* gm_vec_wrap over a wrapped block of any space (gm_block_wrap_in): on
 * success the vec has taken over the caller's refcnt and hold of b; on
 * failure they stay the caller's. */
gm_status gm_vec_wrap_block(gm_ctype ctype, size_t max_size, struct gm_block *b, gm_vec **out);
/* New vec with refcount 1 and no facets. */
gm_status gm_vec_new(gm_ctype ctype, size_t max_size, bool has_initial_element,
                     double initial_element, gm_sync sync, gm_vec **out);
void gm_vec_ref(gm_vec *v);
/* Drops a reference; at zero the storage is released: host memory at once,
 * device memory through the device's deferred-free queue (safe to call from
 * a Lua finalizer: no CUDA call, no Lua call). */
void gm_vec_unref(gm_vec *v);

/* Facet access (watch/unwatch of the cube manual).  covers_all tells
 * whether the accessing view sees the whole storage; when it does not,
 * OUTPUT is turned into IO so invisible elements survive.  On success
 * *ptr is the facet's base pointer (element 0 of the storage), in the
 * facet's memory space.  dev is the device for the CUDA facet (NULL for
 * host facets). */
gm_status gm_vec_watch(gm_vec *v, gm_facet_name f, gm_direction dir,
                       bool covers_all, struct gm_device *dev, void **ptr);
void gm_vec_unwatch(gm_vec *v, gm_facet_name f, gm_direction dir);

/* Direct element access (m[k] from Lua) without watch/unwatch and their
 * three lock round trips: see core/model/direct.h.  gm_vec_direct_open checks,
 * under the lock, that no facet is watched, the host storage is live, up
 * to date and (write) the only up-to-date copy, with no copy in flight:
 * then a FOREIGN access of that direction would change nothing but its
 * own bookkeeping.  It returns the generation that certifies reads for
 * the calling thread (0: use watch/unwatch) and sets *writable when it
 * certifies writes too. */
unsigned long long gm_vec_direct_open(gm_vec *v, bool *writable);

/* Whether facet f exists and is up to date. */
bool gm_vec_facet_exists(gm_vec *v, gm_facet_name f);
bool gm_vec_facet_up_to_date(gm_vec *v, gm_facet_name f);
/* Snapshot of a facet's metadata (up_to_date resolved). */
bool gm_vec_facet_info(gm_vec *v, gm_facet_name f, gm_facet *out);
/* Facet summary letters as in MGL printing: "CF", "Cf", "-". */
void gm_vec_facet_letters(gm_vec *v, char *buf, size_t n);

/* destroy-facet: fails with GM_ESTATE while watched; skipped (returns GM_OK,
 * *destroyed = false) while it has references.  When the facet is the only
 * up-to-date one and another facet exists, its data is first copied there
 * so no data is lost. */
gm_status gm_vec_destroy_facet(gm_vec *v, gm_facet_name f, bool force, bool *destroyed);
gm_status gm_vec_destroy_all(gm_vec *v);
gm_status gm_vec_add_facet_reference(gm_vec *v, gm_facet_name f, struct gm_device *dev);
gm_status gm_vec_remove_facet_reference(gm_vec *v, gm_facet_name f);

/* The element fast path of gm_mat_get/gm_mat_put: reads (write false)
 * or writes *val at storage offset off (< max_size, checked by the caller)
 * under one lock when the host storage is up to date and no facet is being
 * accessed, with the facet effects of a FOREIGN watch/unwatch; returns
 * false, having done nothing, when the full watch path is needed. */
bool gm_vec_element_quick(gm_vec *v, size_t off, bool write, double *val);

/* The small-op lane (core/exec/exec.h, gm_lane_enter): under the vec's
 * lock, where a FOREIGN watch would need none of its checks, copies or
 * waits (the conditions of gm_vec_element_quick), makes the watch's facet
 * effects for dir and returns true with the lock still held (*taken: it
 * was taken; GM_SYNC_FALSE and maybe_synchronize off take none), so the
 * op runs on v->host with no bookkeeping to undo; gm_vec_lane_leave
 * releases it.  wait false: returns false rather than wait for the lock
 * (an op's second and later vecs: no lock order to keep).  Returns
 * false, having changed nothing and holding nothing, when the watch path
 * is needed. */
bool gm_vec_lane_enter(gm_vec *v, gm_direction dir, bool wait, bool *taken);
void gm_vec_lane_leave(gm_vec *v, bool taken);

/* Weak references (facet barriers, like MGL-CUBE's weak pointers): a
 * barrier must not keep a garbage mat's storage alive until it exits.
 * gm_vec_weak_get returns a new reference to v's handle (caller holds a
 * reference to v); gm_vec_weak_lock returns a new reference to the vec,
 * or NULL once its storage was released. */
typedef struct gm_vec_weak gm_vec_weak;
gm_vec_weak *gm_vec_weak_get(gm_vec *v);
gm_vec *gm_vec_weak_lock(gm_vec_weak *w);
void gm_vec_weak_unref(gm_vec_weak *w);

/* with_syncing_cuda_facets in safe mode: while locked, every facet access
 * fails with GM_ESTATE (the copy stream may still be writing). */
void gm_vec_sync_lock(gm_vec *v, bool lock);

/* Debugging knobs of the cube manual (process-wide). */
extern _Atomic bool gm_let_input_through;
extern _Atomic bool gm_let_output_through;
/* *maybe-synchronize-cube*: whether vecs with GM_SYNC_MAYBE lock. */
extern _Atomic bool gm_maybe_synchronize;
/* foreign_array_strategy == "cuda_host": host memory first created for the
 * CUDA_HOST facet comes from the device's page-locked allocator. */
extern _Atomic bool gm_cuda_host_strategy;

#endif
