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
gm_status gm_mat_write_doubles(gm_mat *m, const double *in);

#endif
