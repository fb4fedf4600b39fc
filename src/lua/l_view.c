/* Strided views in Lua (core/model/view.h): narrow, select, t, permute, expand,
 * expand_as, view, strides, is_contiguous, contiguous, and the subscript
 * views of m[{...}] and slice assignment m[{...}] = x (l_mat.c hands
 * table subscripts that are not one element here).  The 1-based values
 * as written go to core/ops/view_args.h, which resolves and checks them.
 * Every Lua argument is read before a mat is taken. */
#include <string.h>

#include "../core/exec/stage.h"
#include "../core/ops/view_args.h"
#include "util.h"

/* v, or the error of a failed core call: at argument bad when it names
 * one (core/ops/view_args.h), else "fn: message". */
static int push_result(lua_State *L, gm_status st, gm_mat *v, const char *fn, int bad) {
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  if (st != GM_OK) gml_raise(L, st, fn);
  gml_pushmat(L, v);
  return 1;
}

static lua_Integer check_int(lua_State *L, int idx, const char *fn, const char *what) {
  int isnum;
  lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fn, "%s must be an integer, got %s", what, luaL_typename(L, idx));
  return v;
}

/* gm.narrow(m, axis, first, n) */
static int l_narrow(lua_State *L) {
  const char *fn = "narrow";
  lua_Integer axis = check_int(L, 2, fn, "axis"), first = check_int(L, 3, fn, "first");
  lua_Integer n = check_int(L, 4, fn, "n");
  gm_mat *m = gml_checkmat(L, 1, fn), *v = NULL;
  int bad = 0;
  gm_status st = gm_view_narrow_args(m, axis, first, n, &v, &bad);
  return push_result(L, st, v, fn, bad);
}

/* gm.select(m, axis, i): negative i counts from the end */
static int l_select(lua_State *L) {
  const char *fn = "select";
  lua_Integer axis = check_int(L, 2, fn, "axis"), i = check_int(L, 3, fn, "index");
  gm_mat *m = gml_checkmat(L, 1, fn), *v = NULL;
  int bad = 0;
  gm_status st = gm_view_select_args(m, axis, i, &v, &bad);
  return push_result(L, st, v, fn, bad);
}

/* gm.t(m): the 2-d transpose as a view */
static int l_t(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "t"), *v = NULL;
  int bad = 0;
  gm_status st = gm_view_t_args(m, &v, &bad);
  return push_result(L, st, v, "t", bad);
}

/* gm.permute(m, p1, p2, ...) or gm.permute(m, {p1, ...}); the axes are
 * checked against the rank once the mat is taken */
static int l_permute(lua_State *L) {
  const char *fn = "permute";
  int64_t axes[GM_MAX_RANK];
  int perm[GM_MAX_RANK], n = 0;
  if (lua_istable(L, 2) && !gml_ismat(L, 2)) {
    lua_Integer len = luaL_len(L, 2);
    if (len > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many axes (%lld)", (long long)len);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, 2, i);
      axes[n++] = check_int(L, -1, fn, "axis");
      lua_pop(L, 1);
    }
  } else {
    int top = lua_gettop(L);
    if (top - 1 > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many axes (%d)", top - 1);
    for (int i = 2; i <= top; i++) axes[n++] = check_int(L, i, fn, "axis");
  }
  gm_mat *m = gml_checkmat(L, 1, fn), *v = NULL;
  if (gm_view_permute_args(m->rank, n, axes, perm) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  gm_status st = gm_view_permute(m, n, perm, &v);
  return push_result(L, st, v, fn, 0);
}

/* Dims from a list at idx or integers idx..top into l (core/ops/view_args.h:
 * -1 entries, at most one unless l->many_minus, become SIZE_MAX). */
static void check_dims_forms(lua_State *L, int idx, const char *fn, gm_dims_list *l) {
  int top = lua_gettop(L);
  bool list = lua_istable(L, idx) && !gml_ismat(L, idx);
  if (!list && lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fn, "dimensions must be an integer or a list, got %s", luaL_typename(L, idx));
  if (list && top > idx) gml_argerror(L, idx + 1, fn, "no value expected");
  lua_Integer len = list ? luaL_len(L, idx) : top - idx + 1;
  if (len > GM_MAX_RANK) gml_argerror(L, idx, fn, "rank %lld exceeds %d", (long long)len, GM_MAX_RANK);
  for (lua_Integer i = 1; i <= len; i++) {
    int at = list ? idx : idx + (int)i - 1;
    if (list) lua_geti(L, idx, i);
    else lua_pushvalue(L, at);
    int isnum;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
      gml_argerror(L, at, fn, "dimension %d must be an integer, got %s", (int)i, luaL_typename(L, -1));
    lua_pop(L, 1);
    if (gm_dims_list_add(l, v) != GM_OK) gml_argerror(L, at, fn, "%s", gm_last_error());
  }
}

/* gm.view(m, d1, d2, ...) or gm.view(m, {d1, ...}) */
static int l_view(lua_State *L) {
  gm_dims_list l = {0, -1, false, {0}};
  check_dims_forms(L, 2, "view", &l);
  return gml_reshape_view(L, gml_checkmat(L, 1, "view"), l.rank, l.dims, l.infer, "view");
}

/* gm.reshape's forms for a non-contiguous mat or with -1: what view does
 * (called by l_shaping.c's reshape; dims read by it). */
int gml_reshape_view(lua_State *L, gm_mat *m, int rank, size_t *dims, int infer, const char *fn) {
  if (gm_dims_infer(rank, dims, infer, m->size) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  gm_mat *v = NULL;
  gm_status st = gm_view_dims(m, rank, dims, &v);
  return push_result(L, st, v, fn, 0);
}

int gml_check_reshape_dims(lua_State *L, int idx, const char *fn, size_t *dims, int *infer) {
  gm_dims_list l = {0, -1, false, {0}};
  check_dims_forms(L, idx, fn, &l);
  memcpy(dims, l.dims, sizeof l.dims);
  *infer = l.infer;
  return l.rank;
}

/* gm.expand(m, dims) / m:expand(d1, d2, ...): -1 keeps an axis */
static int l_expand(lua_State *L) {
  const char *fn = "expand";
  gm_dims_list l = {0, -1, true, {0}};
  check_dims_forms(L, 2, fn, &l);
  gm_mat *m = gml_checkmat(L, 1, fn), *v = NULL;
  if (gm_expand_dims_resolve(m, l.rank, l.dims) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  gm_status st = gm_view_expand(m, l.rank, l.dims, &v);
  return push_result(L, st, v, fn, 0);
}

static int l_expand_as(lua_State *L) {
  gm_mat *other = gml_checkmat(L, 2, "expand_as");
  int rank = other->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, other->dims, sizeof dims);
  gm_mat *m = gml_checkmat(L, 1, "expand_as");
  gm_mat *v = NULL;
  gm_status st = gm_view_expand(m, rank, dims, &v);
  return push_result(L, st, v, "expand_as", 0);
}

static int l_strides(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "strides");
  int rank = m->rank;
  int64_t s[GM_MAX_RANK];
  memcpy(s, m->strides, sizeof s); /* the table's allocation may free m */
  lua_createtable(L, rank, 0);
  for (int i = 0; i < rank; i++) {
    lua_pushinteger(L, (lua_Integer)s[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int l_is_contiguous(lua_State *L) {
  lua_pushboolean(L, gm_mat_is_contiguous(gml_checkmat(L, 1, "is_contiguous")));
  return 1;
}

/* m itself when contiguous, else a contiguous copy (made where m's ops run) */
static int l_contiguous(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "contiguous");
  if (m->contiguous) {
    lua_settop(L, 1);
    return 1;
  }
  gm_mat *c = NULL;
  gm_status st = gm_mat_contiguous_copy(m, &c);
  return push_result(L, st, c, "contiguous", 0);
}

/* ---- m[{s1, s2, ...}] ---- */

/* An integer entry j of the {first, last, step} table at idx. */
static int64_t range_entry(lua_State *L, int idx, lua_Integer j, int i, const char *fn) {
  lua_geti(L, idx, j);
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
    gml_argerror(L, 2, fn, "subscript %d: range entries must be integers, got %s", i, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

/* gm.newaxis: a light userdata no other value equals. */
static const char newaxis_tag;

/* One subscript as written (not a mat) into *r. */
static void read_sub(lua_State *L, int idx, int i, gm_sub_arg *r, const char *fn) {
  r->step = 1;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    int isint;
    r->a = lua_tointegerx(L, idx, &isint);
    if (!isint) gml_argerror(L, 2, fn, "subscript %d must be an integer, got a fraction", i + 1);
    r->kind = GM_SUB_SELECT;
    return;
  }
  if (lua_touserdata(L, idx) == &newaxis_tag || (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "...") == 0)) {
    r->kind = lua_type(L, idx) == LUA_TSTRING ? GM_SUB_ELLIPSIS : GM_SUB_NEWAXIS;
    return;
  }
  if (!lua_istable(L, idx))
    gml_argerror(L, 2, fn, "subscript %d must be an integer, a {first, last, step} table, an index mat, a bool mask, gm.newaxis or \"...\", got %s",
                 i + 1, luaL_typename(L, idx));
  lua_Integer len = luaL_len(L, idx);
  if (len > 3)
    gml_argerror(L, 2, fn, "subscript %d: a range is {first, last} or {first, last, step}, got %lld entries", i + 1,
                 (long long)len);
  r->kind = len == 0 ? GM_SUB_ALL : GM_SUB_RANGE;
  if (len >= 1) r->a = r->b = range_entry(L, idx, 1, i + 1, fn);
  if (len >= 2) r->b = range_entry(L, idx, 2, i + 1, fn);
  r->step = len == 3 ? range_entry(L, idx, 3, i + 1, fn) : 1;
}

/* Records the index mat or mask at idx (subscript i) in adv and its
 * placeholders in out from *j. */
static void read_adv(lua_State *L, int idx, int i, gm_sub_arg *out, int *j, gml_adv *adv, const char *fn) {
  gm_mat *im = gml_checkmat(L, idx, fn);
  bool mask = im->ctype == GM_BOOL;
  int k = mask ? im->rank : 1;
  if (k == 0) gml_argerror(L, 2, fn, "subscript %d: a 0-d mask is not supported", i + 1);
  if (*j + k > GM_MAX_SUBS || adv->k + k > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many subscripts");
  adv->mask = adv->mask || mask;
  adv->idx[adv->n++] = idx;
  for (int d = 0; d < k; d++) {
    adv->at[adv->k++] = *j;
    out[(*j)++] = (gm_sub_arg){GM_SUB_ALL, 0, 0, 1};
  }
}

/* Reads the subscripts at first..first+n-1 (their tables may run Lua:
 * before any mat is taken) into out[0..*nraw): index mats and masks
 * become {} placeholders for the axes they consume (adv). */
static void read_subs(lua_State *L, int first, int n, gm_sub_arg *out, int *nraw, gml_adv *adv, const char *fn) {
  int j = 0;
  *adv = (gml_adv){0};
  for (int i = 0; i < n; i++) {
    int idx = first + i;
    if (gml_ismat(L, idx)) {
      read_adv(L, idx, i, out, &j, adv, fn);
      continue;
    }
    if (j >= GM_MAX_SUBS) gml_argerror(L, 2, fn, "too many subscripts");
    read_sub(L, idx, i, &out[j++], fn);
  }
  *nraw = j;
}

/* The view of subscripts raw[0..n-1] on the mat at stack index 1. */
static gm_mat *subs_view(lua_State *L, int n, const gm_sub_arg *raw, const char *fn) {
  gm_mat *m = gml_checkelembox(L, 1, fn)->m; /* a view of any element type */
  gm_view_sub subs[GM_MAX_SUBS];
  int k = 0;
  if (gm_view_subs_resolve(m, n, raw, subs, &k) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  gm_mat *v = NULL;
  if (gm_view_index(m, k, subs, &v) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  return v;
}

static bool is_placeholder(const gml_adv *adv, int i) {
  for (int p = 0; p < adv->k; p++)
    if (adv->at[p] == i) return true;
  return false;
}

/* vaxis[p]: where placeholder p's axis lies in the view of raw on a mat
 * of rank; adv->front: NumPy's rule that the selected axes go first when
 * the integer subscripts and index mats are not all adjacent. */
static void adv_axes(const gm_sub_arg *raw, int n, int rank, gml_adv *adv, int *vaxis) {
  int consumed = 0, lo = adv->at[0], hi = adv->at[adv->k - 1];
  for (int i = 0; i < n; i++) {
    if (raw[i].kind == GM_SUB_SELECT || raw[i].kind == GM_SUB_RANGE || raw[i].kind == GM_SUB_ALL) consumed++;
    if (raw[i].kind == GM_SUB_SELECT) {
      lo = i < lo ? i : lo;
      hi = i > hi ? i : hi;
    }
  }
  for (int p = 0; p < adv->k; p++) {
    vaxis[p] = 0;
    for (int i = 0; i < adv->at[p]; i++) {
      if (raw[i].kind == GM_SUB_RANGE || raw[i].kind == GM_SUB_ALL || raw[i].kind == GM_SUB_NEWAXIS) vaxis[p]++;
      if (raw[i].kind == GM_SUB_ELLIPSIS) vaxis[p] += rank - consumed;
    }
  }
  adv->front = false;
  for (int i = lo; i <= hi; i++)
    if (raw[i].kind != GM_SUB_SELECT && !is_placeholder(adv, i)) adv->front = true;
  adv->axis = vaxis[0];
}

/* Pushes the view of raw with the index axes first when NumPy's rule
 * puts them there (else they are adjacent from adv->axis). */
static void push_adv_view(lua_State *L, int n, const gm_sub_arg *raw, gml_adv *adv, const char *fn) {
  int vaxis[GM_MAX_RANK];
  adv_axes(raw, n, gml_checkmat(L, 1, fn)->rank, adv, vaxis);
  gm_mat *v = subs_view(L, n, raw, fn);
  if (adv->front) {
    int perm[GM_MAX_RANK], r = 0;
    bool taken[GM_MAX_RANK] = {false};
    for (int p = 0; p < adv->k; p++) taken[perm[r++] = vaxis[p]] = true;
    for (int d = 0; d < v->rank; d++)
      if (!taken[d]) perm[r++] = d;
    gm_mat *w = NULL;
    gm_status st = gm_view_permute(v, v->rank, perm, &w);
    gm_mat_free(v);
    if (st != GM_OK) gml_raise(L, st, fn);
    v = w;
    adv->axis = 0;
  }
  gml_pushmat(L, v);
}

/* m[{...}] with subscripts at 3..3+n-1 that are not one element. */
int gml_index_view(lua_State *L, int n) {
  gm_sub_arg raw[GM_MAX_SUBS];
  gml_adv adv;
  int nraw = 0;
  if (n > GM_MAX_SUBS) gml_argerror(L, 2, "index", "too many subscripts (%d)", n);
  read_subs(L, 3, n, raw, &nraw, &adv, "index");
  if (adv.n > 0) {
    push_adv_view(L, nraw, raw, &adv, "index");
    return gml_adv_apply(L, lua_gettop(L), &adv, 0, "index");
  }
  gml_pushmat(L, subs_view(L, nraw, raw, "index"));
  return 1;
}

/* A number that gm_fill_'s double carries exactly into ctype t (Lua
 * integers beyond 2^53 into 64-bit integer mats do not). */
static bool plain_number(lua_State *L, int idx, gm_ctype t) {
  if (lua_type(L, idx) != LUA_TNUMBER) return false;
  if (gm_ctype_is_float(t) || !lua_isinteger(L, idx)) return true;
  lua_Integer i = lua_tointeger(L, idx);
  return i >= -((lua_Integer)1 << 53) && i <= ((lua_Integer)1 << 53);
}

/* m[{...}] = value (a boolean, a gm.complex, a big integer) on a view:
 * gml_check_elem's rules, as one element is written, filled exactly. */
static int assign_value(lua_State *L, int nraw, gm_sub_arg *raw) {
  const char *fn = "set";
  gm_mat *v = subs_view(L, nraw, raw, fn);
  gml_pushmat(L, v); /* owned by Lua: the checks below may raise */
  gm_value val = gml_check_elem(L, 3, v->ctype, fn);
  GML_TRY(L, gm_check_writable(NULL, v), fn);
  if (v->size > 0) gml_fill_value(L, v, val, fn);
  return 0;
}

/* m[{...}] = x with subscripts at 4..4+n-1 (the value at 3) that are not
 * one element: x a number (filled), a mat, or a value assign_value takes. */
int gml_assign_view(lua_State *L, int n) {
  const char *fn = "set";
  gm_sub_arg raw[GM_MAX_SUBS];
  gml_adv adv;
  int nraw = 0;
  if (n > GM_MAX_SUBS) gml_argerror(L, 2, fn, "too many subscripts (%d)", n);
  read_subs(L, 4, n, raw, &nraw, &adv, fn);
  if (adv.n > 0) {
    push_adv_view(L, nraw, raw, &adv, fn);
    gml_adv_apply(L, lua_gettop(L), &adv, 3, fn);
    return 0;
  }
  if (!gml_ismat(L, 3) && !plain_number(L, 3, gml_checkmat(L, 1, fn)->ctype)) return assign_value(L, nraw, raw);
  bool number = lua_type(L, 3) == LUA_TNUMBER;
  double value = number ? lua_tonumber(L, 3) : 0;
  gm_mat *x = number ? NULL : gml_checkmat(L, 3, fn);
  gm_mat *v = subs_view(L, nraw, raw, fn); /* nothing below runs Lua until v is freed */
  gm_status st = gm_view_assign(v, x, value);
  gm_mat_free(v);
  if (st != GM_OK) gml_raise(L, st, fn);
  return 0;
}

void gml_open_view(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"narrow", l_narrow, 4, NULL},
      {"select", l_select, 3, NULL},
      {"t", l_t, 1, NULL},
      {"permute", l_permute, GML_VARARGS, NULL},
      {"view", l_view, GML_VARARGS, NULL},
      {"expand", l_expand, GML_VARARGS, NULL},
      {"expand_as", l_expand_as, 2, NULL},
      {"strides", l_strides, 1, NULL},
      {"is_contiguous", l_is_contiguous, 1, NULL},
      {"contiguous", l_contiguous, 1, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
  lua_pushlightuserdata(L, (void *)&newaxis_tag);
  lua_setfield(L, module_idx, "newaxis");
}
