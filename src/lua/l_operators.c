/* The arithmetic operators of mats (REPL and script conveniences):
 *   a + b, a - b, a / b, a ^ b   gm.add, gm.sub, gm.cdiv, gm.pow: mats
 *                                (broadcast) and numbers (l_broadcast.c)
 *   a * b             m_mul, the matrix product (2-d); a 1-d right
 *                     operand is a vector (1-d result); with an operand
 *                     of rank > 2, lua/gpumat/einsum.lua's wrapper of
 *                     this __mul calls gm.matmul instead (batched)
 *   m * s, s * m, -m  gm.cmul by the number (one pass)
 *   a < b and kin     an error naming m:gt(x) and its kin
 *   a // b, a % b, a & b, a | b, a ~ b, a << b, a >> b, ~a
 *                     gm.floor_divide, remainder, bitwise_and, _or,
 *                     _xor, _left_shift, _right_shift, bitwise_invert:
 *                     integer mats only (core/ops/broadcast.c refuses others)
 * Every result is a new mat, computed where the operands live (host or
 * device); the operands are not changed.  Mixed ctypes promote and Lua
 * numbers are weak (l_broadcast.c, docs/API.md "Promotion").  Argument errors name the metamethod: "bad argument #2 to
 * '__add' (mat or number expected, got string)"; shape errors the op:
 * "add: cannot broadcast 2x3 with 3x2".
 *
 * Binding rule: the collector is paced and each result's box made before
 * the operands are taken (gml_newbox; both may run finalizers), so the
 * operators need no guard. */
#include "../core/ops/operands.h"
#include "l_broadcast.h"
#include "util.h"

static int is_number(lua_State *L, int idx) { return lua_type(L, idx) == LUA_TNUMBER; }

/* Raises unless the value at idx is a mat or a number. */
static void check_operand(lua_State *L, int idx, const char *fn) {
  if (!is_number(L, idx) && !gml_ismat(L, idx))
    gml_argerror(L, idx, fn, "mat or number expected, got %s", luaL_typename(L, idx));
}

/* a OP b with broadcasting (mats and numbers) */
static int broadcast_op(lua_State *L, gm_bcast_op op, const char *fn) {
  static const int idx[2] = {1, 2};
  return gml_broadcast(L, (int)op, idx, 2, 0, fn);
}

static int op_add(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_ADD, "__add"); }
static int op_sub(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_SUB, "__sub"); }
static int op_div(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_CDIV, "__div"); }
static int op_pow(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_POW, "__pow"); }
static int op_idiv(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_FLOORDIV, "__idiv"); }
static int op_mod(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_REMAINDER, "__mod"); }
static int op_band(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_BAND, "__band"); }
static int op_bor(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_BOR, "__bor"); }
static int op_bxor(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_BXOR, "__bxor"); }
static int op_shl(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_SHL, "__shl"); }
static int op_shr(lua_State *L) { gml_check_arity_n(L, 2); return broadcast_op(L, GM_BC_SHR, "__shr"); }

/* ~m and gm.bitwise_invert(m) as m xor all-ones (one pass): -1 for a
 * signed type, true for bool; 2^64 for an unsigned one, which the number's saturating
 * conversion makes the type's MAX.  A non-integer mat is refused by the
 * core, naming bitwise_xor's caller below. */
static int invert(lua_State *L, const char *fn) {
  gm_mat *m = gml_checkmat(L, 1, fn);
  int k = gm_ctype_kind(m->ctype);
  if (k != GM_KIND_INT && k != GM_KIND_UINT && k != GM_KIND_BOOL)
    return gml_argerror(L, 1, fn, "integer or bool mat expected, got a %s mat", gm_ctype_name(m->ctype));
  lua_settop(L, 1);
  lua_pushnumber(L, k == GM_KIND_INT ? -1.0 : k == GM_KIND_BOOL ? 1.0 : 18446744073709551616.0);
  static const int idx[2] = {1, 2};
  return gml_broadcast_as(L, GM_BC_BXOR, idx, 2, 0, fn, (int)m->ctype); /* the number is no weak float */
}
static int op_bnot(lua_State *L) { gml_check_arity_n(L, 2); return invert(L, "__bnot"); }
static int l_bitwise_invert(lua_State *L) { return invert(L, "bitwise_invert"); }

/* -m as m * -1 (one pass: broadcast cmul by a number, a weak integer:
 * m's ctype); -0.0 stays -0.0.  An unsigned mat wraps: m * MAX (2^64
 * saturates to MAX), in m's ctype.  Lua passes the operand twice: the
 * second becomes the number.  A bool mat refuses, as gm.negative does
 * (bool * -1 would promote to int64; NumPy raises for -bool). */
static int op_unm(lua_State *L) {
  gml_check_arity_n(L, 2);
  check_operand(L, 1, "__unm");
  lua_settop(L, 1);
  gm_mat *m = gml_checkmat(L, 1, "__unm");
  if (m->ctype == GM_BOOL) /* NumPy's rule too */
    gml_argerror(L, 1, "__unm", "bool mats do not negate: use ~ (bitwise_invert) or logical_not");
  if (gm_ctype_kind(m->ctype) != GM_KIND_UINT) {
    lua_pushinteger(L, -1);
    return broadcast_op(L, GM_BC_CMUL, "__unm");
  }
  lua_pushnumber(L, 18446744073709551616.0);
  static const int idx[2] = {1, 2};
  return gml_broadcast_as(L, GM_BC_CMUL, idx, 2, 0, "__unm", (int)m->ctype);
}

/* gm.matmul (lua/gpumat/einsum.lua), which `*` calls for the products
 * the C one does not make (core._set_matmul(f) at load). */
static const char matmul_key = 'm';

static int l_set_matmul(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &matmul_key);
  return 0;
}

/* Whether a * b of two mats is gm.matmul's: stacks (rank > 2), and
 * integer, bool, half, complex or mixed-type mats (matmul promotes). */
static bool general_product(lua_State *L, const char *fn) {
  /* any ctype here (gml_checkmat would refuse the ones matmul takes) */
  const gm_mat *a = gml_checkelembox(L, 1, fn)->m, *b = gml_checkelembox(L, 2, fn)->m;
  return a->rank > 2 || b->rank > 2 || a->ctype != b->ctype || (a->ctype != GM_FLOAT && a->ctype != GM_DOUBLE);
}

/* The product of the mats at 1 and 2 (the C operator's cases: a 2-d; b
 * 2-d, or 1-d for matrix x vector), a new mat; errors name fn. */
static int product(lua_State *L, const char *fn) {
  gml_mat *box = gml_newbox(L); /* before the operands are taken */
  gm_mat *a = gml_checkmat(L, 1, fn), *b = gml_checkmat(L, 2, fn);
  size_t dims[2];
  int rank, bad = 0;
  if (gm_matmul_dims(a, b, &rank, dims, &bad) != GM_OK) gml_argerror(L, bad, fn, "%s", gm_last_error());
  gm_mat *c = gml_box_result(L, box, rank, dims, a->ctype, a->cuda_enabled && b->cuda_enabled, fn);
  GML_TRY(L, gm_matmul(a, b, c), fn);
  return 1;
}

/* a * b: the matrix product (a 2-d; b 2-d, or 1-d for matrix x vector
 * with a 1-d result), gm.matmul's for the general products; s * m, m * s
 * and a gm.complex value scale. */
static int op_mul(lua_State *L) {
  gml_check_arity_n(L, 2);
  const char *fn = "__mul";
  lua_settop(L, 2);
  /* s * m, m * s: one pass of broadcast cmul by the number (a copy then
   * an in-place scaling read and wrote the result twice) */
  if (gml_iscomplex(L, 1) || gml_iscomplex(L, 2)) return broadcast_op(L, GM_BC_CMUL, "cmul");
  check_operand(L, 1, fn);
  check_operand(L, 2, fn);
  if (is_number(L, 1) && is_number(L, 2))
    return gml_argerror(L, 2, fn, "mat expected, got number (one operand must be a mat)");
  if (is_number(L, 1) || is_number(L, 2)) return broadcast_op(L, GM_BC_CMUL, "cmul"); /* cmul's types */
  if (general_product(L, fn)) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &matmul_key) != LUA_TFUNCTION)
      return gml_error(L, "%s: gm.matmul is not loaded (require \"gpumat\")", fn);
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
  }
  return product(L, fn);
}

/* core._matmul2d(x, y): x * y for two 2-d float32 or float64 matrices
 * of one type, one place and a nonempty inner dimension (gm.matmul's
 * common case, lua/gpumat/linalg.lua), else nothing, and gm.matmul's
 * general path runs (and raises what is wrong).  Checked here in C: the
 * same test in Lua (dims tables, five method calls) made gm.matmul of
 * 64 x 64 floats cost 1 us more than `*`. */
static int l_matmul2d(lua_State *L) {
  lua_settop(L, 2);
  const gml_mat *bx = gml_testbox(L, 1), *by = gml_testbox(L, 2);
  if (!bx || !by || !bx->m || !by->m) return 0;
  const gm_mat *a = bx->m, *b = by->m;
  if (a->rank != 2 || b->rank != 2 || a->dims[1] != b->dims[0] || a->dims[1] == 0 || a->ctype != b->ctype ||
      (a->ctype != GM_FLOAT && a->ctype != GM_DOUBLE) || a->cuda_enabled != b->cuda_enabled)
    return 0;
  return product(L, "matmul");
}

/* a < b, a > b, a <= b, a >= b on a mat: Lua wants one boolean, and a
 * Torch7/NumPy user expects an elementwise mask; name the methods that
 * give it instead of Lua's "attempt to compare two gpumat.mat values". */
static int compare_error(lua_State *L, const char *fn) {
  int bad = gml_ismat(L, 1) ? 2 : 1;
  if (!gml_ismat(L, 1) && !gml_ismat(L, 2))
    return gml_argerror(L, 1, fn, "gpumat.mat expected, got %s", luaL_typename(L, 1));
  return gml_argerror(L, bad, fn,
                      "a mat cannot be compared with '<', '>', '<=' or '>=': comparisons of mats are "
                      "elementwise methods, m:gt(x), m:lt(x), m:ge(x), m:le(x), m:eq(x), m:ne(x) (a bool "
                      "mat); compare a number with m:max(), m:min() or m[i]");
}
static int op_lt(lua_State *L) { gml_check_arity_n(L, 2); return compare_error(L, "__lt"); }
static int op_le(lua_State *L) { gml_check_arity_n(L, 2); return compare_error(L, "__le"); }

void gml_open_operators(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"bitwise_invert", l_bitwise_invert, 1, NULL}, {"_set_matmul", l_set_matmul, 1, NULL},
                                {"_matmul2d", l_matmul2d, 2, NULL},
                                {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
  static const gml_reg ops[] = {{"__add", op_add, 2, NULL}, {"__sub", op_sub, 2, NULL}, {"__unm", op_unm, 2, NULL},
                                 {"__mul", op_mul, 2, NULL}, {"__div", op_div, 2, NULL}, {"__pow", op_pow, 2, NULL},
                                 {"__lt", op_lt, 2, NULL}, {"__le", op_le, 2, NULL}, {"__idiv", op_idiv, 2, NULL},
                                 {"__mod", op_mod, 2, NULL}, {"__band", op_band, 2, NULL}, {"__bor", op_bor, 2, NULL},
                                 {"__bxor", op_bxor, 2, NULL}, {"__shl", op_shl, 2, NULL}, {"__shr", op_shr, 2, NULL},
                                 {"__bnot", op_bnot, 2, NULL}, {NULL, NULL, 0, NULL}};
  luaL_getmetatable(L, GML_MAT_MT);
  gml_register_hot(L, -1, ops); /* each checks its count: gml_check_arity_n(L, 2) */
  lua_pop(L, 1);
}
