/* Destructive elementwise ops in Lua (MGL-MAT §12): gm.exp_(x, {n}),
 * gm.geem_(alpha, a, b, beta, c), ... and their methods on the written
 * mat (x:exp_(), c:geem_(alpha, a, b, beta)).  Every argument is checked
 * here, with the module function's argument numbers, before the core
 * touches memory. */
#include "l_ew.h"

#include "../core/model/view.h"
#include "../core/ops/broadcast.h"
#include "../core/ops/elementwise.h"
#include "../core/ops/operands.h"
#include "../core/ops/elementwise_args.h"
#include "../core/ops/op_table.h"

/* A failed argument check (core/ops/elementwise_args.h) as the error of
 * argument arg. */
static void check(lua_State *L, gm_status st, int arg, const char *fname) {
  if (st != GM_OK) gml_argerror(L, arg, fname, "%s", gm_last_error());
}

/* ---- shared argument checks (also used by l_nn.c) ---- */

double gml_ew_number(lua_State *L, int idx, const char *fname, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "%s must be a number, got %s", what, luaL_typename(L, idx));
  return lua_tonumber(L, idx);
}

double gml_ew_bound(lua_State *L, int idx, const char *fname, const char *what) {
  double v = gml_ew_number(L, idx, fname, what);
  if (v != v) gml_argerror(L, idx, fname, "%s must not be NaN", what);
  return v;
}

void gml_ew_same_ctype(lua_State *L, int arg, const char *fname, const char *an, const gm_mat *a,
                       const char *bn, const gm_mat *b) {
  check(L, gm_ew_same_ctype(an, a, bn, b), arg, fname);
}

/* The `n` option: count of leading visible elements, at most the size. */
static size_t opt_n(lua_State *L, int idx, const char *fname, const gm_mat *x) {
  static const char *const allowed[] = {"n", NULL};
  gml_check_options(L, idx, fname, allowed);
  size_t n = gml_opt_size(L, idx, "n", x->size, fname);
  check(L, gm_ew_count(n, x), idx, fname);
  return n;
}

/* ---- unary: one function per row of GM_UNARY_OPS ---- */

static const char *const unary_fnames[GM_N_UNARY] = {
#define X(name, E, ...) [GM_UN_##E] = #name "_",
    GM_UNARY_OPS(X)
#undef X
};

/* gm.F_(x, {n}) */
static int unary_(lua_State *L, gm_unary_op op) {
  const char *fn = unary_fnames[op];
  if (!lua_isnoneornil(L, 2)) gml_guard(L, 2);
  gm_mat *x = gml_checkmat(L, 1, fn);
  size_t n = opt_n(L, 2, fn, x);
  GML_TRY(L, gm_unary_(op, x, n), fn);
  lua_settop(L, 1);
  return 1;
}

#define X(name, E, ...) \
  static int l_##name##_(lua_State *L) { return unary_(L, GM_UN_##E); }
GM_UNARY_OPS(X)
#undef X

/* gm.clamp_(x, lo, hi): x := min(max(x, lo), hi) */
static int l_clamp_(lua_State *L) {
  const char *fn = "clamp_";
  gm_mat *x = gml_checkmat(L, 1, fn);
  double lo = gml_ew_bound(L, 2, fn, "lo"), hi = gml_ew_bound(L, 3, fn, "hi");
  GML_TRY(L, gm_clamp_(x, lo, hi), fn);
  lua_settop(L, 1);
  return 1;
}

/* gm.expt_(x, power) */
static int l_expt_(lua_State *L) {
  gm_mat *x = gml_checkmat(L, 1, "expt_");
  double p = gml_ew_number(L, 2, "expt_", "power");
  GML_TRY(L, gm_expt_(x, p), "expt_");
  lua_settop(L, 1);
  return 1;
}

/* gm.add_scalar_(alpha, x) */
static int l_add_scalar_(lua_State *L) {
  double alpha = gml_ew_number(L, 1, "add_scalar_", "alpha");
  gm_mat *x = gml_checkmat(L, 2, "add_scalar_");
  GML_TRY(L, gm_add_scalar_(alpha, x), "add_scalar_");
  lua_settop(L, 2);
  return 1;
}

/* The binding of ops f(x, y) that write y from same-sized x and y. */
static int binary_xy(lua_State *L, const char *fn, gm_status (*op)(gm_mat *, gm_mat *)) {
  gm_mat *x = gml_checkmat(L, 1, fn);
  gm_mat *y = gml_checkmat(L, 2, fn);
  check(L, gm_ew_same_size("x", x, "y", y), 2, fn);
  GML_TRY(L, op(x, y), fn);
  lua_settop(L, 2);
  return 1;
}

/* gm.mul_(x, y): y := x .* y */
static int l_mul_(lua_State *L) { return binary_xy(L, "mul_", gm_mul_); }

/* gm.geem_(alpha, a, b, beta, c) */
static int l_geem_(lua_State *L) {
  const char *fn = "geem_";
  double alpha = gml_ew_number(L, 1, fn, "alpha");
  gm_mat *a = gml_checkmat(L, 2, fn);
  gm_mat *b = gml_checkmat(L, 3, fn);
  double beta = gml_ew_number(L, 4, fn, "beta");
  gm_mat *c = gml_checkmat(L, 5, fn);
  int bad = 0;
  gm_status st = gm_geem_args(a, b, c, &bad);
  check(L, st, bad, fn);
  GML_TRY(L, gm_geem_(alpha, a, b, beta, c), fn);
  lua_settop(L, 5);
  return 1;
}

/* gm.geerv_(alpha, a, x, beta, b): b := alpha * a .* (x in every row) + beta * b */
static int l_geerv_(lua_State *L) {
  const char *fn = "geerv_";
  double alpha = gml_ew_number(L, 1, fn, "alpha");
  gm_mat *a = gml_checkmat(L, 2, fn);
  gm_mat *x = gml_checkmat(L, 3, fn);
  double beta = gml_ew_number(L, 4, fn, "beta");
  gm_mat *b = gml_checkmat(L, 5, fn);
  int bad = 0;
  gm_status st = gm_geerv_args(a, x, b, &bad);
  check(L, st, bad, fn);
  GML_TRY(L, gm_geerv_(alpha, a, x, beta, b), fn);
  lua_settop(L, 5);
  return 1;
}

/* gm.lt_(x, y): y := x < y ? 1 : 0 */
static int l_lt_(lua_State *L) { return binary_xy(L, "lt_", gm_lt_); }

static int clamp(lua_State *L, const char *fn, gm_status (*f)(double, gm_mat *)) {
  double alpha = gml_ew_number(L, 1, fn, "alpha");
  gm_mat *x = gml_checkmat(L, 2, fn);
  GML_TRY(L, f(alpha, x), fn);
  lua_settop(L, 2);
  return 1;
}

static int l_min_(lua_State *L) { return clamp(L, "min_", gm_min_); }
static int l_max_(lua_State *L) { return clamp(L, "max_", gm_max_); }

/* gm.add_sign_(alpha, a, beta, b) */
static int l_add_sign_(lua_State *L) {
  const char *fn = "add_sign_";
  double alpha = gml_ew_number(L, 1, fn, "alpha");
  gm_mat *a = gml_checkmat(L, 2, fn);
  double beta = gml_ew_number(L, 3, fn, "beta");
  gm_mat *b = gml_checkmat(L, 4, fn);
  check(L, gm_ew_same_size("a", a, "b", b), 4, fn);
  GML_TRY(L, gm_add_sign_(alpha, a, beta, b), fn);
  lua_settop(L, 4);
  return 1;
}

void gml_fill_value(lua_State *L, gm_mat *x, gm_value v, const char *fn) {
  gm_mat *z, *zx;
  size_t ones[GM_MAX_RANK];
  for (int i = 0; i < x->rank; i++) ones[i] = 1;
  gm_sync sync = gml_settings_of(L)->default_synchronization;
  GML_TRY(L, gm_result_new(x->rank, ones, x->ctype, x->cuda_enabled, sync, &z), fn);
  gml_pushmat(L, z);
  GML_TRY(L, gm_mat_put_value(z, 0, v), fn);
  GML_TRY(L, gm_view_expand(z, x->rank, x->dims, &zx), fn);
  gml_pushmat(L, zx);
  GML_TRY(L, gm_broadcast_where(x->ctype, (gm_bc_arg){NULL, 1}, (gm_bc_arg){zx, 0}, (gm_bc_arg){zx, 0}, x), fn);
  lua_pop(L, 2);
}

/* gm.fill_(alpha, x, {n}) */
/* fill_ of a complex mat with a gm.complex value: gml_fill_value (the
 * backends' fill takes a double) */
static void fill_complex(lua_State *L, gm_mat *x, size_t n) {
  gm_value v = {false, false, 0, 0, true, 0};
  if (!gml_tocomplex(L, 1, &v.d, &v.im)) gml_argerror(L, 1, "fill_", "gm.complex value with non-number parts");
  if (n != x->size) gml_argerror(L, 3, "fill_", "option 'n' with a complex value: fill the whole mat or a view");
  gml_fill_value(L, x, v, "fill_");
}

static int l_fill_(lua_State *L) {
  if (!lua_isnoneornil(L, 3)) gml_guard(L, 3); /* options' metamethods run while x is held */
  if (gml_iscomplex(L, 1)) {
    gm_mat *x = gml_checkmat(L, 2, "fill_");
    size_t n = opt_n(L, 3, "fill_", x);
    double re, im;
    if (gm_ctype_is_complex(x->ctype)) {
      fill_complex(L, x, n);
    } else { /* a real mat takes the real part (astype) */
      if (!gml_tocomplex(L, 1, &re, &im)) gml_argerror(L, 1, "fill_", "gm.complex value with non-number parts");
      GML_TRY(L, gm_fill_(re, x, n), "fill_");
    }
    lua_settop(L, 2);
    return 1;
  }
  double alpha = gml_ew_number(L, 1, "fill_", "alpha");
  gm_mat *x = gml_checkmat(L, 2, "fill_");
  size_t n = opt_n(L, 3, "fill_", x);
  GML_TRY(L, gm_fill_(alpha, x, n), "fill_");
  lua_settop(L, 2);
  return 1;
}

/* gm.sum_(x, y, {axis, alpha = 1, beta = 0}) */
static int l_sum_(lua_State *L) {
  static const char *const allowed[] = {"axis", "alpha", "beta", NULL};
  const char *fn = "sum_";
  gml_guard(L, 3);
  gm_mat *x = gml_checkmat(L, 1, fn);
  gm_mat *y = gml_checkmat(L, 2, fn);
  gml_check_options(L, 3, fn, allowed);
  if (!gml_opt_push(L, 3, "axis")) gml_argerror(L, 3, fn, "option 'axis' is required (1 or 2)");
  lua_pop(L, 1);
  lua_Integer axis = gml_opt_integer(L, 3, "axis", 1, fn);
  double alpha = gml_opt_number(L, 3, "alpha", 1, fn);
  double beta = gml_opt_number(L, 3, "beta", 0, fn);
  int bad = 0;
  gm_status st = gm_sum_args(x, y, axis, &bad);
  check(L, st, bad, fn);
  GML_TRY(L, gm_sum_(x, y, (int)axis - 1, alpha, beta), fn);
  lua_settop(L, 2);
  return 1;
}

/* gm.scale_rows_(scales, a, {result}) / gm.scale_columns_(...) */
static int scale(lua_State *L, const char *fn, bool rows) {
  static const char *const allowed[] = {"result", NULL};
  if (!lua_isnoneornil(L, 3)) gml_guard(L, 3);
  gm_mat *scales = gml_checkmat(L, 1, fn);
  gm_mat *a = gml_checkmat(L, 2, fn);
  gml_check_options(L, 3, fn, allowed);
  int bad = 0;
  gm_status st = gm_scale_args(scales, a, rows, &bad);
  check(L, st, bad, fn);
  int res_idx = 2;
  gm_mat *result = a;
  if (gml_opt_push(L, 3, "result")) {
    if (!gml_ismat(L, -1)) gml_argerror(L, 3, fn, "option 'result' must be a mat, got %s", luaL_typename(L, -1));
    res_idx = lua_gettop(L);
    gml_pin(L, res_idx);
    gml_mat *box = lua_touserdata(L, res_idx);
    if (!box->m) gml_argerror(L, 3, fn, "option 'result' is a freed mat");
    result = box->m;
    check(L, gm_scale_result(a, result), 3, fn);
  }
  GML_TRY(L, rows ? gm_scale_rows_(scales, a, result) : gm_scale_columns_(scales, a, result), fn);
  lua_pushvalue(L, res_idx);
  return 1;
}

static int l_scale_rows_(lua_State *L) { return scale(L, "scale_rows_", true); }
static int l_scale_columns_(lua_State *L) { return scale(L, "scale_columns_", false); }

/* core._op_table: the op table's rows (kernels/op_table.h) in order, each
 * {name, c_name, family, op, kinds = {float = true, ...}, result, cost};
 * the specs check their references and gm.help against it. */
static void push_op_table(lua_State *L) {
  lua_createtable(L, gm_n_op_rows, 0);
  for (int i = 0; i < gm_n_op_rows; i++) {
    const gm_op_row *r = &gm_op_rows[i];
    lua_createtable(L, 0, 7);
    lua_pushstring(L, r->lua);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, r->name);
    lua_setfield(L, -2, "c_name");
    lua_pushstring(L, gm_op_family_name(r->family));
    lua_setfield(L, -2, "family");
    lua_pushinteger(L, r->op);
    lua_setfield(L, -2, "op");
    lua_newtable(L);
    for (int k = GM_KIND_FLOAT; k <= GM_KIND_COMPLEX; k++) {
      lua_pushboolean(L, (r->kinds >> k) & 1);
      lua_setfield(L, -2, gm_op_kind_name(k));
    }
    lua_setfield(L, -2, "kinds");
    lua_pushstring(L, gm_op_result_name(r->result));
    lua_setfield(L, -2, "result");
    lua_pushnumber(L, r->cost);
    lua_setfield(L, -2, "cost");
    lua_rawseti(L, -2, i + 1);
  }
}

/* core._ctypes: the ctype list's rows by name, {dtype, kind, tol} (tol:
 * the relative tolerance the specs compare computed float results with). */
static void push_ctypes(lua_State *L) {
  lua_createtable(L, 0, GM_N_CTYPES);
#define X(T, E, name, kw, p, P, et, S, npy, st, dig, mpi, nccl, kind, dtype, cname, tol, ...) \
  lua_createtable(L, 0, 3);                                                                   \
  lua_pushstring(L, dtype);                                                                   \
  lua_setfield(L, -2, "dtype");                                                               \
  lua_pushstring(L, gm_op_kind_name(kind));                                                   \
  lua_setfield(L, -2, "kind");                                                                \
  lua_pushnumber(L, tol);                                                                     \
  lua_setfield(L, -2, "tol");                                                                 \
  lua_setfield(L, -2, name);
  GM_CTYPES(X)
#undef X
}

void gml_open_elementwise(lua_State *L, int module_idx) {
  static const struct {
    gml_reg r;
    int k; /* position of the written mat (the method's self) */
  } fns[] = {
#define X(name, E, ...) {{#name "_", l_##name##_, 2, NULL}, 1},
      GM_UNARY_OPS(X)
#undef X
      {{"clamp_", l_clamp_, 3, NULL}, 1},
      {{"expt_", l_expt_, 2, NULL}, 1},     {{"add_scalar_", l_add_scalar_, 2, NULL}, 2},
      {{"mul_", l_mul_, 2, NULL}, 2},       {{"geem_", l_geem_, 5, NULL}, 5}, {{"geerv_", l_geerv_, 5, NULL}, 5},
      {{"lt_", l_lt_, 2, NULL}, 2},         {{"min_", l_min_, 2, NULL}, 2},   {{"max_", l_max_, 2, NULL}, 2},
      {{"add_sign_", l_add_sign_, 4, NULL}, 4}, {{"fill_", l_fill_, 3, NULL}, 2}, {{"sum_", l_sum_, 3, NULL}, 2},
      {{"scale_rows_", l_scale_rows_, 3, NULL}, 2}, {{"scale_columns_", l_scale_columns_, 3, NULL}, 2},
  };
  module_idx = lua_absindex(L, module_idx);
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    gml_push_function(L, &fns[i].r, 0);
    lua_setfield(L, module_idx, fns[i].r.name);
    gml_ew_method(L, &fns[i].r, fns[i].k);
  }
  /* the unary ops' names in table order, for the Lua side and the specs */
  lua_createtable(L, GM_N_UNARY, 0);
  for (int op = 0; op < GM_N_UNARY; op++) {
    lua_pushstring(L, gm_unary_name((gm_unary_op)op));
    lua_rawseti(L, -2, op + 1);
  }
  lua_setfield(L, module_idx, "_unary_ops");
  push_op_table(L);
  lua_setfield(L, module_idx, "_op_table");
  push_ctypes(L);
  lua_setfield(L, module_idx, "_ctypes");
}
