/* Scoped access to several facets, all or none (see access.h). */
#include "access.h"

#include "context.h"
#include "status.h"

size_t gm_access_size(int cap) {
  return sizeof(gm_access) + (size_t)(cap > 0 ? cap : 0) * sizeof(gm_access_entry);
}

void gm_access_init(gm_access *a, int cap) {
  a->n = 0;
  a->cap = cap;
  a->n_watched = 0;
  a->released = false;
}

gm_status gm_access_device(gm_facet_name f, struct gm_device **dev) {
  *dev = NULL;
  if (f == GM_FACET_FOREIGN) return GM_OK;
  *dev = gm_current_device();
  if (!*dev)
    return gm_fail(GM_ESTATE, "facet '%s' needs an active cuda context (with_cuda)", gm_facet_name_str(f));
  return GM_OK;
}

gm_status gm_access_add(gm_access *a, const gm_mat *m, gm_facet_name f, gm_direction dir,
                        struct gm_device *dev) {
  if (a->n >= a->cap || a->n_watched > 0 || a->released)
    return gm_fail(GM_EINVAL, "gm_access_add: access is full or already watched");
  gm_access_entry *e = &a->e[a->n++];
  e->view = *m;
  gm_vec_ref(e->view.vec);
  e->facet = f;
  e->dir = dir;
  e->dev = dev;
  return GM_OK;
}

void gm_access_release(gm_access *a) {
  if (a->released) return;
  a->released = true;
  struct gm_device *synced = NULL;
  while (a->n_watched > 0) {
    gm_access_entry *e = &a->e[--a->n_watched];
    gm_mat_unwatch(&e->view, e->facet, e->dir);
    if (e->facet == GM_FACET_CUDA && e->dev && e->dev != synced) {
      (void)e->dev->ops->synchronize(e->dev); /* release path: a failure is sticky, reported next */
      synced = e->dev;
    }
  }
  for (int i = 0; i < a->n; i++) gm_vec_unref(a->e[i].view.vec);
}

/* Watches entry i: the pointer, then gpumat's queued work on it done. */
static gm_status watch_one(gm_access *a, int i, void **ptr) {
  gm_access_entry *e = &a->e[i];
  GM_TRY(gm_mat_watch(&e->view, e->facet, e->dir, e->dev, ptr));
  a->n_watched++;
  if (e->facet == GM_FACET_CUDA && e->dev) GM_TRY(e->dev->ops->stream_sync(e->dev, NULL));
  return GM_OK;
}

gm_status gm_access_watch_all(gm_access *a, void **ptrs) {
  if (a->released || a->n_watched > 0)
    return gm_fail(GM_EINVAL, "gm_access_watch_all: access already watched or released");
  for (int i = 0; i < a->n; i++) {
    gm_status st = watch_one(a, i, &ptrs[i]);
    if (st != GM_OK) {
      gm_access_release(a);
      return st;
    }
  }
  return GM_OK;
}
