/* Buffers: typed views (element type, dims, layout, byte offset) of one
 * reference-counted block in one memory space.  This is the model the Lua
 * buffers and the public C buffer API share: making, viewing (displace,
 * ensure), copying across spaces and layouts, element reads and writes.
 * Every function returns a gm_status and changes nothing on failure; a
 * GM_EINVAL failure is about the caller's arguments (the Lua binding
 * reports it as a bad argument), any other is about the buffers' state.
 *
 * Lifetime: a gm_buffer holds its block (gm_block_hold) until
 * gm_buffer_end.  An owning view's user-visible count is the block's
 * refcnt (gm_buffer_ref/deref); a non-owning view (ensure) has none.  A
 * view of a mat's facet also holds that facet through `owner`, so the
 * facet is not destroyed while the view lives. */
#ifndef GM_MEM_BUFFER_H
#define GM_MEM_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/ctype.h"
#include "block.h"

/* What holds a mat facet while a view of it lives (vec.c's facet
 * references); mem/ does not know vecs. */
typedef struct gm_buffer_owner {
  gm_status (*hold)(void *owner, int facet, struct gm_device *dev);
  void (*release)(void *owner, int facet);
} gm_buffer_owner;

struct gm_buffer {
  gm_block *blk; /* one hold; NULL once ended */
  gm_etype et;
  int rank;
  size_t dims[GM_MAX_RANK];
  size_t size;
  size_t offset;    /* bytes from the block's start (logical) */
  bool device_view; /* a mapped pinned block seen at its device address */
  bool owning;
  bool col_major;
  bool displaced;
  const gm_buffer_owner *owner_ops; /* a view of a mat's facet, else NULL */
  void *owner;
  int owner_facet;
};
typedef struct gm_buffer gm_buffer;

/* Memory types of views (gm_mem_type, include/gpumat.h): where a view's
 * elements are seen. */

/* What a maker allocates (zero-initialise; rank/dims/et required). */
typedef struct gm_buffer_spec {
  gm_etype et;
  int rank;
  size_t dims[GM_MAX_RANK];
  unsigned flags;        /* GM_PINNED_* for page-locked memory */
  size_t pitch_elt_size; /* device only: 0, or 4, 8, 16 for a pitched block */
  int pitch_level;       /* innermost dims per pitched row (1..rank) */
  const void *init;      /* one element to fill with, or NULL */
  bool col_major;
} gm_buffer_spec;

/* A new owning buffer in space (dev needed for all but GM_SPACE_HOST). */
gm_status gm_buffer_make(gm_space space, struct gm_device *dev, const gm_buffer_spec *s, gm_buffer *out);
/* Ends the view: releases a facet it holds and drops its block hold. */
void gm_buffer_end(gm_buffer *b);
/* GM_OK when the view's memory is there ("buffer released" or "memory
 * returned to an alloc cache" otherwise). */
gm_status gm_buffer_check(const gm_buffer *b);
/* "host", "pinned", "device", "managed" as seen through this view. */
const char *gm_buffer_mem_type_name(const gm_buffer *b);
/* Physical element index of row-major element k (col_major buffers store
 * columns first). */
size_t gm_buffer_phys_index(const gm_buffer *b, size_t k);

/* Reads/writes n elements from physical element index p, any space
 * (device memory with one counted copy). */
gm_status gm_buffer_read_at(gm_buffer *b, size_t p, size_t n, void *out);
gm_status gm_buffer_write_at(gm_buffer *b, size_t p, size_t n, const void *in);
/* Writes the element value to elements first..first+n-1 (0-based). */
gm_status gm_buffer_fill_range(gm_buffer *b, size_t first, size_t n, const void *value);

/* n elements from src (0-based si) to dst (di): same element type and
 * layout; the ranges must lie inside the views. */
gm_status gm_buffer_copy_elements(gm_buffer *dst, size_t di, gm_buffer *src, size_t si, size_t n);
/* The whole of src into dst (same element type and size; other layouts
 * need equal dims). */
gm_status gm_buffer_copy_whole(gm_buffer *dst, gm_buffer *src);
/* The whole of src into dst, converting element types (integers through
 * int64, reals through double; a value that does not fit is an error). */
gm_status gm_buffer_convert(gm_buffer *dst, gm_buffer *src);

/* Arguments of a displaced view (buffer_displace); zero-initialise. */
typedef struct gm_displace_args {
  size_t rel_bytes;   /* offset from b's own, in bytes */
  gm_etype et;        /* the view's element type */
  int rank;           /* 0: b's dims (or b's bytes as et elements) */
  size_t dims[GM_MAX_RANK];
  bool rest;          /* one dimension: the rest of the block */
  int mapping;        /* 0 as b, 1 the device address, 2 the host one */
} gm_displace_args;
gm_status gm_buffer_displace_view(const gm_buffer *b, const gm_displace_args *a, gm_buffer *out);

/* A view of b as memory type mt with element type et and layout col: b's
 * own memory when it needs no copy (non-owning), else a new owning copy
 * (dev: the device for non-host memory types). */
gm_status gm_buffer_ensure_view(const gm_buffer *b, gm_mem_type mt, struct gm_device *dev, gm_etype et, bool col,
                                gm_buffer *out);
/* Whether block b can be seen as memory type mt without a copy. */
bool gm_block_accessible_as(const gm_block *b, gm_mem_type mt);
gm_space gm_mem_type_space(gm_mem_type mt);

#endif
