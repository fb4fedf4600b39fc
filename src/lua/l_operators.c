/* The arithmetic operators of mats (REPL and script conveniences):
 *   a + b, a - b, a / b, a ^ b   gm.add, gm.sub, gm.cdiv, gm.pow: mats
 *                                (broadcast) and numbers (l_broadcast.c)
 *   a * b             m_mul, the matrix product (2-d); a 1-d right
 *                     operand is a vector (1-d result)
 *   m * s, s * m, -m  scaled copies
 * Every result is a new mat, computed where the operands live (host or
 * device); the operands are not changed.  Scalars are rounded to the
 * mat's ctype.  Argument errors name the metamethod: "bad argument #2 to
 * '__add' (mat or number expected, got string)"; shape errors the op:
 * "add: cannot broadcast 2x3 with 3x2".
 *
 * Binding rule: the scalar is read first; the mat's shape is copied out,
 * the result allocated (which may run finalizers), and only then is the
 * operand re-taken and checked to still have that shape. */
#include <string.h>

#include "../core/operands.h"
#include "l_broadcast.h"
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
  gm_mat *r;
  GML_TRY(L, gm_result_new(rank, dims, t, m->cuda_enabled, gml_settings_of(L)->default_synchronization, &r), fn);
  gml_pushmat(L, r); /* may run finalizers: m is not used from here on */
  *a = gml_checkmat(L, idx, fn);
  if ((*a)->ctype != t || (*a)->size != r->size)
    gml_argerror(L, idx, fn, "the mat was reshaped while the operation ran");
  return r;
}

/* New mat := scale * a + shift (elementwise), a the mat at idx. */
static int affine(lua_State *L, int idx, double scale, double shift, const char *fn) {
  gm_mat *a, *r = new_like(L, idx, fn, &a);
  GML_TRY(L, gm_affine_into(a, scale, shift, r), fn);
  return 1;
}

/* a OP b with broadcasting (mats and numbers) */
static int broadcast_op(lua_State *L, gm_bcast_op op, const char *fn) {
  gml_guard(L, 2); /* the result is allocated while the operands are held */
  static const int idx[2] = {1, 2};
  return gml_broadcast(L, (int)op, idx, 2, 0, fn);
}

static int op_add(lua_State *L) { return broadcast_op(L, GM_BC_ADD, "__add"); }
static int op_sub(lua_State *L) { return broadcast_op(L, GM_BC_SUB, "__sub"); }
static int op_div(lua_State *L) { return broadcast_op(L, GM_BC_CDIV, "__div"); }
static int op_pow(lua_State *L) { return broadcast_op(L, GM_BC_POW, "__pow"); }

static int op_unm(lua_State *L) { return affine(L, 1, -1, 0, "__unm"); }

/* a * b: the matrix product (a 2-d; b 2-d, or 1-d for matrix x vector
 * with a 1-d result); s * m, m * s scale. */
static int op_mul(lua_State *L) {
  const char *fn = "__mul";
  gml_guard(L, 2); /* the result is allocated while the operands are held */
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 1)) return affine(L, 2, lua_tonumber(L, 1), 0, fn);
  if (is_number(L, 2)) return affine(L, 1, lua_tonumber(L, 2), 0, fn);
  gm_mat *a = gml_checkmat(L, 1, fn), *b = gml_checkmat(L, 2, fn), *c;
  size_t dims[2];
  int rank, bad = 0;
  if (gm_matmul_dims(a, b, &rank, dims, &bad) != GM_OK) gml_argerror(L, bad, fn, "%s", gm_last_error());
  gm_sync sync = gml_settings_of(L)->default_synchronization;
  GML_TRY(L, gm_result_new(rank, dims, a->ctype, a->cuda_enabled && b->cuda_enabled, sync, &c), fn);
  gml_pushmat(L, c);
  GML_TRY(L, gm_matmul(a, b, c), fn);
  return 1;
}

void gml_open_operators(lua_State *L, int module_idx) {
  (void)module_idx;
  static const gml_reg ops[] = {{"__add", op_add, 2, NULL}, {"__sub", op_sub, 2, NULL}, {"__unm", op_unm, 2, NULL},
                                 {"__mul", op_mul, 2, NULL}, {"__div", op_div, 2, NULL}, {"__pow", op_pow, 2, NULL},
                                 {NULL, NULL, 0, NULL}};
  luaL_getmetatable(L, GML_MAT_MT);
  gml_register(L, -1, ops);
  lua_pop(L, 1);
}
