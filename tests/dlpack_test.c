/* Test of the DLPack interchange (include/gpumat.h gm_mat_to_dlpack,
 * gm_mat_from_dlpack; include/gpumat_lua.h gpumat_pushdlpack) against
 * libgpumat: the exported fields of every element type, both free orders
 * of an export (mat first, deleter first) and of an import (the
 * producer's deleter exactly once, when the last view goes: C, Lua, a
 * capsule collected unconsumed), strided and negative-stride imports
 * against a plain C reference, every refusal with the tensor still the
 * caller's, and the emulated device (exported through the host after a
 * sync; no kDLCUDA).  Run under ASan by the sanitizer pass: a deleter
 * freeing too early or twice is a reported error there.
 * Exits 0 when every check passes; prints each failure. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumat.h"
#include "gpumat_lua.h"

#include "check.h"

static double get(gm_mat *m, size_t k) {
  double v = -1e300;
  CHECK(gm_mat_get(m, k, &v) == GM_OK);
  return v;
}

/* A producer of the test: owns its data, counts its deleter's calls. */
typedef struct producer {
  DLManagedTensorVersioned t;
  int64_t shape[9], strides[9];
  double *data;
  int *n_deleted;
} producer;

static void producer_deleter(DLManagedTensorVersioned *t) {
  producer *p = t->manager_ctx;
  (*p->n_deleted)++;
  free(p->data);
  free(p);
}

static producer *make_producer(size_t n, int ndim, const int64_t *shape, const int64_t *strides, int *count) {
  producer *p = calloc(1, sizeof *p);
  p->data = malloc(n * sizeof(double) + 1);
  for (size_t i = 0; i < n; i++) p->data[i] = (double)i;
  p->n_deleted = count;
  p->t.version = (DLPackVersion){1, 0};
  p->t.manager_ctx = p;
  p->t.deleter = producer_deleter;
  p->t.dl_tensor = (DLTensor){p->data, {kDLCPU, 0}, ndim, {kDLFloat, 64, 1}, p->shape, strides ? p->strides : NULL, 0};
  for (int i = 0; i < ndim; i++) {
    p->shape[i] = shape[i];
    if (strides) p->strides[i] = strides[i];
  }
  return p;
}

/* The exported fields of a 2x3 mat of each element type. */
static void test_export_types(void) {
  static const struct {
    uint8_t code, bits;
  } want[] = {{kDLFloat, 32}, {kDLFloat, 64}, {kDLBool, 8},  {kDLInt, 8},   {kDLInt, 16}, {kDLInt, 32},
              {kDLInt, 64},   {kDLUInt, 8},   {kDLUInt, 16}, {kDLUInt, 32}, {kDLUInt, 64}};
  for (int ct = 0; ct < (int)(sizeof want / sizeof want[0]); ct++) {
    size_t dims[2] = {2, 3};
    gm_mat_options o = {.ctype = ct, .has_initial_element = 1, .initial_element = 1, .cuda_enabled = 1};
    gm_mat *m = NULL;
    CHECK(gm_mat_new(2, dims, &o, &m) == GM_OK);
    CHECK(gm_mat_put(m, 4, 0) == GM_OK);
    DLManagedTensorVersioned *t = NULL;
    CHECK(gm_mat_to_dlpack(m, NULL, &t) == GM_OK);
    DLTensor *d = &t->dl_tensor;
    CHECK(t->version.major == 1 && t->flags == 0);
    CHECK(d->dtype.code == want[ct].code && d->dtype.bits == want[ct].bits && d->dtype.lanes == 1);
    CHECK(d->device.device_type == kDLCPU && d->ndim == 2 && d->byte_offset == 0);
    CHECK(d->shape[0] == 2 && d->shape[1] == 3 && d->strides[0] == 3 && d->strides[1] == 1);
    const unsigned char *bytes = d->data; /* element 4 is 0, element 5 is 1 in every type */
    size_t es = want[ct].bits / 8;
    int zero = 1, nonzero = 0;
    for (size_t b = 0; b < es; b++) zero &= bytes[4 * es + b] == 0, nonzero |= bytes[5 * es + b] != 0;
    CHECK(zero && nonzero);
    gm_mat *back = NULL; /* gpumat consumes its own export: the same memory */
    CHECK(gm_mat_from_dlpack(t, &back) == GM_OK);
    CHECK(gm_mat_ctype(back) == ct && gm_mat_size(back) == 6 && get(back, 5) == 1);
    CHECK(gm_mat_put(back, 0, 0) == GM_OK && get(m, 0) == 0);
    if (ct % 2) { /* free orders: the producer's mat first, or the consumer's */
      gm_mat_free(m);
      CHECK(get(back, 5) == 1);
      gm_mat_free(back);
    } else {
      gm_mat_free(back);
      CHECK(get(m, 5) == 1);
      gm_mat_free(m);
    }
  }
}

/* The deleter before the mat, the mat before the deleter; copies. */
static void test_export_orders(void) {
  size_t dims[1] = {4};
  gm_mat_options o = {.ctype = GM_CTYPE_DOUBLE, .has_initial_element = 1, .initial_element = 2.5};
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, dims, &o, &m) == GM_OK);
  DLManagedTensorVersioned *t = NULL, *c = NULL;
  CHECK(gm_mat_to_dlpack(m, NULL, &t) == GM_OK);
  gm_dlpack_options copy = {.copy = 1};
  CHECK(gm_mat_to_dlpack(m, &copy, &c) == GM_OK);
  CHECK(c->flags == DLPACK_FLAG_BITMASK_IS_COPIED && c->dl_tensor.data != t->dl_tensor.data);
  ((double *)t->dl_tensor.data)[1] = 7; /* the consumer writes: gpumat reads it */
  CHECK(get(m, 1) == 7 && ((double *)c->dl_tensor.data)[1] == 2.5);
  gm_mat_free(m); /* the export still holds the memory (ASan: no use after free) */
  CHECK(((double *)t->dl_tensor.data)[3] == 2.5);
  t->deleter(t);
  c->deleter(c);
  CHECK(gm_mat_new(1, dims, &o, &m) == GM_OK);
  CHECK(gm_mat_to_dlpack(m, NULL, &t) == GM_OK);
  t->deleter(t); /* the deleter first: the mat is untouched */
  CHECK(get(m, 3) == 2.5);
  gm_mat_free(m);
  gm_dlpack_options bad = {.device = 7};
  CHECK(gm_mat_new(1, dims, &o, &m) == GM_OK);
  t = NULL;
  CHECK(gm_mat_to_dlpack(m, &bad, &t) == GM_EINVAL && t == NULL);
  CHECK(gm_mat_to_dlpack(m, NULL, NULL) == GM_EINVAL);
  gm_mat_free(m);
}

/* Strided and negative-stride imports read as a plain C walk reads. */
static void test_import_views(void) {
  int n = 0;
  int64_t shape[2] = {3, 2}, tr[2] = {1, 3}; /* the transpose of a 2x3 row-major block */
  producer *p = make_producer(6, 2, shape, tr, &n);
  gm_mat *m = NULL;
  CHECK(gm_mat_from_dlpack(&p->t, &m) == GM_OK);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) CHECK(get(m, (size_t)(i * 2 + j)) == (double)(i + 3 * j));
  gm_mat *v = NULL;
  CHECK(gm_mat_view(m, 1, (size_t[]){6}, 0, &v) == GM_OK); /* a view of the storage holds it too */
  gm_mat_free(m);
  CHECK(n == 0 && get(v, 5) == 5);
  gm_mat_free(v);
  CHECK(n == 1);
  int64_t s1[1] = {4}, back[1] = {-2}; /* elements 6, 4, 2, 0: data at the last */
  p = make_producer(8, 1, s1, back, &n);
  p->t.dl_tensor.byte_offset = 6 * sizeof(double);
  CHECK(gm_mat_from_dlpack(&p->t, &m) == GM_OK);
  for (int k = 0; k < 4; k++) CHECK(get(m, (size_t)k) == 6 - 2 * k);
  CHECK(gm_mat_put(m, 0, -1) == GM_OK && p->data[6] == -1);
  gm_mat_free(m);
  CHECK(n == 2);
  int64_t empty[2] = {0, 5};
  p = make_producer(1, 2, empty, NULL, &n);
  CHECK(gm_mat_from_dlpack(&p->t, &m) == GM_OK && n == 3); /* nothing to hold: released at once */
  CHECK(gm_mat_size(m) == 0 && gm_mat_dim(m, 1) == 5);
  gm_mat_free(m);
}

/* Each refusal leaves the tensor the caller's (its deleter not called). */
static void test_import_refusals(void) {
  int n = 0;
  int64_t shape[1] = {4};
  producer *p = make_producer(4, 1, shape, NULL, &n);
  gm_mat *m = NULL;
  DLManagedTensorVersioned *t = &p->t;
  t->version.major = 2;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EUNSUPPORTED && strstr(gm_last_error(), "major version 2"));
  t->version.major = 1;
  t->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EUNSUPPORTED && strstr(gm_last_error(), "read-only"));
  t->flags = 0;
  t->dl_tensor.dtype.lanes = 2;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EUNSUPPORTED);
  t->dl_tensor.dtype = (DLDataType){kDLFloat, 8, 1}; /* an 8-bit float: no such ctype */
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EUNSUPPORTED && strstr(gm_last_error(), "code 2, bits 8"));
  t->dl_tensor.dtype = (DLDataType){kDLFloat, 64, 1};
  t->dl_tensor.device = (DLDevice){kDLCUDA, 0};
  CHECK(gm_mat_from_dlpack(t, &m) == GM_ESTATE && strstr(gm_last_error(), "CUDA"));
  t->dl_tensor.device = (DLDevice){kDLVulkan, 0};
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EUNSUPPORTED);
  t->dl_tensor.device = (DLDevice){kDLCPU, 0};
  t->dl_tensor.byte_offset = 4;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EINVAL && strstr(gm_last_error(), "aligned"));
  t->dl_tensor.byte_offset = 0;
  t->dl_tensor.ndim = GM_MAX_RANK + 1;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EINVAL);
  t->dl_tensor.ndim = 1;
  p->shape[0] = -1;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_EINVAL);
  p->shape[0] = INT64_MAX / 2;
  t->dl_tensor.strides = p->strides;
  p->strides[0] = 4;
  CHECK(gm_mat_from_dlpack(t, &m) == GM_ERANGE);
  CHECK(gm_mat_from_dlpack(NULL, &m) == GM_EINVAL && m == NULL && n == 0);
  t->deleter(t);
  CHECK(n == 1);
}

/* Lua: a C producer's capsule consumed by gm.from_dlpack, one collected
 * unconsumed, one consumed twice; a mat exported from Lua to C. */
static void test_lua(void) {
  int n = 0;
  int64_t shape[1] = {3};
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "gpumat", luaopen_gpumat, 1);
  lua_setglobal(L, "gm");
  gpumat_pushdlpack(L, &make_producer(3, 1, shape, NULL, &n)->t);
  lua_setglobal(L, "cap");
  gpumat_pushdlpack(L, &make_producer(3, 1, shape, NULL, &n)->t);
  lua_pop(L, 1); /* never consumed: __gc calls the deleter */
  const char *code = "local m = gm.from_dlpack(cap) m[3] = m[3] * 10 "
                     "assert(not pcall(gm.from_dlpack, cap)) cap = nil out = gm.mat({2}, {initial_contents = {5, 6}}) "
                     "return m[1] + m[2] + m[3]";
  CHECK(luaL_dostring(L, code) == LUA_OK);
  CHECK(lua_tonumber(L, -1) == 21);
  lua_pop(L, 1);
  lua_gc(L, LUA_GCCOLLECT);
  CHECK(n == 2);
  lua_getglobal(L, "out");
  DLManagedTensorVersioned *t = NULL;
  CHECK(gm_mat_to_dlpack(gpumat_checkmat(L, -1), NULL, &t) == GM_OK);
  lua_pop(L, 1);
  lua_close(L); /* the Lua mat goes first: the export keeps its memory */
  CHECK(((double *)t->dl_tensor.data)[1] == 6);
  t->deleter(t);
}

/* The emulated device: its memory is no CUDA memory, so exports go
 * through the host (synced first) and kDLCUDA imports are refused. */
static void test_emulated(void) {
  gm_cuda_options co = {.backend = "emulated"};
  if (gm_cuda_begin(&co) != GM_OK) return;
  size_t dims[1] = {3};
  gm_mat_options o = {.ctype = GM_CTYPE_FLOAT, .has_initial_element = 1, .initial_element = 1, .cuda_enabled = 1};
  gm_mat *m = NULL;
  CHECK(gm_mat_new(1, dims, &o, &m) == GM_OK);
  CHECK(gm_scal(3, m) == GM_OK); /* the result is on the emulated device */
  DLManagedTensorVersioned *t = NULL;
  gm_dlpack_options cuda = {.device = GM_DLPACK_CUDA};
  CHECK(gm_mat_to_dlpack(m, &cuda, &t) == GM_EUNSUPPORTED && t == NULL);
  CHECK(gm_mat_to_dlpack(m, NULL, &t) == GM_OK);
  CHECK(t->dl_tensor.device.device_type == kDLCPU && ((float *)t->dl_tensor.data)[2] == 3);
  ((float *)t->dl_tensor.data)[0] = 5; /* the host facet is now the current one */
  CHECK(gm_scal(2, m) == GM_OK && get(m, 0) == 10);
  t->deleter(t);
  int n = 0;
  int64_t shape[1] = {2};
  producer *p = make_producer(2, 1, shape, NULL, &n);
  p->t.dl_tensor.device = (DLDevice){kDLCUDA, 0};
  gm_mat *x = NULL;
  CHECK(gm_mat_from_dlpack(&p->t, &x) == GM_EUNSUPPORTED && strstr(gm_last_error(), "emulated"));
  p->t.deleter(&p->t);
  gm_mat_free(m);
  CHECK(gm_cuda_end() == GM_OK && n == 1);
}

/* The array API's options (gm_dlpack_options' copy, dl_device, stream):
 * a read-only tensor copied unless copy is NEVER, copy ALWAYS, dl_device
 * refusals leaving the tensor the caller's, an export's dl_device and
 * stream checks. */
static void test_options(void) {
  int n = 0;
  int64_t shape[1] = {4};
  producer *p = make_producer(4, 1, shape, NULL, &n);
  DLManagedTensorVersioned *t = &p->t;
  gm_mat *m = NULL;
  t->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  gm_dlpack_options never = {.copy = GM_DLPACK_COPY_NEVER};
  CHECK(gm_mat_from_dlpack_opts(t, &never, &m) == GM_EUNSUPPORTED && strstr(gm_last_error(), "read-only") && n == 0);
  gm_dlpack_options gpu = {.dl_device_type = kDLCUDA};
  CHECK(gm_mat_from_dlpack_opts(t, &gpu, &m) == GM_EUNSUPPORTED && strstr(gm_last_error(), "kDLCPU memory") && n == 0);
  gm_dlpack_options stream = {.stream = 1};
  CHECK(gm_mat_from_dlpack_opts(t, &stream, &m) == GM_EINVAL && n == 0);
  CHECK(gm_mat_from_dlpack_opts(t, NULL, &m) == GM_OK && n == 1); /* copied: the tensor given back at once */
  for (int k = 0; k < 4; k++) CHECK(get(m, (size_t)k) == k);
  CHECK(gm_mat_put(m, 0, 7) == GM_OK);
  gm_mat_free(m);
  p = make_producer(4, 1, shape, NULL, &n);
  gm_dlpack_options always = {.copy = GM_DLPACK_COPY_ALWAYS, .dl_device_type = kDLCPU};
  CHECK(gm_mat_from_dlpack_opts(&p->t, &always, &m) == GM_OK && n == 2);
  CHECK(get(m, 3) == 3);
  /* an export: dl_device kDLCPU is the host's memory; others refused */
  DLManagedTensorVersioned *e = NULL;
  gm_dlpack_options cpu = {.dl_device_type = kDLCPU, .stream = -1};
  CHECK(gm_mat_to_dlpack(m, &cpu, &e) == GM_OK && e->dl_tensor.device.device_type == kDLCPU && !e->flags);
  e->deleter(e);
  gm_dlpack_options bad[] = {
      {.dl_device_type = kDLVulkan}, {.dl_device_type = kDLCUDAHost}, {.dl_device_type = kDLCPU, .dl_device_id = 1},
      {.stream = 2},                 {.stream = -2},                  {.copy = 3},
      {.device = GM_DLPACK_HOST, .dl_device_type = kDLCPU}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    e = NULL;
    CHECK(gm_mat_to_dlpack(m, &bad[i], &e) != GM_OK && e == NULL);
  }
  gm_mat_free(m);
}

int main(void) {
  test_export_types();
  test_export_orders();
  test_import_views();
  test_import_refusals();
  test_options();
  test_lua();
  test_emulated();
  if (gm_test_failed) fprintf(stderr, "%d check(s) failed\n", (int)gm_test_failed);
  else printf("dlpack_test: all checks passed\n");
  return gm_test_failed ? 1 : 0;
}
