/* Mats in Lua: construction, lifetime, readers, element access and the
 * metatable sugar.  Printing, shaping and facets live in their own files.
 * Construction reads the options here; the rules they obey (sizes,
 * displaced mats, staging, nested contents' shape, subscripts) are
 * core/model/mat_make.c's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/model/context.h"
#include "../core/model/direct.h"
#include "../core/model/view.h"
#include "util.h"

gm_sync gml_check_sync(lua_State *L, int idx, const char *fname);

/* opts.synchronization (options are argument 2 of mat and array_to_mat) */
static gm_sync opt_sync(lua_State *L, const char *fn) {
  if (!gml_opt_push(L, 2, "synchronization")) return gml_settings_of(L)->default_synchronization;
  if (lua_isboolean(L, -1) || (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "maybe") == 0)) {
    gm_sync s = gml_check_sync(L, -1, fn);
    lua_pop(L, 1);
    return s;
  }
  gml_argerror(L, 2, fn, "option 'synchronization' must be true, false or \"maybe\"");
  return GM_SYNC_MAYBE;
}

/* ---- nested contents ----
 * Two passes over the nesting: count (and check) the leaves, then fill a
 * buffer owned by a Lua userdata.  No malloc'd memory is held while Lua
 * code (__len/__index metamethods) or an error may run. */

/* Number of leaf elements of the nesting at idx (mats count their visible
 * elements); raises on bad leaves. */
static size_t count_leaves(lua_State *L, int idx, const char *fname, int arg, int depth) {
  idx = lua_absindex(L, idx);
  if (depth > 64) gml_argerror(L, arg, fname, "contents nested too deeply");
  if (lua_type(L, idx) == LUA_TNUMBER || gml_iscomplex(L, idx)) return 1;
  if (gml_ismat(L, idx)) {
    gml_mat *box = lua_touserdata(L, idx);
    if (!box->m) gml_argerror(L, arg, fname, "contents: attempt to use a freed mat");
    return box->m->size;
  }
  if (!lua_istable(L, idx))
    gml_argerror(L, arg, fname, "contents must be numbers, mats or nested tables, got %s", luaL_typename(L, idx));
  luaL_checkstack(L, 2, fname);
  lua_Integer n = luaL_len(L, idx);
  size_t total = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    total += count_leaves(L, -1, fname, arg, depth + 1);
    lua_pop(L, 1);
  }
  return total;
}

/* Where fill_leaves writes: doubles for a float mat, exact values
 * (gm_value: Lua integers as integers) for an integer or bool mat. */
typedef struct leaves_out {
  double *d;
  gm_value *v;
} leaves_out;

static void put_leaf(lua_State *L, int idx, const leaves_out *out, size_t k) {
  double re, im;
  if (lua_type(L, idx) != LUA_TNUMBER && !gml_tocomplex(L, idx, &re, &im))
    gml_error(L, "contents: a gm.complex value's re and im must be numbers");
  if (lua_type(L, idx) != LUA_TNUMBER) { /* a complex leaf: a real mat takes its real part (astype) */
    if (out->d)
      out->d[k] = re;
    else
      out->v[k] = (gm_value){false, false, 0, re, true, im};
  } else if (out->d) {
    out->d[k] = lua_tonumber(L, idx);
  } else {
    bool is_int = lua_isinteger(L, idx);
    out->v[k] = (gm_value){is_int, false, is_int ? (long long)lua_tointeger(L, idx) : 0, lua_tonumber(L, idx), false, 0};
  }
}

/* Writes the leaves in row-major order into out[*pos..n-1]. */
static void fill_leaves(lua_State *L, int idx, const leaves_out *out, size_t n, size_t *pos, const char *fname,
                        int arg) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TNUMBER || gml_iscomplex(L, idx)) {
    if (*pos >= n) gml_argerror(L, arg, fname, "contents changed while being read");
    put_leaf(L, idx, out, (*pos)++);
  } else if (gml_ismat(L, idx)) {
    gm_mat *m = ((gml_mat *)lua_touserdata(L, idx))->m;
    if (!m || m->size > n - *pos) gml_argerror(L, arg, fname, "contents changed while being read");
    GML_TRY(L, out->d ? gm_mat_read_doubles(m, out->d + *pos) : gm_mat_read_values(m, out->v + *pos), fname);
    *pos += m->size;
  } else if (lua_istable(L, idx)) {
    lua_Integer len = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, idx, i);
      fill_leaves(L, -1, out, n, pos, fname, arg);
      lua_pop(L, 1);
    }
  } else {
    gml_argerror(L, arg, fname, "contents changed while being read");
  }
}

/* Writes nested contents at stack index idx into m (checks the element
 * count first); errors name argument arg. */
static void replace_from(lua_State *L, gm_mat *m, int idx, int arg, const char *fname) {
  idx = lua_absindex(L, idx);
  size_t n = count_leaves(L, idx, fname, arg, 0);
  if (n != m->size) gml_argerror(L, arg, fname, "contents have %zu elements, mat has %zu", n, m->size);
  /* integer and bool mats take Lua integers exactly (wrapping as astype) */
  bool exact = !gm_ctype_is_float(m->ctype);
  void *v = lua_newuserdatauv(L, (n ? n : 1) * (exact ? sizeof(gm_value) : sizeof(double)), 0);
  leaves_out out = {exact ? NULL : v, exact ? v : NULL};
  size_t pos = 0;
  fill_leaves(L, idx, &out, n, &pos, fname, arg);
  if (pos != n) gml_argerror(L, arg, fname, "contents changed while being read");
  GML_TRY(L, exact ? gm_mat_write_values(m, v) : gm_mat_write_doubles(m, v), fname);
  lua_pop(L, 1);
}

/* ---- construction ---- */

/* gm.mat's options, one list: the names gml_check_options takes and
 * their bits in its answer (O_CTYPE ... O_MAPPED) */
#define MAT_OPTIONS(X)                                                                                      \
  X(CTYPE, "ctype") X(DISPLACEMENT, "displacement") X(MAX_SIZE, "max_size") X(INITIAL_ELEMENT, "initial_element") \
  X(INITIAL_CONTENTS, "initial_contents") X(DISPLACED_TO, "displaced_to") X(CUDA_ENABLED, "cuda_enabled")   \
  X(SYNC, "synchronization") X(PINNED, "pinned") X(MAPPED, "mapped")
#define OPTION_INDEX_(E, name) OI_##E,
#define OPTION_NAME_(E, name) name,
#define OPTION_BIT_(E, name) O_##E = 1u << OI_##E,
enum { MAT_OPTIONS(OPTION_INDEX_) };
enum { MAT_OPTIONS(OPTION_BIT_) };
static const char *const mat_options[] = {MAT_OPTIONS(OPTION_NAME_) NULL};
#undef OPTION_INDEX_
#undef OPTION_NAME_
#undef OPTION_BIT_

/* Whether options table 2 has key (a non-nil value). */
static bool has_option(lua_State *L, const char *key) {
  bool has = gml_opt_push(L, 2, key);
  if (has) lua_pop(L, 1);
  return has;
}

/* Raises the failure of a construction rule: a bad argument (*bad) or
 * the core's error. */
static void check_make(lua_State *L, gm_status st, int bad, const char *fn) {
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
}

/* The base is at stack index bi, pinned by the caller's guard. */
static gm_mat *new_displaced(lua_State *L, int bi, int rank, const size_t *dims, const char *fn) {
  gml_mat *box = gml_testbox(L, bi);
  if (!box) gml_argerror(L, 2, fn, "option 'displaced_to' must be a mat, got %s", luaL_typename(L, bi));
  if (!box->m) gml_argerror(L, 2, fn, "option 'displaced_to': attempt to use a freed mat");
  gm_mat *base = box->m;
  unsigned given = (has_option(L, "initial_element") || has_option(L, "initial_contents") ? GM_MAKE_INITIAL : 0) |
                   (has_option(L, "ctype") || has_option(L, "max_size") ? GM_MAKE_STORAGE : 0) |
                   (has_option(L, "synchronization") ? GM_MAKE_SYNC : 0);
  if (gm_mat_displaced_conflicts(given) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  lua_Integer rel = gml_opt_integer(L, 2, "displacement", 0, fn);
  bool cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", base->cuda_enabled, fn);
  gm_mat *m; /* nothing may raise between here and the caller's gml_pushmat */
  int bad;
  gm_status st = gm_mat_new_displaced(base, rank, dims, (long long)rel, &m, &bad);
  check_make(L, st, bad, fn);
  m->cuda_enabled = cuda_enabled;
  return m;
}

/* gm.mat(dims, opts): only the options present are read (has) */
static int l_mat(lua_State *L) {
  const char *fn = "mat";
  size_t dims[GM_MAX_RANK];
  int rank = gml_check_dims(L, 1, fn, dims);
  unsigned has = gml_check_options(L, 2, fn, mat_options);
  if ((has & O_DISPLACED_TO) && gml_opt_push(L, 2, "displaced_to")) {
    int bi = lua_gettop(L);
    gml_guard(L, 0); /* the options' metamethods may free or reshape the base */
    gm_mat *m = new_displaced(L, bi, rank, dims, fn);
    gml_pushmat(L, m);
    return 1;
  }
  const gml_settings *S = gml_settings_of(L);
  gm_mat_options o = {0};
  o.ctype = (int)(has & O_CTYPE ? gml_opt_ctype(L, 2, "ctype", fn) : S->default_ctype);
  o.displacement = has & O_DISPLACEMENT ? gml_opt_size(L, 2, "displacement", 0, fn) : 0;
  o.max_size = has & O_MAX_SIZE ? gml_opt_size(L, 2, "max_size", 0, fn) : 0;
  o.has_initial_element = 1;
  o.initial_element = 0;
  if ((has & O_INITIAL_ELEMENT) && gml_opt_push(L, 2, "initial_element")) {
    if (lua_type(L, -1) == LUA_TNUMBER)
      o.initial_element = lua_tonumber(L, -1);
    else if (lua_isboolean(L, -1) && !lua_toboolean(L, -1))
      o.has_initial_element = 0;
    else
      gml_argerror(L, 2, fn, "option 'initial_element' must be a number or false, got %s", luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  o.cuda_enabled = has & O_CUDA_ENABLED ? gml_opt_boolean(L, 2, "cuda_enabled", S->default_mat_cuda_enabled, fn)
                                        : S->default_mat_cuda_enabled;
  o.synchronization = has & O_SYNC ? opt_sync(L, fn) : S->default_synchronization;
  bool has_contents = (has & O_INITIAL_CONTENTS) && has_option(L, "initial_contents");
  bool mapped = has & O_MAPPED ? gml_opt_boolean(L, 2, "mapped", false, fn) : false;
  bool pinned = has & O_PINNED ? gml_opt_boolean(L, 2, "pinned", false, fn) : false;
  gm_mat *m;
  int bad;
  gm_status st = gm_mat_make(rank, dims, &o, pinned, mapped, &m, &bad);
  check_make(L, st, bad, fn);
  gml_pushmat(L, m);
  if (has_contents) {
    lua_getfield(L, 2, "initial_contents");
    replace_from(L, m, lua_gettop(L), 2, fn);
    lua_pop(L, 1);
  }
  return 1;
}

/* Shape of nested tables: descends first elements.  A mat as the first
 * leaf extends the shape by its dims (np.array([a, b]) stacks mats on a
 * new leading axis); *leaf_rank is its rank (0 for numbers). */
static int nested_dims(lua_State *L, int idx, size_t dims[GM_MAX_RANK], int *leaf_rank, const char *fn) {
  int rank = 0;
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1) && !gml_ismat(L, -1) && !gml_iscomplex(L, -1)) {
    if (rank == GM_MAX_RANK) gml_argerror(L, 1, fn, "nesting exceeds rank %d", GM_MAX_RANK);
    dims[rank++] = (size_t)luaL_len(L, -1);
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
  }
  *leaf_rank = 0;
  if (gml_ismat(L, -1)) {
    const gm_mat *m = gml_checkmat(L, -1, fn);
    if (rank + m->rank > GM_MAX_RANK) gml_argerror(L, 1, fn, "nesting and mats exceed rank %d", GM_MAX_RANK);
    for (int i = 0; i < m->rank; i++) dims[rank + i] = m->dims[i];
    *leaf_rank = m->rank;
  }
  lua_pop(L, 1);
  return rank + *leaf_rank;
}

/* Checks that the nesting at idx is rectangular with the given dims
 * (ragged input would otherwise be accepted when its element count
 * happens to match): `rank` levels of lists, then leaves that are numbers
 * (leaf_rank 0) or mats whose dims are dims[rank..rank+leaf_rank). */
static void check_rectangular(lua_State *L, int idx, const size_t *dims, int rank, int leaf_rank, int depth,
                              const char *fn) {
  idx = lua_absindex(L, idx);
  bool cx = gml_iscomplex(L, idx);
  bool list = lua_istable(L, idx) && !gml_ismat(L, idx) && !cx;
  bool leaf = lua_type(L, idx) == LUA_TNUMBER || gml_ismat(L, idx) || cx; /* not nil: a lying __len */
  lua_Integer n = list && depth < rank ? luaL_len(L, idx) : 0;
  if (gm_nested_entry_check(depth, rank, dims, list, leaf, luaL_typename(L, idx), (long long)n) != GM_OK)
    gml_argerror(L, 1, fn, "%s", gm_last_error());
  if (depth == rank) {
    const gm_mat *m = gml_ismat(L, idx) ? gml_checkmat(L, idx, fn) : NULL;
    bool same = m ? m->rank == leaf_rank : leaf_rank == 0;
    for (int i = 0; same && m && i < leaf_rank; i++) same = m->dims[i] == dims[rank + i];
    if (!same) gml_argerror(L, 1, fn, "contents are not rectangular (the leaves at depth %d are not all mats of the first one's dims)", depth + 1);
    return;
  }
  luaL_checkstack(L, 2, fn);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    check_rectangular(L, -1, dims, rank, leaf_rank, depth + 1, fn);
    lua_pop(L, 1);
  }
}

/* gm.array_to_mat(t, {ctype, synchronization}) */
static int l_array_to_mat(lua_State *L) {
  const char *fn = "array_to_mat";
  static const char *const opts[] = {"ctype", "synchronization", NULL};
  if (!lua_istable(L, 1) || gml_ismat(L, 1)) gml_argerror(L, 1, fn, "table expected, got %s", luaL_typename(L, 1));
  gml_check_options(L, 2, fn, opts);
  size_t dims[GM_MAX_RANK];
  int leaf_rank;
  int rank = nested_dims(L, 1, dims, &leaf_rank, fn);
  check_rectangular(L, 1, dims, rank - leaf_rank, leaf_rank, 0, fn);
  gm_mat_options o = {0};
  o.ctype = (int)gml_opt_ctype(L, 2, "ctype", fn);
  o.cuda_enabled = gml_settings_of(L)->default_mat_cuda_enabled;
  o.synchronization = opt_sync(L, fn);
  gm_mat *m;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &m), fn);
  gml_pushmat(L, m);
  replace_from(L, m, 1, 1, fn);
  return 1;
}

/* gm.astype(m, dtype) / m:as(dtype): a new mat of dtype with m's dims,
 * cuda_enabled and values converted (gm_mat_astype) */
static int l_astype(lua_State *L) {
  gml_guard(L, 2); /* the result box is allocated while m is held */
  const char *fn = "astype";
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_ctype t = gml_check_ctype(L, 2, fn);
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *r;
  GML_TRY(L, gm_mat_new(m->rank, m->dims, &o, &r), fn);
  gml_pushmat(L, r);
  GML_TRY(L, gm_mat_astype(m, r), fn);
  return 1;
}

/* gm.replace_(m, nested) */
static int l_replace_(lua_State *L) {
  gml_guard(L, 2); /* the contents' metamethods run while m is held */
  gm_mat *m = gml_checkmat(L, 1, "replace_");
  replace_from(L, m, 2, 2, "replace_");
  lua_settop(L, 1);
  return 1;
}

/* One element of to_table: v[k] as a Lua number, or gv[k] (integer and
 * bool mats) as an integer or boolean. */
static void push_leaf(lua_State *L, const gm_mat *m, const double *v, const gm_value *gv, size_t k) {
  if (!gv)
    lua_pushnumber(L, v[k]);
  else if (gv[k].is_complex)
    gml_pushcomplex(L, gv[k].d, gv[k].im);
  else if (!gv[k].is_int) /* a 16-bit float (read exactly as the others) */
    lua_pushnumber(L, gv[k].d);
  else if (gm_ctype_kind(m->ctype) == GM_KIND_BOOL)
    lua_pushboolean(L, gv[k].i != 0);
  else
    lua_pushinteger(L, (lua_Integer)gv[k].i);
}

static void push_nested(lua_State *L, const gm_mat *m, const double *v, const gm_value *gv, int axis, size_t *pos) {
  if (m->rank == 0) {
    push_leaf(L, m, v, gv, 0);
    return;
  }
  size_t n = m->dims[axis];
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    if (axis == m->rank - 1)
      push_leaf(L, m, v, gv, (*pos)++);
    else
      push_nested(L, m, v, gv, axis + 1, pos);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* gm.mat_to_array(m) / m:to_table(): nested tables of the visible part */
static int l_mat_to_array(lua_State *L) {
  gml_guard(L, 1); /* building the tables runs the GC (finalizers) */
  gm_mat *m = gml_checkmat(L, 1, "mat_to_array");
  bool exact = !gm_ctype_is_float(m->ctype);
  size_t es = exact ? sizeof(gm_value) : sizeof(double);
  /* a userdata, so a memory error while building the tables leaks nothing */
  void *v = lua_newuserdatauv(L, (m->size ? m->size : 1) * es, 0);
  GML_TRY(L, exact ? gm_mat_read_values(m, v) : gm_mat_read_doubles(m, v), "mat_to_array");
  size_t pos = 0;
  luaL_checkstack(L, m->rank + 8, "mat_to_array");
  push_nested(L, m, exact ? NULL : v, exact ? v : NULL, 0, &pos);
  return 1;
}

/* ---- lifetime ---- */

/* m:free() and __close: idempotent */
static int release(lua_State *L, const char *fn) {
  gml_mat *box = gml_testbox(L, 1);
  if (!box) return gml_argerror(L, 1, fn, "gpumat.mat expected, got %s", luaL_typename(L, 1));
  gml_release_box(box, false); /* deferred while a running call holds the mat */
  return 0;
}
static int l_free(lua_State *L) { return release(L, "free"); }
static int l_close(lua_State *L) { return release(L, "__close"); }

/* Live mats with their own method cache, in any Lua state (atomic; see
 * "per-mat method cache" below). */
static unsigned n_method_caches;

/* Reachable from Lua as getmetatable(m).__gc: checked like any function.
 * Registered hot (every temporary's collection calls it): counts its own. */
static int l_gc(lua_State *L) {
  gml_check_arity_n(L, 1);
  gml_mat *box = gml_testbox(L, 1);
  if (!box) return gml_argerror(L, 1, "__gc", "gpumat.mat expected, got %s", luaL_typename(L, 1));
  if (box->method_cache) {
    box->method_cache = false;
    __atomic_sub_fetch(&n_method_caches, 1, __ATOMIC_RELAXED);
  }
  gml_release_box(box, true);
  return 0;
}

static int l_is_freed(lua_State *L) {
  gml_mat *box = gml_testbox(L, 1);
  if (!box) return gml_argerror(L, 1, "is_freed", "gpumat.mat expected, got %s", luaL_typename(L, 1));
  lua_pushboolean(L, box->m == NULL);
  return 1;
}

/* ---- readers ----
 * One C function reads every property: its entry (upvalue 1) says which. */

/* An integer mat's initial element as a Lua integer: the double stored
 * with the vec, converted into the type as the fill converts it. */
static void push_initial_integer(lua_State *L, gm_ctype t, double init) {
  unsigned long long cell = 0; /* room for one element of any type */
  gm_ctype_set(t, &cell, 0, init);
  lua_pushinteger(L, (lua_Integer)gm_ctype_read(t, &cell, 0).i);
}

typedef enum mat_prop { M_CTYPE, M_DTYPE, M_DISPLACEMENT, M_DIMS, M_DIM, M_SIZE, M_MAX_SIZE, M_INITIAL, M_CUDA } mat_prop;
typedef struct mat_prop_reg {
  gml_reg reg;
  mat_prop p;
} mat_prop_reg;

static int l_mat_prop(lua_State *L) {
  const mat_prop_reg *pr = lua_touserdata(L, lua_upvalueindex(1));
  gm_mat *m = gml_checkmat(L, 1, pr->reg.name);
  double init;
  switch (pr->p) {
  case M_CTYPE: lua_pushstring(L, gm_ctype_name(m->ctype)); break;
  case M_DTYPE: lua_pushstring(L, gm_ctype_dtype(m->ctype)); break;
  case M_DISPLACEMENT: lua_pushinteger(L, (lua_Integer)gm_mat_displacement(m)); break;
  case M_DIMS: gml_push_dims(L, m); break;
  case M_DIM: lua_pushinteger(L, (lua_Integer)m->dims[gml_check_axis(L, 2, "dim", m->rank)]); break;
  case M_SIZE: lua_pushinteger(L, (lua_Integer)gm_mat_size(m)); break;
  case M_MAX_SIZE: lua_pushinteger(L, (lua_Integer)gm_mat_max_size(m)); break;
  case M_INITIAL:
    if (!gm_mat_initial_element(m, &init))
      lua_pushboolean(L, 0);
    else if (gm_ctype_kind(m->ctype) == GM_KIND_INT || gm_ctype_kind(m->ctype) == GM_KIND_UINT)
      push_initial_integer(L, m->ctype, init);
    else
      lua_pushnumber(L, init);
    break;
  case M_CUDA: lua_pushboolean(L, m->cuda_enabled); break;
  }
  return 1;
}

static const mat_prop_reg mat_props[] = {
    {{"ctype", l_mat_prop, 1, NULL}, M_CTYPE},
    {{"dtype", l_mat_prop, 1, NULL}, M_DTYPE},
    {{"displacement", l_mat_prop, 1, NULL}, M_DISPLACEMENT},
    {{"dims", l_mat_prop, 1, NULL}, M_DIMS},
    {{"dim", l_mat_prop, 2, NULL}, M_DIM},
    {{"size", l_mat_prop, 1, NULL}, M_SIZE},
    {{"max_size", l_mat_prop, 1, NULL}, M_MAX_SIZE},
    {{"initial_element", l_mat_prop, 1, NULL}, M_INITIAL},
    {{"cuda_enabled", l_mat_prop, 1, NULL}, M_CUDA},
};

static int l_set_cuda_enabled(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "set_cuda_enabled");
  if (!lua_isboolean(L, 2))
    gml_argerror(L, 2, "set_cuda_enabled", "boolean expected, got %s", luaL_typename(L, 2));
  m->cuda_enabled = lua_toboolean(L, 2);
  lua_settop(L, 1);
  return 1;
}

/* ---- element access ---- */

/* Reads 1-based subscripts from stack slots first..first+n-1 into a
 * 0-based row-major index.  Errors name argument first+i, or `arg` when
 * non-zero (m[{i, j}] sugar: the subscripts come from the key, arg 2). */
static void check_subscripts_arg(lua_State *L, gm_mat *m, int first, int n, const char *fn, size_t *k, int arg) {
  long long subs[GM_MAX_RANK] = {0};
  for (int i = 0; n == m->rank && i < n; i++) { /* a wrong count is reported first */
    int isnum;
    subs[i] = (long long)lua_tointegerx(L, first + i, &isnum);
    if (!isnum || lua_type(L, first + i) != LUA_TNUMBER)
      gml_argerror(L, arg ? arg : first + i, fn, "subscript must be an integer, got %s", luaL_typename(L, first + i));
  }
  int bad;
  if (gm_mat_subscripts_index(m, n, subs, k, &bad) != GM_OK)
    gml_argerror(L, arg ? arg : first + (bad < 0 ? 0 : bad), fn, "%s", gm_last_error());
}

static void check_subscripts(lua_State *L, gm_mat *m, int first, int n, const char *fn, size_t *k) {
  check_subscripts_arg(L, m, first, n, fn, k, 0);
}

/* check_row_major for an argument already known to be a number (m[k]). */
static size_t number_row_major(lua_State *L, gm_mat *m, int arg, const char *fn) {
  int isint;
  lua_Integer k = lua_tointegerx(L, arg, &isint);
  if (!isint) gml_argerror(L, arg, fn, "index must be an integer, got number");
  if (k < 1 || (size_t)k > m->size)
    gml_argerror(L, arg, fn, "index %lld is out of range 1..%zu", (long long)k, m->size);
  return (size_t)(k - 1);
}

static size_t check_row_major(lua_State *L, gm_mat *m, int arg, const char *fn) {
  if (lua_type(L, arg) != LUA_TNUMBER)
    gml_argerror(L, arg, fn, "index must be an integer, got %s", luaL_typename(L, arg));
  return number_row_major(L, m, arg, fn);
}

static double check_value(lua_State *L, int arg, const char *fn) {
  if (lua_type(L, arg) != LUA_TNUMBER) gml_argerror(L, arg, fn, "number expected, got %s", luaL_typename(L, arg));
  return lua_tonumber(L, arg);
}

/* A value to write into an element of ctype t: a number for float mats;
 * a number or a boolean for integer and bool mats, Lua integers and
 * booleans exactly (gm_value), converted as astype does by the core. */
gm_value gml_check_elem(lua_State *L, int arg, gm_ctype t, const char *fn) {
  int lt = lua_type(L, arg);
  gm_value v = {false, false, 0, 0, false, 0};
  if (lt == LUA_TTABLE && gml_iscomplex(L, arg)) { /* a real type takes the real part (astype) */
    if (!gml_tocomplex(L, arg, &v.d, &v.im)) gml_argerror(L, arg, fn, "gm.complex value with non-number parts");
    v.is_complex = true;
    return v;
  }
  if (gm_ctype_is_complex(t) && lt != LUA_TNUMBER && lt != LUA_TBOOLEAN)
    gml_argerror(L, arg, fn, "number, boolean or gm.complex expected, got %s", luaL_typename(L, arg));
  if (!gm_ctype_is_float(t) && lt == LUA_TBOOLEAN) {
    v.is_int = true;
    v.i = lua_toboolean(L, arg);
    return v;
  }
  if (lt != LUA_TNUMBER)
    gml_argerror(L, arg, fn, "number%s expected, got %s", gm_ctype_is_float(t) ? "" : " or boolean", luaL_typename(L, arg));
  if (!gm_ctype_is_float(t) && lua_isinteger(L, arg)) {
    v.is_int = true;
    v.i = (long long)lua_tointeger(L, arg);
  } else {
    v.d = lua_tonumber(L, arg);
  }
  return v;
}

/* An integer or bool element (gm_mat_get_value): a Lua integer (uint64
 * at or above 2^63 as the same 64 bits) or boolean. */
static int push_exact_element(lua_State *L, gm_mat *m, size_t k, const char *fn) {
  gm_value v;
  GML_TRY(L, gm_mat_get_value(m, k, &v), fn);
  if (v.is_complex)
    gml_pushcomplex(L, v.d, v.im);
  else if (!v.is_int)
    lua_pushnumber(L, v.d);
  else if (gm_ctype_kind(m->ctype) == GM_KIND_BOOL)
    lua_pushboolean(L, v.i != 0);
  else
    lua_pushinteger(L, (lua_Integer)v.i);
  return 1;
}

/* Element k (0-based, checked) of box's mat.  Direct access when box's
 * generation still certifies it (gm_vec_direct_open: no lock, no
 * watch); otherwise the watched access, which then re-opens direct access
 * for the next call. */
static inline __attribute__((always_inline)) int push_element(lua_State *L, gml_mat *box, size_t k,
                                                              const char *fn) {
  gm_mat *m = box->m;
  double v;
  if (!gm_ctype_is_float(m->ctype)) return push_exact_element(L, m, k, fn);
  if (!gm_vec_direct_get(m->vec, box->gen, m->ctype, gm_mat_storage_index(m, k), &v)) {
    GML_TRY(L, gm_mat_get(m, k, &v), fn);
    box->gen = gm_vec_direct_open(m->vec, &box->writable);
  }
  lua_pushnumber(L, v);
  return 1;
}

/* m[k] for a number key: the element, or nil past either end as for a Lua
 * sequence (so ipairs(m) and `for i = 1, #m` work); a non-integer key
 * still raises. */
static int push_indexed(lua_State *L, gml_mat *box, int arg) {
  int isint;
  lua_Integer k = lua_tointegerx(L, arg, &isint);
  if (!isint) gml_argerror(L, arg, "mref", "index must be an integer, got number");
  if (k < 1 || (size_t)k > box->m->size) {
    lua_pushnil(L);
    return 1;
  }
  return push_element(L, box, (size_t)(k - 1), "mref");
}

static inline __attribute__((always_inline)) void put_element(lua_State *L, gml_mat *box, size_t k, gm_value v,
                                                               const char *fn) {
  gm_mat *m = box->m;
  if (!gm_ctype_is_float(m->ctype)) {
    GML_TRY(L, gm_mat_put_value(m, k, v), fn);
    return;
  }
  if (box->writable && m->contiguous && gm_vec_direct_put(m->vec, box->gen, m->ctype, m->displacement + k, v.d)) return;
  GML_TRY(L, gm_mat_put(m, k, v.d), fn);
  box->gen = gm_vec_direct_open(m->vec, &box->writable);
}

/* m:mref(i, j) and m:set(i, j, v) on a matrix, the hot case of element
 * access by subscripts: integer subscripts in range give the row-major
 * index (true), anything else is left to check_subscripts, which gives
 * the errors (false). */
static inline bool fast_subscripts2(lua_State *L, const gm_mat *m, size_t *k) {
  if (m->rank != 2 || !lua_isinteger(L, 2) || !lua_isinteger(L, 3)) return false;
  lua_Integer i = lua_tointeger(L, 2), j = lua_tointeger(L, 3);
  if (i < 1 || j < 1 || (size_t)i > m->dims[0] || (size_t)j > m->dims[1]) return false;
  *k = (size_t)(i - 1) * m->dims[1] + (size_t)(j - 1);
  return true;
}

/* The element access functions check their own counts (gml_push_hot). */
static int l_mref(lua_State *L);
static int l_set(lua_State *L);
static int l_row_major_mref(lua_State *L);
static int l_set_row_major(lua_State *L);
static const gml_reg mref_reg = {"mref", l_mref, GML_VARARGS, NULL};
static const gml_reg set_reg = {"set", l_set, GML_VARARGS, NULL};
static const gml_reg row_major_mref_reg = {"row_major_mref", l_row_major_mref, 2, NULL};
static const gml_reg set_row_major_reg = {"set_row_major", l_set_row_major, 3, NULL};

/* variadic: the subscripts are counted against the rank */
static int l_mref(lua_State *L) {
  gml_mat *box = gml_checkelembox(L, 1, "mref");
  int top = lua_gettop(L);
  size_t k;
  if (top != 3 || !fast_subscripts2(L, box->m, &k)) check_subscripts(L, box->m, 2, top - 1, "mref", &k);
  return push_element(L, box, k, "mref");
}

static int l_set(lua_State *L) {
  gml_mat *box = gml_checkelembox(L, 1, "set");
  int top = lua_gettop(L);
  if (top < 2) gml_argerror(L, 2, "set", "value expected");
  gm_value v = gml_check_elem(L, top, box->m->ctype, "set");
  size_t k;
  if (top != 4 || !fast_subscripts2(L, box->m, &k)) check_subscripts(L, box->m, 2, top - 2, "set", &k);
  put_element(L, box, k, v, "set");
  lua_settop(L, 1);
  return 1;
}

static int l_row_major_mref(lua_State *L) {
  gml_check_arity(L, &row_major_mref_reg);
  gml_mat *box = gml_checkelembox(L, 1, "row_major_mref");
  return push_element(L, box, check_row_major(L, box->m, 2, "row_major_mref"), "row_major_mref");
}

static int l_set_row_major(lua_State *L) {
  gml_check_arity(L, &set_row_major_reg);
  gml_mat *box = gml_checkelembox(L, 1, "set_row_major");
  size_t k = check_row_major(L, box->m, 2, "set_row_major");
  gm_value v = gml_check_elem(L, 3, box->m->ctype, "set_row_major");
  put_element(L, box, k, v, "set_row_major");
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
  gm_ctype t = lua_isnoneornil(L, 2) ? gml_settings_of(L)->default_ctype : gml_check_ctype(L, 2, "coerce_to_ctype");
  lua_pushnumber(L, gm_ctype_coerce(t, x));
  return 1;
}

/* ---- metatable sugar: m[k], m[{i, j}], methods ---- */

/* Pushes the subscripts of table at idx; returns their count. */
static int push_subscripts(lua_State *L, int idx, const char *fn) {
  lua_Integer n = luaL_len(L, idx);
  if (n > 2 * GM_MAX_RANK) gml_argerror(L, 2, fn, "too many subscripts (%lld)", (long long)n); /* newaxis adds axes */
  for (lua_Integer i = 1; i <= n; i++) lua_geti(L, idx, i);
  return (int)n;
}

/* Whether the n subscripts at first name one element of m: integers,
 * one per axis (else m[{...}] is a view).  Negative integers count from
 * the end: replaced on the stack by their 1-based position (which a view
 * reads the same way). */
static inline bool one_element(lua_State *L, const gm_mat *m, int first, int n) {
  if (n < m->rank) return false;
  for (int i = 0; i < n; i++)
    if (lua_type(L, first + i) != LUA_TNUMBER) return false; /* a view (newaxis, "...", ranges) */
  if (n > m->rank) return true; /* too many integers: the element path's error */
  for (int i = 0; i < n; i++) {
    int isint;
    lua_Integer s = lua_tointegerx(L, first + i, &isint);
    if (isint) {
      if (s < 0 && (size_t)(-(s + 1)) < m->dims[i]) { /* -s <= dims without negating LLONG_MIN */
        lua_pushinteger(L, (lua_Integer)m->dims[i] + s + 1);
        lua_replace(L, first + i);
      }
    } else if (lua_type(L, first + i) != LUA_TNUMBER) {
      return false;
    }
  }
  return true;
}

/* ---- per-mat method cache ----
 *
 * m:mref(i, j) is two C calls: the lookup of "mref" through __index (a C
 * function, since m[k] needs one) and mref itself.  A mat whose methods
 * are looked up often (HOT_LOOKUPS times) gets its own metatable: a copy
 * of the shared one whose __index is a per-mat table, the cache, so that
 * the lookup becomes a table hit inside the VM.  The cache's own __index
 * (shared, cache_index) handles what the cache misses: methods (then
 * cached), elements (m[k], m[{i, j}]: the mat is an upvalue of the
 * cache's __index) and other keys.  __metatable makes getmetatable(m) the
 * shared metatable, so Lua code comparing metatables sees one mat type;
 * C code recognizes boxes by size and magic (gml_testbox).  Methods are
 * added to the shared method table only while the module loads, so a
 * cached method never goes stale.  A cache costs about 1.5 KiB (the
 * metatable's copy, the cache, a closure), so at most MAX_METHOD_CACHES
 * mats have one at a time: a program holding a million small mats that
 * it calls methods on pays nothing extra beyond those. */
#define HOT_LOOKUPS 16
#define MAX_METHOD_CACHES 1024

static int l_index(lua_State *L);
static int cache_index(lua_State *L);
static int l_newindex(lua_State *L);
static int l_len(lua_State *L);
static const gml_reg cache_index_reg = {"__index", cache_index, 2, NULL};
static const gml_reg index_reg = {"__index", l_index, 2, NULL};
static const gml_reg newindex_reg = {"__newindex", l_newindex, 3, NULL};
static const gml_reg len_reg = {"__len", l_len, 2, NULL};

/* Gives the mat at idx (a box with the shared metatable) its own. */
static void give_method_cache(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_newtable(L); /* the mat's metatable */
  luaL_getmetatable(L, GML_MAT_MT);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_setfield(L, -2, "__metatable"); /* pops the shared metatable */
  lua_createtable(L, 0, 8); /* the cache */
  lua_createtable(L, 0, 1); /* its metatable: __index = cache_index(methods, mat) */
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  lua_remove(L, -2);
  lua_pushvalue(L, idx);
  gml_push_hot(L, &cache_index_reg, 2);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, idx);
}

/* __index of a cache: (cache, key); upvalues: the method table, the mat.
 * A number key is m[k], the hot case: served here without going back
 * through l_index. */
static int cache_index(lua_State *L) {
  gml_check_arity(L, &cache_index_reg);
  if (!lua_istable(L, 1)) return gml_argerror(L, 1, "__index", "method cache expected, got %s", luaL_typename(L, 1));
  int kt = lua_type(L, 2);
  if (kt == LUA_TNUMBER) {
    gml_mat *box = lua_touserdata(L, gml_upvalueindex(2));
    if (!box->m) gml_argerror(L, 1, "mref", "attempt to use a freed mat");
    return push_indexed(L, box, 2);
  }
  if (kt == LUA_TSTRING) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, gml_upvalueindex(1)) != LUA_TNIL) { /* a method: cache it */
      lua_pushvalue(L, 2);
      lua_pushvalue(L, -2);
      lua_rawset(L, 1);
    }
    return 1;
  }
  /* a table key is m[{...}], which takes any table: check that argument
   * 1 is this mat's cache (its metatable's __index), not a stranger */
  lua_getmetatable(L, gml_upvalueindex(2));
  lua_pushliteral(L, "__index");
  lua_rawget(L, -2);
  bool mine = lua_rawequal(L, -1, 1);
  lua_pop(L, 2);
  if (!mine) return gml_argerror(L, 1, "__index", "method cache expected, got a foreign table");
  lua_pushvalue(L, gml_upvalueindex(2)); /* the mat in place of the cache */
  lua_replace(L, 1);
  return l_index(L);
}

/* Replaces the mat key at 2 by the table {key}. */
static int mat_key_as_table(lua_State *L) {
  lua_createtable(L, 1, 0);
  lua_pushvalue(L, 2);
  lua_rawseti(L, -2, 1);
  lua_replace(L, 2);
  return LUA_TTABLE;
}

static int l_index(lua_State *L) {
  gml_check_arity(L, &index_reg);
  int kt = lua_type(L, 2);
  if (kt == LUA_TSTRING) {
    gml_mat *box = gml_testbox(L, 1);
    if (!box) return gml_argerror(L, 1, "__index", "gpumat.mat expected, got %s", luaL_typename(L, 1));
    if (++box->lookups == HOT_LOOKUPS && !box->method_cache) {
      if (__atomic_add_fetch(&n_method_caches, 1, __ATOMIC_RELAXED) <= MAX_METHOD_CACHES) {
        box->method_cache = true; /* first: after an allocation error __gc still counts it down */
        lua_pushvalue(L, 1);
        give_method_cache(L, -1);
        lua_pop(L, 1);
      } else {
        __atomic_sub_fetch(&n_method_caches, 1, __ATOMIC_RELAXED);
      }
    }
    lua_rawget(L, gml_upvalueindex(1));
    return 1;
  }
  if (kt == LUA_TNUMBER) {
    gml_mat *box = gml_checkelembox(L, 1, "mref");
    return push_indexed(L, box, 2);
  }
  if (kt == LUA_TUSERDATA && gml_ismat(L, 2)) kt = mat_key_as_table(L); /* m[mask], m[idx]: as m[{mask}] */
  if (kt == LUA_TTABLE) {
    lua_settop(L, 2);
    int n = push_subscripts(L, 2, "mref"); /* before taking m: may run Lua */
    gml_mat *box = gml_checkelembox(L, 1, "mref");
    if (!one_element(L, box->m, 3, n)) return gml_index_view(L, n);
    size_t k;
    check_subscripts_arg(L, box->m, 3, n, "mref", &k, 2);
    return push_element(L, box, k, "mref");
  }
  if (!gml_testbox(L, 1)) return gml_argerror(L, 1, "__index", "gpumat.mat expected, got %s", luaL_typename(L, 1));
  /* m[true] and other keys: a nil here would surface later as "attempt
   * to index a nil value" */
  if (kt != LUA_TNIL)
    return gml_argerror(L, 2, "mref", "cannot index a mat with a %s (use an index, {i, j, ...}, an index mat or a bool mask)",
                        luaL_typename(L, 2));
  lua_pushnil(L);
  return 1;
}

static int l_newindex(lua_State *L) {
  gml_check_arity(L, &newindex_reg);
  int kt = lua_type(L, 2);
  size_t k;
  if (kt == LUA_TUSERDATA && gml_ismat(L, 2)) kt = mat_key_as_table(L);
  if (kt == LUA_TTABLE) {
    lua_settop(L, 3);
    int n = push_subscripts(L, 2, "set"); /* before taking m: may run Lua */
    gml_mat *box = gml_checkelembox(L, 1, "set");
    if (!one_element(L, box->m, 4, n)) return gml_assign_view(L, n);
    gm_value v = gml_check_elem(L, 3, box->m->ctype, "set");
    check_subscripts_arg(L, box->m, 4, n, "set", &k, 2);
    put_element(L, box, k, v, "set");
    return 0;
  }
  gml_mat *box = gml_checkelembox(L, 1, "set");
  gm_value v = gml_check_elem(L, 3, box->m->ctype, "set");
  if (kt == LUA_TNUMBER) {
    k = number_row_major(L, box->m, 2, "set");
  } else {
    return gml_argerror(L, 2, "set", "cannot assign %s%s%s of a mat (use an index or {i, j, ...})",
                        kt == LUA_TSTRING ? "field '" : "a ", kt == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2),
                        kt == LUA_TSTRING ? "'" : " key");
  }
  put_element(L, box, k, v, "set");
  return 0;
}

static int l_len(lua_State *L) {
  gml_check_arity(L, &len_reg);
  lua_pushinteger(L, (lua_Integer)gml_checkmat(L, 1, "size")->size);
  return 1;
}

/* The iterator of pairs(m): (m, k) -> k + 1, m[k + 1], as ipairs(m). */
static int pairs_next(lua_State *L) {
  gml_mat *box = gml_checkelembox(L, 1, "__pairs");
  lua_Integer k = lua_type(L, 2) == LUA_TNIL ? 0 : gml_check_integer(L, 2, "__pairs");
  if (k < 0 || (size_t)k >= box->m->size) return 0;
  lua_pushinteger(L, k + 1);
  push_element(L, box, (size_t)k, "__pairs");
  return 2;
}
static const gml_reg pairs_next_reg = {"__pairs", pairs_next, 2, NULL};

/* pairs(m): the (k, m[k]) pairs of ipairs(m) */
static int l_pairs(lua_State *L) {
  gml_checkmat(L, 1, "__pairs");
  gml_push_function(L, &pairs_next_reg, 0);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* core.mat_methods(): the table consulted by m.name (filled by init.lua) */
static int l_mat_methods(lua_State *L) {
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  return 1;
}

void gml_open_mat(lua_State *L, int module_idx) {
  module_idx = lua_absindex(L, module_idx);
  static const gml_reg fns[] = {
      {"mat", l_mat, 2, NULL},
      {"array_to_mat", l_array_to_mat, 2, NULL},
      {"mat_to_array", l_mat_to_array, 1, NULL},
      {"replace_", l_replace_, 2, NULL},
      {"free", l_free, 1, NULL},
      {"is_freed", l_is_freed, 1, NULL},
      {"set_cuda_enabled", l_set_cuda_enabled, 2, NULL},
      {"row_major_index", l_row_major_index, GML_VARARGS, NULL},
      {"coerce_to_ctype", l_coerce_to_ctype, 2, NULL},
      {"astype", l_astype, 2, NULL},
      {"mat_methods", l_mat_methods, 0, NULL},
      {NULL, NULL, 0, NULL},
  };
  /* metamethods get the arguments the VM passes (__len and __unm get
   * the operand twice, __close the error object) */
  static const gml_reg meta[] = {
      {"__close", l_close, 2, NULL}, {"__pairs", l_pairs, 1, NULL}, {NULL, NULL, 0, NULL},
  };
  static const gml_reg gc_reg = {"__gc", l_gc, 1, NULL};
  static const gml_reg *const hot[] = {&mref_reg, &set_reg, &row_major_mref_reg, &set_row_major_reg};
  gml_register(L, module_idx, fns);
  for (size_t i = 0; i < sizeof mat_props / sizeof mat_props[0]; i++) {
    gml_push_function(L, &mat_props[i].reg, 0);
    lua_setfield(L, module_idx, mat_props[i].reg.name);
  }
  for (size_t i = 0; i < sizeof hot / sizeof hot[0]; i++) {
    gml_push_hot(L, hot[i], 0);
    lua_setfield(L, module_idx, hot[i]->name);
  }
  luaL_newmetatable(L, GML_MAT_MT);
  lua_newtable(L); /* methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__methods");
  gml_push_hot(L, &index_reg, 1);
  lua_setfield(L, -2, "__index");
  gml_push_hot(L, &newindex_reg, 0);
  lua_setfield(L, -2, "__newindex");
  gml_push_hot(L, &len_reg, 0);
  lua_setfield(L, -2, "__len");
  gml_register(L, -1, meta);
  gml_push_hot(L, &gc_reg, 0);
  lua_setfield(L, -2, "__gc");
  lua_pushliteral(L, "gpumat.mat");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}
