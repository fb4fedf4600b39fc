#include "blas_views.h"

#include <limits.h>

#include "../model/view.h"

/* Stored rows x cols with leading dimension ld (ld >= cols). */
static void set_block(const gm_mat *m, size_t rows, size_t cols, size_t ld, bool trans, gm_gemm_view *v) {
  v->alias = *m;
  v->alias.rank = 1;
  v->alias.dims[0] = (rows - 1) * ld + cols;
  v->alias.strides[0] = 1;
  v->alias.size = v->alias.dims[0];
  v->alias.contiguous = true;
  v->rows = rows;
  v->cols = cols;
  v->ld = ld;
  v->trans = trans;
}

bool gm_gemm_view_of(const gm_mat *m, bool allow_trans, gm_gemm_view *v) {
  if (m->contiguous || m->rank != 2 || m->size == 0 || gm_mat_self_overlaps(m)) return false;
  size_t r = m->dims[0], c = m->dims[1];
  size_t s0 = (size_t)m->strides[0], s1 = (size_t)m->strides[1];
  if ((c == 1 || s1 == 1) && r > 1 && s0 >= c && s0 <= INT_MAX) {
    set_block(m, r, c, s0, false, v);
    return true;
  }
  if (allow_trans && (r == 1 || s0 == 1) && c > 1 && s1 >= r && s1 <= INT_MAX) {
    set_block(m, c, r, s1, true, v);
    return true;
  }
  return false;
}

/* Row i of a block starts at d + i * ld and spans cols elements: for each
 * row of a, the first row of b ending after its start. */
bool gm_gemm_views_overlap(const gm_gemm_view *a, const gm_gemm_view *b) {
  if (a->alias.vec != b->alias.vec) return false;
  size_t s2 = b->alias.displacement;
  for (size_t i = 0; i < a->rows; i++) {
    size_t x = a->alias.displacement + i * a->ld, y = x + a->cols;
    size_t j = x < s2 + b->cols ? 0 : (x - s2 - b->cols) / b->ld + 1;
    if (j < b->rows && s2 + j * b->ld < y) return true;
  }
  return false;
}
