/* The arithmetic operators of mats (REPL and script conveniences):
 *   a + b, a - b      m_add / m_sub (same ctype and size)
 *   a * b             m_mul, the matrix product (2-d)
 *   m + s, s + m, m - s, s - m, m * s, s * m, m / s, s / m, -m
 * Every result is a new mat with the mat operand's dims, ctype and
 * cuda_enabled flag, computed where the operand lives (host or device)
 * with the BLAS and elementwise tables; the operands are not changed.
 * Scalars are rounded to the mat's ctype.  Errors name the metamethod:
 * "bad argument #2 to '__add' (mat or number expected, got string)".
 *
 * Binding rule: the scalar is read first; the mat's shape is copied out,
 * the result allocated (which may run finalizers), and only then is the
 * operand re-taken and checked to still have that shape. */
#include <string.h>

#include "../core/blas.h"
#include "../core/elementwise.h"
#include "util.h"

static int is_number(lua_State *L, int idx) { return lua_type(L, idx) == LUA_TNUMBER; }

/* Raises unless the value at idx is a mat or a number. */
static void check_operand(lua_State *L, int idx, const char *fn) {
  if (!is_number(L, idx) && !gml_ismat(L, idx))
    gml_argerror(L, idx, fn, "mat or number expected, got %s", luaL_typename(L, idx));
}

/* Pushes a new mat shaped like the mat at idx and returns it; *a is the
 * operand, re-taken after the allocation. */
static gm_mat *new_like(lua_State *L, int idx, const char *fn, gm_mat **a) {
  gm_mat *m = gml_checkmat(L, idx, fn);
  int rank = m->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, m->dims, sizeof dims);
  gm_ctype t = m->ctype;
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.has_initial_element = 1;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *r;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &r), fn);
  gml_pushmat(L, r); /* may run finalizers: m is not used from here on */
  *a = gml_checkmat(L, idx, fn);
  if ((*a)->ctype != t || (*a)->size != r->size)
    gml_argerror(L, idx, fn, "the mat was reshaped while the operation ran");
  return r;
}

/* New mat := scale * a + shift (elementwise), a the mat at idx. */
static int affine(lua_State *L, int idx, double scale, double shift, const char *fn) {
  gm_mat *a, *r = new_like(L, idx, fn, &a);
  GML_TRY(L, gm_copy_(a, r, a->size, 1, 1), fn);
  if (scale != 1) GML_TRY(L, gm_scal_(scale, r, r->size, 1), fn);
  if (shift != 0) GML_TRY(L, gm_add_scalar_(shift, r), fn);
  return 1;
}

/* alpha * a + beta * b as a new mat with a's dims (same ctype and size) */
static int add_mats(lua_State *L, const char *fn, double beta) {
  gm_mat *a = gml_checkmat(L, 1, fn), *b = gml_checkmat(L, 2, fn);
  if (a->ctype != b->ctype)
    gml_argerror(L, 2, fn, "mixed ctypes %s and %s", gm_ctype_name(a->ctype), gm_ctype_name(b->ctype));
  if (a->size != b->size) gml_argerror(L, 2, fn, "sizes differ: %zu vs %zu", a->size, b->size);
  bool cuda = a->cuda_enabled && b->cuda_enabled;
  gm_mat *r = new_like(L, 1, fn, &a);
  r->cuda_enabled = cuda;
  b = gml_checkmat(L, 2, fn);
  if (b->ctype != a->ctype || b->size != a->size)
    gml_argerror(L, 2, fn, "the mat was reshaped while the operation ran");
  size_t n = a->size;
  gm_submat ba = {a, 0, n, false}, bb = {b, 0, n, false}, bc = {r, 0, n, false};
  GML_TRY(L, gm_geam_(1, ba, beta, bb, bc, 1, n), fn);
  return 1;
}

static int op_add(lua_State *L) {
  const char *fn = "__add";
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 1)) return affine(L, 2, 1, lua_tonumber(L, 1), fn);
  if (is_number(L, 2)) return affine(L, 1, 1, lua_tonumber(L, 2), fn);
  return add_mats(L, fn, 1);
}

static int op_sub(lua_State *L) {
  const char *fn = "__sub";
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 1)) return affine(L, 2, -1, lua_tonumber(L, 1), fn);
  if (is_number(L, 2)) return affine(L, 1, 1, -lua_tonumber(L, 2), fn);
  return add_mats(L, fn, -1);
}

static int op_unm(lua_State *L) { return affine(L, 1, -1, 0, "__unm"); }

/* a * b (matrix product, as m_mul), s * m, m * s */
static int op_mul(lua_State *L) {
  const char *fn = "__mul";
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 1)) return affine(L, 2, lua_tonumber(L, 1), 0, fn);
  if (is_number(L, 2)) return affine(L, 1, lua_tonumber(L, 2), 0, fn);
  gm_mat *a = gml_checkmat(L, 1, fn), *b = gml_checkmat(L, 2, fn);
  if (a->rank != 2) gml_argerror(L, 1, fn, "matrix must be 2-dimensional, has rank %d", a->rank);
  if (b->rank != 2) gml_argerror(L, 2, fn, "matrix must be 2-dimensional, has rank %d", b->rank);
  if (a->ctype != b->ctype)
    gml_argerror(L, 2, fn, "mixed ctypes %s and %s", gm_ctype_name(a->ctype), gm_ctype_name(b->ctype));
  if (a->dims[1] != b->dims[0])
    gml_argerror(L, 2, fn, "inner dimensions differ: %zu vs %zu", a->dims[1], b->dims[0]);
  size_t dims[2] = {a->dims[0], b->dims[1]};
  gm_ctype t = a->ctype;
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.has_initial_element = 1;
  o.cuda_enabled = a->cuda_enabled && b->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *c;
  GML_TRY(L, gm_mat_new(2, dims, &o, &c), fn);
  gml_pushmat(L, c);
  a = gml_checkmat(L, 1, fn);
  b = gml_checkmat(L, 2, fn);
  if (a->rank != 2 || b->rank != 2 || a->dims[0] != dims[0] || b->dims[1] != dims[1] || a->dims[1] != b->dims[0])
    gml_argerror(L, 1, fn, "the mat was reshaped while the operation ran");
  gm_gemm_args g = {false, false, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET};
  GML_TRY(L, gm_gemm_(1, a, b, 0, c, g), fn);
  return 1;
}

/* m / s multiplies by 1/s (for float mats one rounding more than a true
 * division); s / m is s * (1/m) elementwise; mat / mat is an error. */
static int op_div(lua_State *L) {
  const char *fn = "__div";
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 2)) return affine(L, 1, 1.0 / lua_tonumber(L, 2), 0, fn);
  if (!is_number(L, 1))
    gml_argerror(L, 2, fn, "mat / mat is not defined (number expected; use gm.invert for the matrix inverse)");
  double s = lua_tonumber(L, 1);
  gm_mat *a, *r = new_like(L, 2, fn, &a);
  GML_TRY(L, gm_copy_(a, r, a->size, 1, 1), fn);
  GML_TRY(L, gm_unary_(GM_UN_INV, r, r->size), fn);
  if (s != 1) GML_TRY(L, gm_scal_(s, r, r->size, 1), fn);
  return 1;
}

void gml_open_operators(lua_State *L, int module_idx) {
  (void)module_idx;
  static const gml_reg ops[] = {{"__add", op_add, 2, NULL}, {"__sub", op_sub, 2, NULL}, {"__unm", op_unm, 2, NULL},
                                 {"__mul", op_mul, 2, NULL}, {"__div", op_div, 2, NULL}, {NULL, NULL, 0, NULL}};
  luaL_getmetatable(L, GML_MAT_MT);
  gml_register(L, -1, ops);
  lua_pop(L, 1);
}
