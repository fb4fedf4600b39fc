/* Broadcasting elementwise ops in Lua: gm.add(a, b, {out = m}), gm.sub,
 * gm.cmul, gm.cdiv, gm.pow, gm.cmax, gm.cmin, the comparisons gm.gt, ge,
 * lt, le, eq, ne, and gm.where(cond, a, b, {out = m}); the binary ops
 * are also methods (m:add(b), m:gt(0)).  Operands are mats or numbers;
 * every argument is read and checked here before the core touches
 * memory. */
#include "l_broadcast.h"

#include <math.h>

#include "../core/elementwise.h"
#include "../core/operands.h"
#include "l_ew.h"

/* The operand at idx: a mat, or a number (m NULL). */
static gm_bc_arg check_arg(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) == LUA_TNUMBER) return (gm_bc_arg){NULL, lua_tonumber(L, idx)};
  if (!gml_ismat(L, idx)) gml_argerror(L, idx, fn, "mat or number expected, got %s", luaL_typename(L, idx));
  return (gm_bc_arg){gml_checkmat(L, idx, fn), 0};
}

int gml_broadcast(lua_State *L, int op, const int *idx, int n, int out_idx, const char *argfn) {
  const char *name = op >= 0 ? gm_bcast_name((gm_bcast_op)op) : "where";
  gm_bc_arg a[3];
  for (int i = 0; i < n; i++) check_arg(L, idx[i], argfn); /* types first, in order */
  for (int i = 0; i < n; i++) a[i] = check_arg(L, idx[i], argfn);
  /* & | ~ << >> take whole numbers, as Lua's own do (a whole float
   * beyond int64, such as ~'s 2^64 for unsigned types, saturates) */
  for (int i = 0; i < n && op >= GM_BC_BAND && op <= GM_BC_SHR; i++)
    if (!a[i].m && !lua_isinteger(L, idx[i]) && (floor(a[i].v) != a[i].v || isinf(a[i].v)))
      gml_argerror(L, idx[i], argfn, "number has no integer representation");
  bool cuda;
  gm_ctype t;
  int bad = 0;
  if (gm_bc_common(a, n, &t, &cuda, &bad) != GM_OK) gml_argerror(L, idx[bad], argfn, "%s", gm_last_error());
  int rank;
  size_t dims[GM_MAX_RANK];
  GML_TRY(L, gm_bc_result_dims(a, n, &rank, dims), name);
  gm_mat *out;
  if (out_idx) {
    out = gml_checkmat(L, out_idx, argfn);
    lua_pushvalue(L, out_idx);
  } else {
    gm_sync sync = gml_settings_of(L)->default_synchronization;
    GML_TRY(L, gm_result_new(rank, dims, t, cuda, sync, &out), argfn);
    gml_pushmat(L, out);
  }
  if (op >= 0)
    GML_TRY(L, gm_broadcast_binary((gm_bcast_op)op, a[0], a[1], out), name);
  else
    GML_TRY(L, gm_broadcast_where(a[0], a[1], a[2], out), name);
  return 1;
}

/* The {out = m} option at idx: the stack index of m (pinned), or 0. */
static int opt_out(lua_State *L, int idx, const char *fn) {
  static const char *const allowed[] = {"out", NULL};
  gml_check_options(L, idx, fn, allowed);
  if (!gml_opt_push(L, idx, "out")) return 0;
  if (!gml_ismat(L, -1)) gml_argerror(L, idx, fn, "option 'out' must be a mat, got %s", luaL_typename(L, -1));
  int out = lua_gettop(L);
  gml_pin(L, out);
  gml_checkmat(L, out, fn); /* a freed mat raises here */
  return out;
}

/* gm.OP(a, b, {out = m}); the op is upvalue 1 */
static int l_binary(lua_State *L) {
  int op = (int)lua_tointeger(L, gml_upvalueindex(1));
  const char *fn = gm_bcast_name((gm_bcast_op)op);
  gml_guard(L, 3);
  static const int idx[2] = {1, 2};
  check_arg(L, 1, fn);
  check_arg(L, 2, fn);
  int out = opt_out(L, 3, fn);
  return gml_broadcast(L, op, idx, 2, out, fn);
}

/* gm.where(cond, a, b, {out = m}) */
static int l_where(lua_State *L) {
  const char *fn = "where";
  gml_guard(L, 4);
  static const int idx[3] = {1, 2, 3};
  for (int i = 1; i <= 3; i++) check_arg(L, i, fn);
  int out = opt_out(L, 4, fn);
  return gml_broadcast(L, -1, idx, 3, out, fn);
}

/* The operand at idx as a bool operand pushed on the stack: a mat's
 * x != 0 (a new bool mat, on its place), a number's 1 or 0 (NaN is 1). */
static int push_truth(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    double v = lua_tonumber(L, idx);
    lua_pushinteger(L, v != 0);
    return lua_gettop(L);
  }
  gm_mat *x = gml_checkmat(L, idx, fn), *y;
  GML_TRY(L, gm_result_new(x->rank, x->dims, GM_BOOL, x->cuda_enabled, gml_settings_of(L)->default_synchronization, &y),
          fn);
  gml_pushmat(L, y);
  GML_TRY(L, gm_predicate(GM_PRED_TRUTH, x, y), fn);
  return lua_gettop(L);
}

/* gm.logical_and/or/xor(a, b, {out = m}): & | ~ of the operands' truth
 * (nonzero is true), a bool result; upvalue 1 is the bool op */
static int l_logical(lua_State *L) {
  static const char *const names[] = {"logical_and", "logical_or", "logical_xor"};
  int op = (int)lua_tointeger(L, gml_upvalueindex(1));
  const char *fn = names[op - GM_BC_BAND];
  gml_guard(L, 3);
  check_arg(L, 1, fn);
  check_arg(L, 2, fn);
  int out = opt_out(L, 3, fn);
  if (!gml_ismat(L, 1) && !gml_ismat(L, 2))
    gml_argerror(L, 2, fn, "mat expected, got number (one operand must be a mat)");
  int idx[2];
  for (int i = 0; i < 2; i++) idx[i] = push_truth(L, i + 1, fn);
  return gml_broadcast(L, op, idx, 2, out, fn);
}

/* The array standard's names of ops gpumat has under MGL's: the same
 * functions (errors name the MGL function). */
static void alias_standard_names(lua_State *L, int module_idx) {
  static const char *const pairs[][2] = {
      {"multiply", "cmul"}, {"divide", "cdiv"}, {"maximum", "cmax"}, {"minimum", "cmin"}, {"subtract", "sub"}};
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  int methods = lua_gettop(L);
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    lua_getfield(L, module_idx, pairs[i][1]);
    lua_pushvalue(L, -1);
    lua_setfield(L, module_idx, pairs[i][0]);
    lua_setfield(L, methods, pairs[i][0]);
  }
  lua_pop(L, 2);
}

/* One registration per op (the arity check names it), static storage. */
static gml_reg binary_regs[GM_N_BCAST];

void gml_open_broadcast(lua_State *L, int module_idx) {
  static const gml_reg where_reg[] = {{"where", l_where, 4, NULL}, {NULL, NULL, 0, NULL}};
  /* the method m:OP(b, opts) is the function itself (self is a) */
  for (int op = 0; op < GM_N_BCAST; op++)
    binary_regs[op] = (gml_reg){gm_bcast_name((gm_bcast_op)op), l_binary, 3, NULL};
  gml_register_ops(L, module_idx, binary_regs, GM_N_BCAST);
  gml_register(L, module_idx, where_reg);
  static const gml_reg logical_regs[] = {
      {"logical_and", l_logical, 3, NULL}, {"logical_or", l_logical, 3, NULL}, {"logical_xor", l_logical, 3, NULL}};
  for (int i = 0; i < 3; i++) {
    lua_pushinteger(L, GM_BC_BAND + i);
    gml_push_function(L, &logical_regs[i], 1);
    lua_setfield(L, module_idx, logical_regs[i].name);
  }
  alias_standard_names(L, lua_absindex(L, module_idx));
}
