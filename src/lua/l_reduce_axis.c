/* Reductions as Torch7 and NumPy users write them, module functions and
 * methods alike (gm.sum(m, axis, opts) is m:sum(axis, opts)):
 *   sum mean prod max min var std argmax argmin (m, axis, {keepdims,
 *     out, unbiased (var/std)}): along a 1-based axis (negative counts
 *     from the end, -1 the last) into a new mat or `out`, the axis dropped
 *     unless keepdims; argmax/argmin give 1-based indices in a double
 *     mat.  Without an axis: the whole mat to a Lua number (argmax/argmin:
 *     the 1-based row-major index as an integer).
 *   logsumexp(m, axis, opts), softmax(m, axis, {out}): computed stably
 *     (the column's max subtracted); softmax keeps m's dims and may write
 *     into m itself.
 * All run where the mat lives (core/reduce_axis.h, core/reduce.h). */
#include "../core/reduce.h"
#include "../core/exec.h"
#include "../core/reduce_axis.h"
#include "util.h"

typedef struct ax_args {
  int axis; /* 0-based; -1: none (whole mat) */
  bool keepdims;
  int ddof;
  int out_idx; /* stack index of `out`, 0 without */
} ax_args;

static int check_axis_arg(lua_State *L, int rank, const char *fn) {
  int isnum;
  lua_Integer a = lua_tointegerx(L, 2, &isnum);
  if (!isnum || lua_type(L, 2) != LUA_TNUMBER)
    gml_argerror(L, 2, fn, "axis must be an integer, got %s", luaL_typename(L, 2));
  lua_Integer r = a < 0 ? a + rank + 1 : a;
  if (r < 1 || r > rank) gml_argerror(L, 2, fn, "axis %lld is out of range 1..%d (or -%d..-1)", (long long)a, rank, rank);
  return (int)r - 1;
}

/* Reads every argument (the guard pins m and out while options are read). */
static ax_args read_args(lua_State *L, int op, const char *fn) {
  static const char *const value_opts[] = {"keepdims", "out", NULL};
  static const char *const var_opts[] = {"keepdims", "out", "unbiased", NULL};
  static const char *const soft_opts[] = {"out", NULL};
  gml_guard(L, 3);
  gm_mat *m = gml_checkmat(L, 1, fn);
  int rank = m->rank;
  ax_args a = {-1, false, 0, 0};
  bool is_var = op == GM_AX_VAR || op == GM_AX_STD;
  gml_check_options(L, 3, fn, is_var ? var_opts : op == GM_AX_SOFTMAX ? soft_opts : value_opts);
  bool needs_axis = op == GM_AX_SOFTMAX || op == GM_AX_LOGSUMEXP;
  if (!lua_isnoneornil(L, 2) || needs_axis) a.axis = check_axis_arg(L, rank, fn);
  a.keepdims = gml_opt_boolean(L, 3, "keepdims", false, fn);
  a.ddof = is_var && gml_opt_boolean(L, 3, "unbiased", false, fn) ? 1 : 0;
  if (gml_opt_push(L, 3, "out")) {
    if (!gml_ismat(L, -1)) gml_argerror(L, 3, fn, "out must be a gpumat.mat, got %s", luaL_typename(L, -1));
    gml_pin(L, -1);
    a.out_idx = lua_gettop(L);
  }
  if (a.axis < 0 && (a.keepdims || a.out_idx))
    gml_argerror(L, 3, fn, "keepdims and out need an axis (argument #2)");
  return a;
}

static void dims_text(char *buf, size_t n, int rank, const size_t *dims) {
  size_t k = 0;
  buf[0] = 0;
  for (int a = 0; a < rank && k < n; a++) k += (size_t)snprintf(buf + k, n - k, a ? "x%zu" : "%zu", dims[a]);
  if (rank == 0) snprintf(buf, n, "scalar");
}

/* The result mat: `out` checked against the result's dims and ctype, or a
 * new mat pushed on the stack. */
static gm_mat *result_mat(lua_State *L, gm_mat *x, const ax_args *a, int op, const char *fn) {
  size_t dims[GM_MAX_RANK];
  int rank = gm_reduce_axis_dims(x, a->axis, op, a->keepdims, dims);
  gm_ctype t = gm_reduce_axis_ctype(x, op);
  if (a->out_idx) {
    gm_mat *out = gml_checkmat(L, a->out_idx, fn);
    bool same = out->rank == rank;
    for (int k = 0; same && k < rank; k++) same = out->dims[k] == dims[k];
    char want[96], got[96];
    dims_text(want, sizeof want, rank, dims);
    dims_text(got, sizeof got, out->rank, out->dims);
    if (!same) gml_argerror(L, 3, fn, "out has dims %s, the result has %s", got, want);
    if (out->ctype != t)
      gml_argerror(L, 3, fn, "out has ctype %s, the result is %s", gm_ctype_name(out->ctype), gm_ctype_name(t));
    bool in_place = op == GM_AX_SOFTMAX && gm_reduce_axis_same_view(x, out);
    if (!in_place && gm_mats_overlap(x, out)) gml_argerror(L, 3, fn, "out shares storage with the input");
    lua_pushvalue(L, a->out_idx);
    return out;
  }
  gm_mat_options o = {.ctype = (int)t, .has_initial_element = 1, .cuda_enabled = x->cuda_enabled,
                      .synchronization = gml_settings_of(L)->default_synchronization};
  gm_mat *m;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &m), fn);
  gml_pushmat(L, m);
  return m;
}

static int whole(lua_State *L, gm_mat *m, int op, int ddof, const char *fn) {
  if (m->size == 0 && gm_ax_is_extreme(op)) gml_argerror(L, 1, fn, "the mat is empty");
  double v;
  if (op == GM_AX_SUM || op == GM_AX_MAX || op == GM_AX_MIN) {
    gm_reduce_op r = op == GM_AX_SUM ? GM_REDUCE_SUM : op == GM_AX_MAX ? GM_REDUCE_MAX : GM_REDUCE_MIN;
    GML_TRY(L, gm_reduce(m, r, &v), fn);
  } else if (op == GM_AX_MEAN) {
    size_t n = m->size;
    if (n == 0) gml_argerror(L, 1, fn, "the mat is empty");
    GML_TRY(L, gm_reduce(m, GM_REDUCE_SUM, &v), fn);
    v /= (double)n;
  } else {
    GML_TRY(L, gm_reduce_whole(m, op, ddof, &v), fn);
  }
  if (gm_ax_is_arg(op))
    lua_pushinteger(L, (lua_Integer)v);
  else
    lua_pushnumber(L, v);
  return 1;
}

static int reduce(lua_State *L, int op) {
  const char *fn = gm_reduce_axis_name(op);
  ax_args a = read_args(L, op, fn);
  gm_mat *x = gml_checkmat(L, 1, fn);
  if (a.axis < 0) return whole(L, x, op, a.ddof, fn);
  if (x->dims[a.axis] == 0 && gm_ax_is_extreme(op)) gml_argerror(L, 2, fn, "axis %d is empty", a.axis + 1);
  gm_mat *y = result_mat(L, x, &a, op, fn);
  GML_TRY(L, gm_reduce_axis(x, a.axis, op, a.ddof, y), fn);
  return 1;
}

static int l_sum(lua_State *L) { return reduce(L, GM_AX_SUM); }
static int l_mean(lua_State *L) { return reduce(L, GM_AX_MEAN); }
static int l_prod(lua_State *L) { return reduce(L, GM_AX_PROD); }
static int l_max(lua_State *L) { return reduce(L, GM_AX_MAX); }
static int l_min(lua_State *L) { return reduce(L, GM_AX_MIN); }
static int l_var(lua_State *L) { return reduce(L, GM_AX_VAR); }
static int l_std(lua_State *L) { return reduce(L, GM_AX_STD); }
static int l_argmax(lua_State *L) { return reduce(L, GM_AX_ARGMAX); }
static int l_argmin(lua_State *L) { return reduce(L, GM_AX_ARGMIN); }
static int l_logsumexp(lua_State *L) { return reduce(L, GM_AX_LOGSUMEXP); }
static int l_softmax(lua_State *L) { return reduce(L, GM_AX_SOFTMAX); }

void gml_open_reduce_axis(lua_State *L, int module_idx) {
  /* (m, axis, opts): three arguments, self first for the methods */
  static const gml_reg fns[] = {
      {"sum", l_sum, 3, NULL},
      {"mean", l_mean, 3, NULL},
      {"prod", l_prod, 3, NULL},
      {"max", l_max, 3, NULL},
      {"min", l_min, 3, NULL},
      {"var", l_var, 3, NULL},
      {"std", l_std, 3, NULL},
      {"argmax", l_argmax, 3, NULL},
      {"argmin", l_argmin, 3, NULL},
      {"logsumexp", l_logsumexp, 3, NULL},
      {"softmax", l_softmax, 3, NULL},
      {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  gml_register(L, -1, fns);
  lua_pop(L, 2);
}
