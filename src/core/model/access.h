/* Scoped access to several facets at once (with_facet/with_facets of
 * MGL-MAT §18): the entries (a view, a facet, a direction, a device) are
 * collected first, then watched all or none, then released in reverse
 * order with the syncs that order the caller's raw-pointer work against
 * gpumat's.
 *
 * A cuda pointer handed to C code: gpumat's compute stream is
 * non-blocking, so it does not order itself against kernels the caller
 * launches on the legacy default stream.  Watching waits for gpumat's
 * queued work on the buffer (compute stream sync); releasing waits for the
 * caller's work (device sync), so gpumat's next kernels see its results.
 * Callers that launch on the device's compute stream get the ordering for
 * free; the syncs are then cheap. */
#ifndef GM_CORE_ACCESS_H
#define GM_CORE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "mat.h"

struct gm_device;

/* The most entries one access takes. */
#define GM_ACCESS_MAX 64

typedef struct gm_access_entry {
  gm_mat view; /* copy of the view at add time; view.vec referenced */
  gm_facet_name facet;
  gm_direction dir;
  struct gm_device *dev;
} gm_access_entry;

/* Caller-owned storage (a Lua userdata, a C local) of gm_access_size(cap)
 * bytes, set up by gm_access_init. */
typedef struct gm_access {
  int n, cap;    /* entries (each holds a vec reference until released) */
  int n_watched; /* entries 0..n_watched-1 are being watched */
  bool released;
  gm_access_entry e[];
} gm_access;

size_t gm_access_size(int cap);
void gm_access_init(gm_access *a, int cap);
/* The device facet f needs: the current context's for cuda and
 * cuda_host, none (NULL) for foreign.  GM_ESTATE when f needs one and no
 * cuda context is active. */
gm_status gm_access_device(gm_facet_name f, struct gm_device **dev);
/* Adds an entry: copies m's view and references its vec, so the entry
 * outlives m.  GM_EINVAL when a already holds cap entries or was
 * watched. */
gm_status gm_access_add(gm_access *a, const gm_mat *m, gm_facet_name f, gm_direction dir,
                        struct gm_device *dev);
/* Watches every entry in order and stores entry i's pointer in ptrs[i].
 * All or none: when one fails, the ones already watched are released
 * (gm_access_release) and its status returned. */
gm_status gm_access_watch_all(gm_access *a, void **ptrs);
/* Unwatches the watched entries, last first (a cuda entry's device
 * synchronized once), and drops the vec references.  Idempotent. */
void gm_access_release(gm_access *a);

#endif
