/* Reading a mat's contents for printing without touching its facets.
 *
 * Printing must never create facets, change up-to-date bits or watcher
 * counts (API.md "tostring"), so it cannot go through gm_mat_watch.  These
 * functions look at the facet metadata and read whichever copy is up to
 * date: host memory directly, or device memory copied into a caller-owned
 * buffer with the device's copy function (counted like any copy, nothing
 * marked).  Unsynchronized with concurrent writers by design: it is a
 * debugging view. */
#ifndef GM_CORE_PEEK_H
#define GM_CORE_PEEK_H

#include "../model/mat.h"

typedef enum gm_peek_source {
  GM_PEEK_HOST = 0,   /* host memory holds the data: gm_mat_peek_host() */
  GM_PEEK_DEVICE,     /* only the device copy is current: gm_mat_peek_device() */
  GM_PEEK_INITIAL,    /* no facet yet: every element is the initial element */
  GM_PEEK_NONE        /* no facet and no initial element: uninitialised */
} gm_peek_source;

gm_peek_source gm_mat_peek_source(gm_mat *m);
/* The lowest storage element a visible one has (gm_mat_lowest) in host
 * memory (source GM_PEEK_HOST); the first visible element is
 * gm_peek_first(m) after it, the others at m->strides from that. */
const void *gm_mat_peek_host(gm_mat *m);
/* Index of the first visible element in what gm_mat_peek_host and
 * gm_mat_peek_device give (0 unless an axis steps backwards). */
size_t gm_peek_first(const gm_mat *m);
/* Copies the storage the visible elements span (gm_mat_extent elements
 * from the lowest; a strided view's elements keep their strides) from the
 * device facet into buf (source GM_PEEK_DEVICE). */
gm_status gm_mat_peek_device(gm_mat *m, void *buf);

#endif
