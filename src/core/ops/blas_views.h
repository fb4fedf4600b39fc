/* gemm on strided 2-d views without staging: a view whose rows (or,
 * transposed, columns) are rows of a row-major block with a larger
 * leading dimension is handed to gemm in place, with that leading
 * dimension and the transpose flag flipped as needed.  Other views are
 * staged by gm_acquire (core/exec/stage.h). */
#ifndef GM_CORE_BLAS_VIEWS_H
#define GM_CORE_BLAS_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/mat.h"

typedef struct gm_gemm_view {
  gm_mat alias; /* a contiguous 1-d stand-in spanning the block, for gm_acquire */
  size_t rows, cols, ld; /* the stored block */
  bool trans;   /* the view is the stored block transposed */
} gm_gemm_view;

/* Whether m (2-d, not contiguous) can be read by gemm in place; fills *v.
 * allow_trans: a transposed block qualifies (not for the written c). */
bool gm_gemm_view_of(const gm_mat *m, bool allow_trans, gm_gemm_view *v);
/* Whether the stored blocks of two views of one storage share an element. */
bool gm_gemm_views_overlap(const gm_gemm_view *a, const gm_gemm_view *b);

#endif
