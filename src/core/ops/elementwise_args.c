#include "elementwise_args.h"

gm_status gm_ew_same_ctype(const char *an, const gm_mat *a, const char *bn, const gm_mat *b) {
  if (a->ctype != b->ctype)
    return gm_fail(GM_EINVAL, "mixed ctypes: %s is %s, %s is %s", an, gm_ctype_name(a->ctype), bn,
                   gm_ctype_name(b->ctype));
  return GM_OK;
}

gm_status gm_ew_same_size(const char *an, const gm_mat *a, const char *bn, const gm_mat *b) {
  GM_TRY(gm_ew_same_ctype(an, a, bn, b));
  if (a->size != b->size) return gm_fail(GM_EINVAL, "%s has %zu elements but %s has %zu", bn, b->size, an, a->size);
  return GM_OK;
}

gm_status gm_ew_2d(const char *name, const gm_mat *m) {
  if (m->rank != 2) return gm_fail(GM_EINVAL, "%s must be 2-dimensional, got rank %d", name, m->rank);
  return GM_OK;
}

gm_status gm_ew_count(size_t n, const gm_mat *x) {
  if (n > x->size) return gm_fail(GM_EINVAL, "n (%zu) exceeds the size of x (%zu)", n, x->size);
  return GM_OK;
}

/* Records pos as the bad argument of a failed check. */
static gm_status bad_at(int *bad, int pos, gm_status st) {
  if (st != GM_OK) *bad = pos;
  return st;
}

gm_status gm_geem_args(const gm_mat *a, const gm_mat *b, const gm_mat *c, int *bad) {
  GM_TRY(bad_at(bad, 3, gm_ew_same_size("a", a, "b", b)));
  return bad_at(bad, 5, gm_ew_same_size("a", a, "c", c));
}

gm_status gm_geerv_args(const gm_mat *a, const gm_mat *x, const gm_mat *b, int *bad) {
  GM_TRY(bad_at(bad, 2, gm_ew_2d("a", a)));
  GM_TRY(bad_at(bad, 3, gm_ew_same_ctype("a", a, "x", x)));
  GM_TRY(bad_at(bad, 5, gm_ew_same_ctype("a", a, "b", b)));
  if (x->size != a->dims[1])
    return bad_at(bad, 3, gm_fail(GM_EINVAL, "x has %zu elements but a has %zu columns", x->size, a->dims[1]));
  if (b->rank != 2 || b->dims[0] != a->dims[0] || b->dims[1] != a->dims[1])
    return bad_at(bad, 5, gm_fail(GM_EINVAL, "b must have the dimensions of a (%zux%zu)", a->dims[0], a->dims[1]));
  return GM_OK;
}

gm_status gm_sum_args(const gm_mat *x, const gm_mat *y, int64_t axis, int *bad) {
  GM_TRY(bad_at(bad, 1, gm_ew_2d("x", x)));
  if (axis != 1 && axis != 2)
    return bad_at(bad, 3, gm_fail(GM_EINVAL, "axis %lld is out of range 1..2", (long long)axis));
  GM_TRY(bad_at(bad, 2, gm_ew_same_ctype("x", x, "y", y)));
  size_t want = axis == 1 ? x->dims[1] : x->dims[0];
  if (y->size != want)
    return bad_at(bad, 2, gm_fail(GM_EINVAL, "y has %zu elements but summing along axis %lld gives %zu", y->size,
                                  (long long)axis, want));
  return GM_OK;
}

gm_status gm_scale_args(const gm_mat *scales, const gm_mat *a, bool rows, int *bad) {
  GM_TRY(bad_at(bad, 2, gm_ew_2d("a", a)));
  GM_TRY(bad_at(bad, 2, gm_ew_same_ctype("scales", scales, "a", a)));
  size_t want = rows ? a->dims[0] : a->dims[1];
  if (scales->size != want)
    return bad_at(bad, 1, gm_fail(GM_EINVAL, "scales has %zu elements but a has %zu %s", scales->size, want,
                                  rows ? "rows" : "columns"));
  return GM_OK;
}

gm_status gm_scale_result(const gm_mat *a, const gm_mat *result) {
  GM_TRY(gm_ew_same_ctype("a", a, "result", result));
  if (result->rank != 2 || result->dims[0] != a->dims[0] || result->dims[1] != a->dims[1])
    return gm_fail(GM_EINVAL, "result must have the dimensions of a (%zux%zu)", a->dims[0], a->dims[1]);
  return GM_OK;
}
