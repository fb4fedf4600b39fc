/* The rules of MGL's shaping functions as users call them (gm.reshape,
 * gm.displace, their destructive forms, gm.reshape_to_row_matrix_,
 * gm.adjust_, gm.with_shape_and_displacement): a new shape must fit the
 * storage, a strided view cannot be shaped, and adjust_ reshapes in place
 * or makes a fresh mat.  Messages are the ones users see; the caller adds
 * the function's name (and the argument that made a shape not fit). */
#ifndef GM_CORE_SHAPING_H
#define GM_CORE_SHAPING_H

#include "mat.h"

/* dims at displacement d within m's storage: GM_EINVAL / GM_ERANGE. */
gm_status gm_shape_fits(const gm_mat *m, int rank, const size_t *dims, size_t d);
/* MGL's shaping places a row-major block at a displacement: a strided
 * view has no such block. */
gm_status gm_check_shapable(const gm_mat *m);
/* Which argument a failure of gm_shape_apply is about (*bad). */
enum { GM_SHAPE_BAD_MAT = 1, GM_SHAPE_BAD_SHAPE = 2 };
/* m with dims and displacement d: a new view in *view, or m itself
 * changed when in_place (view unused).  A strided m is refused (*bad
 * GM_SHAPE_BAD_MAT), as is a shape that does not fit the storage (*bad
 * GM_SHAPE_BAD_SHAPE: the caller names its dims or displacement). */
gm_status gm_shape_apply(gm_mat *m, int rank, const size_t *dims, size_t d, bool in_place, gm_mat **view, int *bad);
/* gm.reshape_to_row_matrix_(m, row): the 1xN dims and displacement that
 * keep only row `row` (1-based) of the 2-d m visible; *bad is 1 or 2. */
gm_status gm_row_matrix_args(const gm_mat *m, int64_t row, size_t dims[2], size_t *d, int *bad);
/* gm.adjust_(m, dims, d, {destroy_old}): m reshaped in place when its
 * storage is large enough (*fresh NULL), else *fresh is a new mat like m
 * (ctype, initial element, flags; contents not copied) and, when
 * destroy_old, m's facets are destroyed (refused while one is watched).
 * *bad is 2 when dims are invalid. */
gm_status gm_mat_adjust_(gm_mat *m, int rank, const size_t *dims, size_t d, bool destroy_old, gm_mat **fresh,
                         int *bad);

#endif
