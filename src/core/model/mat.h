/* mat: a view (dims, strides, displacement, ctype) on a reference-counted
 * vec.  Functional shaping makes a new mat on the same vec; destructive
 * shaping changes the view.  All rules of MGL-MAT §5 and §8 are enforced
 * here.  Every mat the makers and MGL shaping produce is contiguous
 * row-major; strided views (narrow, select, permute, expand, subscripts)
 * are made in view.c. */
#ifndef GM_CORE_MAT_H
#define GM_CORE_MAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vec.h"

struct gm_mat {
  gm_vec *vec;
  gm_ctype ctype;
  int rank;
  size_t dims[GM_MAX_RANK];
  /* elements between neighbours along each axis (never negative; 0 for an
   * expanded axis); row-major for the dims unless the mat is a view */
  int64_t strides[GM_MAX_RANK];
  size_t displacement; /* storage index of the first visible element */
  size_t size;         /* product of dims */
  /* the visible elements are displacement .. displacement+size-1 in
   * row-major order: every path written before strides existed holds */
  bool contiguous;
  bool cuda_enabled;
};

static inline bool gm_mat_is_contiguous(const gm_mat *m) { return m->contiguous; }

/* Whether a and b have the same rank and dims.  A loop, not memcmp: its
 * call for one or two dims was 5 % of a 1K-element op that asks twice. */
static inline bool gm_mat_same_dims(const gm_mat *a, const gm_mat *b) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* Sets row-major strides for m's dims and marks it contiguous. */
void gm_mat_set_row_major_strides(gm_mat *m);

/* Product of dims with overflow check (GM_ERANGE). */
/* Product of dims (elements); GM_ERANGE when it (or, for a zero-element
 * mat, the product of the other dimensions, limit GM_MAX_EMPTY_EXTENT)
 * is too large. */
#define GM_MAX_EMPTY_EXTENT ((size_t)1 << 20)
gm_status gm_dims_size(int rank, const size_t *dims, size_t *size);
/* Validates rank, dims, displacement + size <= max_size. */
gm_status gm_check_shape(int rank, const size_t *dims, size_t displacement, size_t max_size);

/* Destructive shaping; fails with GM_ESTATE while a facet of the storage is
 * watched (the identity of facet values would not be stable). */
gm_status gm_mat_reshape_and_displace_(gm_mat *m, int rank, const size_t *dims, size_t displacement);

/* Whether m sees all of its storage (OUTPUT stays OUTPUT only then). */
bool gm_mat_covers_all(const gm_mat *m);

/* Facet access for a view: like gm_vec_watch, but *ptr points at the
 * first visible element (base + displacement). */
gm_status gm_mat_watch(gm_mat *m, gm_facet_name f, gm_direction dir, struct gm_device *dev, void **ptr);
/* A non-contiguous view fails (its elements are not one block); the
 * strided variant gives the first visible element of any view (for the
 * code that walks its strides: staging, element access). */
gm_status gm_mat_watch_strided(gm_mat *m, gm_facet_name f, gm_direction dir, struct gm_device *dev, void **ptr);
void gm_mat_unwatch(gm_mat *m, gm_facet_name f, gm_direction dir);

/* Row-major index of 0-based subscripts; GM_ERANGE when out of bounds. */
gm_status gm_mat_row_major_index(const gm_mat *m, int n, const size_t *subs, size_t *out);

/* Bulk host copies of the visible elements as doubles (through FOREIGN). */
gm_status gm_mat_read_doubles(gm_mat *m, double *out);
/* gm_mat_get/put (include/gpumat.h) with the element's exact value
 * (ctype.h gm_value): integers and bool without a double on the way;
 * writes convert as astype does. */
gm_status gm_mat_get_value(gm_mat *m, size_t k, gm_value *out);
gm_status gm_mat_put_value(gm_mat *m, size_t k, gm_value v);
/* gm_mat_read_doubles with exact values (m:to_table of integer mats). */
gm_status gm_mat_read_values(gm_mat *m, gm_value *out);
/* gm_mat_write_doubles with exact values, converted as astype does. */
gm_status gm_mat_write_values(gm_mat *m, const gm_value *in);
/* dst := src converted to dst's ctype (same size, row-major order):
 * NumPy's astype with the array standard's defined edge cases (integers
 * wrap, float -> integer saturates with NaN -> 0, -> bool is != 0).  On
 * the host facets (a device mat's data is copied there and back). */
gm_status gm_mat_astype(gm_mat *src, gm_mat *dst);
gm_status gm_mat_write_doubles(gm_mat *m, const double *in);

/* ---- construction rules of the makers (mat_make.c) ----
 * On GM_EINVAL *bad says what is at fault: 1 the dims, 2 an option. */

/* Options given with displaced_to that a displaced mat cannot take (the
 * storage, its contents and synchronization are displaced_to's). */
enum { GM_MAKE_INITIAL = 1u, GM_MAKE_STORAGE = 2u, GM_MAKE_SYNC = 4u };
gm_status gm_mat_displaced_conflicts(unsigned given);
/* A mat of dims on base's storage at displacement rel (negative allowed)
 * from base's own; the whole mat must lie inside the storage. */
gm_status gm_mat_new_displaced(const gm_mat *base, int rank, const size_t *dims, long long rel, gm_mat **out,
                               int *bad);
/* gm_mat_new with the sizes checked first (displacement and max_size
 * within the storage limit, max_size >= displacement + size); pinned or
 * mapped: a staging mat, its host memory page-locked (mapped: also seen
 * by the device) and made now when a device is active. */
gm_status gm_mat_make(int rank, const size_t *dims, const gm_mat_options *o, bool pinned, bool mapped, gm_mat **out,
                      int *bad);
/* n 1-based subscripts -> 0-based row-major index; on failure *bad is the
 * subscript at fault (0-based), -1 for a wrong count. */
gm_status gm_mat_subscripts_index(const gm_mat *m, int n, const long long *subs, size_t *k, int *bad);

/* One entry of nested contents (lists of lists of numbers or mats) that
 * must be rectangular with dims (rank levels), at depth (0-based): a
 * list of len entries (is_list), a leaf (a number or a mat), or another
 * value whose type is named type.  Lists are expected above depth rank,
 * leaves at it (ragged input would otherwise pass when its element count
 * happens to match). */
gm_status gm_nested_entry_check(int depth, int rank, const size_t *dims, bool is_list, bool is_leaf, const char *type,
                                long long len);

#endif
