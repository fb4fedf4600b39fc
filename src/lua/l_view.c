/* Strided views in Lua (core/view.h): narrow, select, t, permute, expand,
 * expand_as, view, strides, is_contiguous, contiguous, and the subscript
 * views of m[{...}] and slice assignment m[{...}] = x (l_mat.c hands
 * table subscripts that are not one element here).  1-based in, 0-based
 * to the core.  Every Lua argument is read before a mat is taken. */
#include <string.h>

#include "../core/blas.h"
#include "../core/elementwise.h"
#include "../core/stage.h"
#include "../core/view.h"
#include "util.h"

static int push_result(lua_State *L, gm_status st, gm_mat *v, const char *fn) {
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
  gm_mat *m = gml_checkmat(L, 1, fn);
  char dt[160];
  gm_dims_text(m->rank, m->dims, dt, sizeof dt);
  if (axis < 1 || axis > m->rank)
    gml_argerror(L, 2, fn, "axis %lld is out of range 1..%d of a %s mat", (long long)axis, m->rank, dt);
  size_t d = m->dims[axis - 1];
  if (first < 1 || (size_t)first > d + 1)
    gml_argerror(L, 3, fn, "first %lld is out of range 1..%zu on axis %lld of a %s mat", (long long)first, d,
                 (long long)axis, dt);
  if (n < 0 || (size_t)n > d - (size_t)(first - 1))
    gml_argerror(L, 4, fn, "n %lld is out of range 0..%zu (from %lld on axis %lld of a %s mat)", (long long)n,
                 d - (size_t)(first - 1), (long long)first, (long long)axis, dt);
  gm_mat *v = NULL;
  gm_status st = gm_view_narrow(m, (int)axis - 1, (size_t)(first - 1), (size_t)n, &v);
  return push_result(L, st, v, fn);
}

/* gm.select(m, axis, i): negative i counts from the end */
static int l_select(lua_State *L) {
  const char *fn = "select";
  lua_Integer axis = check_int(L, 2, fn, "axis"), i = check_int(L, 3, fn, "index");
  gm_mat *m = gml_checkmat(L, 1, fn);
  char dt[160];
  gm_dims_text(m->rank, m->dims, dt, sizeof dt);
  if (axis < 1 || axis > m->rank)
    gml_argerror(L, 2, fn, "axis %lld is out of range 1..%d of a %s mat", (long long)axis, m->rank, dt);
  lua_Integer d = (lua_Integer)m->dims[axis - 1];
  lua_Integer j = i < 0 ? d + i + 1 : i;
  if (j < 1 || j > d)
    gml_argerror(L, 3, fn, "index %lld is out of range 1..%lld on axis %lld of a %s mat", (long long)i, (long long)d,
                 (long long)axis, dt);
  gm_mat *v = NULL;
  gm_status st = gm_view_select(m, (int)axis - 1, (size_t)(j - 1), &v);
  return push_result(L, st, v, fn);
}

/* gm.t(m): the 2-d transpose as a view */
static int l_t(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "t");
  if (m->rank != 2) gml_argerror(L, 1, "t", "mat must be 2-dimensional, got rank %d", m->rank);
  int perm[2] = {1, 0};
  gm_mat *v = NULL;
  gm_status st = gm_view_permute(m, 2, perm, &v);
  return push_result(L, st, v, "t");
}

/* gm.permute(m, p1, p2, ...) or gm.permute(m, {p1, ...}) */
/* A permutation entry as a 0-based axis; -1 for any value that cannot be
 * one (checked against the rank once the mat is taken). */
static int perm_axis(lua_State *L, int idx, const char *fn) {
  lua_Integer a = check_int(L, idx, fn, "axis");
  return a < 1 || a > GM_MAX_RANK ? -1 : (int)(a - 1);
}

static int l_permute(lua_State *L) {
  const char *fn = "permute";
  int perm[GM_MAX_RANK], n = 0;
  if (lua_istable(L, 2) && !gml_ismat(L, 2)) {
    lua_Integer len = luaL_len(L, 2);
    if (len > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many axes (%lld)", (long long)len);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, 2, i);
      perm[n++] = perm_axis(L, -1, fn);
      lua_pop(L, 1);
    }
  } else {
    int top = lua_gettop(L);
    if (top - 1 > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many axes (%d)", top - 1);
    for (int i = 2; i <= top; i++) perm[n++] = perm_axis(L, i, fn);
  }
  gm_mat *m = gml_checkmat(L, 1, fn);
  if (n != m->rank) gml_argerror(L, 2, fn, "expected %d axes (a permutation of 1..%d), got %d", m->rank, m->rank, n);
  bool seen[GM_MAX_RANK] = {false};
  for (int i = 0; i < n; i++) {
    if (perm[i] < 0)
      gml_argerror(L, 2, fn, "the axis at position %d is out of range: axes must be a permutation of 1..%d", i + 1,
                   m->rank);
    if (perm[i] >= m->rank || seen[perm[i]])
      gml_argerror(L, 2, fn, "axis %d at position %d: axes must be a permutation of 1..%d", perm[i] + 1, i + 1, m->rank);
    seen[perm[i]] = true;
  }
  gm_mat *v = NULL;
  gm_status st = gm_view_permute(m, n, perm, &v);
  return push_result(L, st, v, fn);
}

/* Dims from a list at idx or integers idx..top; -1 entries (at most one
 * when infer != NULL, any number for expand) are returned as SIZE_MAX;
 * *infer is the axis of the -1 (or -1). */
static int check_dims_forms(lua_State *L, int idx, const char *fn, size_t *dims, int *infer, bool many_minus) {
  int n = 0, top = lua_gettop(L);
  bool list = lua_istable(L, idx) && !gml_ismat(L, idx);
  if (!list && lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fn, "dimensions must be an integer or a list, got %s", luaL_typename(L, idx));
  if (list && top > idx) gml_argerror(L, idx + 1, fn, "no value expected");
  lua_Integer len = list ? luaL_len(L, idx) : top - idx + 1;
  if (len > GM_MAX_RANK) gml_argerror(L, idx, fn, "rank %lld exceeds %d", (long long)len, GM_MAX_RANK);
  if (infer) *infer = -1;
  for (lua_Integer i = 1; i <= len; i++) {
    int at = list ? idx : idx + (int)i - 1;
    if (list) lua_geti(L, idx, i);
    else lua_pushvalue(L, at);
    int isnum;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
      gml_argerror(L, at, fn, "dimension %d must be an integer, got %s", (int)i, luaL_typename(L, -1));
    lua_pop(L, 1);
    if (v == -1 && (many_minus || (infer && *infer < 0))) {
      if (infer) *infer = n;
      dims[n++] = SIZE_MAX;
      continue;
    }
    if (v == -1 && infer) gml_argerror(L, at, fn, "only one dimension can be -1");
    if (v < 0) gml_argerror(L, at, fn, "dimension %d must be non-negative, got %lld", (int)i, (long long)v);
    dims[n++] = (size_t)v;
  }
  return n;
}

/* Replaces the -1 at axis infer by what makes size elements. */
static void infer_dim(lua_State *L, int arg, const char *fn, int rank, size_t *dims, int infer, size_t size) {
  if (infer < 0) return;
  size_t p = 1;
  for (int i = 0; i < rank; i++)
    if (i != infer) p = dims[i] && p > SIZE_MAX / dims[i] ? SIZE_MAX : p * dims[i];
  if (p == 0 || size % p != 0)
    gml_argerror(L, arg, fn, "cannot infer dimension %d: %zu elements do not divide into %zu", infer + 1, size, p);
  dims[infer] = size / p;
}

/* gm.view(m, d1, d2, ...) or gm.view(m, {d1, ...}) */
static int l_view(lua_State *L) {
  const char *fn = "view";
  size_t dims[GM_MAX_RANK];
  int infer, rank = check_dims_forms(L, 2, fn, dims, &infer, false);
  gm_mat *m = gml_checkmat(L, 1, fn);
  infer_dim(L, 2, fn, rank, dims, infer, m->size);
  gm_mat *v = NULL;
  gm_status st = gm_view_dims(m, rank, dims, &v);
  return push_result(L, st, v, fn);
}

/* gm.reshape's forms for a non-contiguous mat or with -1: what view does
 * (called by l_shape.c's reshape; dims read by it). */
int gml_reshape_view(lua_State *L, gm_mat *m, int rank, size_t *dims, int infer, const char *fn) {
  infer_dim(L, 2, fn, rank, dims, infer, m->size);
  gm_mat *v = NULL;
  gm_status st = gm_view_dims(m, rank, dims, &v);
  return push_result(L, st, v, fn);
}

int gml_check_reshape_dims(lua_State *L, int idx, const char *fn, size_t *dims, int *infer) {
  return check_dims_forms(L, idx, fn, dims, infer, false);
}

/* gm.expand(m, dims) / m:expand(d1, d2, ...): -1 keeps an axis */
static int l_expand(lua_State *L) {
  const char *fn = "expand";
  size_t dims[GM_MAX_RANK];
  int rank = check_dims_forms(L, 2, fn, dims, NULL, true);
  gm_mat *m = gml_checkmat(L, 1, fn);
  for (int i = 0; i < rank; i++) {
    int a = i - (rank - m->rank);
    if (dims[i] == SIZE_MAX) {
      if (a < 0) gml_argerror(L, 2, fn, "dimension %d is -1 but the mat has no axis there", i + 1);
      dims[i] = m->dims[a];
    }
  }
  gm_mat *v = NULL;
  gm_status st = gm_view_expand(m, rank, dims, &v);
  return push_result(L, st, v, fn);
}

static int l_expand_as(lua_State *L) {
  gm_mat *other = gml_checkmat(L, 2, "expand_as");
  int rank = other->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, other->dims, sizeof dims);
  gm_mat *m = gml_checkmat(L, 1, "expand_as");
  gm_mat *v = NULL;
  gm_status st = gm_view_expand(m, rank, dims, &v);
  return push_result(L, st, v, "expand_as");
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
  return push_result(L, st, c, "contiguous");
}

/* ---- m[{s1, s2, ...}] ---- */

typedef enum { SUB_SELECT, SUB_RANGE, SUB_ALL } sub_kind;
typedef struct sub_raw {
  sub_kind kind;
  lua_Integer a, b, step;
} sub_raw;

/* An integer entry j of the {first, last, step} table at idx. */
static lua_Integer range_entry(lua_State *L, int idx, lua_Integer j, int i, const char *fn) {
  lua_geti(L, idx, j);
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
    gml_argerror(L, 2, fn, "subscript %d: range entries must be integers, got %s", i, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

/* Reads the subscripts at first..first+n-1 (their tables may run Lua:
 * before any mat is taken). */
static void read_subs(lua_State *L, int first, int n, sub_raw *out, const char *fn) {
  for (int i = 0; i < n; i++) {
    int idx = first + i;
    sub_raw *r = &out[i];
    if (lua_type(L, idx) == LUA_TNUMBER) {
      int isint;
      r->a = lua_tointegerx(L, idx, &isint);
      if (!isint) gml_argerror(L, 2, fn, "subscript %d must be an integer, got a fraction", i + 1);
      r->kind = SUB_SELECT;
      continue;
    }
    if (!lua_istable(L, idx) || gml_ismat(L, idx))
      gml_argerror(L, 2, fn, "subscript %d must be an integer or a {first, last, step} table, got %s", i + 1,
                   luaL_typename(L, idx));
    lua_Integer len = luaL_len(L, idx);
    if (len > 3)
      gml_argerror(L, 2, fn, "subscript %d: a range is {first, last} or {first, last, step}, got %lld entries", i + 1,
                   (long long)len);
    r->kind = len == 0 ? SUB_ALL : SUB_RANGE;
    if (len >= 1) r->a = r->b = range_entry(L, idx, 1, i + 1, fn);
    if (len >= 2) r->b = range_entry(L, idx, 2, i + 1, fn);
    r->step = len == 3 ? range_entry(L, idx, 3, i + 1, fn) : 1;
  }
}

/* 1-based position of i on an axis of d elements (negative: from the end). */
static lua_Integer from_end(lua_Integer i, size_t d) { return i < 0 ? (lua_Integer)d + i + 1 : i; }

static gm_view_sub resolve_sub(lua_State *L, const sub_raw *r, size_t d, int axis, const char *dt, const char *fn) {
  if (r->kind == SUB_ALL) return (gm_view_sub){false, 0, d, 1};
  lua_Integer a = from_end(r->a, d);
  if (r->kind == SUB_SELECT) {
    if (a < 1 || (size_t)a > d)
      gml_argerror(L, 2, fn, "subscript %lld is out of range 1..%zu on axis %d of a %s mat", (long long)r->a, d, axis + 1,
                   dt);
    return (gm_view_sub){true, (size_t)(a - 1), 1, 1};
  }
  lua_Integer b = from_end(r->b, d);
  if (r->step < 1) gml_argerror(L, 2, fn, "step must be at least 1, got %lld (axis %d)", (long long)r->step, axis + 1);
  if (b == a - 1 && a >= 1 && (size_t)a <= d + 1) return (gm_view_sub){false, (size_t)(a - 1), 0, (size_t)r->step};
  if (a < 1 || b < a || (size_t)b > d)
    gml_argerror(L, 2, fn, "range %lld..%lld is out of range 1..%zu on axis %d of a %s mat", (long long)r->a,
                 (long long)r->b, d, axis + 1, dt);
  return (gm_view_sub){false, (size_t)(a - 1), (size_t)((b - a) / r->step + 1), (size_t)r->step};
}

/* The view of subscripts raw[0..n-1] on the mat at stack index 1. */
static gm_mat *subs_view(lua_State *L, int n, const sub_raw *raw, const char *fn) {
  gm_mat *m = gml_checkmat(L, 1, fn);
  char dt[160];
  gm_dims_text(m->rank, m->dims, dt, sizeof dt);
  if (n > m->rank) gml_argerror(L, 2, fn, "too many subscripts (%d) for a %s mat", n, dt);
  gm_view_sub subs[GM_MAX_RANK];
  for (int i = 0; i < n; i++) subs[i] = resolve_sub(L, &raw[i], m->dims[i], i, dt, fn);
  gm_mat *v = NULL;
  GML_TRY(L, gm_view_index(m, n, subs, &v), fn);
  return v;
}

/* m[{...}] with subscripts at 3..3+n-1 that are not one element. */
int gml_index_view(lua_State *L, int n) {
  sub_raw raw[GM_MAX_RANK];
  if (n > GM_MAX_RANK) gml_argerror(L, 2, "index", "too many subscripts (%d)", n);
  read_subs(L, 3, n, raw, "index");
  gml_pushmat(L, subs_view(L, n, raw, "index"));
  return 1;
}

/* x stretched to v's dims (same dims, size-1 axes, missing leading axes;
 * leading size-1 axes of x dropped) as a new view in *out. */
static gm_status stretch_to(gm_mat *x, const gm_mat *v, gm_mat **out) {
  int lead = x->rank - v->rank;
  for (int i = 0; i < lead; i++)
    if (x->dims[i] != 1) lead = -1;
  gm_mat *xv = NULL;
  gm_status st = lead < 0 ? GM_EINVAL : GM_OK;
  if (st == GM_OK && lead > 0) st = gm_view_dims(x, v->rank, x->dims + lead, &xv);
  if (st == GM_OK) st = gm_view_expand(xv ? xv : x, v->rank, v->dims, out);
  gm_mat_free(xv);
  if (st == GM_OK) return GM_OK;
  char a[160], b[160];
  gm_dims_text(x->rank, x->dims, a, sizeof a);
  gm_dims_text(v->rank, v->dims, b, sizeof b);
  return gm_fail(GM_EINVAL, "cannot broadcast a %s mat into a %s view", a, b);
}

/* x (a mat) written into v, copied first when it shares v's storage. */
static gm_status assign_mat(gm_mat *v, gm_mat *x) {
  if (x->ctype != v->ctype)
    return gm_fail(GM_EINVAL, "mixed ctypes %s (value) and %s (mat)", gm_ctype_name(x->ctype), gm_ctype_name(v->ctype));
  gm_mat *xs = NULL, *copy = NULL;
  gm_status st = stretch_to(x, v, &xs);
  if (st == GM_OK && xs->vec == v->vec) st = gm_mat_contiguous_copy(xs, &copy);
  if (st == GM_OK) st = gm_copy_(copy ? copy : xs, v, v->size, 1, 1);
  gm_mat_free(copy);
  gm_mat_free(xs);
  return st;
}

/* m[{...}] = x with subscripts at 4..4+n-1 (the value at 3) that are not
 * one element: x a number (filled) or a mat. */
int gml_assign_view(lua_State *L, int n) {
  const char *fn = "set";
  sub_raw raw[GM_MAX_RANK];
  if (n > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many subscripts (%d)", n);
  read_subs(L, 4, n, raw, fn);
  bool number = lua_type(L, 3) == LUA_TNUMBER;
  if (!number && !gml_ismat(L, 3)) gml_argerror(L, 3, fn, "number or mat expected, got %s", luaL_typename(L, 3));
  gm_mat *x = number ? NULL : gml_checkmat(L, 3, fn);
  gm_mat *v = subs_view(L, n, raw, fn); /* nothing below runs Lua until v is freed */
  gm_status st = gm_check_writable(NULL, v);
  if (st == GM_OK && v->size > 0) st = number ? gm_fill_(lua_tonumber(L, 3), v, v->size) : assign_mat(v, x);
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
}
