/* Test of the core's text forms without Lua: gm_mat_to_string (tostring
 * for C: shapes, shortest round-trip numbers, NaN and infinities,
 * summarizing, displaced views, rank 0, options, the device path on the
 * emulated device), the digit grouping of the memory reports, the grid
 * format_mat shows (core/io/peek_grid.h) and its text (core/io/format_grid.h).  Exits 0 when every check
 * passes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpumat.h"

#include "check.h"
#include "core/io/format.h"
#include "core/io/format_grid.h"
#include "core/io/peek_grid.h"

/* gm_mat_to_string of m equals want (options o, NULL: defaults). */
static void check_text(gm_mat *m, const gm_print_options *o, const char *want) {
  char *s = NULL;
  CHECK(gm_mat_to_string(m, o, &s) == GM_OK);
  if (!s || strcmp(s, want) != 0) {
    fprintf(stderr, "got  %s\nwant %s\n", s ? s : "(null)", want);
    gm_test_failed++;
  }
  gm_string_free(s);
}

/* A new mat of dims holding values[k] at row-major index k. */
static gm_mat *mat_of(int ctype, int rank, const size_t *dims, const double *values, size_t n) {
  gm_mat_options o = {.ctype = ctype};
  gm_mat *m = NULL;
  CHECK(gm_mat_new(rank, dims, &o, &m) == GM_OK);
  for (size_t k = 0; k < n; k++) CHECK(gm_mat_put(m, k, values[k]) == GM_OK);
  return m;
}

static void test_numbers(void) {
  size_t d23[2] = {2, 3}, d4[1] = {4};
  gm_mat *ints = mat_of(GM_CTYPE_DOUBLE, 2, d23, (double[]){1, 2, 3, 4, 5, 6}, 6);
  check_text(ints, NULL, "#<MAT 2x3 double F {{1, 2, 3}, {4, 5, 6}}>");
  gm_mat *floats = mat_of(GM_CTYPE_FLOAT, 1, d4, (double[]){0.1, 1.0 / 3, -20, 2.5e-7}, 4);
  check_text(floats, NULL, "#<MAT 4 float F {0.1, 0.33333334, -20, 2.5e-07}>");
  gm_mat *doubles = mat_of(GM_CTYPE_DOUBLE, 1, d4, (double[]){0.1, 1.0 / 3, 1e300, -0.5}, 4);
  check_text(doubles, NULL, "#<MAT 4 double F {0.1, 0.3333333333333333, 1e+300, -0.5}>");
  gm_mat *odd = mat_of(GM_CTYPE_DOUBLE, 1, d4, (double[]){NAN, INFINITY, -INFINITY, 0}, 4);
  check_text(odd, NULL, "#<MAT 4 double F {0/0, 1/0, -1/0, 0}>");
  char buf[32];
  gm_format_number(GM_FLOAT, (double)0.1f, buf, sizeof buf);
  CHECK(strcmp(buf, "0.1") == 0);
  gm_mat_free(ints);
  gm_mat_free(floats);
  gm_mat_free(doubles);
  gm_mat_free(odd);
}

static void test_shapes(void) {
  double v[100];
  for (int i = 0; i < 100; i++) v[i] = i;
  size_t d10[2] = {10, 10};
  gm_mat *big = mat_of(GM_CTYPE_DOUBLE, 2, d10, v, 100);
  gm_print_options few = {.contents = 1, .facets = 0, .max_elements = 99};
  check_text(big, &few,
             "#<MAT 10x10 double {{0, 1, 2, ..., 7, 8, 9}, {10, 11, 12, ..., 17, 18, 19}, "
             "{20, 21, 22, ..., 27, 28, 29}, ..., {70, 71, 72, ..., 77, 78, 79}, "
             "{80, 81, 82, ..., 87, 88, 89}, {90, 91, 92, ..., 97, 98, 99}}>");
  gm_print_options none = {.contents = 0, .facets = 1, .max_elements = -1};
  check_text(big, &none, "#<MAT 10x10 double F>");
  /* a view of 3 elements from storage index 2 of 6: "2+3+1" */
  size_t d3[1] = {3};
  gm_mat *view = NULL;
  CHECK(gm_mat_view(big, 1, d3, 2, &view) == GM_OK);
  gm_mat_options o6 = {.ctype = GM_CTYPE_DOUBLE, .displacement = 2, .max_size = 6, .has_initial_element = 1,
                       .initial_element = 5};
  gm_mat *part = NULL;
  CHECK(gm_mat_new(1, d3, &o6, &part) == GM_OK);
  check_text(part, NULL, "#<MAT 2+3+1 double - {5, 5, 5}>");
  check_text(view, NULL, "#<MAT 2+3+95 double F {2, 3, 4}>");
  gm_mat_options o0 = {.ctype = GM_CTYPE_DOUBLE, .has_initial_element = 1, .initial_element = 7};
  gm_mat *scalar = NULL, *raw = NULL;
  CHECK(gm_mat_new(0, NULL, &o0, &scalar) == GM_OK);
  check_text(scalar, NULL, "#<MAT scalar double - 7>");
  gm_mat_options ou = {.ctype = GM_CTYPE_FLOAT};
  CHECK(gm_mat_new(1, d3, &ou, &raw) == GM_OK);
  check_text(raw, NULL, "#<MAT 3 float - uninitialised>");
  char *s = NULL;
  CHECK(gm_mat_to_string(NULL, NULL, &s) == GM_EINVAL && s == NULL);
  gm_mat_free(big);
  gm_mat_free(view);
  gm_mat_free(part);
  gm_mat_free(scalar);
  gm_mat_free(raw);
}

static void test_grouped(void) {
  char buf[40];
  gm_format_grouped(3386295808LL, buf, sizeof buf);
  CHECK(strcmp(buf, "3,386,295,808") == 0);
  gm_format_grouped(-1234, buf, sizeof buf);
  CHECK(strcmp(buf, "-1,234") == 0);
  gm_format_grouped(999, buf, sizeof buf);
  CHECK(strcmp(buf, "999") == 0);
  gm_foreign_room_text(false, buf, sizeof buf);
  CHECK(strncmp(buf, "f: ", 3) == 0 && buf[strlen(buf) - 1] == '\n');
}

static void test_grid(void) {
  double v[100];
  for (int i = 0; i < 100; i++) v[i] = i;
  size_t d10[2] = {10, 10};
  gm_mat *m = mat_of(GM_CTYPE_DOUBLE, 2, d10, v, 100);
  gm_peek_grid g;
  CHECK(gm_peek_grid_plan(m, 1, 4, 5, &g) == GM_OK && g.cells == 20);
  /* rows: 2 leading, gap, 2 trailing; columns: 3 leading, gap, 2 trailing */
  size_t want_rows[] = {0, 1, GM_PEEK_GRID_GAP, 8, 9}, want_cols[] = {0, 1, 2, GM_PEEK_GRID_GAP, 8, 9};
  CHECK(gm_peek_grid_axis_length(&g, 0) == 5 && gm_peek_grid_axis_length(&g, 1) == 6);
  for (size_t j = 0; j < 5; j++) CHECK(gm_peek_grid_entry(&g, 0, j) == want_rows[j]);
  for (size_t j = 0; j < 6; j++) CHECK(gm_peek_grid_entry(&g, 1, j) == want_cols[j]);
  double out[20];
  bool initialised = false;
  CHECK(gm_peek_grid_read(m, &g, out, &initialised) == GM_OK && initialised);
  CHECK(out[0] == 0 && out[3] == 8 && out[5] == 10 && out[10] == 80 && out[19] == 99);
  /* one entry kept of a longer axis: the gap comes last */
  CHECK(gm_peek_grid_plan(m, 1, 1, 10, &g) == GM_OK && gm_peek_grid_axis_length(&g, 0) == 2);
  CHECK(gm_peek_grid_entry(&g, 0, 0) == 0 && gm_peek_grid_entry(&g, 0, 1) == GM_PEEK_GRID_GAP);
  CHECK(gm_peek_grid_plan(m, 1, 0, 5, &g) == GM_EINVAL);
  size_t d5[1] = {5};
  gm_mat *other = NULL;
  CHECK(gm_mat_view(m, 1, d5, 0, &other) == GM_OK);
  CHECK(!gm_peek_grid_fits(other, &g) && gm_peek_grid_read(other, &g, out, &initialised) == GM_EINVAL);
  gm_mat_free(other);
  size_t huge[3] = {1 << 12, 1 << 12, 1 << 12};
  gm_mat *lazy = NULL;
  gm_mat_options ol = {.ctype = GM_CTYPE_FLOAT, .has_initial_element = 1};
  CHECK(gm_mat_new(3, huge, &ol, &lazy) == GM_OK);
  CHECK(gm_peek_grid_plan(lazy, 4096, 4096, 4096, &g) == GM_ERANGE);
  CHECK(strstr(gm_last_error(), "too many elements to show") != NULL);
  gm_mat_free(lazy);
  gm_mat_free(m);
}

/* gm_mat_format_grid of m equals want. */
static void check_grid_text(gm_mat *m, gm_grid_format_options o, const char *want) {
  gm_strbuf b = {0};
  CHECK(gm_mat_format_grid(m, &o, &b) == GM_OK);
  if (!b.s || strcmp(b.s, want) != 0) {
    fprintf(stderr, "got\n%s\nwant\n%s\n", b.s ? b.s : "(null)", want);
    gm_test_failed++;
  }
  gm_strbuf_free(&b);
}

static void test_grid_text(void) {
  gm_grid_format_options dflt = {.max_slices = 6, .max_rows = 20, .max_cols = 10, .precision = 4};
  size_t d23[2] = {2, 3}, d2[1] = {2}, d522[3] = {5, 1, 2};
  gm_mat *ints = mat_of(GM_CTYPE_DOUBLE, 2, d23, (double[]){1, 20, 3, -4, 5, 600}, 6);
  check_grid_text(ints, dflt, "#<MAT 2x3 double>\n  1   20    3\n -4    5  600");
  gm_mat *odd = mat_of(GM_CTYPE_DOUBLE, 2, d23, (double[]){1.5, -2.25, 3, NAN, INFINITY, -INFINITY}, 6);
  check_grid_text(odd, dflt, "#<MAT 2x3 double>\n 1.50  -2.25   3.00\n  nan    inf   -inf");
  gm_mat *sci = mat_of(GM_CTYPE_DOUBLE, 1, d2, (double[]){1.25e-5, 0.5}, 2);
  check_grid_text(sci, dflt, "#<MAT 2 double>\n1.25e-05  5.00e-01");
  double v[10];
  for (int i = 0; i < 10; i++) v[i] = i + 1;
  gm_mat *r3 = mat_of(GM_CTYPE_DOUBLE, 3, d522, v, 10);
  gm_grid_format_options two = dflt;
  two.max_slices = 2;
  check_grid_text(r3, two, "#<MAT 5x1x2 double>\n[1, :, :]\n  1    2\n...\n\n[5, :, :]\n  9   10");
  double hundred[100];
  for (int i = 0; i < 100; i++) hundred[i] = i + 1;
  size_t d10[2] = {10, 10};
  gm_mat *big = mat_of(GM_CTYPE_DOUBLE, 2, d10, hundred, 100);
  gm_grid_format_options small = {.max_slices = 6, .max_rows = 3, .max_cols = 4, .precision = 4};
  check_grid_text(big, small,
                  "#<MAT 10x10 double>\n  1    2  ...    9   10\n 11   12  ...   19   20\n"
                  "...  ...  ...  ...  ...\n 91   92  ...   99  100");
  gm_strbuf b = {0};
  gm_grid_format_options bad = dflt;
  bad.precision = 18;
  CHECK(gm_mat_format_grid(ints, &bad, &b) == GM_EINVAL && b.len == 0);
  gm_strbuf_free(&b);
  gm_mat_free(ints);
  gm_mat_free(odd);
  gm_mat_free(sci);
  gm_mat_free(r3);
  gm_mat_free(big);
}

/* On the emulated device: only the device copy is current; printing reads
 * it through a temporary copy and changes no facet. */
static void test_device(void) {
  gm_cuda_options o = {.backend = "emulated"};
  CHECK(gm_cuda_begin(&o) == GM_OK);
  size_t d3[1] = {3};
  gm_mat_options cuda = {.ctype = GM_CTYPE_DOUBLE, .cuda_enabled = 1};
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, d3, &cuda, &m) == GM_OK);
  for (size_t k = 0; k < 3; k++) CHECK(gm_mat_put(m, k, (double)k + 1) == GM_OK);
  CHECK(gm_scal(2, m) == GM_OK);
  check_text(m, NULL, "#<MAT 3 double Cf {2, 4, 6}>");
  check_text(m, NULL, "#<MAT 3 double Cf {2, 4, 6}>");
  gm_peek_grid g;
  double out[3];
  bool initialised = false;
  CHECK(gm_peek_grid_plan(m, 1, 1, 3, &g) == GM_OK);
  CHECK(gm_peek_grid_read(m, &g, out, &initialised) == GM_OK && out[2] == 6);
  gm_grid_format_options dflt = {.max_slices = 6, .max_rows = 20, .max_cols = 10, .precision = 4};
  check_grid_text(m, dflt, "#<MAT 3 double>\n  2    4    6");
  check_text(m, NULL, "#<MAT 3 double Cf {2, 4, 6}>"); /* still only the device copy is current */
  gm_mat_free(m);
  CHECK(gm_cuda_end() == GM_OK);
}

int main(void) {
  test_numbers();
  test_shapes();
  test_grouped();
  test_grid();
  test_grid_text();
  test_device();
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
