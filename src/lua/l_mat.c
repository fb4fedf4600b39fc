/* Mats in Lua: construction, lifetime, readers, element access and the
 * metatable sugar.  Printing, shaping and facets live in their own files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

gm_sync gml_check_sync(lua_State *L, int idx, const char *fname);

/* opts.synchronization (options are argument 2 of mat and array_to_mat) */
static gm_sync opt_sync(lua_State *L, const char *fn) {
  if (!gml_opt_push(L, 2, "synchronization")) return gml_setting.default_synchronization;
  if (lua_isboolean(L, -1) || (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "maybe") == 0)) {
    gm_sync s = gml_check_sync(L, -1, fn);
    lua_pop(L, 1);
    return s;
  }
  gml_argerror(L, 2, fn, "option 'synchronization' must be true, false or \"maybe\"");
  return GM_SYNC_MAYBE;
}

/* ---- nested contents ---- */

typedef struct flat {
  double *v;
  size_t n, cap;
} flat;

static void flat_push(lua_State *L, flat *f, double x) {
  if (f->n == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 64;
    double *v = realloc(f->v, cap * sizeof *v);
    if (!v) {
      free(f->v);
      f->v = NULL;
      luaL_error(L, "out of host memory");
    }
    f->v = v;
    f->cap = cap;
  }
  f->v[f->n++] = x;
}

/* Flattens nested tables (leaves: numbers or mats) in row-major order.
 * The buffer lives in a userdata-free malloc; callers free f->v (errors
 * raised from here free it first). */
static void flatten(lua_State *L, int idx, flat *f, const char *fname, int arg, int depth) {
  idx = lua_absindex(L, idx);
  if (depth > 64) {
    free(f->v);
    gml_argerror(L, arg, fname, "contents nested too deeply");
  }
  if (lua_type(L, idx) == LUA_TNUMBER) {
    flat_push(L, f, lua_tonumber(L, idx));
  } else if (gml_ismat(L, idx)) {
    gml_mat *box = lua_touserdata(L, idx);
    if (!box->m) {
      free(f->v);
      gml_argerror(L, arg, fname, "contents: attempt to use a freed mat");
    }
    gm_mat *m = box->m;
    double *tmp = malloc((m->size ? m->size : 1) * sizeof *tmp);
    gm_status st = tmp ? gm_mat_read_doubles(m, tmp) : gm_fail(GM_ENOMEM, "out of host memory");
    if (st != GM_OK) {
      free(tmp);
      free(f->v);
      gml_raise(L, st, fname);
    }
    for (size_t i = 0; i < m->size; i++) flat_push(L, f, tmp[i]);
    free(tmp);
  } else if (lua_istable(L, idx)) {
    lua_Integer n = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, idx, i);
      flatten(L, -1, f, fname, arg, depth + 1);
      lua_pop(L, 1);
    }
  } else {
    free(f->v);
    gml_argerror(L, arg, fname, "contents must be numbers, mats or nested tables, got %s",
                 luaL_typename(L, idx));
  }
}

/* Writes nested contents at stack index idx into m (checks the element
 * count first); errors name argument arg. */
static void replace_from(lua_State *L, gm_mat *m, int idx, int arg, const char *fname) {
  flat f = {0};
  flatten(L, idx, &f, fname, arg, 0);
  if (f.n != m->size) {
    free(f.v);
    gml_argerror(L, arg, fname, "contents have %d elements, mat has %d", (int)f.n, (int)m->size);
  }
  gm_status st = gm_mat_write_doubles(m, f.v);
  free(f.v);
  GML_TRY(L, st, fname);
}

/* ---- construction ---- */

static const char *const mat_options[] = {"ctype", "displacement", "max_size", "initial_element",
                                          "initial_contents", "displaced_to", "cuda_enabled",
                                          "synchronization", NULL};

static gm_mat *new_displaced(lua_State *L, int rank, const size_t *dims, const char *fn) {
  gml_mat *box = luaL_testudata(L, -1, GML_MAT_MT);
  if (!box) gml_argerror(L, 2, fn, "option 'displaced_to' must be a mat, got %s", luaL_typename(L, -1));
  if (!box->m) gml_argerror(L, 2, fn, "option 'displaced_to': attempt to use a freed mat");
  gm_mat *base = box->m;
  if (gml_opt_push(L, 2, "initial_element") || gml_opt_push(L, 2, "initial_contents"))
    gml_argerror(L, 2, fn, "initial_element and initial_contents cannot go with displaced_to");
  if (gml_opt_push(L, 2, "ctype") || gml_opt_push(L, 2, "max_size"))
    gml_argerror(L, 2, fn, "ctype and max_size cannot go with displaced_to");
  lua_Integer rel = gml_opt_integer(L, 2, "displacement", 0, fn);
  lua_Integer abs_d = (lua_Integer)base->displacement + rel;
  size_t size;
  if (gm_dims_size(rank, dims, &size) != GM_OK) gml_argerror(L, 1, fn, "dimensions are too large");
  if (abs_d < 0)
    gml_argerror(L, 2, fn, "displacement %d makes the absolute displacement negative (%d)", (int)rel, (int)abs_d);
  if ((size_t)abs_d + size > base->vec->max_size)
    gml_argerror(L, 2, fn, "displaced mat (displacement %d + size %d) does not fit the storage of %d elements",
                 (int)abs_d, (int)size, (int)base->vec->max_size);
  gm_mat *m;
  GML_TRY(L, gm_mat_view(base, rank, dims, (size_t)abs_d, &m), fn);
  m->cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", base->cuda_enabled, fn);
  return m;
}

/* gm.mat(dims, opts) */
static int l_mat(lua_State *L) {
  const char *fn = "mat";
  size_t dims[GM_MAX_RANK];
  int rank = gml_check_dims(L, 1, fn, dims);
  gml_check_options(L, 2, fn, mat_options);
  if (gml_opt_push(L, 2, "displaced_to")) {
    gm_mat *m = new_displaced(L, rank, dims, fn);
    gml_pushmat(L, m);
    return 1;
  }
  gm_mat_options o = {0};
  o.ctype = (int)gml_opt_ctype(L, 2, "ctype", fn);
  o.displacement = gml_opt_size(L, 2, "displacement", 0, fn);
  o.max_size = gml_opt_size(L, 2, "max_size", 0, fn);
  o.has_initial_element = 1;
  o.initial_element = 0;
  if (gml_opt_push(L, 2, "initial_element")) {
    if (lua_type(L, -1) == LUA_TNUMBER)
      o.initial_element = lua_tonumber(L, -1);
    else if (lua_isboolean(L, -1) && !lua_toboolean(L, -1))
      o.has_initial_element = 0;
    else
      gml_argerror(L, 2, fn, "option 'initial_element' must be a number or false, got %s", luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  o.cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", gml_setting.default_mat_cuda_enabled, fn);
  o.synchronization = opt_sync(L, fn);
  size_t size;
  if (gm_dims_size(rank, dims, &size) != GM_OK) gml_argerror(L, 1, fn, "dimensions are too large");
  if (o.max_size && o.max_size < o.displacement + size)
    gml_argerror(L, 2, fn, "max_size %d is smaller than displacement %d + size %d", (int)o.max_size,
                 (int)o.displacement, (int)size);
  bool has_contents = gml_opt_push(L, 2, "initial_contents");
  if (has_contents) lua_pop(L, 1);
  gm_mat *m;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &m), fn);
  gml_pushmat(L, m);
  if (has_contents) {
    lua_getfield(L, 2, "initial_contents");
    replace_from(L, m, lua_gettop(L), 2, fn);
    lua_pop(L, 1);
  }
  return 1;
}

/* Shape of nested tables: descends first elements. */
static int nested_dims(lua_State *L, int idx, size_t dims[GM_MAX_RANK], const char *fn) {
  int rank = 0;
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1) && !gml_ismat(L, -1)) {
    if (rank == GM_MAX_RANK) gml_argerror(L, 1, fn, "nesting exceeds rank %d", GM_MAX_RANK);
    dims[rank++] = (size_t)luaL_len(L, -1);
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_pop(L, 1);
  return rank;
}

/* gm.array_to_mat(t, {ctype, synchronization}) */
static int l_array_to_mat(lua_State *L) {
  const char *fn = "array_to_mat";
  static const char *const opts[] = {"ctype", "synchronization", NULL};
  if (!lua_istable(L, 1) || gml_ismat(L, 1)) gml_argerror(L, 1, fn, "table expected, got %s", luaL_typename(L, 1));
  gml_check_options(L, 2, fn, opts);
  size_t dims[GM_MAX_RANK];
  int rank = nested_dims(L, 1, dims, fn);
  gm_mat_options o = {0};
  o.ctype = (int)gml_opt_ctype(L, 2, "ctype", fn);
  o.cuda_enabled = gml_setting.default_mat_cuda_enabled;
  o.synchronization = opt_sync(L, fn);
  gm_mat *m;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &m), fn);
  gml_pushmat(L, m);
  replace_from(L, m, 1, 1, fn);
  return 1;
}

/* gm.replace_(m, nested) */
static int l_replace_(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "replace_");
  replace_from(L, m, 2, 2, "replace_");
  lua_settop(L, 1);
  return 1;
}

static void push_nested(lua_State *L, const gm_mat *m, const double *v, int axis, size_t *pos) {
  if (m->rank == 0) {
    lua_pushnumber(L, v[0]);
    return;
  }
  size_t n = m->dims[axis];
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    if (axis == m->rank - 1)
      lua_pushnumber(L, v[(*pos)++]);
    else
      push_nested(L, m, v, axis + 1, pos);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* gm.mat_to_array(m) / m:to_table(): nested tables of the visible part */
static int l_mat_to_array(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "mat_to_array");
  double *v = malloc((m->size ? m->size : 1) * sizeof *v);
  if (!v) return luaL_error(L, "mat_to_array: out of host memory");
  gm_status st = gm_mat_read_doubles(m, v);
  if (st != GM_OK) {
    free(v);
    return gml_raise(L, st, "mat_to_array");
  }
  size_t pos = 0;
  lua_checkstack(L, m->rank + 8);
  push_nested(L, m, v, 0, &pos);
  free(v);
  return 1;
}

/* ---- lifetime ---- */

static int l_free(lua_State *L) {
  gml_mat *box = luaL_checkudata(L, 1, GML_MAT_MT);
  gm_mat *m = box->m;
  box->m = NULL;
  gm_mat_free(m);
  return 0;
}

static int l_is_freed(lua_State *L) {
  gml_mat *box = luaL_checkudata(L, 1, GML_MAT_MT);
  lua_pushboolean(L, box->m == NULL);
  return 1;
}

/* ---- readers ---- */

static int l_ctype(lua_State *L) {
  lua_pushstring(L, gm_ctype_name(gml_checkmat(L, 1, "ctype")->ctype));
  return 1;
}
static int l_displacement(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gml_checkmat(L, 1, "displacement")->displacement);
  return 1;
}
static int l_dims(lua_State *L) {
  gml_push_dims(L, gml_checkmat(L, 1, "dims"));
  return 1;
}
static int l_dim(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "dim");
  int axis = gml_check_axis(L, 2, "dim", m->rank);
  lua_pushinteger(L, (lua_Integer)m->dims[axis]);
  return 1;
}
static int l_size(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gml_checkmat(L, 1, "size")->size);
  return 1;
}
static int l_max_size(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gml_checkmat(L, 1, "max_size")->vec->max_size);
  return 1;
}
static int l_initial_element(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "initial_element");
  if (m->vec->has_initial_element)
    lua_pushnumber(L, m->vec->initial_element);
  else
    lua_pushboolean(L, 0);
  return 1;
}
static int l_cuda_enabled(lua_State *L) {
  lua_pushboolean(L, gml_checkmat(L, 1, "cuda_enabled")->cuda_enabled);
  return 1;
}
static int l_set_cuda_enabled(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "set_cuda_enabled");
  luaL_argexpected(L, lua_isboolean(L, 2), 2, "boolean");
  m->cuda_enabled = lua_toboolean(L, 2);
  lua_settop(L, 1);
  return 1;
}

/* ---- element access ---- */

/* Reads 1-based subscripts from stack slots first..first+n-1 into a
 * 0-based row-major index.  Errors name argument first+i, or `arg` when
 * non-zero (m[{i, j}] sugar: the subscripts come from the key, arg 2). */
static void check_subscripts_arg(lua_State *L, gm_mat *m, int first, int n, const char *fn, size_t *k, int arg) {
  if (n != m->rank) gml_argerror(L, arg ? arg : first, fn, "expected %d subscripts, got %d", m->rank, n);
  size_t idx = 0;
  for (int i = 0; i < n; i++) {
    int isnum, a = arg ? arg : first + i;
    lua_Integer s = lua_tointegerx(L, first + i, &isnum);
    if (!isnum) gml_argerror(L, a, fn, "subscript must be an integer, got %s", luaL_typename(L, first + i));
    if (s < 1 || (size_t)s > m->dims[i])
      gml_argerror(L, a, fn, "subscript %d is out of range 1..%d on axis %d", (int)s, (int)m->dims[i], i + 1);
    idx = idx * m->dims[i] + (size_t)(s - 1);
  }
  *k = idx;
}

static void check_subscripts(lua_State *L, gm_mat *m, int first, int n, const char *fn, size_t *k) {
  check_subscripts_arg(L, m, first, n, fn, k, 0);
}

static size_t check_row_major(lua_State *L, gm_mat *m, int arg, const char *fn) {
  int isnum;
  lua_Integer k = lua_tointegerx(L, arg, &isnum);
  if (!isnum) gml_argerror(L, arg, fn, "index must be an integer, got %s", luaL_typename(L, arg));
  if (k < 1 || (size_t)k > m->size) gml_argerror(L, arg, fn, "index %d is out of range 1..%d", (int)k, (int)m->size);
  return (size_t)(k - 1);
}

static double check_value(lua_State *L, int arg, const char *fn) {
  if (lua_type(L, arg) != LUA_TNUMBER) gml_argerror(L, arg, fn, "number expected, got %s", luaL_typename(L, arg));
  return lua_tonumber(L, arg);
}

static int push_element(lua_State *L, gm_mat *m, size_t k, const char *fn) {
  double v;
  GML_TRY(L, gm_mat_get(m, k, &v), fn);
  lua_pushnumber(L, v);
  return 1;
}

static int l_mref(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "mref");
  size_t k;
  check_subscripts(L, m, 2, lua_gettop(L) - 1, "mref", &k);
  return push_element(L, m, k, "mref");
}

static int l_set(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "set");
  int top = lua_gettop(L);
  if (top < 2) gml_argerror(L, 2, "set", "value expected");
  double v = check_value(L, top, "set");
  size_t k;
  check_subscripts(L, m, 2, top - 2, "set", &k);
  GML_TRY(L, gm_mat_put(m, k, v), "set");
  lua_settop(L, 1);
  return 1;
}

static int l_row_major_mref(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "row_major_mref");
  return push_element(L, m, check_row_major(L, m, 2, "row_major_mref"), "row_major_mref");
}

static int l_set_row_major(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "set_row_major");
  size_t k = check_row_major(L, m, 2, "set_row_major");
  double v = check_value(L, 3, "set_row_major");
  GML_TRY(L, gm_mat_put(m, k, v), "set_row_major");
  lua_settop(L, 1);
  return 1;
}

static int l_row_major_index(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "row_major_index");
  size_t k;
  check_subscripts(L, m, 2, lua_gettop(L) - 1, "row_major_index", &k);
  lua_pushinteger(L, (lua_Integer)k + 1);
  return 1;
}

static int l_coerce_to_ctype(lua_State *L) {
  double x = check_value(L, 1, "coerce_to_ctype");
  gm_ctype t = lua_isnoneornil(L, 2) ? gml_setting.default_ctype : gml_check_ctype(L, 2, "coerce_to_ctype");
  lua_pushnumber(L, gm_ctype_coerce(t, x));
  return 1;
}

/* ---- metatable sugar: m[k], m[{i, j}], methods ---- */

/* Pushes the subscripts of table at idx; returns their count. */
static int push_subscripts(lua_State *L, int idx, const char *fn) {
  lua_Integer n = luaL_len(L, idx);
  if (n > GM_MAX_RANK) gml_argerror(L, 2, fn, "too many subscripts (%d)", (int)n);
  for (lua_Integer i = 1; i <= n; i++) lua_geti(L, idx, i);
  return (int)n;
}

static int l_index(lua_State *L) {
  int kt = lua_type(L, 2);
  if (kt == LUA_TSTRING) {
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
  }
  if (kt == LUA_TNUMBER) {
    gm_mat *m = gml_checkmat(L, 1, "mref");
    return push_element(L, m, check_row_major(L, m, 2, "mref"), "mref");
  }
  if (kt == LUA_TTABLE) {
    gm_mat *m = gml_checkmat(L, 1, "mref");
    lua_settop(L, 2);
    int n = push_subscripts(L, 2, "mref");
    size_t k;
    check_subscripts_arg(L, m, 3, n, "mref", &k, 2);
    return push_element(L, m, k, "mref");
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

static int l_newindex(lua_State *L) {
  int kt = lua_type(L, 2);
  gm_mat *m = gml_checkmat(L, 1, "set");
  double v = check_value(L, 3, "set");
  size_t k;
  if (kt == LUA_TNUMBER) {
    k = check_row_major(L, m, 2, "set");
  } else if (kt == LUA_TTABLE) {
    int base = lua_gettop(L) + 1;
    int n = push_subscripts(L, 2, "set");
    check_subscripts_arg(L, m, base, n, "set", &k, 2);
  } else {
    return luaL_error(L, "cannot assign field '%s' of a mat (use an index or {i, j, ...})",
                      kt == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2));
  }
  GML_TRY(L, gm_mat_put(m, k, v), "set");
  return 0;
}

static int l_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gml_checkmat(L, 1, "size")->size);
  return 1;
}

/* core.mat_methods(): the table consulted by m.name (filled by init.lua) */
static int l_mat_methods(lua_State *L) {
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  return 1;
}

void gml_open_mat(lua_State *L, int module_idx) {
  static const luaL_Reg fns[] = {
      {"mat", l_mat},
      {"array_to_mat", l_array_to_mat},
      {"mat_to_array", l_mat_to_array},
      {"replace_", l_replace_},
      {"free", l_free},
      {"is_freed", l_is_freed},
      {"ctype", l_ctype},
      {"displacement", l_displacement},
      {"dims", l_dims},
      {"dim", l_dim},
      {"size", l_size},
      {"max_size", l_max_size},
      {"initial_element", l_initial_element},
      {"cuda_enabled", l_cuda_enabled},
      {"set_cuda_enabled", l_set_cuda_enabled},
      {"mref", l_mref},
      {"set", l_set},
      {"row_major_mref", l_row_major_mref},
      {"set_row_major", l_set_row_major},
      {"row_major_index", l_row_major_index},
      {"coerce_to_ctype", l_coerce_to_ctype},
      {"mat_methods", l_mat_methods},
      {NULL, NULL},
  };
  gml_register(L, module_idx, fns);
  luaL_newmetatable(L, GML_MAT_MT);
  lua_newtable(L); /* methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__methods");
  lua_pushcclosure(L, l_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, l_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, l_free);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, l_free);
  lua_setfield(L, -2, "__close");
  lua_pushliteral(L, "gpumat.mat");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}
