/* Reductions as Torch7 and NumPy users write them, module functions and
 * methods alike (gm.sum(m, axis, opts) is m:sum(axis, opts), and
 * gm.sum(m, {axis = 2, ...}) the array standard's form of it):
 *   sum mean prod max min var std argmax argmin any all count_nonzero
 *     (m, axis, {keepdims, out, unbiased (var/std), dtype (sum, prod,
 *     mean, var, std)}): along a 1-based axis (negative counts from the
 *     end, -1 the last) into a new mat or `out`, the axis dropped unless
 *     keepdims; every real ctype, result types as core/ops/reduce_axis.h
 *     (argmax/argmin: 1-based indices in an int64 mat).  Without an axis:
 *     the whole mat to a Lua number, integer or boolean.
 *   logsumexp(m, axis, opts), softmax(m, axis, {out}): computed stably
 *     (the column's max subtracted); softmax keeps m's dims and may write
 *     into m itself.
 * All run where the mat lives (core/ops/reduce_axis.h, core/ops/reduce.h). */
#include "../core/ops/operands.h"
#include "../core/ops/reduce.h"
#include "../core/ops/op_table.h"
#include "../core/ops/reduce_axis.h"
#include "util.h"

typedef struct ax_args {
  int axis; /* 0-based; -1: none (whole mat) */
  bool keepdims;
  int ddof;
  int out_idx;   /* stack index of `out`, 0 without */
  bool dtype; /* the dtype option is given */
} ax_args;

static int check_axis_arg(lua_State *L, int rank, const char *fn) {
  int isnum, axis;
  lua_Integer a = lua_tointegerx(L, 2, &isnum);
  if (!isnum || lua_type(L, 2) != LUA_TNUMBER)
    gml_argerror(L, 2, fn, "axis must be an integer, got %s", luaL_typename(L, 2));
  if (gm_reduce_axis_arg(a, rank, &axis) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  return axis;
}

/* The options each op takes (dtype: the ops NumPy gives one). */
static const char *const *op_options(int op) {
  static const char *const value_opts[] = {"axis", "keepdims", "out", NULL};
  /* "ctype" is "dtype" too (gml_check_options) */
  static const char *const dtype_opts[] = {"axis", "keepdims", "out", "ctype", NULL};
  static const char *const var_opts[] = {"axis", "keepdims", "out", "unbiased", "ctype", NULL};
  static const char *const soft_opts[] = {"axis", "out", NULL};
  if (op == GM_AX_VAR || op == GM_AX_STD) return var_opts;
  if (op == GM_AX_SUM || op == GM_AX_PROD || op == GM_AX_MEAN) return dtype_opts;
  return op == GM_AX_SOFTMAX ? soft_opts : value_opts;
}

/* Reads every argument (the guard pins m and out while options are read).
 * gm.sum(m, {axis = 2, ...}), the array standard's form, is gm.sum(m, 2,
 * {...}): the table moves to argument 3 before the guard opens. */
static ax_args read_args(lua_State *L, int op, const char *fn) {
  bool table_form = lua_type(L, 2) == LUA_TTABLE && lua_isnoneornil(L, 3);
  if (table_form) {
    lua_settop(L, 2);
    lua_getfield(L, 2, "axis");
    lua_insert(L, 2);
  }
  gml_guard(L, 3);
  gm_mat *m = gml_checkmat(L, 1, fn);
  int rank = m->rank;
  ax_args a = {-1, false, 0, 0, false};
  bool is_var = op == GM_AX_VAR || op == GM_AX_STD;
  gml_check_options(L, 3, fn, op_options(op));
  if (!table_form && gml_opt_push(L, 3, "axis"))
    gml_argerror(L, 3, fn, "axis is argument #2 (or give every option in a table there)");
  bool needs_axis = op == GM_AX_SOFTMAX || op == GM_AX_LOGSUMEXP;
  if (!lua_isnoneornil(L, 2) || needs_axis) a.axis = check_axis_arg(L, rank, fn);
  a.keepdims = gml_opt_boolean(L, 3, "keepdims", false, fn);
  a.ddof = is_var && gml_opt_boolean(L, 3, "unbiased", false, fn) ? 1 : 0;
  if (gml_opt_push(L, 3, "out")) {
    if (!gml_ismat(L, -1)) gml_argerror(L, 3, fn, "out must be a gpumat.mat, got %s", luaL_typename(L, -1));
    gml_pin(L, -1);
    a.out_idx = lua_gettop(L);
  }
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "dtype");
    lua_getfield(L, 3, "ctype");
    a.dtype = !lua_isnil(L, -1) || !lua_isnil(L, -2);
    lua_pop(L, 2);
  }
  if (a.axis < 0 && (a.keepdims || a.out_idx))
    gml_argerror(L, 3, fn, "keepdims and out need an axis (argument #2)");
  return a;
}

/* The dtype option: x converted to it (a new mat pushed, NumPy's
 * accumulation type), when the op's result in that type is that type. */
static gm_mat *apply_dtype(lua_State *L, gm_mat *x, int op, const char *fn) {
  gm_ctype t = gml_opt_ctype(L, 3, "ctype", fn);
  if (gm_reduce_ctype_of(t, op) != t)
    gml_argerror(L, 3, fn, "dtype %s: the %s of a%s %s mat is %s (a sum or product of integers is int64 or "
                 "uint64, a mean, var or std float32 or float64)", gm_ctype_dtype(t), fn,
                 gm_ctype_dtype(t)[0] == 'i' ? "n" : "", gm_ctype_dtype(t), gm_ctype_dtype(gm_reduce_ctype_of(t, op)));
  if (t == x->ctype) return x;
  gm_mat *c;
  GML_TRY(L, gm_reduce_converted(x, t, &c), fn);
  gml_pushmat(L, c);
  return c;
}

/* The result mat (core/ops/reduce_axis.h): `out` checked, or a new mat, pushed. */
static gm_mat *result_mat(lua_State *L, gm_mat *x, const ax_args *a, int op, const char *fn) {
  size_t dims[GM_MAX_RANK];
  int rank, bad = 0;
  gm_mat *out = a->out_idx ? gml_checkmat(L, a->out_idx, fn) : NULL;
  gm_status st = gm_reduce_axis_result(x, a->axis, op, a->keepdims, out, &rank, dims, &bad);
  if (st != GM_OK) gml_argerror(L, bad, fn, "%s", gm_last_error());
  if (out) {
    lua_pushvalue(L, a->out_idx);
    return out;
  }
  gm_mat *m;
  gm_sync sync = gml_settings_of(L)->default_synchronization;
  GML_TRY(L, gm_result_new(rank, dims, gm_reduce_axis_ctype(x, op), x->cuda_enabled, sync, &m), fn);
  gml_pushmat(L, m);
  return m;
}

/* m reduced as a whole to a Lua value: a number, an integer (argmax and
 * argmin: the 1-based row-major index; sums and products of integers,
 * wrapped) or a boolean (any, all, max and min of bool). */
static int whole(lua_State *L, gm_mat *m, int op, int ddof, const char *fn) {
  gm_value v;
  int bad = 0;
  gm_status st = gm_reduce_all_value(m, op, ddof, &v, &bad);
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  if (gm_reduce_axis_ctype(m, op) == GM_BOOL)
    lua_pushboolean(L, v.i != 0);
  else if (v.is_int)
    lua_pushinteger(L, (lua_Integer)v.i);
  else
    lua_pushnumber(L, v.d);
  return 1;
}

/* The takes column of the op's row (softmax: floats only). */
static void check_takes(lua_State *L, const gm_mat *x, int op, const char *fn) {
  if (!gm_op_takes_ctype(gm_op_row_of(GM_OPF_REDUCE, op), x->ctype))
    gml_argerror(L, 1, fn, "a%s %s mat; %s takes float32/float64 mats (convert with m:as(\"float64\"))",
                 gm_ctype_dtype(x->ctype)[0] == 'i' ? "n" : "", gm_ctype_dtype(x->ctype), fn);
}

/* gm.OP(m, axis) with no options, the common form: nothing to read that
 * runs Lua, so the result's box comes first and no guard is needed
 * (util.h, gml_newbox). */
static int reduce_plain(lua_State *L, int op, const char *fn) {
  lua_settop(L, 2);
  gml_mat *box = gml_newbox(L);
  gm_mat *x = gml_checkmat(L, 1, fn);
  int axis = check_axis_arg(L, x->rank, fn);
  check_takes(L, x, op, fn);
  size_t dims[GM_MAX_RANK];
  int rank, bad = 0;
  gm_status st = gm_reduce_axis_result(x, axis, op, false, NULL, &rank, dims, &bad);
  if (st != GM_OK) gml_argerror(L, bad, fn, "%s", gm_last_error());
  gm_mat *y = gml_box_result(L, box, rank, dims, gm_reduce_axis_ctype(x, op), x->cuda_enabled, fn);
  GML_TRY(L, gm_reduce_axis(x, axis, op, 0, y), fn);
  return 1;
}

/* gm.OP(m, axis, opts); the op is upvalue 1 */
static int reduce(lua_State *L) {
  int op = (int)lua_tointeger(L, gml_upvalueindex(1));
  const char *fn = gm_reduce_axis_name(op);
  if (lua_type(L, 2) == LUA_TNUMBER && lua_isnoneornil(L, 3)) return reduce_plain(L, op, fn);
  ax_args a = read_args(L, op, fn);
  gm_mat *x = gml_checkmat(L, 1, fn);
  check_takes(L, x, op, fn);
  if (a.dtype) x = apply_dtype(L, x, op, fn);
  if (a.axis < 0) return whole(L, x, op, a.ddof, fn);
  gm_mat *y = result_mat(L, x, &a, op, fn);
  GML_TRY(L, gm_reduce_axis(x, a.axis, op, a.ddof, y), fn);
  return 1;
}

/* One registration per op (the arity check names it), static storage. */
static gml_reg regs[GM_AX_N_OPS];

void gml_open_reduce_axis(lua_State *L, int module_idx) {
  /* (m, axis, opts): three arguments, self first for the methods */
  for (int op = 0; op < GM_AX_N_OPS; op++) regs[op] = (gml_reg){gm_reduce_axis_name(op), reduce, 3, NULL};
  gml_register_ops(L, module_idx, regs, GM_AX_N_OPS, false);
}
