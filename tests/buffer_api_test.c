/* Test of the public buffer API (include/gpumat.h) without Lua, on the
 * host and, through gm_cuda_begin, on the emulated device: makers, views
 * (displace), copies across spaces, ensure of buffers and mats, reference
 * counts, scoped allocation caches, and the error contract (a status and
 * a message, nothing changed).  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "gpumat.h"

#include "check.h"

static void fill_iota(gm_buffer *b, size_t n) {
  float v[16];
  for (size_t i = 0; i < n; i++) v[i] = (float)(i + 1);
  CHECK(gm_buffer_write(b, 0, n, v) == GM_OK);
}

static void test_host(void) {
  size_t dims[2] = {2, 3};
  gm_buffer *b = NULL, *v = NULL;
  CHECK(gm_buffer_new(GM_MEM_HOST, "float", 2, dims, &b) == GM_OK);
  CHECK(gm_buffer_rank(b) == 2 && gm_buffer_dim(b, 1) == 3 && gm_buffer_size(b) == 6);
  CHECK(strcmp(gm_buffer_element_type(b), "float") == 0 && strcmp(gm_buffer_mem_type(b), "host") == 0);
  fill_iota(b, 6);
  /* the second row as a view of 3 elements */
  size_t row[1] = {3};
  CHECK(gm_buffer_displace(b, 3 * sizeof(float), NULL, 1, row, &v) == GM_OK);
  float got[3] = {0};
  CHECK(gm_buffer_read(v, 0, 3, got) == GM_OK);
  CHECK(got[0] == 4 && got[1] == 5 && got[2] == 6);
  float nine = 9;
  CHECK(gm_buffer_write(v, 2, 1, &nine) == GM_OK);
  float all[6];
  CHECK(gm_buffer_read(b, 0, 6, all) == GM_OK && all[5] == 9); /* the views share memory */
  /* errors: nothing changes */
  gm_buffer *bad = NULL;
  size_t big[1] = {4};
  CHECK(gm_buffer_displace(b, 3 * sizeof(float), NULL, 1, big, &bad) == GM_EINVAL && bad == NULL);
  CHECK(strstr(gm_last_error(), "goes past the end of the block") != NULL);
  CHECK(gm_buffer_read(v, 2, 2, got) == GM_ERANGE);
  CHECK(strstr(gm_last_error(), "elements [2, 4) are out of range [0, 3)") != NULL);
  CHECK(gm_buffer_new(GM_MEM_HOST, "complex", 1, row, &bad) == GM_EINVAL && bad == NULL);
  CHECK(gm_buffer_new(GM_MEM_DEVICE, "float", 1, row, &bad) != GM_OK && bad == NULL); /* no context */
  /* reference counts: deref to 0 releases the memory under every view */
  CHECK(gm_buffer_ref(b) == GM_OK);
  CHECK(gm_buffer_deref(b) == 1);
  CHECK(gm_buffer_deref(b) == 0);
  CHECK(gm_buffer_read(v, 0, 1, got) == GM_ESTATE && strstr(gm_last_error(), "buffer released"));
  gm_buffer_free(v);
  gm_buffer_free(b);
  gm_buffer_free(NULL);
}

static void test_int_convert(void) {
  size_t dims[1] = {4};
  gm_buffer *b = NULL, *e = NULL;
  CHECK(gm_buffer_new(GM_MEM_HOST, "int32", 1, dims, &b) == GM_OK);
  int v[4] = {-2, 0, 7, 100000};
  CHECK(gm_buffer_write(b, 0, 4, v) == GM_OK);
  CHECK(gm_buffer_ensure(b, GM_MEM_HOST, "double", &e) == GM_OK);
  double d[4];
  CHECK(gm_buffer_read(e, 0, 4, d) == GM_OK && d[0] == -2 && d[3] == 100000);
  gm_buffer *i8 = NULL;
  CHECK(gm_buffer_ensure(b, GM_MEM_HOST, "int8", &i8) == GM_ERANGE && i8 == NULL); /* 100000 does not fit */
  gm_buffer_free(e);
  gm_buffer_free(b);
}

static void test_device(void) {
  gm_cuda_options o = {0};
  o.backend = "emulated";
  CHECK(gm_cuda_begin(&o) == GM_OK);
  size_t dims[1] = {5};
  gm_buffer *h = NULL, *d = NULL, *back = NULL, *same = NULL;
  CHECK(gm_buffer_new(GM_MEM_HOST, "float", 1, dims, &h) == GM_OK);
  CHECK(gm_buffer_new(GM_MEM_DEVICE, "float", 1, dims, &d) == GM_OK);
  CHECK(strcmp(gm_buffer_mem_type(d), "device") == 0);
  fill_iota(h, 5);
  CHECK(gm_buffer_copy(d, 1, h, 0, 4) == GM_OK); /* d = {?, 1, 2, 3, 4} */
  CHECK(gm_buffer_ensure(d, GM_MEM_HOST, NULL, &back) == GM_OK);
  float got[5];
  CHECK(gm_buffer_read(back, 1, 4, got) == GM_OK && got[0] == 1 && got[3] == 4);
  CHECK(gm_buffer_ensure(d, GM_MEM_DEVICE, NULL, &same) == GM_OK); /* a view, no copy */
  CHECK(gm_buffer_write(same, 0, 1, &(float){42}) == GM_OK);
  CHECK(gm_buffer_read(d, 0, 1, got) == GM_OK && got[0] == 42);
  CHECK(gm_buffer_copy(d, 3, h, 0, 4) == GM_ERANGE);
  gm_buffer_free(same);
  gm_buffer_free(back);
  gm_buffer_free(d);
  gm_buffer_free(h);
  CHECK(gm_cuda_end() == GM_OK);
}

static void test_mat_ensure(void) {
  size_t dims[2] = {2, 2};
  gm_mat_options o = {0};
  o.ctype = GM_CTYPE_DOUBLE;
  o.has_initial_element = 1;
  o.initial_element = 1.5;
  gm_mat *m = NULL;
  CHECK(gm_mat_new(2, dims, &o, &m) == GM_OK);
  gm_buffer *view = NULL, *conv = NULL;
  CHECK(gm_mat_ensure(m, GM_MEM_HOST, NULL, &view) == GM_OK);
  double x = -3;
  CHECK(gm_buffer_write(view, 3, 1, &x) == GM_OK); /* the facet itself */
  double y = 0;
  CHECK(gm_mat_get(m, 3, &y) == GM_OK && y == -3);
  CHECK(gm_mat_ensure(m, GM_MEM_HOST, "float", &conv) == GM_OK); /* a converted copy */
  float f[4];
  CHECK(gm_buffer_read(conv, 0, 4, f) == GM_OK && f[0] == 1.5f && f[3] == -3.0f);
  gm_mat_free(m); /* the view keeps the storage */
  CHECK(gm_buffer_read(view, 0, 1, &y) == GM_OK && y == 1.5);
  gm_buffer_free(conv);
  gm_buffer_free(view);
}

static void test_alloc_cache(void) {
  gm_alloc_cache *c = NULL;
  gm_cache_scope *s = NULL;
  CHECK(gm_alloc_cache_new(&c) == GM_OK);
  size_t dims[1] = {256};
  gm_buffer *kept = NULL, *gone = NULL;
  CHECK(gm_alloc_cache_begin(c, &s) == GM_OK);
  CHECK(gm_buffer_new(GM_MEM_HOST, "double", 1, dims, &kept) == GM_OK);
  CHECK(gm_buffer_new(GM_MEM_HOST, "double", 1, dims, &gone) == GM_OK);
  gm_buffer_keep(kept);
  CHECK(gm_alloc_cache_end(s) == GM_OK);
  double x = 1;
  CHECK(gm_buffer_write(kept, 0, 1, &x) == GM_OK);
  CHECK(gm_buffer_write(gone, 0, 1, &x) == GM_ESTATE);
  CHECK(strstr(gm_last_error(), "memory returned to an alloc cache") != NULL);
  gm_buffer_free(gone);
  gm_buffer_free(kept);
  gm_alloc_cache_unref(c);
  CHECK(gm_alloc_cache_begin(NULL, &s) == GM_EINVAL);
}

int main(void) {
  test_host();
  test_int_convert();
  test_device();
  test_mat_ensure();
  test_alloc_cache();
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
