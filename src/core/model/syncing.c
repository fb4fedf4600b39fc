/* with_syncing_cuda_facets' state machine (see syncing.h). */
#include "syncing.h"

#include <stdlib.h>

#include "context.h"
#include "status.h"

size_t gm_syncing_find_shared(gm_vec *const *to_cuda, size_t n_cuda, gm_vec *const *to_host, size_t n_host) {
  for (size_t j = 0; j < n_host; j++)
    for (size_t i = 0; i < n_cuda; i++)
      if (to_cuda[i] == to_host[j]) return j + 1;
  return 0;
}

static bool seen(const gm_syncing *s, size_t from, size_t to, gm_vec *v) {
  for (size_t i = from; i < to; i++)
    if (s->vecs[i] == v) return true;
  return false;
}

/* Each vec once, ensures first; each referenced. */
static void collect_vecs(gm_syncing *s, gm_vec *const *to_cuda, size_t n_cuda, gm_vec *const *to_host,
                         size_t n_host) {
  for (size_t i = 0; i < n_cuda; i++)
    if (!seen(s, 0, s->n_ensure, to_cuda[i])) s->vecs[s->n_ensure++] = to_cuda[i];
  for (size_t i = 0; i < n_host; i++)
    if (!seen(s, s->n_ensure, s->n_ensure + s->n_destroy, to_host[i]))
      s->vecs[s->n_ensure + s->n_destroy++] = to_host[i];
  for (size_t i = 0; i < s->n_ensure + s->n_destroy; i++) gm_vec_ref(s->vecs[i]);
}

static gm_status touch(gm_vec *v, gm_facet_name f, gm_device *d) {
  void *p;
  GM_TRY(gm_vec_watch(v, f, GM_INPUT, true, d, &p));
  gm_vec_unwatch(v, f, GM_INPUT);
  return GM_OK;
}

/* to_cuda: register the host memory when it holds the data (so the copy
 * can be asynchronous), then bring the cuda facet up to date. */
static gm_status start_one(gm_syncing *s, size_t i) {
  gm_vec *v = s->vecs[i];
  if (i < s->n_ensure) {
    if (gm_vec_facet_up_to_date(v, GM_FACET_FOREIGN)) GM_TRY(touch(v, GM_FACET_CUDA_HOST, s->dev));
    GM_TRY(touch(v, GM_FACET_CUDA, s->dev));
  } else {
    GM_TRY(touch(v, GM_FACET_CUDA_HOST, s->dev));
  }
  if (s->safe) gm_vec_sync_lock(v, true);
  return GM_OK;
}

static gm_status start(gm_syncing *s, size_t *n_locked) {
  GM_TRY(s->dev->ops->stream_sync(s->dev, NULL)); /* copy the latest results */
  bool strategy = gm_cuda_host_strategy;
  gm_cuda_host_strategy = true; /* new host memory is page-locked */
  gm_device_begin_async_copies();
  gm_status st = GM_OK;
  size_t n = s->n_ensure + s->n_destroy;
  for (*n_locked = 0; *n_locked < n && st == GM_OK;) {
    st = start_one(s, *n_locked);
    if (st == GM_OK) ++*n_locked;
  }
  gm_device_end_async_copies();
  gm_cuda_host_strategy = strategy;
  /* kernels in the body run after the copies, which run behind the host;
   * host reads wait in the vec (gm_vec_watch) */
  if (st == GM_OK && s->dev->ops->stream_wait)
    st = s->dev->ops->stream_wait(s->dev, NULL, s->dev->copy_stream);
  return st;
}

/* Waits for the copies, unlocks the first n_locked vecs, drops device
 * facets of the destroys (when drop is true) and releases the vecs. */
static gm_status finish(gm_syncing *s, size_t n_locked, bool drop) {
  gm_status st = s->dev->ops->stream_sync(s->dev, s->dev->copy_stream);
  size_t n = s->n_ensure + s->n_destroy;
  for (size_t i = 0; i < n; i++) {
    if (s->safe && i < n_locked) gm_vec_sync_lock(s->vecs[i], false);
    if (drop && i >= s->n_ensure) {
      bool destroyed;
      gm_status st2 = gm_vec_destroy_facet(s->vecs[i], GM_FACET_CUDA, false, &destroyed);
      if (st == GM_OK) st = st2;
    }
  }
  for (size_t i = 0; i < n; i++) gm_vec_unref(s->vecs[i]);
  free(s->vecs);
  *s = (gm_syncing){NULL, s->safe, 0, 0, NULL};
  return st;
}

gm_status gm_syncing_begin(gm_syncing *s, bool safe, gm_vec *const *to_cuda, size_t n_cuda,
                           gm_vec *const *to_host, size_t n_host) {
  *s = (gm_syncing){NULL, safe, 0, 0, NULL};
  size_t j = gm_syncing_find_shared(to_cuda, n_cuda, to_host, n_host);
  if (j) return gm_fail(GM_EINVAL, "element %zu of to_cuda_host is also in to_cuda", j);
  gm_device *d = gm_current_device();
  if (!d || n_cuda + n_host == 0) return GM_OK; /* MGL: the body simply runs */
  s->vecs = malloc((n_cuda + n_host) * sizeof *s->vecs);
  if (!s->vecs) return gm_fail(GM_ENOMEM, "out of host memory");
  collect_vecs(s, to_cuda, n_cuda, to_host, n_host);
  s->dev = d;
  size_t n_locked = 0;
  gm_status st = start(s, &n_locked);
  if (st != GM_OK) (void)finish(s, n_locked, false); /* start's failure is the one reported */
  return st;
}

gm_status gm_syncing_end(gm_syncing *s) {
  if (!s->dev) return GM_OK;
  return finish(s, s->n_ensure + s->n_destroy, true);
}

void gm_syncing_abandon(gm_syncing *s) {
  if (!s->dev) return;
  (void)s->dev->ops->stream_sync(s->dev, s->dev->copy_stream);
  size_t n = s->n_ensure + s->n_destroy;
  for (size_t i = 0; i < n; i++) {
    if (s->safe) gm_vec_sync_lock(s->vecs[i], false);
    gm_vec_unref(s->vecs[i]);
  }
  free(s->vecs);
  *s = (gm_syncing){NULL, s->safe, 0, 0, NULL};
}
