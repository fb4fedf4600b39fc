/* Facets in Lua (MGL-MAT §18, the cube manual): inspection, scoped access
 * (with_facet/with_facets), lifetime (destroy_facet, destroy, references)
 * and facet barriers.
 *
 * Scoped access and barriers hand Lua a small userdata whose __close (and,
 * as a backstop, __gc) undoes the watch or pops the barrier.  The Lua side
 * (facets.lua) binds it to a <close> variable around fn, so the undo
 * happens also when fn errors and the error propagates unchanged; unlike
 * lua_pcall from C this also lets fn yield. */
#include <string.h>

#include "../core/model/access.h"
#include "../core/model/barrier.h"
#include "../core/model/context.h"
#include "util.h"

#define ACCESS_MT "gpumat.facet_access"
#define BARRIER_MT "gpumat.facet_barrier"


static gm_facet_name check_facet_name(lua_State *L, int idx, int arg, const char *fn) {
  gm_facet_name f;
  if (lua_type(L, idx) != LUA_TSTRING || gm_facet_parse(lua_tostring(L, idx), &f) != 0)
    gml_argerror(L, arg, fn, "facet name must be \"foreign\", \"cuda_host\", \"cuda\" or \"managed\", got %s",
                 lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : luaL_typename(L, idx));
  return f;
}

static gm_direction check_direction(lua_State *L, int idx, int arg, const char *fn) {
  gm_direction d = GM_IO; /* WITH-FACET's default */
  if (lua_isnoneornil(L, idx)) return d;
  if (lua_type(L, idx) != LUA_TSTRING || gm_direction_parse(lua_tostring(L, idx), &d) != 0)
    gml_argerror(L, arg, fn, "direction must be \"input\", \"output\" or \"io\", got %s",
                 lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : luaL_typename(L, idx));
  return d;
}

static void check_function(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) != LUA_TFUNCTION)
    gml_argerror(L, idx, fn, "function expected, got %s", luaL_typename(L, idx));
}

/* ---- scoped access: a userdata holding a gm_access (core/model/access.h) ---- */

static gm_access *new_access(lua_State *L, int n) {
  gm_access *a = lua_newuserdatauv(L, gm_access_size(n), 0);
  gm_access_init(a, n);
  luaL_setmetatable(L, ACCESS_MT);
  return a;
}

static int l_access_close(lua_State *L) {
  gm_access_release(gml_checkudata(L, 1, ACCESS_MT, "__close"));
  return 0;
}
static int l_access_gc(lua_State *L) {
  gm_access_release(gml_checkudata(L, 1, ACCESS_MT, "__gc"));
  return 0;
}

/* Watches every entry (all or none) and pushes their pointers. */
static int watch_all(lua_State *L, gm_access *a, const char *fn) {
  void *ptrs[GM_ACCESS_MAX];
  luaL_checkstack(L, a->n + 2, fn);
  GML_TRY(L, gm_access_watch_all(a, ptrs), fn);
  for (int i = 0; i < a->n; i++) lua_pushlightuserdata(L, ptrs[i]);
  return a->n + 1;
}

/* core.watch_facet(m, name, direction, fn) -> access, pointer */
static int l_watch_facet(lua_State *L) {
  const char *fn = "with_facet";
  gm_facet_name f = check_facet_name(L, 2, 2, fn);
  gm_direction dir = check_direction(L, 3, 3, fn);
  check_function(L, 4, fn);
  struct gm_device *dev; /* raises before any facet is touched */
  GML_TRY(L, gm_access_device(f, &dev), fn);
  gm_access *a = new_access(L, 1); /* allocated before m is taken */
  GML_TRY(L, gm_access_add(a, gml_checkmat(L, 1, fn), f, dir, dev), fn);
  return watch_all(L, a, fn);
}

/* A bad spec value for a message: strings and numbers as they are, other
 * values by type name (no __tostring: it would run Lua code). */
static const char *spec_text(lua_State *L, int idx) {
  int t = lua_type(L, idx);
  if (t == LUA_TSTRING || t == LUA_TNUMBER) {
    lua_pushvalue(L, idx);
    return lua_tostring(L, -1);
  }
  return luaL_typename(L, idx);
}

/* Checks spec i of with_facets (pushed at the top) and adds it to a. */
static void add_spec(lua_State *L, gm_access *a, int i, const char *fn) {
  int s = lua_gettop(L);
  if (!lua_istable(L, s)) gml_argerror(L, 1, fn, "spec %d must be a table {mat, name, direction}", i);
  /* every entry is read (metamethods may run) before the mat is taken */
  lua_geti(L, s, 1);
  lua_geti(L, s, 2);
  lua_geti(L, s, 3);
  gm_facet_name f;
  if (lua_type(L, s + 2) != LUA_TSTRING || gm_facet_parse(lua_tostring(L, s + 2), &f) != 0)
    gml_argerror(L, 1, fn, "spec %d: bad facet name %s", i, spec_text(L, s + 2));
  gm_direction dir = GM_IO;
  if (!lua_isnil(L, s + 3) && (lua_type(L, s + 3) != LUA_TSTRING || gm_direction_parse(lua_tostring(L, s + 3), &dir) != 0))
    gml_argerror(L, 1, fn, "spec %d: bad direction %s", i, spec_text(L, s + 3));
  struct gm_device *dev; /* raises before any facet is touched */
  GML_TRY(L, gm_access_device(f, &dev), fn);
  gml_mat *box = gml_testbox(L, s + 1);
  if (!box) gml_argerror(L, 1, fn, "spec %d: gpumat.mat expected, got %s", i, luaL_typename(L, s + 1));
  if (!box->m) gml_argerror(L, 1, fn, "spec %d: attempt to use a freed mat", i);
  GML_TRY(L, gm_access_add(a, box->m, f, dir, dev), fn); /* copies the view, references the vec */
  lua_settop(L, s - 1);
}

/* core.watch_facets(specs, fn) -> access, pointer1, pointer2, ... */
static int l_watch_facets(lua_State *L) {
  const char *fn = "with_facets";
  if (!lua_istable(L, 1)) gml_argerror(L, 1, fn, "table of specs expected, got %s", luaL_typename(L, 1));
  check_function(L, 2, fn);
  lua_Integer n = luaL_len(L, 1);
  if (n > GM_ACCESS_MAX) gml_argerror(L, 1, fn, "too many specs (%lld)", (long long)n);
  gm_access *a = new_access(L, (int)n);
  int ai = lua_gettop(L);
  for (int i = 1; i <= (int)n; i++) {
    lua_geti(L, 1, i);
    add_spec(L, a, i, fn);
  }
  lua_settop(L, ai);
  return watch_all(L, a, fn);
}

/* ---- inspection ---- */

static int l_facets(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "facets");
  char letters[8];
  gm_vec_facet_letters(m->vec, letters, sizeof letters);
  lua_pushstring(L, letters);
  return 1;
}

static int l_find_facet(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "find_facet");
  gm_facet_name f = check_facet_name(L, 2, 2, "find_facet");
  gm_facet info;
  if (!gm_vec_facet_info(m->vec, f, &info)) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 5);
  lua_pushstring(L, gm_facet_name_str(f));
  lua_setfield(L, -2, "name");
  lua_pushboolean(L, info.up_to_date);
  lua_setfield(L, -2, "up_to_date");
  lua_pushinteger(L, info.n_watchers);
  lua_setfield(L, -2, "n_watchers");
  lua_pushstring(L, gm_direction_str(info.direction));
  lua_setfield(L, -2, "direction");
  lua_pushinteger(L, info.n_references);
  lua_setfield(L, -2, "n_references");
  return 1;
}

static int l_synchronization(lua_State *L) {
  gm_sync s = gml_checkmat(L, 1, "synchronization")->vec->synchronization;
  if (s == GM_SYNC_MAYBE)
    lua_pushliteral(L, "maybe");
  else
    lua_pushboolean(L, s == GM_SYNC_TRUE);
  return 1;
}

/* ---- lifetime ---- */

static int l_destroy_facet(lua_State *L) {
  gm_facet_name f = check_facet_name(L, 2, 2, "destroy_facet");
  gm_mat *m = gml_checkmat_shapable(L, 1, "destroy_facet");
  bool destroyed;
  GML_TRY(L, gm_vec_destroy_facet(m->vec, f, false, &destroyed), "destroy_facet");
  lua_pushboolean(L, destroyed);
  return 1;
}

static int l_destroy(lua_State *L) {
  gm_mat *m = gml_checkmat_shapable(L, 1, "destroy");
  GML_TRY(L, gm_vec_destroy_all(m->vec), "destroy");
  return 0;
}

static int l_add_facet_reference(lua_State *L) {
  const char *fn = "add_facet_reference";
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_facet_name f = check_facet_name(L, 2, 2, fn);
  struct gm_device *dev; /* raises before any facet is touched */
  GML_TRY(L, gm_access_device(f, &dev), fn);
  GML_TRY(L, gm_vec_add_facet_reference(m->vec, f, dev), fn);
  return 0;
}

static int l_remove_facet_reference(lua_State *L) {
  const char *fn = "remove_facet_reference";
  gm_facet_name f = check_facet_name(L, 2, 2, fn);
  gm_mat *m = gml_checkmat_shapable(L, 1, fn);
  GML_TRY(L, gm_vec_remove_facet_reference(m->vec, f), fn);
  return 0;
}

/* ---- barriers ---- */

/* Facet-name list option at opts[key] as a bit mask. */
static unsigned facet_mask(lua_State *L, const char *key, const char *fn) {
  unsigned mask = 0;
  if (!gml_opt_push(L, 1, key)) return 0;
  if (!lua_istable(L, -1)) gml_argerror(L, 1, fn, "option '%s' must be a list of facet names", key);
  lua_Integer n = luaL_len(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, -1, i);
    gm_facet_name f;
    if (lua_type(L, -1) != LUA_TSTRING || gm_facet_parse(lua_tostring(L, -1), &f) != 0)
      gml_argerror(L, 1, fn, "option '%s': bad facet name %s", key, spec_text(L, -1));
    mask |= GM_FACET_BIT(f);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return mask;
}

/* core.push_facet_barrier({ensures, destroys}, fn) -> barrier */
static int l_push_facet_barrier(lua_State *L) {
  const char *fn = "with_facet_barrier";
  static const char *const opts[] = {"ensures", "destroys", NULL};
  gml_check_options(L, 1, fn, opts);
  unsigned ensures = facet_mask(L, "ensures", fn);
  unsigned destroys = facet_mask(L, "destroys", fn);
  check_function(L, 2, fn);
  gm_barrier *b = lua_newuserdatauv(L, sizeof *b, 0);
  *b = (gm_barrier){0}; /* a barrier never pushed pops and abandons as a no-op */
  luaL_setmetatable(L, BARRIER_MT);
  gm_barrier_push(b, ensures, destroys);
  return 1;
}

/* __close(b, err): pops (ensures, then destroys; once).  A failing pop
 * raises only when fn did not already raise, so fn's error is never
 * replaced. */
static int l_barrier_close(lua_State *L) {
  gm_status st = gm_barrier_pop(gml_checkudata(L, 1, BARRIER_MT, "__close"));
  if (st != GM_OK && lua_isnoneornil(L, 2)) return gml_raise(L, st, "with_facet_barrier");
  return 0;
}

/* __gc: a barrier never closed (e.g. an abandoned coroutine) is unlinked
 * without device work, as finalizers must not call into the device. */
static int l_barrier_gc(lua_State *L) {
  gm_barrier_abandon(gml_checkudata(L, 1, BARRIER_MT, "__gc"));
  return 0;
}

static int l_count_barred_facets(lua_State *L) {
  gm_facet_name f = check_facet_name(L, 1, 1, "count_barred_facets");
  lua_pushinteger(L, (lua_Integer)gm_barrier_count(f));
  return 1;
}

static void new_metatable(lua_State *L, const char *name, const gml_reg *meta) {
  luaL_newmetatable(L, name);
  gml_register(L, -1, meta);
  lua_pop(L, 1);
}

void gml_open_facet(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"watch_facet", l_watch_facet, 4, NULL},
      {"watch_facets", l_watch_facets, 2, NULL},
      {"facets", l_facets, 1, NULL},
      {"find_facet", l_find_facet, 2, NULL},
      {"synchronization", l_synchronization, 1, NULL},
      {"destroy_facet", l_destroy_facet, 2, NULL},
      {"destroy", l_destroy, 1, NULL},
      {"add_facet_reference", l_add_facet_reference, 2, NULL},
      {"remove_facet_reference", l_remove_facet_reference, 2, NULL},
      {"push_facet_barrier", l_push_facet_barrier, 2, NULL},
      {"count_barred_facets", l_count_barred_facets, 1, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
  static const gml_reg access_meta[] = {{"__close", l_access_close, 2, NULL}, {"__gc", l_access_gc, 1, NULL},
                                        {NULL, NULL, 0, NULL}};
  static const gml_reg barrier_meta[] = {{"__close", l_barrier_close, 2, NULL}, {"__gc", l_barrier_gc, 1, NULL},
                                         {NULL, NULL, 0, NULL}};
  new_metatable(L, ACCESS_MT, access_meta);
  new_metatable(L, BARRIER_MT, barrier_meta);
}
