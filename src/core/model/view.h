/* Strided views: new mats on the same storage whose elements are not one
 * row-major block (narrow, select, subscripts with steps, permute, expand,
 * view/reshape with new dims).  Axes and indices here are 0-based; the
 * Lua binding converts.  Every function checks its arguments, names the
 * op and the shapes in its message and changes nothing on failure. */
#ifndef GM_CORE_VIEW_H
#define GM_CORE_VIEW_H

#include "mat.h"

/* Storage elements the visible elements span, from the lowest to the
 * highest (0 for an empty mat; m->size for a contiguous one). */
size_t gm_mat_extent(const gm_mat *m);
/* The lowest storage index a visible element has: m->displacement unless
 * an axis steps backwards (a negative stride, m[{{-1, 1, -1}}]). */
size_t gm_mat_lowest(const gm_mat *m);
/* Whether two visible elements of m share a storage element (a size-1
 * stretched axis of an expanded view); such a mat cannot be written. */
bool gm_mat_self_overlaps(const gm_mat *m);
/* Recomputes m->contiguous from dims and strides. */
void gm_mat_update_contiguous(gm_mat *m);
/* Storage index of the k-th visible element in row-major order. */
size_t gm_mat_storage_index_slow(const gm_mat *m, size_t k);
static inline size_t gm_mat_storage_index(const gm_mat *m, size_t k) {
  return m->contiguous ? m->displacement + k : gm_mat_storage_index_slow(m, k);
}
/* "2x3" into buf (rank 0: "scalar"); strides as "{3, 1}". */
void gm_dims_text(int rank, const size_t *dims, char *buf, size_t n);
void gm_strides_text(const gm_mat *m, char *buf, size_t n);
/* m's dims as text in a buffer that lives as long as the enclosing block,
 * for error paths: messages format the dims only when they fail (snprintf
 * was a sixth of a small slice assignment when every call formatted). */
#define GM_DIMS_TEXT_MAX 160
static inline const char *gm_dims_text_to(int rank, const size_t *dims, char *buf) {
  gm_dims_text(rank, dims, buf, GM_DIMS_TEXT_MAX);
  return buf;
}
#define GM_DIMS_TEXT(rank, dims) gm_dims_text_to((rank), (dims), (char[GM_DIMS_TEXT_MAX]){0})
#define GM_DIMS_OF(m) GM_DIMS_TEXT((m)->rank, (m)->dims)

/* GM_EINVAL naming op when m's elements overlap (writing is refused). */
gm_status gm_check_writable(const char *op, const gm_mat *m);

/* One subscript of gm_view_index: one index (select, the axis goes
 * away), count elements first, first+step, ... (step may be negative:
 * the view walks backwards), or a new size-1 axis (newaxis: consumes no
 * axis of m). */
typedef struct gm_view_sub {
  bool select, newaxis;
  size_t first, count;
  int64_t step;
} gm_view_sub;

/* A copy of m's view (same dims, strides, displacement) as a new mat. */
gm_status gm_view_clone(const gm_mat *m, gm_mat **out);
/* subs[0..n-1] for the leading axes (a newaxis sub takes none), the
 * others whole. */
gm_status gm_view_index(const gm_mat *m, int n, const gm_view_sub *subs, gm_mat **out);
gm_status gm_view_narrow(const gm_mat *m, int axis, size_t first, size_t count, gm_mat **out);
gm_status gm_view_select(const gm_mat *m, int axis, size_t i, gm_mat **out);
/* perm[i] is the old axis that becomes axis i (a permutation of 0..rank-1). */
gm_status gm_view_permute(const gm_mat *m, int rank, const int *perm, gm_mat **out);
/* Size-1 axes (and missing leading ones) stretched with stride 0. */
gm_status gm_view_expand(const gm_mat *m, int rank, const size_t *dims, gm_mat **out);
/* New dims on the same elements (same count): contiguous mats always,
 * others when the dims split or merge axes whose strides allow it
 * (GM_ESTATE otherwise). */
gm_status gm_view_dims(const gm_mat *m, int rank, const size_t *dims, gm_mat **out);
/* The strides dims would have on m's elements; false when not viewable. */
bool gm_view_strides_for(const gm_mat *m, int rank, const size_t *dims, int64_t *strides);

/* x's axes as a permutation of a contiguous block (a:t(), permute): *base
 * is that block in storage order (a new contiguous view) and *base_axis
 * where x's `axis` lies in it.  Unless any_order, the axes other than
 * `axis` must keep their order (so a reduction's result has x's layout).
 * False for every other view (gaps, steps, expanded axes). */
bool gm_view_permuted_block(const gm_mat *x, int axis, bool any_order, gm_mat **base, int *base_axis);

#endif
