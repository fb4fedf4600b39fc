/* The strided elementwise engine's iteration space (src/core/ops/strided.c):
 * broadcast dims and their error message, operand strides (0 on
 * stretched axes), and coalescing, where axes must merge and where they
 * must not.  Only dims and strides of the mats are read, so the mats
 * here are plain structs without storage. */
#include <string.h>

#include "check.h"
#include "gpumat.h"
#include "core/ops/strided.h"

static gm_mat mat_of(int rank, const size_t *dims) {
  gm_mat m;
  memset(&m, 0, sizeof m);
  m.rank = rank;
  int64_t step = 1;
  for (int d = rank - 1; d >= 0; d--) {
    m.dims[d] = dims[d];
    m.strides[d] = step;
    step *= (int64_t)dims[d];
  }
  return m;
}

/* out (contiguous, dims od) with inputs a and b (NULL: a number), coalesced. */
static gm_strided space(int rank, const size_t *od, const gm_mat *a, const gm_mat *b) {
  gm_mat out = mat_of(rank, od);
  gm_strided s;
  gm_strided_init(&s, rank, od);
  gm_strided_operand(&s, 0, &out, 0);
  gm_strided_operand(&s, 1, a, 1.5);
  gm_strided_operand(&s, 2, b, 2.5);
  gm_strided_coalesce(&s);
  return s;
}

static void test_broadcast_dims(void) {
  size_t a[2] = {2, 3}, b[2] = {3, 2}, c[1] = {3}, d[3] = {4, 1, 3}, r[GM_MAX_RANK];
  int rank;
  CHECK(gm_broadcast_dims(2, a, 1, c, &rank, r) == GM_OK && rank == 2 && r[0] == 2 && r[1] == 3);
  CHECK(gm_broadcast_dims(3, d, 2, a, &rank, r) == GM_OK && rank == 3 && r[0] == 4 && r[1] == 2 && r[2] == 3);
  CHECK(gm_broadcast_dims(0, NULL, 2, a, &rank, r) == GM_OK && rank == 2 && r[1] == 3);
  CHECK(gm_broadcast_dims(2, a, 2, b, &rank, r) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "cannot broadcast 2x3 with 3x2") == 0);
}

static void test_merge(void) {
  size_t d3[3] = {2, 3, 4}, row[1] = {4}, col[2] = {3, 1};
  gm_mat a = mat_of(3, d3), r = mat_of(1, row), c = mat_of(2, col);
  gm_strided s = space(3, d3, &a, &a); /* contiguous: one flat axis */
  CHECK(s.ndim == 1 && s.dims[0] == 24 && s.strides[0][0] == 1 && s.strides[1][0] == 1 && s.strides[2][0] == 1);
  s = space(3, d3, &a, &r); /* a row repeated: the outer axes merge */
  CHECK(s.ndim == 2 && s.dims[0] == 6 && s.dims[1] == 4);
  CHECK(s.strides[1][0] == 4 && s.strides[2][0] == 0 && s.strides[2][1] == 1);
  s = space(3, d3, &a, NULL); /* a number: stride 0 everywhere */
  CHECK(s.ndim == 1 && s.dims[0] == 24 && s.strides[2][0] == 0 && s.scalar[2] == 2.5);
  s = space(3, d3, &c, &a); /* a 3x1 column in a 2x3x4 space: nothing merges */
  CHECK(s.ndim == 3 && s.strides[1][0] == 0 && s.strides[1][1] == 1 && s.strides[1][2] == 0);
}

static void test_size_one_and_views(void) {
  size_t d5[5] = {3, 1, 4, 1, 5}, one[2] = {1, 1}, t[2] = {4, 3};
  gm_mat a = mat_of(5, d5), o = mat_of(2, one);
  gm_strided s = space(5, d5, &a, &o); /* size-1 axes dropped, the rest merge */
  CHECK(s.ndim == 1 && s.dims[0] == 60 && s.strides[2][0] == 0);
  s = space(2, one, &o, NULL); /* one element */
  CHECK(s.ndim == 1 && s.dims[0] == 1);
  gm_mat tv = mat_of(2, t); /* a transposed 3x4: strides {1, 4} */
  tv.strides[0] = 1;
  tv.strides[1] = 4;
  s = space(2, t, &tv, &tv);
  CHECK(s.ndim == 2 && s.strides[1][0] == 1 && s.strides[1][1] == 4 && s.strides[0][1] == 1);
}

int main(void) {
  test_broadcast_dims();
  test_merge();
  test_size_one_and_views();
  return gm_test_failed ? 1 : 0;
}
