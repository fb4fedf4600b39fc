/* The array surface's argument rules in the core (src/core/ops/view_args.c,
 * shaping.c, operands.c, elementwise_args.c, the argument functions of
 * reduce_axis.c and broadcast.c): the resolved values for concrete
 * inputs (1-based and negative indices, ranges with steps, -1 dims,
 * permutations, result dims), and for bad input the status, the message
 * Lua shows after "bad argument #N to 'f' (" and the argument N.  Also
 * the constructors' arithmetic sequences (sequence.c). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/ops/broadcast.h"
#include "core/ops/elementwise_args.h"
#include "core/ops/operands.h"
#include "core/ops/reduce_axis.h"
#include "core/ops/sequence.h"
#include "core/model/shaping.h"
#include "core/ops/view_args.h"
#include "gpumat.h"

/* st failed with GM_EINVAL and exactly the message msg. */
#define CHECK_FAIL(st, msg)                                  \
  do {                                                       \
    gm_status st_ = (st);                                    \
    CHECK(st_ == GM_EINVAL);                                 \
    CHECK(strcmp(gm_last_error(), (msg)) == 0);              \
    if (st_ != GM_EINVAL || strcmp(gm_last_error(), (msg))) \
      fprintf(stderr, "  got: %s\n", gm_last_error());      \
  } while (0)

/* A rank-r double mat (float when single) holding 0, 1, 2, ... */
static gm_mat *iota(int rank, const size_t *dims, bool single) {
  gm_mat_options o = {0};
  o.ctype = single ? GM_CTYPE_FLOAT : GM_CTYPE_DOUBLE;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(rank, dims, &o, &m) == GM_OK);
  for (size_t k = 0; m && k < m->size; k++) CHECK(gm_mat_put(m, k, (double)k) == GM_OK);
  return m;
}

static double get(gm_mat *m, size_t k) {
  double v = -1;
  CHECK(gm_mat_get(m, k, &v) == GM_OK);
  return v;
}

static void test_narrow_select(void) {
  size_t d[2] = {2, 3};
  gm_mat *m = iota(2, d, false), *v = NULL;
  int bad = 0;
  CHECK(gm_view_narrow_args(m, 2, 2, 2, &v, &bad) == GM_OK && bad == 0);
  CHECK(v->rank == 2 && v->dims[0] == 2 && v->dims[1] == 2 && v->displacement == 1 && v->strides[0] == 3);
  CHECK(get(v, 3) == 5);
  gm_mat_free(v);
  CHECK_FAIL(gm_view_narrow_args(m, 3, 1, 1, &v, &bad), "axis 3 is out of range 1..2 of a 2x3 mat");
  CHECK(bad == 2);
  CHECK_FAIL(gm_view_narrow_args(m, 2, 5, 0, &v, &bad), "first 5 is out of range 1..3 on axis 2 of a 2x3 mat");
  CHECK(bad == 3);
  CHECK_FAIL(gm_view_narrow_args(m, 2, 2, 3, &v, &bad), "n 3 is out of range 0..2 (from 2 on axis 2 of a 2x3 mat)");
  CHECK(bad == 4);
  bad = 0;
  CHECK(gm_view_select_args(m, 1, -1, &v, &bad) == GM_OK && bad == 0); /* the last row */
  CHECK(v->rank == 1 && v->dims[0] == 3 && v->displacement == 3 && get(v, 0) == 3);
  gm_mat_free(v);
  CHECK(gm_view_select_args(m, 2, -3, &v, &bad) == GM_OK && v->displacement == 0 && v->strides[0] == 3);
  gm_mat_free(v);
  CHECK_FAIL(gm_view_select_args(m, 1, -3, &v, &bad), "index -3 is out of range 1..2 on axis 1 of a 2x3 mat");
  CHECK(bad == 3);
  bad = 0;
  CHECK(gm_view_t_args(m, &v, &bad) == GM_OK && v->dims[0] == 3 && v->strides[0] == 1 && get(v, 1) == 3);
  gm_mat_free(v);
  gm_mat *row = NULL;
  CHECK(gm_view_select_args(m, 1, 1, &row, &bad) == GM_OK);
  CHECK_FAIL(gm_view_t_args(row, &v, &bad), "mat must be 2-dimensional, got rank 1");
  CHECK(bad == 1);
  gm_mat_free(row);
  gm_mat_free(m);
}

static void test_permute(void) {
  int perm[3];
  int64_t ok[3] = {3, 1, 2}, twice[3] = {1, 1, 2}, zero[3] = {0, 1, 2}, huge[3] = {INT64_MIN, 1, 2};
  CHECK(gm_view_permute_args(3, 3, ok, perm) == GM_OK && perm[0] == 2 && perm[1] == 0 && perm[2] == 1);
  CHECK_FAIL(gm_view_permute_args(3, 3, twice, perm), "axis 1 at position 2: axes must be a permutation of 1..3");
  CHECK_FAIL(gm_view_permute_args(3, 3, zero, perm),
             "the axis at position 1 is out of range: axes must be a permutation of 1..3");
  CHECK_FAIL(gm_view_permute_args(3, 3, huge, perm),
             "the axis at position 1 is out of range: axes must be a permutation of 1..3");
  CHECK_FAIL(gm_view_permute_args(3, 2, ok, perm), "expected 3 axes (a permutation of 1..3), got 2");
}

static void test_dims_lists(void) {
  gm_dims_list l = {0, -1, false, {0}};
  CHECK(gm_dims_list_add(&l, 2) == GM_OK && gm_dims_list_add(&l, -1) == GM_OK && gm_dims_list_add(&l, 3) == GM_OK);
  CHECK(l.rank == 3 && l.infer == 1 && l.dims[0] == 2 && l.dims[1] == SIZE_MAX && l.dims[2] == 3);
  CHECK_FAIL(gm_dims_list_add(&l, -1), "only one dimension can be -1");
  CHECK_FAIL(gm_dims_list_add(&l, -2), "dimension 4 must be non-negative, got -2");
  CHECK_FAIL(gm_dims_infer(l.rank, l.dims, l.infer, 25), "cannot infer dimension 2: 25 elements do not divide into 6");
  CHECK(gm_dims_infer(l.rank, l.dims, l.infer, 24) == GM_OK && l.dims[1] == 4);
  size_t zero[2] = {0, SIZE_MAX};
  CHECK_FAIL(gm_dims_infer(2, zero, 1, 0), "cannot infer dimension 2: 0 elements do not divide into 0");
  gm_dims_list e = {0, -1, true, {0}}; /* expand: any number of -1 */
  CHECK(gm_dims_list_add(&e, 4) == GM_OK && gm_dims_list_add(&e, -1) == GM_OK && gm_dims_list_add(&e, -1) == GM_OK);
  CHECK(e.rank == 3 && e.infer == -1);
  size_t d[2] = {2, 3};
  gm_mat *m = iota(2, d, false);
  CHECK(gm_expand_dims_resolve(m, e.rank, e.dims) == GM_OK && e.dims[0] == 4 && e.dims[1] == 2 && e.dims[2] == 3);
  size_t lead[3] = {SIZE_MAX, 2, 3};
  CHECK_FAIL(gm_expand_dims_resolve(m, 3, lead), "dimension 1 is -1 but the mat has no axis there");
  gm_mat_free(m);
}

static void test_subscripts(void) {
  size_t d[2] = {4, 5};
  gm_mat *m = iota(2, d, false), *v = NULL;
  gm_view_sub s[GM_MAX_SUBS];
  int k = 0;
  gm_sub_arg steps[2] = {{GM_SUB_RANGE, -3, -1, 2}, {GM_SUB_SELECT, -1, 0, 0}};
  CHECK(gm_view_subs_resolve(m, 2, steps, s, &k) == GM_OK && k == 2);
  CHECK(!s[0].select && s[0].first == 1 && s[0].count == 2 && s[0].step == 2);
  CHECK(s[1].select && s[1].first == 4);
  CHECK(gm_view_index(m, 2, s, &v) == GM_OK && v->rank == 1 && v->dims[0] == 2 && v->strides[0] == 10);
  CHECK(get(v, 0) == 9 && get(v, 1) == 19); /* rows 2 and 4, last column */
  gm_mat_free(v);
  /* backwards: rows 4, 2 of column 2; the lowest storage element is row 2's */
  gm_sub_arg back[2] = {{GM_SUB_RANGE, -1, 2, -2}, {GM_SUB_SELECT, 2, 0, 0}};
  CHECK(gm_view_subs_resolve(m, 2, back, s, &k) == GM_OK && s[0].first == 3 && s[0].count == 2 && s[0].step == -2);
  CHECK(gm_view_index(m, 2, s, &v) == GM_OK && v->rank == 1 && v->dims[0] == 2 && v->strides[0] == -10);
  CHECK(get(v, 0) == 16 && get(v, 1) == 6 && gm_mat_lowest(v) == 6 && gm_mat_extent(v) == 11);
  gm_mat_free(v);
  /* newaxis and "...": {newaxis, ..., 2} is 1x4 (column 2) */
  gm_sub_arg forms[3] = {{GM_SUB_NEWAXIS, 0, 0, 1}, {GM_SUB_ELLIPSIS, 0, 0, 1}, {GM_SUB_SELECT, 2, 0, 0}};
  CHECK(gm_view_subs_resolve(m, 3, forms, s, &k) == GM_OK && k == 3 && s[0].newaxis && !s[1].select);
  CHECK(gm_view_index(m, k, s, &v) == GM_OK && v->rank == 2 && v->dims[0] == 1 && v->dims[1] == 4);
  CHECK(get(v, 0) == 1 && get(v, 3) == 16);
  gm_mat_free(v);
  gm_sub_arg all_empty[2] = {{GM_SUB_ALL, 0, 0, 1}, {GM_SUB_RANGE, 3, 2, 1}};
  CHECK(gm_view_subs_resolve(m, 2, all_empty, s, &k) == GM_OK);
  CHECK(s[0].count == 4 && s[0].first == 0 && s[1].count == 0 && s[1].first == 2);
  gm_sub_arg step0 = {GM_SUB_RANGE, 1, 2, 0}, past = {GM_SUB_RANGE, 2, 9, 1}, sel = {GM_SUB_SELECT, 6, 0, 0};
  CHECK_FAIL(gm_view_subs_resolve(m, 1, &step0, s, &k), "step must not be 0 (axis 1)");
  CHECK_FAIL(gm_view_subs_resolve(m, 1, &past, s, &k), "range 2..9 is out of range 1..4 on axis 1 of a 4x5 mat");
  gm_sub_arg two[2] = {{GM_SUB_ALL, 0, 0, 1}, sel};
  CHECK_FAIL(gm_view_subs_resolve(m, 2, two, s, &k), "subscript 6 is out of range 1..5 on axis 2 of a 4x5 mat");
  gm_sub_arg three[3] = {sel, sel, sel};
  CHECK_FAIL(gm_view_subs_resolve(m, 3, three, s, &k), "too many subscripts (3) for a 4x5 mat");
  gm_sub_arg dots[2] = {{GM_SUB_ELLIPSIS, 0, 0, 1}, {GM_SUB_ELLIPSIS, 0, 0, 1}};
  CHECK_FAIL(gm_view_subs_resolve(m, 2, dots, s, &k), "\"...\" may appear only once among the subscripts");
  gm_mat_free(m);
}

static void test_assign(void) {
  size_t d[2] = {2, 3}, one[2] = {1, 1}, row[1] = {3}, two[1] = {2};
  gm_mat *m = iota(2, d, false), *col = NULL, *r0 = NULL, *r1 = NULL, *wide = NULL;
  gm_mat *seven = iota(2, one, false), *f = iota(1, row, true), *pair = iota(1, two, false);
  CHECK(gm_mat_put(seven, 0, 7) == GM_OK);
  CHECK(gm_view_narrow(m, 1, 1, 1, &col) == GM_OK); /* column 2 */
  CHECK(gm_view_assign(col, seven, 0) == GM_OK && get(m, 1) == 7 && get(m, 4) == 7 && get(m, 0) == 0);
  CHECK(gm_view_select(m, 0, 0, &r0) == GM_OK && gm_view_select(m, 0, 1, &r1) == GM_OK);
  CHECK(gm_view_assign(r1, r0, 0) == GM_OK && get(m, 3) == 0 && get(m, 4) == 7 && get(m, 5) == 2);
  CHECK(gm_view_assign(r0, NULL, -1.5) == GM_OK && get(m, 2) == -1.5 && get(m, 3) == 0);
  CHECK_FAIL(gm_view_assign(r0, f, 0), "mixed ctypes float (value) and double (mat)");
  CHECK_FAIL(gm_view_assign(r0, pair, 0), "cannot broadcast a 2 mat into a 3 view");
  size_t d23[2] = {2, 3};
  CHECK(gm_view_expand(r0, 2, d23, &wide) == GM_OK);
  CHECK(gm_view_assign(wide, NULL, 1) == GM_EINVAL);
  CHECK(strncmp(gm_last_error(), "cannot write into a view whose elements overlap", 47) == 0);
  CHECK(get(m, 0) == -1.5); /* nothing written on failure */
  gm_mat *all[] = {m, col, r0, r1, wide, seven, f, pair};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) gm_mat_free(all[i]);
}

static void test_operands(void) {
  size_t d23[2] = {2, 3}, d3[1] = {3}, d4[1] = {4}, d34[2] = {3, 4}, dims[2];
  gm_mat *a = iota(2, d23, false), *v3 = iota(1, d3, false), *v4 = iota(1, d4, false), *b = iota(2, d34, false);
  gm_mat *c = NULL, *fa = iota(2, d23, true);
  int rank = 0, bad = 0;
  CHECK(gm_matmul_dims(a, v3, &rank, dims, &bad) == GM_OK && rank == 1 && dims[0] == 2 && bad == 0);
  CHECK_FAIL(gm_matmul_dims(a, v4, &rank, dims, &bad), "inner dimensions differ: 3 vs 4");
  CHECK(bad == 2);
  CHECK_FAIL(gm_matmul_dims(v3, a, &rank, dims, &bad), "matrix must be 2-dimensional, has rank 1");
  CHECK(bad == 1);
  CHECK_FAIL(gm_mmul_dims(a, fa, true, false, dims, &bad), "mixed ctypes double and float");
  CHECK(bad == 2);
  bad = 0;
  CHECK(gm_mmul_dims(a, b, false, false, dims, &bad) == GM_OK && dims[0] == 2 && dims[1] == 4);
  CHECK(gm_result_new(1, dims, GM_DOUBLE, false, GM_SYNC_MAYBE, &c) == GM_OK);
  CHECK(gm_matmul(a, v3, c) == GM_OK && get(c, 0) == 0 + 1 + 4 && get(c, 1) == 0 + 4 + 10); /* [0 1 2; 3 4 5] [0 1 2]' */
  CHECK(gm_copy_line(a, 2, true, c) == GM_OK && get(c, 0) == 2 && get(c, 1) == 5); /* column 3 */
  size_t d32[2] = {3, 2};
  gm_mat *t = NULL, *r = NULL;
  CHECK(gm_result_new(2, d32, GM_DOUBLE, false, GM_SYNC_MAYBE, &t) == GM_OK);
  CHECK(gm_transpose_into(a, t) == GM_OK && get(t, 1) == 3 && get(t, 4) == 2 && get(t, 5) == 5);
  CHECK(gm_result_new(2, d23, GM_DOUBLE, false, GM_SYNC_MAYBE, &r) == GM_OK);
  CHECK(gm_add_into(2, a, 1, a, r) == GM_OK && get(r, 4) == 12 && get(r, 5) == 15);
  gm_mat_free(t);
  gm_mat_free(r);
  size_t k = 9;
  CHECK(gm_index_arg(3, 3, "row", &k) == GM_OK && k == 2);
  CHECK_FAIL(gm_index_arg(0, 3, "row", &k), "row 0 is out of range 1..3");
  CHECK_FAIL(gm_check_square(a), "matrix must be square, is 2x3");
  CHECK_FAIL(gm_check_same_size(a, b), "sizes differ: 6 vs 12");
  CHECK_FAIL(gm_check_out_like(a, fa), "option 'out' is float but x is double");
  CHECK_FAIL(gm_check_out_like(a, b), "option 'out' has dims 3x4 but x has 2x3");
  CHECK(gm_check_out_like(a, a) == GM_OK);
  gm_mat *all[] = {a, v3, v4, b, c, fa};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) gm_mat_free(all[i]);
}

static void test_reduce_args(void) {
  int axis = -9, rank = 0, bad = 0;
  CHECK(gm_reduce_axis_arg(-1, 3, &axis) == GM_OK && axis == 2);
  CHECK(gm_reduce_axis_arg(1, 3, &axis) == GM_OK && axis == 0);
  CHECK_FAIL(gm_reduce_axis_arg(-4, 3, &axis), "axis -4 is out of range 1..3 (or -3..-1)");
  size_t d23[2] = {2, 3}, d20[2] = {2, 0}, d3[1] = {3}, dims[GM_MAX_RANK];
  gm_mat *m = iota(2, d23, false), *e = iota(2, d20, false), *out3 = iota(1, d3, false);
  CHECK(gm_reduce_axis_result(m, 1, GM_AX_SUM, true, NULL, &rank, dims, &bad) == GM_OK);
  CHECK(rank == 2 && dims[0] == 2 && dims[1] == 1 && bad == 0);
  CHECK_FAIL(gm_reduce_axis_result(m, 1, GM_AX_SUM, false, out3, &rank, dims, &bad),
             "out has dims 3, the result has 2");
  CHECK(bad == 3);
  CHECK_FAIL(gm_reduce_axis_result(e, 1, GM_AX_ARGMAX, false, NULL, &rank, dims, &bad), "axis 2 is empty");
  CHECK(bad == 2);
  double v = 0;
  bad = 0;
  CHECK(gm_reduce_all(m, GM_AX_MEAN, 0, &v, &bad) == GM_OK && v == 2.5);
  CHECK(gm_reduce_all(m, GM_AX_ARGMAX, 0, &v, &bad) == GM_OK && v == 6);
  CHECK(gm_reduce_all(e, GM_AX_SUM, 0, &v, &bad) == GM_OK && v == 0);
  CHECK_FAIL(gm_reduce_all(e, GM_AX_MAX, 0, &v, &bad), "the mat is empty");
  CHECK(bad == 1);
  gm_mat_free(m);
  gm_mat_free(e);
  gm_mat_free(out3);
}

static void test_broadcast_common(void) {
  size_t d[1] = {2};
  gm_mat *f = iota(1, d, true), *g = iota(1, d, false);
  gm_bc_arg args[3] = {{NULL, 1}, {f, 0}, {g, 0}};
  bool cuda = false;
  int bad = -1;
  CHECK(gm_bc_common(args, 3, &cuda, &bad) == GM_OK && bad == -1); /* mixed ctypes promote */
  CHECK_FAIL(gm_bc_common(args, 1, &cuda, &bad), "mat expected, got number (one operand must be a mat)");
  CHECK(bad == 0);
  /* float + double computed in double: f is converted first; a float out is refused */
  gm_mat *o = iota(1, d, false), *fo = iota(1, d, true);
  CHECK(gm_broadcast_binary(GM_BC_ADD, GM_DOUBLE, args[1], args[2], o) == GM_OK && get(o, 1) == 2);
  CHECK_FAIL(gm_broadcast_binary(GM_BC_ADD, GM_DOUBLE, args[1], args[2], fo), "out's ctype is float but the result's is double");
  gm_mat_free(o);
  gm_mat_free(fo);
  gm_mat_free(f);
  gm_mat_free(g);
}

static void test_shaping(void) {
  size_t d34[2] = {3, 4}, d12[1] = {12}, d13[1] = {13}, dims[2], d = 0;
  gm_mat *m = iota(2, d34, false), *t = NULL, *fresh = NULL;
  int perm[2] = {1, 0}, bad = 0;
  CHECK(gm_shape_fits(m, 1, d12, 0) == GM_OK);
  CHECK_FAIL(gm_shape_fits(m, 1, d12, 1), "displacement 1 + size 12 exceeds max_size 12");
  CHECK(gm_view_permute(m, 2, perm, &t) == GM_OK);
  CHECK_FAIL(gm_check_shapable(t),
             "a non-contiguous 4x3 view (strides {1, 4}) cannot be reshaped or displaced; use m:contiguous() first");
  gm_mat *v = NULL;
  CHECK(gm_shape_apply(m, 1, d12, 0, false, &v, &bad) == GM_OK && v->rank == 1 && get(v, 7) == 7);
  gm_mat_free(v);
  CHECK(gm_shape_apply(t, 1, d12, 0, false, &v, &bad) == GM_EINVAL && bad == GM_SHAPE_BAD_MAT);
  CHECK_FAIL(gm_shape_apply(m, 1, d13, 0, true, NULL, &bad), "displacement 0 + size 13 exceeds max_size 12");
  CHECK(bad == GM_SHAPE_BAD_SHAPE && m->rank == 2); /* unchanged */
  CHECK(gm_row_matrix_args(m, 2, dims, &d, &bad) == GM_OK && dims[0] == 1 && dims[1] == 4 && d == 4);
  CHECK_FAIL(gm_row_matrix_args(m, 4, dims, &d, &bad), "row 4 is out of range 1..3");
  CHECK(bad == 2);
  CHECK_FAIL(gm_row_matrix_args(t, 1, dims, &d, &bad),
             "a non-contiguous 4x3 view (strides {1, 4}) cannot be reshaped or displaced; use m:contiguous() first");
  CHECK(bad == 1);
  CHECK(gm_mat_adjust_(m, 1, d12, 0, true, &fresh, &bad) == GM_OK && !fresh && m->rank == 1 && get(m, 11) == 11);
  CHECK(gm_mat_adjust_(m, 1, d13, 0, false, &fresh, &bad) == GM_OK && fresh && fresh->size == 13);
  CHECK(m->size == 12 && get(m, 5) == 5); /* the old mat kept (destroy_old false) */
  gm_mat_free(fresh);
  gm_mat_free(t);
  gm_mat_free(m);
}

static void test_elementwise_args(void) {
  size_t d23[2] = {2, 3}, d2[1] = {2};
  gm_mat *x = iota(2, d23, false), *y2 = iota(1, d2, false), *f = iota(1, d2, true);
  int bad = 0;
  CHECK_FAIL(gm_sum_args(x, y2, 3, &bad), "axis 3 is out of range 1..2");
  CHECK(bad == 3);
  CHECK_FAIL(gm_sum_args(x, y2, 1, &bad), "y has 2 elements but summing along axis 1 gives 3");
  CHECK(bad == 2);
  bad = 0;
  CHECK(gm_sum_args(x, y2, 2, &bad) == GM_OK && bad == 0);
  CHECK_FAIL(gm_geerv_args(x, y2, x, &bad), "x has 2 elements but a has 3 columns");
  CHECK(bad == 3);
  CHECK_FAIL(gm_geerv_args(x, f, x, &bad), "mixed ctypes: a is double, x is float");
  CHECK(bad == 3);
  CHECK_FAIL(gm_scale_args(y2, x, false, &bad), "scales has 2 elements but a has 3 columns");
  CHECK(bad == 1);
  bad = 0;
  CHECK(gm_scale_args(y2, x, true, &bad) == GM_OK && bad == 0);
  CHECK_FAIL(gm_geem_args(x, x, y2, &bad), "c has 2 elements but a has 6");
  CHECK(bad == 5);
  CHECK_FAIL(gm_ew_count(7, x), "n (7) exceeds the size of x (6)");
  gm_mat_free(x);
  gm_mat_free(y2);
  gm_mat_free(f);
}

/* A numeric for's running sum drifts where k * step does not. */
static void test_sequence(void) {
  size_t d[1] = {11};
  gm_mat *m = iota(1, d, false);
  double acc = 0;
  for (int k = 0; k < 10; k++) acc += 0.1;
  CHECK(acc != 1.0);
  CHECK(gm_mat_fill_sequence(m, 0, 0.1, true, false, 0) == GM_OK && get(m, 10) == acc && get(m, 1) == 0.1);
  CHECK(gm_mat_fill_sequence(m, 0, 0.1, false, false, 0) == GM_OK && get(m, 10) == 1.0 && get(m, 3) == 3 * 0.1);
  CHECK(gm_mat_fill_sequence(m, 0, 0.1, true, true, 1.0) == GM_OK && get(m, 10) == 1.0 && get(m, 9) != 0.9);
  gm_mat_free(m);
}

int main(void) {
  test_narrow_select();
  test_permute();
  test_dims_lists();
  test_subscripts();
  test_assign();
  test_operands();
  test_reduce_args();
  test_broadcast_common();
  test_shaping();
  test_elementwise_args();
  test_sequence();
  return gm_test_failed ? 1 : 0;
}
