/* Broadcasting elementwise ops in Lua: gm.add(a, b, {out = m}), gm.sub,
 * gm.cmul, gm.cdiv, gm.pow, gm.cmax, gm.cmin, the comparisons gm.gt, ge,
 * lt, le, eq, ne (bool results), and gm.where(cond, a, b, {out = m});
 * the binary ops are also methods (m:add(b), m:gt(0)).  Operands are mats,
 * numbers or booleans, of mixed ctypes (promoted here); every argument is
 * read and checked here before the core touches memory. */
#include "l_broadcast.h"

#include <math.h>

#include "../core/ops/elementwise.h"
#include "../core/ops/op_table.h"
#include "../core/ops/operands.h"
#include "l_ew.h"

/* The operand at idx: a mat, or a number or boolean (m NULL); a
 * gm.complex value passes (*complex set; complex_scalars then makes it a mat). */
static gm_bc_arg check_arg_cx(lua_State *L, int idx, const char *fn, bool *complex) {
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER) return (gm_bc_arg){NULL, lua_tonumber(L, idx)};
  gml_mat *box = t == LUA_TUSERDATA ? gml_testbox(L, idx) : NULL;
  if (box) return (gm_bc_arg){gml_checkmat_in(L, idx, box, fn), 0};
  if (t == LUA_TBOOLEAN) return (gm_bc_arg){NULL, lua_toboolean(L, idx) ? 1.0 : 0.0};
  if (!gml_iscomplex(L, idx)) gml_argerror(L, idx, fn, "mat or number expected, got %s", luaL_typename(L, idx));
  *complex = true;
  return (gm_bc_arg){NULL, 0};
}

static gm_bc_arg check_arg(lua_State *L, int idx, const char *fn) {
  bool complex = false;
  return check_arg_cx(L, idx, fn, &complex);
}

/* ---- promotion ----
 * The table of two ctypes' result is lua/gpumat/dtypes.lua's (the one
 * promotion table, checked against NumPy): it hands it over once, at
 * load, through core.set_promotion; it lives in the registry. */
static const char promotion_key = 'p';

typedef struct promotion {
  unsigned char to[GM_N_CTYPES][GM_N_CTYPES];
} promotion;

/* core.set_promotion(t): t[a][b] = r, dtype names ("float32"), every pair
 * of mat ctypes */
static int l_set_promotion(lua_State *L) {
  const char *fn = "set_promotion";
  luaL_checktype(L, 1, LUA_TTABLE);
  promotion *p = lua_newuserdatauv(L, sizeof *p, 0);
  for (int a = 0; a < GM_N_CTYPES; a++)
    for (int b = 0; b < GM_N_CTYPES; b++) {
      gm_ctype r;
      if (lua_getfield(L, 1, gm_ctype_dtype((gm_ctype)a)) != LUA_TTABLE ||
          lua_getfield(L, -1, gm_ctype_dtype((gm_ctype)b)) != LUA_TSTRING || gm_ctype_parse(lua_tostring(L, -1), &r))
        return gml_argerror(L, 1, fn, "no result for %s with %s", gm_ctype_dtype((gm_ctype)a),
                            gm_ctype_dtype((gm_ctype)b));
      p->to[a][b] = (unsigned char)r;
      lua_pop(L, 2);
    }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &promotion_key);
  return 0;
}

static gm_ctype promote(lua_State *L, gm_ctype a, gm_ctype b, const char *fn) {
  if (a == b) return a;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &promotion_key);
  const promotion *p = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!p) luaL_error(L, "%s: the promotion table is not loaded (require \"gpumat\")", fn);
  return (gm_ctype)p->to[a][b];
}

/* The result ctype of the operands at idx[first..n-1] (docs/API.md
 * "Promotion"): the mats' promotion; Lua values are weak (gm.result_type's
 * rule): a float makes a bool or integer result the default float, an
 * integer makes a bool one int64, a boolean takes any type.  Without a mat
 * the weak kind decides (the default float, int64, bool). */
static gm_ctype result_ctype(lua_State *L, int op, const gm_bc_arg *a, const int *idx, int first, int n,
                             const char *fn) {
  int strong = -1, weak = -1;
  for (int i = first; i < n; i++) {
    if (a[i].m) {
      strong = strong < 0 ? (int)a[i].m->ctype : (int)promote(L, (gm_ctype)strong, a[i].m->ctype, fn);
    } else {
      /* & | ~ << >> take a whole float as its integer, as Lua's do */
      int w = lua_type(L, idx[i]) == LUA_TBOOLEAN ? 0 : lua_isinteger(L, idx[i]) || GM_BC_IS_BITWISE(op) ? 1 : 2;
      weak = w > weak ? w : weak;
    }
  }
  gm_ctype t = strong < 0 ? GM_BOOL : (gm_ctype)strong;
  int kind = gm_ctype_kind(t);
  if (weak == 2 && kind != GM_KIND_FLOAT && kind != GM_KIND_COMPLEX) return gml_settings_of(L)->default_ctype;
  if (weak == 1 && kind == GM_KIND_BOOL) return GM_INT64;
  return t;
}

/* The ctype op computes in: the result ctype, but a row whose result is
 * FLOAT in the op table (true division) computes integers and bools in
 * the default float (NumPy's divide), the float-only rows (kinds F: atan2
 * ...) a float (gm_ctype_float_for: NumPy's, float32 for its float16), and
 * bool ^ // % int8 (NumPy's: bool has no such loop). */
static gm_ctype compute_ctype(lua_State *L, int op, const gm_bc_arg *a, const int *idx, int n, const char *fn) {
  gm_ctype t = result_ctype(L, op, a, idx, op < 0 ? 1 : 0, n, fn);
  const gm_op_row *r = op < 0 ? NULL : gm_op_row_of(gm_bc_is_cmp(op) ? GM_OPF_COMPARE : GM_OPF_BINARY, op);
  if (r && r->result == GM_OPR_FLOAT && gm_ctype_kind(t) != GM_KIND_FLOAT && !gm_ctype_is_complex(t))
    return gml_settings_of(L)->default_ctype;
  if (r && (r->kinds & ~(1u << GM_KIND_COMPLEX)) == (1u << GM_KIND_FLOAT)) return gm_ctype_float_for(t);
  if (t == GM_BOOL && (op == GM_BC_POW || op == GM_BC_FLOORDIV || op == GM_BC_REMAINDER)) return GM_INT8;
  return t;
}

/* An integer base with a negative Lua number exponent raises, as NumPy
 * does (a mat exponent cannot: its negative elements give 1/a^-b truncated,
 * kernels/int_ops.h). */
static void check_int_pow(lua_State *L, int op, gm_ctype t, const gm_bc_arg *a, const int *idx, const char *fn) {
  int k = gm_ctype_kind(t);
  if (op != GM_BC_POW || (k != GM_KIND_INT && k != GM_KIND_UINT) || a[1].m || !(a[1].v < 0)) return;
  gml_argerror(L, idx[1], fn, "integers to negative integer powers are not allowed (NumPy's rule; convert the base "
                              "with m:as(\"float64\"))");
}

/* Refuses an op the engine lacks for ctype t: the integer-only ops and
 * bool's refusals name the op (core/ops/broadcast.c's message), the float-only
 * ones the first operand of a non-float ctype, as gml_checkmat does for
 * other functions. */
static void check_kind(lua_State *L, int op, gm_ctype t, const gm_bc_arg *a, const int *idx, int n, const char *fn) {
  gm_status st = gm_bc_check_kind(op, t);
  if (st == GM_OK) return;
  if (GM_BC_IS_INT_ONLY(op) || t == GM_BOOL) GML_TRY(L, st, gm_bcast_name((gm_bcast_op)op));
  int bad = 0;
  while (bad < n - 1 && !(a[bad].m && a[bad].m->ctype == t)) bad++;
  if (gm_ctype_is_complex(t)) GML_TRY(L, st, fn);
  const char *d = gm_ctype_dtype(t);
  gml_argerror(L, idx[bad], fn, "a%s %s mat; this function takes float32/float64 mats (convert with m:as(\"float64\"))",
               d[0] == 'i' ? "n" : "", d);
}

/* gm.complex operands become 1-element complex mats (0-d), weak as the
 * standard's Python complex is: complex64 with float32 or complex64 mats,
 * complex128 with the others (NumPy 2). */
static void complex_scalars(lua_State *L, const int *idx, int n, const char *fn) {
  int strong = -1;
  bool cuda = true, any = false;
  for (int i = 0; i < n; i++) any = any || (lua_type(L, idx[i]) == LUA_TTABLE && gml_iscomplex(L, idx[i]));
  if (!any) return;
  for (int i = 0; i < n; i++) {
    if (!gml_ismat(L, idx[i])) continue;
    gm_mat *m = gml_checkmat(L, idx[i], fn);
    strong = strong < 0 ? (int)m->ctype : (int)promote(L, (gm_ctype)strong, m->ctype, fn);
    cuda = cuda && m->cuda_enabled;
  }
  gm_ctype t = strong == GM_FLOAT || strong == GM_COMPLEX64 ? GM_COMPLEX64 : GM_COMPLEX128;
  for (int i = 0; i < n; i++) {
    gm_value v = {false, false, 0, 0, true, 0};
    if (!gml_iscomplex(L, idx[i])) continue;
    if (!gml_tocomplex(L, idx[i], &v.d, &v.im)) gml_argerror(L, idx[i], fn, "gm.complex value with non-number parts");
    gm_mat *m;
    GML_TRY(L, gm_result_new(0, NULL, t, cuda, gml_settings_of(L)->default_synchronization, &m), fn);
    gml_pushmat(L, m);
    GML_TRY(L, gm_mat_put_value(m, 0, v), fn);
    lua_replace(L, idx[i]);
  }
}

/* ---- the usual call in one pass ----
 * Most calls are a float32 or float64 mat with a number or with a mat of
 * its ctype and dims (`x + 1`, `x * y`, `gm.add(x, 1, {out = y})`): the
 * result's ctype is the mat's (a Lua number is weak), every op but the
 * bitwise ones runs on it and nothing broadcasts, so promotion, the kind
 * and power checks and the broadcast of dims have nothing to say.  Their
 * general steps were half of a 1K-element call (a 1K float `gm.add(x, 1,
 * {out = y})` took twice `y:add_scalar_(1)`).  quick_args reads the two
 * operands (no Lua runs), *m the mat whose ctype and dims rule, or
 * false for any other call, which the general steps take and word. */
static bool quick_args(lua_State *L, const int *idx, gm_bc_arg a[2], gm_mat **m) {
  for (int i = 0; i < 2; i++) {
    int t = lua_type(L, idx[i]);
    gml_mat *box;
    if (t == LUA_TNUMBER)
      a[i] = (gm_bc_arg){NULL, lua_tonumber(L, idx[i])};
    else if (t == LUA_TUSERDATA && (box = gml_testbox(L, idx[i])) != NULL && box->m)
      a[i] = (gm_bc_arg){box->m, 0};
    else
      return false;
  }
  *m = a[0].m ? a[0].m : a[1].m;
  if (!*m || ((*m)->ctype != GM_FLOAT && (*m)->ctype != GM_DOUBLE)) return false;
  const gm_mat *x = a[0].m, *y = a[1].m;
  return !x || !y || (x->ctype == y->ctype && gm_mat_same_dims(x, y));
}

/* broadcast() of such a call (out_idx or plain_opts as there): true
 * with the result pushed; false with the stack as it was and nothing
 * changed.  An out of another ctype or dims (or freed) goes the general
 * way, which says what is wrong with it. */
static bool quick(lua_State *L, int op, const int *idx, int out_idx, int plain_opts, const char *argfn) {
  gm_bc_arg a[2];
  gm_mat *m;
  if (GM_BC_IS_BITWISE(op) || !quick_args(L, idx, a, &m)) return false;
  int top = lua_gettop(L);
  if (plain_opts && (out_idx = gml_plain_out(L, plain_opts)) < 0) return false; /* raw reads: no Lua runs */
  bool cmp = GM_BC_IS_CMP(op);
  gm_ctype t = m->ctype, rt = cmp ? GM_BOOL : t;
  gm_mat *out;
  if (out_idx) {
    gml_mat *ob = gml_testbox(L, out_idx);
    out = ob ? ob->m : NULL;
    if (!out || out->ctype != rt || !gm_mat_same_dims(out, m)) {
      lua_settop(L, top);
      return false;
    }
    lua_pushvalue(L, out_idx);
  } else {
    gml_mat *box = gml_newbox(L); /* may run finalizers: the operands again */
    if (!quick_args(L, idx, a, &m) || m->ctype != t) {
      lua_settop(L, top);
      return false;
    }
    bool cuda = (!a[0].m || a[0].m->cuda_enabled) && (!a[1].m || a[1].m->cuda_enabled);
    out = gml_box_result(L, box, m->rank, m->dims, rt, cuda, argfn);
  }
  gm_deferred_poll(); /* as gml_checkmat would */
  GML_TRY(L, gm_broadcast_binary_checked((gm_bcast_op)op, t, a[0], a[1], out, true), gm_bcast_name((gm_bcast_op)op));
  return true;
}

/* Without out, the result's box comes first (gml_newbox: the operands are
 * taken after the allocations that may run finalizers, so no guard is
 * needed); with out, the caller has read its options before (binary_call,
 * l_where) or holds them under a guard (l_logical).  plain_opts: the
 * stack index of an options table without a metatable, read here after
 * the operands' checks (reading it runs no Lua, so it may come after the
 * operands are taken; binary_call checked them twice before, 6 % of a 1K
 * gm.add(x, 1, {out = y})), or 0. */
static int broadcast(lua_State *L, int op, const int *idx, int n, int out_idx, int plain_opts, const char *argfn,
                     int ctype) {
  if (n == 2 && op >= 0 && ctype < 0 && quick(L, op, idx, out_idx, plain_opts, argfn)) return 1;
  const char *name = op >= 0 ? gm_bcast_name((gm_bcast_op)op) : "where";
  gm_bc_arg a[3];
  gml_mat *box = out_idx || plain_opts ? NULL : gml_newbox(L);
  bool complex = false;
  for (int i = 0; i < n; i++) a[i] = check_arg_cx(L, idx[i], argfn, &complex); /* in order: the first bad one raises */
  if (complex) { /* gm.complex values become mats (which may run Lua): the operands again */
    complex_scalars(L, idx, n, argfn);
    for (int i = 0; i < n; i++) a[i] = check_arg(L, idx[i], argfn);
  }
  if (plain_opts) {
    out_idx = gml_opt_out(L, plain_opts, argfn); /* out is checked below */
    if (!out_idx) { /* {}: no Lua ran since the operands were taken; the box may run some, so again */
      box = gml_newbox(L);
      for (int i = 0; i < n; i++) a[i] = check_arg(L, idx[i], argfn);
    }
  }
  int res = lua_gettop(L);
  /* & | ~ << >> take whole numbers, as Lua's own do (a whole float
   * beyond int64, such as ~'s 2^64 for unsigned types, saturates) */
  for (int i = 0; i < n && GM_BC_IS_BITWISE(op); i++)
    if (!a[i].m && !lua_isinteger(L, idx[i]) && (floor(a[i].v) != a[i].v || isinf(a[i].v)))
      gml_argerror(L, idx[i], argfn, "number has no integer representation");
  bool cuda;
  int bad = 0;
  if (gm_bc_common(a, n, &cuda, &bad) != GM_OK) gml_argerror(L, idx[bad], argfn, "%s", gm_last_error());
  gm_ctype t = ctype >= 0 ? (gm_ctype)ctype : compute_ctype(L, op, a, idx, n, argfn);
  check_kind(L, op, t, a, idx, n, argfn);
  check_int_pow(L, op, t, a, idx, argfn);
  bool cmp = GM_BC_IS_CMP(op);
  int rank;
  size_t dims[GM_MAX_RANK];
  GML_TRY(L, gm_bc_result_dims(a, n, &rank, dims), name);
  gm_mat *out;
  bool out_fits = true; /* out has the result's ctype and dims (else the core says what is wrong) */
  if (out_idx) {
    gml_mat *ob = gml_testbox(L, out_idx);
    if (ob && !ob->m) gml_argerror(L, plain_opts ? plain_opts : n + 1, argfn, "option 'out' is a freed mat");
    out = gml_checkmat(L, out_idx, argfn);
    lua_pushvalue(L, out_idx);
    out_fits = out->ctype == (cmp ? GM_BOOL : t) && out->rank == rank;
    for (int d = 0; out_fits && d < rank; d++) out_fits = out->dims[d] == dims[d];
  } else {
    out = gml_box_result(L, box, rank, dims, cmp ? GM_BOOL : t, cuda, argfn);
  }
  if (op >= 0)
    GML_TRY(L, gm_broadcast_binary_checked((gm_bcast_op)op, t, a[0], a[1], out, out_fits), name);
  else
    GML_TRY(L, gm_broadcast_where(t, a[0], a[1], a[2], out), name);
  if (!out_idx) lua_settop(L, res);
  return 1;
}

int gml_broadcast_as(lua_State *L, int op, const int *idx, int n, int out_idx, const char *argfn, int ctype) {
  return broadcast(L, op, idx, n, out_idx, 0, argfn, ctype);
}

int gml_broadcast(lua_State *L, int op, const int *idx, int n, int out_idx, const char *argfn) {
  return broadcast(L, op, idx, n, out_idx, 0, argfn, -1);
}

/* The {out = m} option at idx: the stack index of m (pinned when pin,
 * under the caller's guard), or 0. */
static int opt_out(lua_State *L, int idx, const char *fn, bool pin) {
  int out = gml_opt_out(L, idx, fn);
  if (!out) return 0;
  if (pin) gml_pin(L, out);
  gml_checkmat(L, out, fn); /* a freed mat raises here */
  return out;
}

/* gm.OP(a, b, {out = m}).  The options are read (their metamethods run)
 * before gml_broadcast takes any mat, and with `out` nothing that runs
 * Lua comes after: no guard (the binding rule's "read first"). */
static inline __attribute__((always_inline)) int binary_call(lua_State *L, int op) {
  gml_check_arity_n(L, 3); /* registered hot */
  const char *fn = gm_bcast_name((gm_bcast_op)op);
  static const int idx[2] = {1, 2};
  int t = lua_type(L, 3);
  if (t == LUA_TNONE || t == LUA_TNIL) return gml_broadcast(L, op, idx, 2, 0, fn);
  if (t == LUA_TTABLE && !lua_getmetatable(L, 3)) return broadcast(L, op, idx, 2, 0, 3, fn, -1);
  lua_settop(L, 3);
  check_arg(L, 1, fn); /* the operands' errors before the options' */
  check_arg(L, 2, fn);
  int out = opt_out(L, 3, fn, false);
  return gml_broadcast(L, op, idx, 2, out, fn);
}

/* One C function per op, the op a constant in each (reading it from an
 * upvalue was 3 % of a 1K-element call); the op table's rows make them. */
#define L_BINARY_FN_(f, E, ...) \
  static int l_bc_##E(lua_State *L) { return binary_call(L, GM_BC_##E); }
GM_BCAST_OPS(L_BINARY_FN_)
#undef L_BINARY_FN_
static const lua_CFunction binary_fns[GM_N_BCAST] = {
#define L_BINARY_ENTRY_(f, E, ...) [GM_BC_##E] = l_bc_##E,
    GM_BCAST_OPS(L_BINARY_ENTRY_)
#undef L_BINARY_ENTRY_
};

/* gm.where(cond, a, b, {out = m}), as binary_call */
static int l_where(lua_State *L) {
  const char *fn = "where";
  static const int idx[3] = {1, 2, 3};
  if (lua_isnoneornil(L, 4)) return gml_broadcast(L, -1, idx, 3, 0, fn);
  lua_settop(L, 4);
  for (int i = 1; i <= 3; i++) check_arg(L, i, fn); /* the operands' errors before the options' */
  int out = opt_out(L, 4, fn, false);
  return gml_broadcast(L, -1, idx, 3, out, fn);
}

/* The operand at idx as a bool operand: a bool mat itself (idx; its
 * bytes are C bools, 0 or 1), another mat's x != 0 (a new bool mat pushed
 * on the stack: 10K instructions of a 1K logical_and were these copies,
 * made of bool operands too), a number's 1 or 0 (NaN is 1) or a Lua
 * boolean itself (a weak bool, as in every broadcasting op), pushed. */
static int push_truth(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TBOOLEAN) {
    int t = lua_type(L, idx) == LUA_TBOOLEAN ? lua_toboolean(L, idx) : lua_tonumber(L, idx) != 0;
    lua_pushboolean(L, t); /* a weak bool: the result stays bool */
    return lua_gettop(L);
  }
  gm_mat *x = gml_checkmat(L, idx, fn), *y;
  if (x->ctype == GM_BOOL) return idx; /* an operand that is also out: the engine's overlap rule */
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
  int out = opt_out(L, 3, fn, true);
  if (!gml_ismat(L, 1) && !gml_ismat(L, 2))
    gml_argerror(L, 2, fn, "mat expected, got %s (one operand must be a mat)", luaL_typename(L, 2));
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
  static const gml_reg where_reg[] = {
      {"where", l_where, 4, NULL}, {"_set_promotion", l_set_promotion, 1, NULL}, {NULL, NULL, 0, NULL}};
  /* the method m:OP(b, opts) is the function itself (self is a) */
  for (int op = 0; op < GM_N_BCAST; op++)
    binary_regs[op] = (gml_reg){gm_bcast_name((gm_bcast_op)op), binary_fns[op], 3, NULL};
  gml_register_ops(L, module_idx, binary_regs, GM_N_BCAST, true);
  gml_register(L, module_idx, where_reg);
  static const gml_reg logical_regs[] = {
      {"logical_and", l_logical, 3, NULL}, {"logical_or", l_logical, 3, NULL}, {"logical_xor", l_logical, 3, NULL}};
  for (int i = 0; i < 3; i++) {
    lua_pushinteger(L, GM_BC_BAND + i);
    gml_push_function(L, &logical_regs[i], 1);
    lua_setfield(L, module_idx, logical_regs[i].name);
  }
  alias_standard_names(L, lua_absindex(L, module_idx));
  /* the array standard's names of the comparisons: the same functions */
  static const char *const aliases[][2] = {{"greater", "gt"}, {"greater_equal", "ge"}, {"less", "lt"},
                                           {"less_equal", "le"}, {"equal", "eq"},       {"not_equal", "ne"}};
  module_idx = lua_absindex(L, module_idx);
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    lua_getfield(L, module_idx, aliases[i][1]);
    lua_pushvalue(L, -1);
    lua_setfield(L, module_idx, aliases[i][0]);
    lua_setfield(L, -2, aliases[i][0]);
  }
  lua_pop(L, 2);
}
