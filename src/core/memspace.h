/* Where mats and buffers meet: a buffer that is a view of a mat's facet
 * (ensure), an owning buffer copy of a mat's elements, and a mat over a
 * buffer's block (mat_from_buffer).  Both directions share one block, so
 * there is one allocator and one notion of memory under both. */
#ifndef GM_CORE_MEMSPACE_H
#define GM_CORE_MEMSPACE_H

#include "mat.h"
#include "mem/buffer.h"

/* A view of m as memory type mt (dev: the current device, or NULL).  With
 * m's own element type, row-major layout and a usable facet: that facet,
 * brought up to date as with_facet (direction dir) would, and held while
 * the view lives (non-owning).  Otherwise an owning copy of m's elements
 * converted to et in layout col. */
gm_status gm_mat_ensure_view(gm_mat *m, gm_mem_type mt, struct gm_device *dev, gm_etype et, bool col,
                             gm_direction dir, gm_buffer *out);

/* A new mat of rank dims at element displacement disp over b's block (a
 * float or double row-major buffer); o gives the options that do not
 * follow from b (cuda_enabled, synchronization).  On GM_EINVAL *bad says
 * what is at fault: 1 the buffer, 2 the dims or displacement. */
gm_status gm_mat_over_buffer(const gm_buffer *b, int rank, const size_t *dims, size_t disp, const gm_mat_options *o,
                             gm_mat **out, int *bad);

#endif
