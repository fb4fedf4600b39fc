/* Where mats and buffers meet: a buffer that is a view of a mat's facet
 * (ensure), an owning buffer copy of a mat's elements, and a mat over a
 * buffer's block (mat_from_buffer).  Both directions share one block, so
 * there is one allocator and one notion of memory under both. */
#ifndef GM_CORE_MEMSPACE_H
#define GM_CORE_MEMSPACE_H

#include "../model/mat.h"
#include "buffer.h"

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

/* The options of ensure, as the names given (NULL: absent; a value that
 * is no string is given as its type's name, which no option accepts):
 * ctype, element_type (one of the two: the view's element type), layout
 * ("row_major" default, "col_major"), direction ("input" default, "io"). */
typedef struct gm_ensure_options {
  bool has_et;
  gm_etype et;
  bool col_major;
  gm_direction dir;
} gm_ensure_options;
enum { GM_ENSURE_CTYPE, GM_ENSURE_ELEMENT_TYPE, GM_ENSURE_LAYOUT, GM_ENSURE_DIRECTION, GM_N_ENSURE_OPTIONS };
gm_status gm_ensure_options_parse(const char *const given[GM_N_ENSURE_OPTIONS], gm_ensure_options *out);

/* The ctype of a mat over b: b's element type, float or double (else
 * *bad 1); want (NULL: not given) must name it (else *bad 2). */
gm_status gm_mat_buffer_ctype(const gm_buffer *b, const char *want, gm_ctype *out, int *bad);

#endif
