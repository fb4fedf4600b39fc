/* Test of the public C API (include/gpumat.h) without Lua: construction,
 * views on shared storage, 0-based element access, readers, and the
 * error contract (a status, a message, and unchanged arguments).
 * Exits 0 when every check passes; prints each failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpumat.h"

#include "check.h"

static double get(gm_mat *m, size_t k) {
  double v = NAN;
  CHECK(gm_mat_get(m, k, &v) == GM_OK);
  return v;
}

static void test_new_and_readers(void) {
  size_t dims[2] = {2, 3};
  gm_mat_options o = {0};
  o.ctype = 0; /* float */
  o.displacement = 1;
  o.max_size = 8;
  o.has_initial_element = 1;
  o.initial_element = 0.5;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(2, dims, &o, &m) == GM_OK);
  CHECK(gm_mat_rank(m) == 2);
  CHECK(gm_mat_dim(m, 0) == 2 && gm_mat_dim(m, 1) == 3);
  CHECK(gm_mat_dim(m, 2) == 0); /* out-of-range axis */
  CHECK(gm_mat_size(m) == 6);
  CHECK(gm_mat_displacement(m) == 1);
  CHECK(gm_mat_max_size(m) == 8);
  CHECK(gm_mat_ctype(m) == 0);
  for (size_t k = 0; k < 6; k++) CHECK(get(m, k) == 0.5);
  CHECK(gm_mat_put(m, 5, 0.1) == GM_OK);
  CHECK(get(m, 5) == (double)0.1f); /* rounded through float */
  gm_mat_free(m);
}

static void test_defaults(void) {
  size_t n = 4;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, NULL, &m) == GM_OK); /* NULL options: double, 0 */
  CHECK(gm_mat_ctype(m) == 1);
  CHECK(gm_mat_max_size(m) == 4);
  CHECK(get(m, 3) == 0.0);
  gm_mat *s = NULL;
  CHECK(gm_mat_new(0, NULL, NULL, &s) == GM_OK); /* rank 0: one element */
  CHECK(gm_mat_size(s) == 1);
  CHECK(gm_mat_put(s, 0, 2.5) == GM_OK && get(s, 0) == 2.5);
  gm_mat_free(s);
  gm_mat_free(m);
  gm_mat_free(NULL); /* allowed */
}

static void test_views_share_storage(void) {
  size_t n = 6;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, NULL, &m) == GM_OK);
  for (size_t k = 0; k < 6; k++) CHECK(gm_mat_put(m, k, (double)k + 1) == GM_OK);
  size_t vd[2] = {2, 2};
  gm_mat *v = NULL;
  CHECK(gm_mat_view(m, 2, vd, 1, &v) == GM_OK);
  CHECK(gm_mat_displacement(v) == 1 && gm_mat_size(v) == 4);
  CHECK(get(v, 0) == 2 && get(v, 3) == 5);
  CHECK(gm_mat_put(v, 0, 20) == GM_OK);
  CHECK(get(m, 1) == 20);
  /* the view keeps the storage alive after the original is freed */
  gm_mat_free(m);
  CHECK(get(v, 3) == 5);
  CHECK(gm_mat_put(v, 3, 50) == GM_OK && get(v, 3) == 50);
  gm_mat_free(v);
}

static void test_errors(void) {
  size_t n = 3;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, &n, NULL, &m) == GM_OK);
  double out = 7;
  CHECK(gm_mat_get(m, 3, &out) == GM_ERANGE);
  CHECK(out == 7); /* unchanged on failure */
  CHECK(strcmp(gm_last_error(), "index 3 is out of range 0..2") == 0); /* inclusive bounds */
  CHECK(strcmp(gm_status_name(GM_ERANGE), gm_status_name(GM_OK)) != 0);
  CHECK(gm_mat_put(m, 10, 1) == GM_ERANGE);
  CHECK(strcmp(gm_last_error(), "index 10 is out of range 0..2") == 0);

  gm_mat *v = (gm_mat *)&out; /* sentinel: must stay untouched */
  size_t big = 4;
  CHECK(gm_mat_view(m, 1, &big, 0, &v) == GM_ERANGE); /* 0 + 4 > 3 */
  CHECK(v == (gm_mat *)&out);
  CHECK(gm_mat_view(m, 1, &n, 1, &v) == GM_ERANGE); /* 1 + 3 > 3 */
  CHECK(strstr(gm_last_error(), "max_size") != NULL);

  gm_mat_options o = {0};
  o.ctype = GM_CTYPE_BFLOAT16 + 1; /* past the last element type */
  gm_mat *bad = NULL;
  CHECK(gm_mat_new(1, &n, &o, &bad) == GM_EINVAL && bad == NULL);
  o.ctype = 1;
  o.max_size = 2; /* smaller than the size */
  CHECK(gm_mat_new(1, &n, &o, &bad) == GM_ERANGE && bad == NULL);
  size_t dims[GM_MAX_RANK + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(gm_mat_new(GM_MAX_RANK + 1, dims, NULL, &bad) == GM_EINVAL && bad == NULL);
  CHECK(gm_mat_new(-1, dims, NULL, &bad) == GM_EINVAL && bad == NULL);
  gm_mat_free(m);
}

int main(void) {
  test_new_and_readers();
  test_defaults();
  test_views_share_storage();
  test_errors();
  if (gm_test_failed) {
    fprintf(stderr, "c_api_test: %d check(s) failed\n", atomic_load(&gm_test_failed));
    return 1;
  }
  printf("c_api_test: all checks passed\n");
  return 0;
}
