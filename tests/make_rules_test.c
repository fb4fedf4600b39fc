/* The construction and argument rules of buffers and mats without Lua
 * (src/core/io/buffer_args.c, mat_make.c, memspace.c): element values per
 * type, maker pitches and flags, subscripts and indices, fill and copy
 * spans, displacement options, ensure options, gm.mat's sizes and
 * displaced mats, nested contents, and the public buffer getters.  Each
 * rule is checked with the status, the message the Lua binding shows, and
 * outputs left alone on failure.  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gpumat.h"
#include "core/io/buffer_args.h"
#include "core/mem/device.h"
#include "core/mem/memspace.h"
#include "core/model/mat.h"

/* st is GM_EINVAL and the message is exactly msg. */
static int fails_with(gm_status st, const char *msg) {
  if (st == GM_EINVAL && strcmp(gm_last_error(), msg) == 0) return 1;
  fprintf(stderr, "status %d, message '%s', expected '%s'\n", (int)st, gm_last_error(), msg);
  return 0;
}

static void test_values(void) {
  unsigned char b[8] = {0};
  CHECK(gm_etype_encode(GM_E_I8, true, 127, 0, "value", b) == GM_OK && (signed char)b[0] == 127);
  CHECK(fails_with(gm_etype_encode(GM_E_I8, true, 128, 0, "value", b), "value 128 does not fit element type int8"));
  CHECK((signed char)b[0] == 127); /* unchanged */
  CHECK(fails_with(gm_etype_encode(GM_E_U16, false, 0, 1.5, "option 'initial_element'", b),
                   "option 'initial_element' 1.5 is not a value of element type uint16"));
  CHECK(gm_etype_encode(GM_E_I32, false, 0, -3.0, "value", b) == GM_OK && gm_etype_get_int(GM_E_I32, b, 0) == -3);
  CHECK(gm_etype_encode(GM_E_F64, true, 5, 0, "value", b) == GM_OK && gm_etype_get_real(GM_E_F64, b, 0) == 5.0);
  gm_etype et = GM_E_F32;
  CHECK(gm_etype_option_parse("foreign_type", "int32_t", &et) == GM_OK && et == GM_E_I32);
  CHECK(fails_with(gm_etype_option_parse("element_type", "half", &et),
                   "option 'element_type' must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, "
                   "got half"));
  CHECK(et == GM_E_I32);
}

static void test_maker_rules(void) {
  size_t dims[2] = {3, 4}, size = 0, huge[2] = {(size_t)1 << 40, (size_t)1 << 40};
  CHECK(gm_buffer_dims_size(2, dims, &size) == GM_OK && size == 12);
  CHECK(fails_with(gm_buffer_dims_size(2, huge, &size), "dimensions are too large") && size == 12);
  /* a mat's element count stays at most SIZE_MAX / 16 = 2^60 - 1, tested
   * per axis without a division (core/model/mat.c) */
  size_t at[2] = {(size_t)1 << 30, ((size_t)1 << 30) - 1}, over[2] = {(size_t)1 << 30, (size_t)1 << 30};
  size_t wrap[2] = {(size_t)1 << 33, (size_t)1 << 33}, one[1] = {SIZE_MAX / 16};
  CHECK(gm_dims_size(2, at, &size) == GM_OK && size == ((size_t)1 << 60) - ((size_t)1 << 30));
  CHECK(gm_dims_size(1, one, &size) == GM_OK && size == SIZE_MAX / 16);
  CHECK(gm_dims_size(2, over, &size) == GM_ERANGE &&
        strcmp(gm_last_error(), "dimensions are too large (dimension 2 is 1073741824)") == 0);
  CHECK(gm_dims_size(2, wrap, &size) == GM_ERANGE && size == SIZE_MAX / 16); /* 2^66 wraps: refused, size kept */
  gm_buffer_spec s = {.et = GM_E_F32, .rank = 2};
  CHECK(gm_buffer_spec_pitch(&s, 8, true, 2) == GM_OK && s.pitch_elt_size == 8 && s.pitch_level == 2);
  CHECK(fails_with(gm_buffer_spec_pitch(&s, 6, false, 1), "option 'pitch_elt_size' must be 4, 8 or 16, got 6"));
  CHECK(fails_with(gm_buffer_spec_pitch(&s, 0, true, 1), "option 'pitch_level' needs 'pitch_elt_size'"));
  CHECK(fails_with(gm_buffer_spec_pitch(&s, 4, true, 3),
                   "option 'pitch_level' must be between 1 and the rank 2, got 3"));
  CHECK(s.pitch_elt_size == 8 && s.pitch_level == 2);
  unsigned flags = 0;
  CHECK(gm_pinned_flag_parse(1, "mapped", &flags) == GM_OK && gm_pinned_flag_parse(2, "write_combined", &flags) == GM_OK);
  CHECK(flags == (GM_PINNED_MAPPED | GM_PINNED_WRITE_COMBINE));
  CHECK(fails_with(gm_pinned_flag_parse(3, "table", &flags),
                   "flag 3 must be \"portable\", \"mapped\" or \"write_combine\", got table"));
  CHECK(gm_check_associated_device(7) == GM_OK); /* no context: any id */
}

static void test_indices(gm_buffer *b) {
  long long subs[2] = {2, 3};
  size_t k = 99, first = 0, n = 0;
  int bad = 9;
  CHECK(gm_buffer_subscripts_index(b, 2, subs, &k, &bad) == GM_OK && k == 6); /* (2, 3) of 2x4 */
  subs[1] = 5;
  CHECK(fails_with(gm_buffer_subscripts_index(b, 2, subs, &k, &bad), "index 5 is out of range 1..4") && bad == 1);
  CHECK(fails_with(gm_buffer_subscripts_index(b, 1, subs, &k, &bad), "1 subscripts for a buffer of rank 2"));
  CHECK(bad == -1 && k == 6);
  CHECK(gm_buffer_linear_index(b, 8, &k) == GM_OK && k == 7);
  CHECK(fails_with(gm_buffer_linear_index(b, 0, &k), "index 0 is out of range 1..8") && k == 7);
  CHECK(gm_buffer_fill_span(b, 3, 5, &first, &n) == GM_OK && first == 2 && n == 3);
  CHECK(gm_buffer_fill_span(b, 9, 8, &first, &n) == GM_OK && first == 8 && n == 0); /* empty at the end */
  CHECK(fails_with(gm_buffer_fill_span(b, 10, 8, &first, &n), "start 10 is out of range 1..9"));
  CHECK(fails_with(gm_buffer_fill_span(b, 3, 1, &first, &n), "stop 1 is out of range 2..8"));
  CHECK(gm_buffer_copy_span(b, 7, b, 2, true, 0, &n, &bad) == GM_OK && n == 2);
  CHECK(gm_buffer_copy_span(b, 1, b, 9, false, 0, &n, &bad) == GM_OK && n == 0);
  CHECK(fails_with(gm_buffer_copy_span(b, 10, b, 1, true, 0, &n, &bad), "index 10 is out of range 1..9") && bad == 0);
  CHECK(fails_with(gm_buffer_copy_span(b, 1, b, 0, true, 0, &n, &bad), "index 0 is out of range 1..9") && bad == 1);
  CHECK(fails_with(gm_buffer_copy_span(b, 6, b, 1, false, 4, &n, &bad), "count 4 does not fit (at most 3)"));
  CHECK(bad == 2 && n == 0);
  float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
  CHECK(fails_with(gm_buffer_write_bytes(b, in, 31), "file too short (31 of 32 bytes)"));
  CHECK(gm_buffer_write_bytes(b, in, 32) == GM_OK && gm_buffer_read_bytes(b, out) == GM_OK);
  CHECK(out[0] == 1 && out[7] == 8);
}

static void test_buffer_views(void) {
  size_t dims[2] = {2, 4};
  gm_buffer *b = NULL;
  CHECK(gm_buffer_new(GM_MEM_HOST, "float", 2, dims, &b) == GM_OK);
  test_indices(b);
  float one = 1, v[8] = {0};
  CHECK(gm_buffer_set_element(b, 6, &one) == GM_OK && gm_buffer_read(b, 0, 8, v) == GM_OK && v[6] == 1);
  CHECK(gm_buffer_get_element(b, 6, v) == GM_OK && v[0] == 1);
  char text[GM_BUFFER_DESCRIBE_MAX];
  gm_buffer_describe(b, text, sizeof text);
  CHECK(strcmp(text, "#<BUFFER float {2, 4} host>") == 0);
  CHECK(strcmp(gm_buffer_foreign_type(b), "float") == 0 && strcmp(gm_buffer_layout(b), "row_major") == 0);
  CHECK(gm_buffer_is_owning(b) == 1 && gm_buffer_refcnt(b) == 1);
  size_t pitch = 5, rel = 0;
  CHECK(gm_buffer_pitch(b, &pitch) == GM_OK && pitch == 0);
  CHECK(gm_displace_options_check(true, false, true, false) == GM_OK);
  CHECK(fails_with(gm_displace_options_check(true, true, false, false),
                   "options 'offset' and 'byte_offset' are mutually exclusive"));
  CHECK(fails_with(gm_displace_options_check(false, false, true, true),
                   "options 'size' and 'dimensions' are mutually exclusive"));
  CHECK(gm_displace_offset(b, true, 3, &rel) == GM_OK && rel == 12);
  CHECK(gm_displace_offset(b, false, 3, &rel) == GM_OK && rel == 3);
  int mapping = 0;
  CHECK(gm_mapping_parse("gpu", &mapping) == GM_OK && mapping == 1);
  CHECK(fails_with(gm_mapping_parse("nil", &mapping), "option 'mapping' must be \"device\", \"gpu\" or \"host\", got nil"));
  gm_buffer *v2 = NULL;
  size_t four[1] = {4};
  CHECK(gm_buffer_displace(b, 6, "int8", 1, four, &v2) == GM_OK);
  size_t whole = 0;
  double el = 0;
  CHECK(gm_buffer_displacement_in(v2, b, &whole, &el) == false && el == 1.5 && whole == 1);
  CHECK(gm_buffer_drop_ref(b) == 0 && gm_buffer_refcnt(b) == -1); /* the memory goes at 0 */
  gm_buffer_describe(b, text, sizeof text);
  CHECK(strcmp(text, "#<BUFFER float {2, 4} released>") == 0);
  CHECK(gm_buffer_drop_ref(b) == -1);
  CHECK(gm_buffer_pitch(b, &pitch) == GM_ESTATE);
  gm_buffer_free(v2);
  gm_buffer_free(b);
}

static void test_ensure_options(void) {
  gm_ensure_options o = {.has_et = false};
  const char *given[GM_N_ENSURE_OPTIONS] = {NULL, "int16", "col_major", "io"};
  CHECK(gm_ensure_options_parse(given, &o) == GM_OK && o.has_et && o.et == GM_E_I16 && o.col_major && o.dir == GM_IO);
  const char *both[GM_N_ENSURE_OPTIONS] = {"float", "int16", NULL, NULL};
  CHECK(fails_with(gm_ensure_options_parse(both, &o), "options 'ctype' and 'element_type' are mutually exclusive"));
  const char *bad_type[GM_N_ENSURE_OPTIONS] = {"number", NULL, NULL, NULL};
  CHECK(fails_with(gm_ensure_options_parse(bad_type, &o), "option 'ctype' must be an element type, got number"));
  const char *bad_dir[GM_N_ENSURE_OPTIONS] = {NULL, NULL, "row_major", "output"};
  CHECK(fails_with(gm_ensure_options_parse(bad_dir, &o), "option 'direction' must be \"input\" or \"io\""));
  CHECK(o.et == GM_E_I16 && o.col_major); /* unchanged */
  gm_mem_type mt = GM_MEM_HOST;
  CHECK(gm_mem_type_parse("managed", &mt) == GM_OK && mt == GM_MEM_MANAGED);
  CHECK(fails_with(gm_mem_type_parse("gpu", &mt),
                   "memory type must be \"host\", \"pinned\", \"device\" or \"managed\", got gpu"));
  size_t dims[1] = {4};
  gm_buffer *b = NULL;
  gm_ctype ct = GM_FLOAT;
  int bad = 0;
  CHECK(gm_buffer_new(GM_MEM_HOST, "int32", 1, dims, &b) == GM_OK);
  /* every buffer element type is a mat element type (one list) */
  CHECK(gm_mat_buffer_ctype(b, NULL, &ct, &bad) == GM_OK && ct == GM_INT32 && bad == 0);
  CHECK(fails_with(gm_mat_buffer_ctype(b, "float", &ct, &bad), "option 'ctype' must be the buffer's element type int32"));
  CHECK(bad == 2);
  gm_buffer_free(b);
  CHECK(gm_buffer_new(GM_MEM_HOST, "double", 1, dims, &b) == GM_OK);
  CHECK(gm_mat_buffer_ctype(b, "double", &ct, &bad) == GM_OK && ct == GM_DOUBLE);
  CHECK(fails_with(gm_mat_buffer_ctype(b, "float", &ct, &bad), "option 'ctype' must be the buffer's element type double"));
  CHECK(bad == 2);
  gm_buffer_free(b);
}

static void test_mat_make(void) {
  size_t dims[1] = {4}, two[1] = {2};
  gm_mat_options o = {.ctype = GM_DOUBLE, .has_initial_element = 1, .initial_element = 2};
  gm_mat *m = NULL, *v = NULL;
  int bad = 0;
  o.max_size = 3;
  CHECK(fails_with(gm_mat_make(1, dims, &o, false, false, &m, &bad),
                   "max_size 3 is smaller than displacement 0 + size 4") && bad == 2 && m == NULL);
  o.max_size = (size_t)1 << 62;
  CHECK(fails_with(gm_mat_make(1, dims, &o, false, false, &m, &bad), "max_size 4611686018427387904 is too large"));
  o.max_size = 6;
  o.displacement = 1;
  CHECK(gm_mat_make(1, dims, &o, true, false, &m, &bad) == GM_OK && gm_mat_max_size(m) == 6); /* host staging */
  double init = 0;
  CHECK(gm_mat_initial_element(m, &init) == 1 && init == 2);
  CHECK(gm_mat_displaced_conflicts(0) == GM_OK);
  CHECK(fails_with(gm_mat_displaced_conflicts(GM_MAKE_STORAGE | GM_MAKE_SYNC),
                   "ctype and max_size cannot go with displaced_to"));
  CHECK(fails_with(gm_mat_displaced_conflicts(GM_MAKE_SYNC),
                   "synchronization cannot go with displaced_to (the storage is shared)"));
  CHECK(fails_with(gm_mat_new_displaced(m, 1, two, -2, &v, &bad),
                   "displacement -2 makes the absolute displacement negative (-1)") && bad == 2);
  CHECK(fails_with(gm_mat_new_displaced(m, 1, dims, 2, &v, &bad),
                   "displaced mat (displacement 3 + size 4) does not fit the storage of 6 elements") && v == NULL);
  CHECK(gm_mat_new_displaced(m, 1, two, 3, &v, &bad) == GM_OK && gm_mat_displacement(v) == 4);
  size_t dims2[2] = {2, 3}, k = 0;
  gm_mat *m2 = NULL;
  gm_mat_options o2 = {.ctype = GM_FLOAT};
  CHECK(gm_mat_make(2, dims2, &o2, false, false, &m2, &bad) == GM_OK);
  long long subs[2] = {2, 1};
  CHECK(gm_mat_subscripts_index(m2, 2, subs, &k, &bad) == GM_OK && k == 3);
  subs[1] = 4;
  CHECK(fails_with(gm_mat_subscripts_index(m2, 2, subs, &k, &bad), "subscript 4 is out of range 1..3 on axis 2"));
  CHECK(bad == 1 && k == 3);
  CHECK(fails_with(gm_mat_subscripts_index(m2, 1, subs, &k, &bad), "expected 2 subscripts, got 1") && bad == -1);
  gm_mat_free(m2);
  gm_mat_free(v);
  gm_mat_free(m);
}

static void test_nested(void) {
  size_t dims[2] = {2, 3};
  CHECK(gm_nested_entry_check(0, 2, dims, true, false, "table", 2) == GM_OK);
  CHECK(gm_nested_entry_check(2, 2, dims, false, true, "number", 0) == GM_OK);
  CHECK(fails_with(gm_nested_entry_check(1, 2, dims, true, false, "table", 2),
                   "contents are not rectangular (a list at depth 2 has 2 entries, expected 3)"));
  CHECK(fails_with(gm_nested_entry_check(1, 2, dims, false, true, "number", 0),
                   "contents are not rectangular (a number at depth 2, expected a list of 3)"));
  CHECK(fails_with(gm_nested_entry_check(2, 2, dims, true, false, "table", 0),
                   "contents are not rectangular (a list at depth 3, expected a number)"));
  CHECK(fails_with(gm_nested_entry_check(2, 2, dims, false, false, "nil", 0),
                   "contents must be numbers or mats, got nil at depth 3"));
}

int main(void) {
  test_values();
  test_maker_rules();
  test_buffer_views();
  test_ensure_options();
  test_mat_make();
  test_nested();
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
