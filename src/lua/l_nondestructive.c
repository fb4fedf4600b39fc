/* Non-destructive API (MGL-MAT §13), stack_ (§9) and the out-of-place
 * elementwise functions (gm.exp(x), gm.clamp(x, lo, hi)); the arithmetic
 * operators are in l_operators.c.  Results are new mats with the input's ctype and
 * cuda_enabled flag, computed on the inputs' place with the BLAS table
 * (core/ops/blas.h), so they work on the device too. */
#include <limits.h>

#include "../core/ops/blas.h"
#include "../core/ops/elementwise.h"
#include "../core/ops/operands.h"
#include "l_ew.h"

/* Pushes a new result mat (core/ops/operands.h). */
static gm_mat *push_result(lua_State *L, int rank, const size_t *dims, gm_ctype t, bool cuda_enabled,
                           const char *fn) {
  gm_mat *m;
  GML_TRY(L, gm_result_new(rank, dims, t, cuda_enabled, gml_settings_of(L)->default_synchronization, &m), fn);
  gml_pushmat(L, m);
  return m;
}

/* A failed operand check (core/ops/operands.h) as the error of argument argn. */
static void check(lua_State *L, gm_status st, int argn, const char *fn) {
  if (st != GM_OK) gml_argerror(L, argn, fn, "%s", gm_last_error());
}

/* The functions below pace the collector and make the result's box
 * before they take the operands (util.h, gml_newbox): no guard is needed
 * where no option is read. */

/* gm.copy_mat(a) / a:copy() */
static int l_copy_mat(lua_State *L) {
  lua_settop(L, 1);
  gml_mat *box = gml_newbox(L);
  gm_mat *a = gml_checkmat(L, 1, "copy_mat");
  gm_mat *b = gml_box_result(L, box, a->rank, a->dims, a->ctype, a->cuda_enabled, "copy_mat");
  GML_TRY(L, gm_copy_(a, b, a->size, 1, 1), "copy_mat");
  return 1;
}

static size_t check_index(lua_State *L, int argn, size_t n, const char *fn, const char *what) {
  int isnum;
  lua_Integer i = lua_tointegerx(L, argn, &isnum);
  if (!isnum || lua_type(L, argn) != LUA_TNUMBER)
    gml_argerror(L, argn, fn, "%s must be an integer, got %s", what, luaL_typename(L, argn));
  size_t k = 0;
  check(L, gm_index_arg(i, n, what, &k), argn, fn);
  return k;
}

/* gm.copy_row(a, row) / gm.copy_column(a, col): row or column (1-based)
 * of a 2d mat as a new 1d mat */
static int copy_line(lua_State *L, const char *fn, const char *what, bool column) {
  if (lua_type(L, 2) != LUA_TNUMBER) check_index(L, 2, 0, fn, what); /* "got no value" */
  gml_guard(L, 2); /* the result box is allocated while the operands are held */
  gm_mat *a = gml_checkmat(L, 1, fn);
  check(L, gm_check_2d(a), 1, fn);
  size_t i = check_index(L, 2, a->dims[column ? 1 : 0], fn, what), n = a->dims[column ? 0 : 1];
  gm_mat *b = push_result(L, 1, &n, a->ctype, a->cuda_enabled, fn);
  GML_TRY(L, gm_copy_line(a, i, column, b), fn);
  return 1;
}

static int l_copy_row(lua_State *L) { return copy_line(L, "copy_row", "row", false); }
static int l_copy_column(lua_State *L) { return copy_line(L, "copy_column", "column", true); }

/* gm.mat_as_scalar(a): the only element of a size-1 mat */
static int l_mat_as_scalar(lua_State *L) {
  gm_mat *a = gml_checkmat(L, 1, "mat_as_scalar");
  if (a->size != 1) gml_argerror(L, 1, "mat_as_scalar", "mat must have size 1, has %zu", a->size);
  gm_value v = {false, false, 0, 0, false, 0}; /* integers and bool exactly (a Lua integer or boolean) */
  if (gm_ctype_is_float(a->ctype))
    GML_TRY(L, gm_mat_get(a, 0, &v.d), "mat_as_scalar");
  else
    GML_TRY(L, gm_mat_get_value(a, 0, &v), "mat_as_scalar");
  if (!v.is_int)
    lua_pushnumber(L, v.d);
  else if (gm_ctype_kind(a->ctype) == GM_KIND_BOOL)
    lua_pushboolean(L, v.i != 0);
  else
    lua_pushinteger(L, (lua_Integer)v.i);
  return 1;
}

/* gm.scalar_as_mat(x, {ctype}): a 1-element 1d mat (ctype defaults to
 * gm.default_ctype: a Lua number has no narrower type) */
static int l_scalar_as_mat(lua_State *L) {
  const char *fn = "scalar_as_mat";
  static const char *const opts[] = {"ctype", NULL};
  if (lua_type(L, 1) != LUA_TNUMBER) gml_argerror(L, 1, fn, "number expected, got %s", luaL_typename(L, 1));
  gml_check_options(L, 2, fn, opts);
  gm_ctype t = gml_opt_ctype(L, 2, "ctype", fn);
  size_t one = 1;
  gm_mat *m = push_result(L, 1, &one, t, gml_settings_of(L)->default_mat_cuda_enabled, fn);
  GML_TRY(L, gm_mat_put(m, 0, lua_tonumber(L, 1)), fn);
  return 1;
}

/* gm.m_eq(a, b): elementwise equality of mats of the same size */
static int l_m_eq(lua_State *L) {
  gm_mat *a = gml_checkmat(L, 1, "m_eq");
  gm_mat *b = gml_checkmat(L, 2, "m_eq");
  check(L, gm_check_same_size(a, b), 2, "m_eq");
  bool eq;
  GML_TRY(L, gm_m_eq(a, b, &eq), "m_eq");
  lua_pushboolean(L, eq);
  return 1;
}

/* gm.transpose(a) / a:transpose() */
static int l_transpose(lua_State *L) {
  const char *fn = "transpose";
  lua_settop(L, 1);
  gml_mat *box = gml_newbox(L);
  gm_mat *a = gml_checkmat(L, 1, fn);
  check(L, gm_check_2d(a), 1, fn);
  size_t dims[2] = {a->dims[1], a->dims[0]};
  gm_mat *t = gml_box_result(L, box, 2, dims, a->ctype, a->cuda_enabled, fn);
  GML_TRY(L, gm_transpose_into(a, t), fn);
  return 1;
}

/* m_mul(a, b, {transpose_a, transpose_b}): op(a) * op(b) as a new mat */
static int l_m_mul(lua_State *L) {
  gml_guard(L, 3); /* the result box is allocated while the operands are held */
  const char *fn = "m_mul";
  static const char *const opts[] = {"transpose_a", "transpose_b", NULL};
  gm_mat *a = gml_checkmat(L, 1, fn);
  gm_mat *b = gml_checkmat(L, 2, fn);
  gml_check_options(L, 3, fn, opts);
  gm_gemm_args g = {gml_opt_boolean(L, 3, "transpose_a", false, fn), gml_opt_boolean(L, 3, "transpose_b", false, fn),
                    GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET};
  size_t dims[2];
  int bad = 0;
  gm_status st = gm_mmul_dims(a, b, g.transpose_a, g.transpose_b, dims, &bad);
  check(L, st, bad, fn);
  gm_mat *c = push_result(L, 2, dims, a->ctype, a->cuda_enabled && b->cuda_enabled, fn);
  GML_TRY(L, gm_gemm_(1, a, b, 0, c, g), fn);
  return 1;
}

/* alpha * a + beta * b as a new mat with a's dims (same size required) */
static int add_like(lua_State *L, const char *fn, int ia, int ib, double alpha, double beta) {
  lua_settop(L, ia > ib ? ia : ib);
  gml_mat *box = gml_newbox(L);
  gm_mat *a = gml_checkmat(L, ia, fn);
  gm_mat *b = gml_checkmat(L, ib, fn);
  check(L, gm_check_same_size(a, b), ib, fn);
  gm_mat *c = gml_box_result(L, box, a->rank, a->dims, a->ctype, a->cuda_enabled && b->cuda_enabled, fn);
  GML_TRY(L, gm_add_into(alpha, a, beta, b, c), fn);
  return 1;
}

/* gm.m_add(a, b), gm.m_sub(a, b) */
static int l_m_add(lua_State *L) { return add_like(L, "m_add", 1, 2, 1, 1); }
static int l_m_sub(lua_State *L) { return add_like(L, "m_sub", 1, 2, 1, -1); }

/* gm.invert(a): the inverse of a square mat (LU; singular is an error) */
static int l_invert(lua_State *L) {
  lua_settop(L, 1);
  gml_mat *box = gml_newbox(L);
  gm_mat *a = gml_checkmat(L, 1, "invert");
  check(L, gm_check_square(a), 1, "invert");
  gm_mat *r = gml_box_result(L, box, a->rank, a->dims, a->ctype, a->cuda_enabled, "invert");
  GML_TRY(L, gm_invert(a, r), "invert");
  return 1;
}

/* gm.logdet(a) -> log |det a|, sign (-1, 0 or 1; -inf, 0 when singular) */
static int l_logdet(lua_State *L) {
  gm_mat *a = gml_checkmat(L, 1, "logdet");
  check(L, gm_check_square(a), 1, "logdet");
  double v;
  int sign;
  GML_TRY(L, gm_logdet(a, &v, &sign), "logdet");
  lua_pushnumber(L, v);
  lua_pushinteger(L, sign);
  return 2;
}

/* core._linalg(kind, m, n, nrhs, qcols, trans, vectors, full, a, b, w,
 * u, vt [, upper, left, unit]) -> failed, info: gm_linalg_run for
 * lua/gpumat/linalg.lua, which prepares the column-major stacks (nil
 * where the job has no operand); the last three are trsm's. */
static int l_linalg_run(lua_State *L) {
  static const char *const kinds[] = {"gesv", "potrf", "qr", "syevd", "gesvd", "trsm", "getrf", "getrs", "gemm", "geev", NULL};
  const char *fn = "linalg";
  gm_linalg_job j = {.kind = (gm_linalg_kind)luaL_checkoption(L, 1, NULL, kinds)};
  int *sizes[4] = {&j.m, &j.n, &j.nrhs, &j.qcols};
  for (int i = 0; i < 4; i++) {
    lua_Integer v = luaL_checkinteger(L, 2 + i);
    if (v < 0 || v > INT_MAX) gml_argerror(L, 2 + i, fn, "size %lld out of range", (long long)v);
    *sizes[i] = (int)v;
  }
  j.trans = lua_toboolean(L, 6), j.vectors = lua_toboolean(L, 7), j.full = lua_toboolean(L, 8);
  j.upper = lua_toboolean(L, 14), j.left = lua_toboolean(L, 15), j.unit = lua_toboolean(L, 16);
  gm_mat *ms[5];
  for (int i = 0; i < 5; i++) ms[i] = lua_isnoneornil(L, 9 + i) ? NULL : gml_checkmat(L, 9 + i, fn);
  if (!ms[0]) gml_argerror(L, 9, fn, "mat expected");
  size_t failed = 0;
  int info = 0;
  GML_TRY(L, gm_linalg_run(j, ms, &failed, &info), fn);
  lua_pushinteger(L, (lua_Integer)failed);
  lua_pushinteger(L, info);
  return 2;
}

/* ---- elementwise functions, out of place (one per GM_UNARY_OPS row) ---- */

/* out's mat (at stack index out, option table idx) for F(x) of ctype t:
 * checked against x and t. */
static gm_mat *out_mat(lua_State *L, int idx, int out, const char *fn, const gm_mat *x, gm_ctype t) {
  gm_mat *y = ((gml_mat *)lua_touserdata(L, out))->m;
  if (!y) gml_argerror(L, idx, fn, "option 'out' is a freed mat");
  if (t == x->ctype) {
    check(L, gm_check_out_like(x, y), idx, fn);
  } else if (y->ctype != t) { /* a promoted result; the core checks dims and storage */
    gml_argerror(L, idx, fn, "option 'out' is %s but the result is %s", gm_ctype_name(y->ctype), gm_ctype_name(t));
  }
  return y;
}

/* x (stack index 1) and the `out` option at idx: *out its stack index,
 * or 0 (then *box is the result's new box).  x's errors come before the
 * options'.  Reading the options may run Lua (their metamethods), which
 * may free mats, and so may making the box (a GC step): x is taken again
 * after either, and nothing that runs Lua comes after this in the
 * callers, so they need no guard (the binding rule's "read first").  The
 * plain {out = y} runs none: x is taken once. */
static gm_mat *x_and_out(lua_State *L, int idx, const char *fn, int *out, gml_mat **box) {
  lua_settop(L, idx);
  *box = NULL;
  *out = 0;
  bool ran = true;
  if (!lua_isnil(L, idx)) {
    gm_mat *x = gml_checkmat(L, 1, fn);
    *out = gml_opt_out_ran(L, idx, fn, &ran);
    if (*out && !ran) return x;
  }
  if (!*out) *box = gml_newbox(L);
  return gml_checkmat(L, 1, fn);
}

/* gm.F(x, {out}) / x:F({out}): F(x) as a new mat (or into out); a float
 * function of a bool or integer mat gives a float one (NumPy's) */
static int unary_new(lua_State *L, gm_unary_op op) {
  gml_check_arity_n(L, 2); /* registered hot */
  const char *fn = gm_unary_name(op);
  int out;
  gml_mat *box;
  gm_mat *x = x_and_out(L, 2, fn, &out, &box);
  gm_ctype t = gm_unary_result_ctype(op, x->ctype);
  gm_mat *y = out ? out_mat(L, 2, out, fn, x, t) : gml_box_result(L, box, x->rank, x->dims, t, x->cuda_enabled, fn);
  GML_TRY(L, gm_unary(fn, op, x, y, true), fn); /* y: made here, or checked by out_mat */
  if (out) lua_pushvalue(L, out);
  return 1;
}

/* l_new_NAME: l_floor is a macro of luaconf.h */
#define X(name, E, ...) \
  static int l_new_##name(lua_State *L) { return unary_new(L, GM_UN_##E); }
GM_UNARY_OPS(X)
#undef X

/* gm.isnan(x) / x:isnan() ...: a new bool mat (GM_PREDICATE_OPS) */
static int predicate_new(lua_State *L, gm_predicate_op op) {
  gml_check_arity_n(L, 1); /* registered hot */
  const char *fn = gm_predicate_name(op);
  lua_settop(L, 1);
  gml_mat *box = gml_newbox(L);
  gm_mat *x = gml_checkmat(L, 1, fn);
  gm_mat *y = gml_box_result(L, box, x->rank, x->dims, GM_BOOL, x->cuda_enabled, fn);
  GML_TRY(L, gm_predicate(op, x, y), fn);
  return 1;
}

#define X(name, E, ...) \
  static int l_pred_##name(lua_State *L) { return predicate_new(L, GM_PRED_##E); }
GM_PREDICATE_OPS(X)
#undef X

/* gm.clamp(x, lo, hi, {out}) / x:clamp(lo, hi, {out}) */
static int l_clamp(lua_State *L) {
  gml_check_arity_n(L, 4); /* registered hot */
  const char *fn = "clamp";
  double lo = gml_ew_bound(L, 2, fn, "lo"), hi = gml_ew_bound(L, 3, fn, "hi");
  int out;
  gml_mat *box;
  gm_mat *x = x_and_out(L, 4, fn, &out, &box);
  gm_mat *y = out ? out_mat(L, 4, out, fn, x, x->ctype)
                  : gml_box_result(L, box, x->rank, x->dims, x->ctype, x->cuda_enabled, fn);
  GML_TRY(L, gm_clamp(fn, x, lo, hi, y), fn);
  if (out) lua_pushvalue(L, out);
  return 1;
}

/* gm.stack_(axis, mats, mat): axis is 1-based */
static int l_stack_(lua_State *L) {
  gml_guard(L, 3); /* the result box is allocated while the operands are held */
  const char *fn = "stack_";
  gm_mat *dst = gml_checkmat(L, 3, fn);
  int axis = gml_check_axis(L, 1, fn, dst->rank);
  if (!lua_istable(L, 2)) gml_argerror(L, 2, fn, "table expected, got %s", luaL_typename(L, 2));
  lua_Integer n = luaL_len(L, 2);
  if (n < 0 || n > 1 << 20) gml_argerror(L, 2, fn, "bad number of mats (%lld)", (long long)n);
  /* the pointer array lives in a userdata: no leak when an entry fails */
  gm_mat **ms = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *ms, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 2, i);
    gml_mat *box = gml_testbox(L, -1);
    if (!box || !box->m)
      gml_argerror(L, 2, fn, "mats[%d] must be a mat, got %s", (int)i, box ? "a freed mat" : luaL_typename(L, -1));
    gml_pin(L, -1);
    ms[i - 1] = box->m;
    lua_pop(L, 1);
  }
  int bad;
  gm_status st = gm_stack_(axis, ms, (int)n, dst, &bad);
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  lua_settop(L, 3);
  return 1;
}

/* core._int_matmul(x, y, c): gm_int_matmul for lua/gpumat/linalg.lua,
 * which prepares the contiguous (batch, p, q) x (batch, q, r) stacks */
static int l_int_matmul(lua_State *L) {
  const char *fn = "matmul";
  gm_mat *x = gml_checkelembox(L, 1, fn)->m, *y = gml_checkelembox(L, 2, fn)->m, *c = gml_checkelembox(L, 3, fn)->m;
  GML_TRY(L, gm_int_matmul(x, y, c), fn);
  return 0;
}

/* core._check_float(fname, argn, m): the shared refusal of a non-float
 * mat for Lua-written float-only functions (gm.linalg, gm.einsum). */
static int l_check_float(lua_State *L) {
  const char *fname = luaL_checkstring(L, 1);
  int argn = (int)luaL_checkinteger(L, 2);
  gm_mat *m = gml_checkelembox(L, 3, fname)->m;
  if (!gm_ctype_is_float(m->ctype)) gml_float_only_error(L, argn, fname, m);
  return 0;
}

void gml_open_nondestructive(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"copy_mat", l_copy_mat, 1, NULL},   {"copy_row", l_copy_row, 2, NULL},     {"copy_column", l_copy_column, 2, NULL},
      {"mat_as_scalar", l_mat_as_scalar, 1, NULL}, {"scalar_as_mat", l_scalar_as_mat, 2, NULL}, {"m_eq", l_m_eq, 2, NULL},
      {"transpose", l_transpose, 1, NULL}, {"m_mul", l_m_mul, 3, NULL},           {"m_add", l_m_add, 2, NULL},
      {"m_sub", l_m_sub, 2, NULL},         {"invert", l_invert, 1, NULL},         {"logdet", l_logdet, 1, NULL},
      {"stack_", l_stack_, 3, NULL},       {"_linalg", l_linalg_run, 16, NULL}, {"_check_float", l_check_float, 3, NULL},
      {"_int_matmul", l_int_matmul, 3, NULL},
      {NULL, NULL, 0, NULL},
  };
  static const gml_reg methods[] = {{"copy", l_copy_mat, 1, NULL}, {"transpose", l_transpose, 1, NULL}, {NULL, NULL, 0, NULL}};
  /* module functions and methods of the same name */
  static const gml_reg elementwise[] = {
#define X(name, E, ...) {#name, l_new_##name, 2, NULL},
      GM_UNARY_OPS(X)
#undef X
#define X(name, E, ...) {#name, l_pred_##name, 1, NULL},
      GM_PREDICATE_OPS(X)
#undef X
      {"clamp", l_clamp, 4, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
  gml_register_hot(L, module_idx, elementwise); /* each checks its count */
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  gml_register(L, -1, methods);
  gml_register_hot(L, -1, elementwise);
  /* the array standard's names of neg and inv: the same functions */
  static const char *const aliases[][2] = {{"negative", "neg"}, {"reciprocal", "inv"}};
  for (int i = 0; i < 2; i++) {
    lua_getfield(L, -1, aliases[i][1]);
    lua_setfield(L, -2, aliases[i][0]);
  }
  lua_pushnil(L); /* core._truth: logical_and/or/xor's conversion, no method */
  lua_setfield(L, -2, "_truth");
  lua_pop(L, 2);
  for (int i = 0; i < 2; i++) {
    lua_getfield(L, module_idx, aliases[i][1]);
    lua_setfield(L, module_idx, aliases[i][0]);
  }
}
