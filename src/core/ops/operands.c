#include "operands.h"

#include "blas.h"
#include "elementwise.h"
#include "../exec/exec.h"
#include "../exec/stage.h"
#include "../model/view.h"

gm_status gm_result_new(int rank, const size_t *dims, gm_ctype t, bool cuda_enabled, gm_sync sync, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.has_initial_element = 1;
  o.cuda_enabled = cuda_enabled;
  o.synchronization = sync;
  return gm_mat_new(rank, dims, &o, out);
}

gm_status gm_check_2d(const gm_mat *a) {
  if (a->rank != 2) return gm_fail(GM_EINVAL, "matrix must be 2-dimensional, has rank %d", a->rank);
  return GM_OK;
}

gm_status gm_check_square(const gm_mat *a) {
  GM_TRY(gm_check_2d(a));
  if (a->dims[0] != a->dims[1]) return gm_fail(GM_EINVAL, "matrix must be square, is %zux%zu", a->dims[0], a->dims[1]);
  return GM_OK;
}

gm_status gm_check_one_ctype(const gm_mat *a, const gm_mat *b) {
  if (a->ctype != b->ctype)
    return gm_fail(GM_EINVAL, "mixed ctypes %s and %s", gm_ctype_name(a->ctype), gm_ctype_name(b->ctype));
  return GM_OK;
}

gm_status gm_check_same_size(const gm_mat *a, const gm_mat *b) {
  GM_TRY(gm_check_one_ctype(a, b));
  if (a->size != b->size) return gm_fail(GM_EINVAL, "sizes differ: %zu vs %zu", a->size, b->size);
  return GM_OK;
}

gm_status gm_index_arg(int64_t i, size_t n, const char *what, size_t *out) {
  if (i < 1 || (uint64_t)i > n) return gm_fail(GM_EINVAL, "%s %lld is out of range 1..%zu", what, (long long)i, n);
  *out = (size_t)(i - 1);
  return GM_OK;
}

gm_status gm_check_out_like(const gm_mat *x, const gm_mat *y) {
  if (y->ctype != x->ctype)
    return gm_fail(GM_EINVAL, "option 'out' is %s but x is %s", gm_ctype_name(y->ctype), gm_ctype_name(x->ctype));
  bool same = y->rank == x->rank;
  for (int i = 0; same && i < x->rank; i++) same = y->dims[i] == x->dims[i];
  if (!same) { /* formatted only on failure: snprintf was a fifth of a 1K out= call */
    char xd[GM_MAX_RANK * 24], yd[GM_MAX_RANK * 24];
    gm_dims_text(x->rank, x->dims, xd, sizeof xd);
    gm_dims_text(y->rank, y->dims, yd, sizeof yd);
    return gm_fail(GM_EINVAL, "option 'out' has dims %s but x has %s", yd, xd);
  }
  if (y != x && gm_mats_overlap(x, y)) return gm_fail(GM_EINVAL, "option 'out' shares storage with x");
  return GM_OK;
}

/* Records pos as the bad argument of a failed check. */
static gm_status bad_at(int *bad, int pos, gm_status st) {
  if (st != GM_OK) *bad = pos;
  return st;
}

gm_status gm_mmul_dims(const gm_mat *a, const gm_mat *b, bool ta, bool tb, size_t dims[2], int *bad) {
  GM_TRY(bad_at(bad, 1, gm_check_2d(a)));
  GM_TRY(bad_at(bad, 2, gm_check_2d(b)));
  GM_TRY(bad_at(bad, 2, gm_check_one_ctype(a, b)));
  size_t k = a->dims[ta ? 0 : 1], bk = b->dims[tb ? 1 : 0];
  if (k != bk) return bad_at(bad, 2, gm_fail(GM_EINVAL, "inner dimensions differ: %zu vs %zu", k, bk));
  dims[0] = a->dims[ta ? 1 : 0];
  dims[1] = b->dims[tb ? 0 : 1];
  return GM_OK;
}

gm_status gm_matmul_dims(const gm_mat *a, const gm_mat *b, int *rank, size_t dims[2], int *bad) {
  GM_TRY(bad_at(bad, 1, gm_check_2d(a)));
  if (b->rank != 1) GM_TRY(bad_at(bad, 2, gm_check_2d(b)));
  GM_TRY(bad_at(bad, 2, gm_check_one_ctype(a, b)));
  if (a->dims[1] != b->dims[0])
    return bad_at(bad, 2, gm_fail(GM_EINVAL, "inner dimensions differ: %zu vs %zu", a->dims[1], b->dims[0]));
  *rank = b->rank;
  dims[0] = a->dims[0];
  dims[1] = b->rank == 2 ? b->dims[1] : 1;
  return GM_OK;
}

gm_status gm_matmul(gm_mat *a, gm_mat *b, gm_mat *c) {
  gm_gemm_args g = {false, false, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET};
  if (b->rank == 2) return gm_gemm_(1, a, b, 0, c, g);
  size_t bd[2] = {b->dims[0], 1}, cd[2] = {c->dims[0], 1};
  gm_mat *bv = NULL, *cv = NULL, *copy = NULL;
  if (b->size > 1 && b->strides[0] < 0) { /* a backward vector: its elements lie below the displacement */
    GM_TRY(gm_mat_contiguous_copy(b, &copy));
    b = copy;
  }
  gm_status st = gm_mat_view(b, 2, bd, b->displacement, &bv);
  if (st == GM_OK) { /* b may be a strided view: keep its step */
    bv->strides[0] = b->strides[0];
    bv->strides[1] = 1;
    bv->contiguous = b->contiguous;
    st = gm_mat_view(c, 2, cd, c->displacement, &cv);
  }
  if (st == GM_OK) st = gm_gemm_(1, a, bv, 0, cv, g);
  gm_mat_free(bv);
  gm_mat_free(cv);
  gm_mat_free(copy);
  return st;
}

/* A row is one block of a's row-major elements; a column is one element
 * per row, a->dims[1] apart. */
gm_status gm_copy_line(gm_mat *a, size_t i, bool column, gm_mat *b) {
  size_t cols = a->dims[1];
  gm_submat none = {NULL, 0, 1, false};
  if (!column) {
    gm_submat src = {a, i * cols, cols, false}, dst = {b, 0, cols, false};
    return gm_geam_(1, src, 0, none, dst, 1, cols);
  }
  gm_submat src = {a, i, cols, false}, dst = {b, 0, 1, false};
  return gm_geam_(1, src, 0, none, dst, a->dims[0], 1);
}

/* geam reads a as its transpose: a's rows are t's columns. */
gm_status gm_transpose_into(gm_mat *a, gm_mat *t) {
  gm_submat src = {a, 0, a->dims[1], true}, dst = {t, 0, t->dims[1], false}, none = {NULL, 0, 1, false};
  return gm_geam_(1, src, 0, none, dst, t->dims[0], t->dims[1]);
}

/* Every operand as one row of its n elements. */
gm_status gm_add_into(double alpha, gm_mat *a, double beta, gm_mat *b, gm_mat *c) {
  size_t n = a->size;
  gm_submat ba = {a, 0, n, false}, bb = {b, 0, n, false}, bc = {c, 0, n, false};
  return gm_geam_(alpha, ba, beta, bb, bc, 1, n);
}
