/* BLAS in Lua (MGL-MAT §11): asum, nrm2, dot, axpy_, copy_, scal_, gemm_.
 *
 * Module functions take MGL's argument order; the methods (registered in
 * C, on the written mat or on x for queries) take the same arguments minus
 * that mat and report errors with the module function's argument numbers.
 * The hot methods (x:scal_(a), y:axpy_(a, x)) are C functions with no Lua
 * wrapper and no allocation: without an options table they go straight to
 * the core. */
#include "../core/ops/blas.h"
#include "util.h"

static const char *const vec1_opts[] = {"n", "incx", NULL};
static const char *const vec2_opts[] = {"n", "incx", "incy", NULL};

static double check_scalar(lua_State *L, int idx, int argn, const char *fn, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, argn, fn, "%s must be a number, got %s", what, luaL_typename(L, idx));
  return lua_tonumber(L, idx);
}

/* Mat at stack idx reported as argument argn (the box's size and magic:
 * cheaper than luaL_testudata's registry lookup on the hot path of
 * x:scal_(2), and true of a mat with its own method cache too). */
static gm_mat *check_mat_at(lua_State *L, int idx, int argn, const char *fn) {
  gml_mat *box = gml_testbox(L, idx);
  if (box) {
    if (!box->m) gml_argerror(L, argn, fn, "attempt to use a freed mat");
    return box->m;
  }
  return gml_argerror(L, argn, fn, "gpumat.mat expected, got %s", luaL_typename(L, idx)), NULL;
}

/* Options at stack idx (argument argn; for the methods too, options stay
 * at the module function's position); n defaults to the size of x. */
typedef struct vec_args {
  size_t n, incx, incy;
} vec_args;

static vec_args check_vec_opts(lua_State *L, int idx, int argn, const char *fn, const gm_mat *x, bool two) {
  vec_args v = {x->size, 1, 1};
  if (lua_isnoneornil(L, idx)) return v;
  if (!lua_istable(L, idx)) gml_argerror(L, argn, fn, "options table expected, got %s", luaL_typename(L, idx));
  gml_check_options(L, idx, fn, two ? vec2_opts : vec1_opts);
  v.n = gml_opt_size(L, idx, "n", v.n, fn);
  v.incx = gml_opt_size(L, idx, "incx", 1, fn);
  if (two) v.incy = gml_opt_size(L, idx, "incy", 1, fn);
  return v;
}

/* The core's operand rules of a level-1 call (y NULL: one vector); a
 * failure names x's argument argx or y's, the next one. */
static void check_operands(lua_State *L, const gm_mat *x, const gm_mat *y, vec_args v, bool alias, int argx,
                           const char *fn) {
  int bad;
  if (gm_blas_check_level1(x, y, v.n, v.incx, v.incy, alias, &bad) != GM_OK)
    gml_argerror(L, argx + bad - 1, fn, "%s", gm_last_error());
}

static void check_same_ctype(lua_State *L, const gm_mat *a, const gm_mat *b, int argn, const char *fn) {
  if (a->ctype != b->ctype)
    gml_argerror(L, argn, fn, "mixed ctypes %s and %s", gm_ctype_name(a->ctype), gm_ctype_name(b->ctype));
}

/* ---- reductions ---- */

typedef gm_status (*reduce_fn)(gm_mat *, size_t, size_t, double *);

static int reduce(lua_State *L, const char *fn, reduce_fn f) {
  if (!lua_isnoneornil(L, 2)) gml_guard(L, 2); /* options' metamethods run while x is held */
  gm_mat *x = check_mat_at(L, 1, 1, fn);
  vec_args v = check_vec_opts(L, 2, 2, fn, x, false);
  check_operands(L, x, NULL, v, false, 1, fn);
  double r;
  GML_TRY(L, f(x, v.n, v.incx, &r), fn);
  lua_pushnumber(L, r);
  return 1;
}

/* gm.asum(x, {n, incx}) / x:asum(opts) */
static int l_asum(lua_State *L) { return reduce(L, "asum", gm_asum); }
/* gm.nrm2(x, {n, incx}) / x:nrm2(opts) */
static int l_nrm2(lua_State *L) { return reduce(L, "nrm2", gm_nrm2); }

/* gm.dot(x, y, {n, incx, incy}) / x:dot(y, opts) */
static int l_dot(lua_State *L) {
  const char *fn = "dot";
  if (!lua_isnoneornil(L, 3)) gml_guard(L, 3);
  gm_mat *x = check_mat_at(L, 1, 1, fn);
  gm_mat *y = check_mat_at(L, 2, 2, fn);
  vec_args v = check_vec_opts(L, 3, 3, fn, x, true);
  check_operands(L, x, y, v, false, 1, fn);
  double r;
  GML_TRY(L, gm_dot(x, y, v.n, v.incx, v.incy, &r), fn);
  lua_pushnumber(L, r);
  return 1;
}

/* ---- destructive level 1 ---- */

/* axpy_ with its arguments at stack indices (ia, ix, iy, io); pushes y.
 * Fast path (no options, equal sizes) reads no options. */
static int do_axpy(lua_State *L, int ia, int ix, int iy, int io) {
  const char *fn = "axpy_";
  if (!lua_isnoneornil(L, io)) gml_guard(L, io);
  double alpha = check_scalar(L, ia, 1, fn, "alpha");
  gm_mat *x = check_mat_at(L, ix, 2, fn);
  gm_mat *y = check_mat_at(L, iy, 3, fn);
  vec_args v = {x->size, 1, 1};
  if (!lua_isnoneornil(L, io) || x->size != y->size) v = check_vec_opts(L, io, 4, fn, x, true);
  check_operands(L, x, y, v, true, 2, fn);
  GML_TRY(L, gm_axpy_(alpha, x, y, v.n, v.incx, v.incy), fn);
  lua_pushvalue(L, iy);
  return 1;
}

/* gm.axpy_(alpha, x, y, opts) */
static int l_axpy_(lua_State *L) { return do_axpy(L, 1, 2, 3, 4); }
/* y:axpy_(alpha, x, opts) */
static int m_axpy_(lua_State *L) { return do_axpy(L, 2, 3, 1, 4); }

static int do_copy(lua_State *L, int ix, int iy, int io) {
  const char *fn = "copy_";
  if (!lua_isnoneornil(L, io)) gml_guard(L, io);
  gm_mat *x = check_mat_at(L, ix, 1, fn);
  gm_mat *y = check_mat_at(L, iy, 2, fn);
  vec_args v = check_vec_opts(L, io, 3, fn, x, true);
  check_operands(L, x, y, v, true, 1, fn);
  GML_TRY(L, gm_copy_(x, y, v.n, v.incx, v.incy), fn);
  lua_pushvalue(L, iy);
  return 1;
}

/* gm.copy_(x, y, opts): copies x into y */
static int l_copy_(lua_State *L) { return do_copy(L, 1, 2, 3); }
/* y:copy_(x, opts) */
static int m_copy_(lua_State *L) { return do_copy(L, 2, 1, 3); }

static int do_scal(lua_State *L, int ia, int ix, int io) {
  const char *fn = "scal_";
  if (!lua_isnoneornil(L, io)) gml_guard(L, io);
  double alpha = check_scalar(L, ia, 1, fn, "alpha");
  gm_mat *x = check_mat_at(L, ix, 2, fn);
  vec_args v = {x->size, 1, 1};
  if (!lua_isnoneornil(L, io)) {
    v = check_vec_opts(L, io, 3, fn, x, false);
    check_operands(L, x, NULL, v, false, 2, fn);
  }
  GML_TRY(L, gm_scal_(alpha, x, v.n, v.incx), fn);
  lua_pushvalue(L, ix);
  return 1;
}

/* gm.scal_(alpha, x, opts) */
static int l_scal_(lua_State *L) { return do_scal(L, 1, 2, 3); }
/* x:scal_(alpha, opts) */
static int m_scal_(lua_State *L) { return do_scal(L, 2, 1, 3); }

/* ---- gemm ---- */

static const char *const gemm_opts[] = {"transpose_a", "transpose_b", "m", "n", "k", "lda", "ldb", "ldc", NULL};

static gm_gemm_args check_gemm_opts(lua_State *L, int io, const char *fn) {
  gm_gemm_args g = {false, false, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET, GM_UNSET};
  if (lua_isnoneornil(L, io)) return g;
  if (!lua_istable(L, io)) gml_argerror(L, 6, fn, "options table expected, got %s", luaL_typename(L, io));
  gml_check_options(L, io, fn, gemm_opts);
  g.transpose_a = gml_opt_boolean(L, io, "transpose_a", false, fn);
  g.transpose_b = gml_opt_boolean(L, io, "transpose_b", false, fn);
  g.m = gml_opt_size(L, io, "m", GM_UNSET, fn);
  g.n = gml_opt_size(L, io, "n", GM_UNSET, fn);
  g.k = gml_opt_size(L, io, "k", GM_UNSET, fn);
  g.lda = gml_opt_size(L, io, "lda", GM_UNSET, fn);
  g.ldb = gml_opt_size(L, io, "ldb", GM_UNSET, fn);
  g.ldc = gml_opt_size(L, io, "ldc", GM_UNSET, fn);
  return g;
}

/* gemm_ with alpha, a, b, beta, c, opts at the given stack indices */
static int do_gemm(lua_State *L, const int idx[6]) {
  const char *fn = "gemm_";
  static const int argn_of_bad[4] = {6, 2, 3, 5};
  if (!lua_isnoneornil(L, idx[5])) gml_guard(L, idx[5]);
  double alpha = check_scalar(L, idx[0], 1, fn, "alpha");
  gm_mat *a = check_mat_at(L, idx[1], 2, fn);
  gm_mat *b = check_mat_at(L, idx[2], 3, fn);
  double beta = check_scalar(L, idx[3], 4, fn, "beta");
  gm_mat *c = check_mat_at(L, idx[4], 5, fn);
  gm_gemm_args g = check_gemm_opts(L, idx[5], fn);
  check_same_ctype(L, a, b, 3, fn);
  check_same_ctype(L, a, c, 5, fn);
  int bad;
  if (gm_gemm_resolve(a, b, c, &g, &bad) != GM_OK) gml_argerror(L, argn_of_bad[bad], fn, "%s", gm_last_error());
  GML_TRY(L, gm_gemm_(alpha, a, b, beta, c, g), fn);
  lua_pushvalue(L, idx[4]);
  return 1;
}

/* gm.gemm_(alpha, a, b, beta, c, opts) */
static int l_gemm_(lua_State *L) {
  static const int idx[6] = {1, 2, 3, 4, 5, 6};
  return do_gemm(L, idx);
}
/* c:gemm_(alpha, a, b, beta, opts) */
static int m_gemm_(lua_State *L) {
  static const int idx[6] = {2, 3, 4, 5, 1, 6};
  return do_gemm(L, idx);
}

void gml_open_blas(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"asum", l_asum, 2, NULL}, {"nrm2", l_nrm2, 2, NULL}, {"dot", l_dot, 3, NULL},       {"axpy_", l_axpy_, 4, NULL},
      {"copy_", l_copy_, 3, NULL}, {"scal_", l_scal_, 3, NULL}, {"gemm_", l_gemm_, 6, NULL}, {NULL, NULL, 0, NULL},
  };
  /* the methods of the written mat, which is not argument #1 */
  static const gml_reg methods[] = {
      {"axpy_", m_axpy_, 4, NULL}, {"copy_", m_copy_, 3, NULL}, {"scal_", m_scal_, 3, NULL}, {"gemm_", m_gemm_, 6, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  gml_register(L, -1, fns); /* asum, nrm2, dot: x:f(...) is gm.f(x, ...) */
  gml_register(L, -1, methods);
  lua_pop(L, 2);
}
